"""Numeric functions of the primitive pieces of a system, generated once with CSE.

Only the primitives are derived symbolically — A, M, d, f (split as f0 + F_lambda lambda), Phi,
Phi_p, C, the velocity-free term c = [Phi_t; c_nh], xi = d(C v + c)/dt - C v' (every partial
derivative in t included, see System.c), and for the embedding g, g_q, A_q and the second-order term
of p'' —
and turned into numpy functions by ``sympy.lambdify(..., cse=True)``. Products such as D^T M D and
every solve are numeric at run time (no symbolic inversion on the simulation path).

All generated functions take packed float arrays: ``(t, p, v, params)`` or a subset, and return
numpy arrays of fixed shape. Two backends make them: ``numpy`` (lambdify, no compile step) and
``compiled`` (CSE'd source compiled by numba and cached on disk, systems.numeric.codegen); both give the
same numbers to round-off.
"""
from __future__ import annotations

import functools
import inspect
import linecache
import threading
import time
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np
import sympy as sp

from .stored import stored_source
from .codegen import structural_nonzero

_CACHE: dict = {}
_HASHES: dict = {}  # structure key -> structure_hash
_LOCK = threading.Lock()


class _lazy:
    """A function generated on its first call (for pieces only some formulations use)."""

    def __init__(self, make):
        self._make, self._made = make, None

    def _function(self):
        if self._made is None:
            self._made = self._make()
        return self._made

    def __call__(self, *a):
        return self._function()(*a)

    @property
    def kernel(self):
        """The compiled kernel behind the function (backend "compiled"), made now if need be."""
        return getattr(self._function(), "kernel", None)


def _flat(args, exprs, shapes, key=None):
    """One generated function returning every entry of ``exprs`` in a flat array, split into
    views of the given shapes (one array construction per call, whatever the number of outputs).
    Entries that are numbers (the structural zeros of M, C, F_lambda ...) are written once into a
    template that each call copies; only the others are computed (turning a long Python list of
    mostly zeros into an array costs more than evaluating the expressions). With a ``key`` the
    function's source is kept in the cache folder for the next process (systems.numeric.stored)."""
    entries = [e for m in exprs for e in (m if isinstance(m, sp.MatrixBase) else [m])]
    is_number = [sp.sympify(e).is_Number for e in entries]
    computed = [i for i, number in enumerate(is_number) if not number]
    template = np.array([float(e) if number else 0.0 for e, number in zip(entries, is_number)], dtype=float)
    index = np.array(computed, dtype=np.intp)
    fn = _lambdified(args, [entries[i] for i in computed], key) if computed else None
    sizes = [int(np.prod(s)) for s in shapes]
    bounds = np.cumsum([0] + sizes).tolist()
    pieces = [(slice(lo, hi), tuple(s)) for lo, hi, s in zip(bounds[:-1], bounds[1:], shapes)]

    def call(*a):
        flat = template.copy()
        if fn is not None:
            flat[index] = fn(*a)
        return [flat[sl] if len(sh) == 1 else flat[sl].reshape(sh) for sl, sh in pieces]

    call.nonzero = structural_nonzero(entries)
    call.lambdified = fn
    return call


@functools.lru_cache(maxsize=1)
def _numpy_namespace() -> dict:
    """The names sympy's lambdify gives the numpy code it writes (numpy's functions, nan, select ...)."""
    return dict(sp.lambdify([], 0, modules="numpy").__globals__)


def _lambdified(args, entries, key):
    """lambdify(args, entries, modules="numpy", cse=True), its source read from the cache folder
    where a process stored it under ``key`` (and stored where not). A function that needs a name the
    plain numpy namespace does not give is made anew in every process."""
    if key is None:
        return sp.lambdify(args, entries, modules="numpy", cse=True)
    made = []

    def write():
        fn = sp.lambdify(args, entries, modules="numpy", cse=True)
        made.append(fn)
        if not _storable(fn):
            raise _Unstorable
        return inspect.getsource(fn)

    try:
        source = stored_source(key, write)
    except _Unstorable:
        return made[0]
    if made:
        return made[0]
    found, filename = {}, f"<stored lambdified {key}>"
    exec(compile(source, filename, "exec"), dict(_numpy_namespace()), found)
    # as lambdify does: the source is where tracebacks and inspect look for it
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return found["_lambdifygenerated"]


class _Unstorable(Exception):
    """A lambdified function whose source does not run in the plain numpy namespace."""


def _storable(fn) -> bool:
    """True where every name the lambdified ``fn`` uses is the plain numpy namespace's."""
    namespace = _numpy_namespace()
    return all(namespace.get(name, namespace) is fn.__globals__.get(name) for name in fn.__code__.co_names)


def store_sources(system):
    """Keep the sources of the numpy functions this process has made for ``system``, a catalogue
    system built here (its validation made them before it had its stored key), for the next process."""
    key = getattr(system, "stored_as", None)
    model = _CACHE.get(("numpy", _structure_key(system)))
    if key is None or model is None:
        return
    for field in fields(model):
        function = getattr(model, field.name)
        fn = getattr(function._made if isinstance(function, _lazy) else function, "lambdified", None)
        if fn is None or not _storable(fn):
            continue
        try:
            source = inspect.getsource(fn)
        except OSError:  # its source is gone from linecache: the next process makes it again
            continue
        stored_source(f"{key}-{field.name.lstrip('_')}", lambda: source)


class Dynamics(NamedTuple):
    """The dynamics pieces of one state (t, p, v): M (n, n), d (n,), f0 (n,), F (n, c) with
    f = f0 + F lambda, C (c, n), xi (c,) with C v' + xi = 0 the rows at acceleration level, A (n_p, n)
    and pdd2 (n_p,), the part of p'' that does not involve v' (see NumericModel.dynamics)."""

    M: np.ndarray
    d: np.ndarray
    f0: np.ndarray
    F: np.ndarray
    C: np.ndarray
    xi: np.ndarray
    A: np.ndarray
    pdd2: np.ndarray


@dataclass(frozen=True)
class NumericModel:
    """Compiled primitives of one system structure (independent of parameter values)."""

    n_p: int
    n_v: int
    m: int
    c: int
    _dynamics: object
    _constraints: object
    _kinematics: object
    _energy: object
    _embedding: object
    _embedding_acc: object
    _inverse: object
    _chart: object
    _holonomic_chart: object
    compile_seconds: float = 0.0  # time spent deriving the primitives' derivatives and lambdifying

    def dynamics(self, t, p, v, params) -> Dynamics:
        """The named pieces (M (n,n), d (n,), f0 (n,), F_lambda (n,c), C (c,n), xi (c,), A (n_p,n),
        pdd2 (n_p,)), a Dynamics record (a tuple in this order).

        f = f0 + F_lambda lambda; xi = (d/dp (C v + c)) A v + d/dt (C v + c), so that the
        acceleration-level rows read C v' + xi = 0 (c the velocity-free term, see ``c_term``);
        pdd2 = (d/dp (A v)) A v, the part of p'' that does not involve v'.
        """
        return Dynamics(*self._dynamics(t, p, v, params))

    def constraints(self, p, params, t=0.0):
        """(Phi (m,), Phi_p (m, n_p), C (c, n)) at time t (s; only rheonomic rows depend on it)."""
        return self._constraints(p, params, t)[:3]

    def constraint_terms(self, p, params, t=0.0):
        """(Phi (m,), Phi_p (m, n_p), C (c, n), c (c,)) at time t: the velocity-level rows are
        C v + c = 0 with c = [Phi_t; c_nh]."""
        return self._constraints(p, params, t)

    def Phi(self, p, params, t=0.0):
        return self._constraints(p, params, t)[0]

    def C(self, p, params, t=0.0):
        return self._constraints(p, params, t)[2]

    def c_term(self, p, params, t=0.0):
        """The velocity-free term c = [Phi_t; c_nh] (c,) of the velocity-level rows C v + c = 0."""
        return self._constraints(p, params, t)[3]

    def A(self, p, params):
        return self._kinematics(p, params)[0]

    def energy(self, p, v, params):
        return self._energy(p, v, params)[0][0]

    def embedding(self, q, params, t=0.0):
        """(g (n_p,), g_q (n_p, k_q), A_q (k_q, k)) at time t."""
        if self._embedding is None:
            raise ValueError("this system has no embedding p = g(q)")
        return self._embedding(q, params, t)[:3]

    def embedding_rate(self, q, params, t=0.0):
        """g_t (n_p,): the motion of p = g(q, t) at fixed q (zero for a fixed embedding)."""
        if self._embedding is None:
            raise ValueError("this system has no embedding p = g(q)")
        return self._embedding(q, params, t)[3]

    def chart(self, q, params, t=0.0):
        """(g (n_p,), g_q A_q (n_p, k), A_q (k_q, k), A(g(q)) (n_p, n), C(g(q)) (m + l, n)) in one call."""
        if self._chart is None:
            raise ValueError("this system has no embedding p = g(q)")
        return self._chart(q, params, t)

    def holonomic_chart(self, p, pdot, params, t=0.0):
        """(Phi_a (m_a,), Phi_a_p (m_a, n_p), (d/dp (Phi_a_p p')) p' + 2 Phi_a_pt p' + Phi_a_tt (m_a,)) at
        time t for the chart constraints Phi_a = [Phi; (|e|^2 - 1) / 2 per Euler-parameter block]."""
        return self._holonomic_chart(p, pdot, params, t)

    def embedding_acceleration(self, q, w, params, t=0.0):
        """(d/dq (g_q A_q w + g_t)) A_q w + d/dt (g_q A_q w + g_t), shape (n_p,): the part of p''
        that does not involve w' (the terms in t vanish for a fixed embedding)."""
        return self._embedding_acc(q, w, params, t)[0]

    def inverse(self, p, params, t=0.0):
        """q = h(p, t), shape (k_q,)."""
        return self._inverse(p, params, t)[0]

    def nonzero(self, piece: str) -> frozenset:
        """The flat indices of ``piece``'s output that are not identically zero (its structural
        pattern, the same on both backends)."""
        function = getattr(self, f"_{piece}")
        return (function._function() if isinstance(function, _lazy) else function).nonzero

    def kernel(self, piece: str):
        """The numba kernel behind ``piece`` ("dynamics", "constraints", "energy", ...) of a compiled
        model: kernel(*args, out) writing the piece's flat entries (systems.numeric.codegen)."""
        kernel = getattr(getattr(self, f"_{piece}", None), "kernel", None)
        if kernel is None:
            raise ValueError(f"piece {piece!r} has no compiled kernel: expected backend 'compiled'")
        return kernel


def _structure_key(system):
    emb = system.embedding
    emb_key = None if emb is None else (emb.coordinates, emb.velocities, emb.g, emb.inverse, emb.A_q)
    return (system.coordinates, system.velocities, system.A, system.M, system.d, system.f, system.Phi,
            system.C_nh, system.c_nh, system.potential, tuple(p.symbol for p in system.parameters),
            system.multipliers, emb_key)


BACKENDS = ("numpy", "compiled")


def structure_hash(system) -> str:
    """A short hash of the system's symbolic structure (what its generated code depends on)."""
    import hashlib

    key = _structure_key(system)
    digest = _HASHES.get(key)
    if digest is None:  # the repr of a large system's expressions takes a while: once per structure
        digest = _HASHES[key] = hashlib.sha256(repr(key).encode()).hexdigest()[:20]
    return digest


def compile_system(system, backend: str = "numpy") -> NumericModel:
    """The NumericModel of ``system`` for ``backend`` ("numpy" or "compiled"), generated once per
    symbolic structure and cached."""
    if backend not in BACKENDS:
        raise ValueError(f"backend got {backend!r} but expected one of: {', '.join(BACKENDS)}")
    key = (backend, _structure_key(system))
    with _LOCK:
        model = _CACHE.get(key)
        if model is None:
            started = time.perf_counter()
            model = _build(system, backend)
            object.__setattr__(model, "compile_seconds", time.perf_counter() - started)
            _CACHE[key] = model
    return model


def _maker(backend, system):
    """flat(name, groups, exprs, shapes): the backend's generator of one function (see _flat)."""
    if backend == "numpy":
        # a catalogue system's functions are kept with its stored build (systems.numeric.stored); the
        # others' are made in every process
        stored = getattr(system, "stored_as", None)
        return lambda name, groups, exprs, shapes: _flat([s for _, s in groups], exprs, shapes,
                                                         stored and f"{stored}-{name}")
    from .codegen import flat_kernel, require_numba

    require_numba()
    return flat_kernel


def _build(system, backend="numpy") -> NumericModel:
    make = _maker(backend, system)
    p = list(system.coordinates)
    v = list(system.velocities)
    params = [par.symbol for par in system.parameters]
    t = system.time
    n_p, n_v, m = len(p), len(v), system.m
    c = m + system.l
    vcol = sp.Matrix(v)

    A = sp.Matrix(system.A)
    C = sp.Matrix(system.C)
    c_free = sp.Matrix(system.c)
    F_lam, f0, xi = sp.Matrix(system.F_lambda), sp.Matrix(system.f0), sp.Matrix(system.xi)
    pdot = A * vcol
    pdd2 = pdot.jacobian(p) * pdot

    dynamics = make("dynamics", [("t", t), ("p", p), ("v", v), ("params", params)],
                    [sp.Matrix(system.M), sp.Matrix(system.d), f0, F_lam, C, xi, A, pdd2],
                    [(n_v, n_v), (n_v,), (n_v,), (n_v, c), (c, n_v), (c,), (n_p, n_v), (n_p,)])

    Phi = sp.Matrix(system.Phi)
    Phi_p = sp.Matrix(system.Phi_p)
    constraints = make("constraints", [("p", p), ("params", params), ("t", t)], [Phi, Phi_p, C, c_free],
                       [(m,), (m, n_p), (c, n_v), (c,)])
    kinematics = make("kinematics", [("p", p), ("params", params)], [A], [(n_p, n_v)])
    energy = make("energy", [("p", p), ("v", v), ("params", params)], [sp.Matrix([system.energy_expression])], [(1,)])

    emb = system.embedding
    embedding = embedding_acc = inverse = chart = None
    if emb is not None:
        q = list(emb.coordinates)
        w = list(emb.velocities)
        k_q, k = len(q), len(w)
        g = sp.Matrix(emb.g)
        g_q = g.jacobian(q)
        g_t = g.diff(t)
        A_q = sp.Matrix(emb.A_q)
        embedding = make("embedding", [("q", q), ("params", params), ("t", t)], [g, g_q, A_q, g_t],
                         [(n_p,), (n_p, k_q), (k_q, k), (n_p,)])
        on_g = dict(zip(p, g))
        chart = _lazy(lambda: make("chart", [("q", q), ("params", params), ("t", t)],
                                   [g, g_q * A_q, A_q, A.subs(on_g), C.subs(on_g)],
                                   [(n_p,), (n_p, k), (k_q, k), (n_p, n_v), (c, n_v)]))
        qdot = A_q * sp.Matrix(w)
        pdot_q = g_q * qdot + g_t
        embedding_acc = _lazy(lambda: make("embedding_acc", [("q", q), ("w", w), ("params", params), ("t", t)],
                                           [pdot_q.jacobian(q) * qdot + pdot_q.diff(t)], [(n_p,)]))
        inverse = make("inverse", [("p", p), ("params", params), ("t", t)], [sp.Matrix(emb.inverse)], [(k_q,)])

    # the holonomic set of the tangent-space charts: Phi and the unit norm of every Euler-parameter block
    norms = [(sum(p[i] ** 2 for i in block) - 1) / 2 for block in system.unit_norm_blocks]
    Phi_a = sp.Matrix(list(Phi) + norms)
    m_a = Phi_a.shape[0]
    pdot_syms = sp.symbols(f"pdot_0:{n_p}", real=True)
    Phi_a_p = Phi_a.jacobian(p) if m_a else sp.zeros(0, n_p)
    holonomic_chart = _lazy(lambda: make(
        "holonomic_chart", [("p", p), ("pdot", list(pdot_syms)), ("params", params), ("t", t)],
        [Phi_a, Phi_a_p, _second_rate(Phi_a, Phi_a_p, p, pdot_syms, t) if m_a else Phi_a],
        [(m_a,), (m_a, n_p), (m_a,)]))
    return NumericModel(n_p, n_v, m, c, dynamics, constraints, kinematics, energy, embedding,
                        embedding_acc, inverse, chart, holonomic_chart)


def _second_rate(Phi_a, Phi_a_p, p, pdot, t):
    """The part of d^2/dt^2 Phi_a(p(t), t) that does not involve p'' (m_a,):
    (d/dp (Phi_a_p p')) p' + 2 Phi_a_pt p' + Phi_a_tt (the terms in t vanish for fixed constraints)."""
    rate = Phi_a_p * sp.Matrix(pdot)
    return rate.jacobian(p) * sp.Matrix(pdot) + 2 * rate.diff(t) + Phi_a.diff(t, 2)

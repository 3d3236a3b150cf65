"""Exact first derivatives of the primitive pieces, for linearization (formulations.linearization.linearize).

With a = v' and lambda as free symbols, the dynamics of a system are the residuals

    R(p, v, a, lambda, t) = M a + d - f + C^T lambda   (n,)     [f may depend on lambda]
    S(p, v, a, t)         = C a + xi                    (m + l,) [xi = (d/dp (C v + c)) A v + d/dt (C v + c)]

and the kinematics rho(p, v) = A v (n_p,). This module derives, once per system structure, their
Jacobians with respect to z = (p, v) and the parameters, the tangent of the constraint set,
d/dp (C v + c), and the Jacobians of the maps from (p, v) to a formulation's own state (q = h(p) and
w = h_p A v through the embedding, w = V^T A v on a tangent-space chart) together with their
second derivatives contracted with a vector phi (symbols), which the linearization about a steady
motion needs (formulations.linearization.linearize). Every piece is a sympy matrix (for method="symbolic")
and a function lambdified with common-subexpression elimination that takes the parameters as
run-time arguments, so new parameter values cost no new derivation.
"""
from __future__ import annotations

import threading
from functools import cached_property

import numpy as np
import sympy as sp

from systems.numeric.model import _structure_key

_CACHE: dict = {}
_LOCK = threading.Lock()


def _no_delta(expr):
    """Derivatives of sign() and Heaviside() are zero away from their jump (where they are used)."""
    return expr.replace(sp.DiracDelta, lambda *args: sp.S.Zero)


def _jacobian(column: sp.Matrix, symbols) -> sp.Matrix:
    """d column / d symbols, (len(column), len(symbols)): differentiated by symengine where it is
    installed (extra 'fast'; the same derivatives, tens of times faster on large systems such as the
    bicycle), else by sympy."""
    if column.shape[0] == 0 or not symbols:
        return sp.zeros(column.shape[0], len(symbols))
    fast = _symengine_jacobian(column, symbols)
    return (fast if fast is not None else column.jacobian(list(symbols))).applyfunc(_no_delta)


def _done(expr):
    """Derivatives that symengine leaves unevaluated (of sign, Heaviside) worked out by sympy."""
    return expr.replace(lambda a: isinstance(a, sp.Derivative), lambda a: a.doit()) if expr.has(sp.Derivative) else expr


def _symengine_jacobian(column, symbols):
    """The Jacobian through symengine, back in sympy; None where symengine is absent or cannot take an
    expression (a function it does not know), so that sympy differentiates instead."""
    try:
        import symengine as se
    except ImportError:
        return None
    try:
        J = se.Matrix([[se.sympify(e)] for e in column]).jacobian(se.Matrix([se.sympify(s) for s in symbols]))
        back = {sp.Symbol(s.name): s for s in column.free_symbols | set(symbols)}  # symengine drops assumptions
        return sp.Matrix(J.rows, J.cols, [_done(sp.sympify(e).xreplace(back)) for e in J])
    except (TypeError, ValueError, NotImplementedError, RuntimeError, AttributeError, sp.SympifyError):
        return None


class _Function:
    """A sympy matrix, derived by ``make`` on first use, and its lambdified function (made on first
    call); float arrays in and out. ``fast`` (optional) derives the same matrix in symengine, for the
    function only: then the sympy matrix is derived only where asked for (method="symbolic")."""

    def __init__(self, args, make, fast=None):
        self.args, self._make, self._matrix = args, make, None
        self._fn, self._fast = None, fast

    @property
    def matrix(self) -> sp.Matrix:
        if self._matrix is None:
            self._matrix = sp.Matrix(self._make())
        return self._matrix

    def __call__(self, *values):
        if self._fn is None:
            fast = self._fast() if self._fast is not None else None
            if fast is not None:
                self._shape, entries = fast.shape, list(fast)
                self._fn = _symengine_function(self.args, entries) if entries else None
            if self._fn is None and (fast is None or list(fast)):
                entries = list(self.matrix)
                self._shape = self.matrix.shape
                self._fn = (_symengine_function(self.args, entries) or
                            sp.lambdify(self.args, entries, modules="numpy", cse=True)) if entries else None
        shape = self._shape
        if self._fn is None:
            return np.zeros(shape)
        return np.array(self._fn(*values), dtype=float).reshape(shape)


def _symengine_function(args, entries):
    """f(*values) -> entries (flat) through symengine's Lambdify with common subexpressions (its
    arguments flattened: scalars and lists of symbols in the order of ``args``), or None where
    symengine is absent or cannot take an entry (then sympy's lambdify serves)."""
    try:
        import symengine as se
    except ImportError:
        return None
    flat = [s for a in args for s in (a if isinstance(a, (list, tuple)) else [a])]
    try:
        fn = se.Lambdify([se.sympify(s) for s in flat], [se.sympify(e) for e in entries], cse=True)
    except (TypeError, ValueError, NotImplementedError, RuntimeError, AttributeError):
        return None

    def call(*values):
        return fn(np.concatenate([np.atleast_1d(np.asarray(x, dtype=float)).ravel() for x in values]))

    return call


class LinearPieces:
    """The derivatives of one system structure (see the module docstring); made by ``pieces``.
    Each is derived when first used (the parameter Jacobian, for instance, only where there are
    inputs).

    Functions: dynamics (t, p, v, a, lam, params) -> [R_z; S_z] (n + m + l, n_p + n); dynamics_params
    -> [R_u; S_u] (n + m + l, parameters); tangent (p, v, params, t) -> d/dp (C v + c) (m + l, n_p);
    kinematics (p, v, params) -> d(A v)/dz (n_p, n_p + n); kinematics_second (p, v, params, phi) ->
    d/dz (d(A v)/dz phi); embedding (p, v, params) -> dY/dz for Y = (h(p), h_p A v); embedding_second
    (p, v, params, phi) -> d/dz (dY/dz phi).
    """

    def __init__(self, system):
        self.p = list(system.coordinates)
        self.v = list(system.velocities)
        self.z = self.p + self.v
        self.n_p, self.n = len(self.p), len(self.v)
        self.a = list(sp.symbols(f"a_0:{self.n}", real=True))
        self.lam = list(system.multipliers)
        self.t = system.time
        self.params = [par.symbol for par in system.parameters]
        self.phi = list(sp.symbols(f"phi_0:{self.n_p + self.n}", real=True))
        self.system = system
        self.rho = sp.Matrix(system.A) * sp.Matrix(self.v)
        phi = sp.Matrix(self.phi)
        pv, dyn = [self.p, self.v, self.params], [self.t, self.p, self.v, self.a, self.lam, self.params]
        fast = _FastResiduals(system, self) if _smooth(system) else _NoFast()
        self.dynamics = _Function(dyn, lambda: sp.Matrix.vstack(_jacobian(self.R, self.z), _jacobian(self.S, self.z)),
                                  fast.dynamics)
        self.dynamics_params = _Function(dyn, lambda: sp.Matrix.vstack(_jacobian(self.R, self.params),
                                                                       _jacobian(self.S, self.params)))
        self.tangent = _Function(pv + [self.t], lambda: _jacobian(self.rows, self.p), fast.tangent)
        self.kinematics = _Function(pv, lambda: _jacobian(self.rho, self.z), fast.kinematics)
        self.kinematics_second = _Function(pv + [self.phi], lambda: _jacobian(self.kinematics.matrix * phi, self.z))
        self.embedding = None
        emb = system.embedding
        if emb is not None and sp.Matrix(emb.A_q) == sp.eye(len(emb.coordinates)):
            # y = (q, w) = (h(p), h_p A v): its Jacobian Q and (d/dz (Q phi))
            h = sp.Matrix(emb.inverse)
            Y = sp.Matrix.vstack(h, _jacobian(h, self.p) * self.rho)
            self.embedding = _Function(pv, lambda: _jacobian(Y, self.z))
            self.embedding_second = _Function(pv + [self.phi], lambda: _jacobian(self.embedding.matrix * phi, self.z))


    @cached_property
    def rows(self) -> sp.Matrix:
        """C v + c (m + l, 1): the velocity-free term c of rheonomic and affine rows included."""
        return sp.Matrix(self.system.C) * sp.Matrix(self.v) + sp.Matrix(self.system.c)

    @cached_property
    def R(self) -> sp.Matrix:
        s = self.system
        C = sp.Matrix(s.C)
        return (sp.Matrix(s.M) * sp.Matrix(self.a) + sp.Matrix(s.d) - sp.Matrix(s.f)
                + (C.T * sp.Matrix(self.lam) if self.lam else sp.zeros(self.n, 1)))

    @cached_property
    def S(self) -> sp.Matrix:
        C = sp.Matrix(self.system.C)
        if not C.shape[0]:
            return sp.zeros(0, 1)
        return C * sp.Matrix(self.a) + self.rows.jacobian(self.p) * self.rho + self.rows.diff(self.t)


def _smooth(system) -> bool:
    """True where the dynamics hold no sign or Heaviside (whose derivatives symengine leaves
    unevaluated): then the numeric derivatives may be derived wholly in symengine."""
    pieces = (system.M, system.d, system.f, system.C, system.c)
    return not any(sp.Matrix(x).has(sp.sign, sp.Heaviside, sp.Abs, sp.Piecewise) for x in pieces)


class _NoFast:
    """No symengine path (a sign or Heaviside in the dynamics): every piece through sympy."""

    dynamics = tangent = kinematics = None


class _FastResiduals:
    """R, S, C v + c and A v of LinearPieces in symengine (converted on first use; each method None
    where symengine is absent), for the numeric Jacobians without a round trip through sympy."""

    def __init__(self, system, made):
        self.system, self.made = system, made

    @cached_property
    def _pieces(self):
        try:
            import symengine as se
        except ImportError:
            return None
        s, made = self.system, self.made

        def conv(x):
            return se.Matrix(sp.Matrix(x).tolist()) if len(x) else None

        z, p, v, a = (conv(x) for x in (made.z, made.p, made.v, made.a))
        rho = conv(s.A) * v
        R = conv(s.M) * a + conv(s.d) - conv(s.f)
        rows = S = None
        if made.lam:
            C = conv(s.C)
            R = R + C.T * conv(made.lam)
            rows = C * v + conv(s.c)
            S = C * a + rows.jacobian(p) * rho + rows.diff(se.sympify(made.t))
        return z, p, rho, R, rows, S

    def dynamics(self):
        if self._pieces is None:
            return None
        z, _, _, R, _, S = self._pieces
        return R.jacobian(z) if S is None else R.jacobian(z).col_join(S.jacobian(z))

    def tangent(self):
        if self._pieces is None or self._pieces[4] is None:
            return None
        _, p, _, _, rows, _ = self._pieces
        return rows.jacobian(p)

    def kinematics(self):
        if self._pieces is None:
            return None
        z, _, rho, _, _, _ = self._pieces
        return rho.jacobian(z)


def pieces(system) -> LinearPieces:
    """The LinearPieces of ``system``'s structure, derived once and cached (parameters are arguments)."""
    key = _structure_key(system)  # the symbolic pieces themselves (their hashes are cached by sympy)
    with _LOCK:
        made = _CACHE.get(key)
        if made is None:
            made = _CACHE[key] = LinearPieces(system)
    return made

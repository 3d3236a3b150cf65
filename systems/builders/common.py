"""Pieces shared by the builders: Pfaffian rows (affine in the velocities, possibly rheonomic) from
velocity expressions, named constraints."""
from __future__ import annotations

import time
import warnings
from contextlib import contextmanager
from typing import Iterable, Sequence

import sympy as sp

from ..errors import SystemDescriptionError


def pfaffian_matrix(rows: Sequence[sp.Expr], velocities: Sequence[sp.Symbol], system_name: str = "?"):
    """C_nh with C_nh v = rows, shape (l, n); rows must be linear and homogeneous in v (see
    ``affine_rows`` for rows with a velocity-free term)."""
    C_nh, c_nh = affine_rows(rows, velocities, system_name)
    bad = [f"nonholonomic row {i + 1} has a velocity-free term {e}; expected a row linear and homogeneous in "
           f"the velocities (the builders take affine rows)" for i, e in enumerate(c_nh) if e != 0]
    if bad:
        raise SystemDescriptionError(system_name, bad)
    return C_nh


def affine_rows(rows: Sequence[sp.Expr], velocities: Sequence[sp.Symbol], system_name: str = "?"):
    """(C_nh (l, n), c_nh (l, 1)) with rows = C_nh v + c_nh; rows must be affine in v (the
    velocity-free term c_nh may hold the coordinates, the parameters and the time symbol)."""
    v = list(velocities)
    problems = []
    out = sp.zeros(len(rows), len(v))
    free = sp.zeros(len(rows), 1)
    vset = set(v)
    for i, expr in enumerate(rows):
        expr = sp.sympify(expr)
        J = sp.Matrix([[expr.diff(s) for s in v]])
        if any(c.free_symbols & vset for c in J):  # coefficients free of v: the row is affine in v
            problems.append(f"nonholonomic row {i + 1} is not linear in the velocities, nor affine: {expr}")
            continue
        out[i, :] = J
        free[i, 0] = sp.expand(expr.subs({s: 0 for s in v}))
    if problems:
        raise SystemDescriptionError(system_name, problems)
    return sp.ImmutableMatrix(out), sp.ImmutableMatrix(free)


def split_constraints(holonomic: Iterable, nonholonomic: Iterable, system_name: str = "?"):
    """([(name, Phi_i)], [(name, row_i)]) -> (names, Phi list, row list); SystemDescriptionError
    naming every entry that is not a (str name, scalar expression) pair."""
    problems, out = [], []
    for kind, example, items in (("holonomic", "('ring force', x**2 + y**2 - 1)", holonomic),
                                 ("nonholonomic", "('lateral force', -sin(theta)*x_dot + cos(theta)*y_dot)",
                                  nonholonomic)):
        if isinstance(items, tuple) and len(items) == 2 and isinstance(items[0], str):
            problems.append(f"{kind} got one pair {items!r} but expected a list of (name, expression) pairs: "
                            f"[{example}]")
            out.append([])
            continue
        try:
            items = list(items)
        except TypeError:
            problems.append(f"{kind} got {items!r} but expected a list of (name, expression) pairs, e.g. [{example}]")
            out.append([])
            continue
        pairs = []
        for i, item in enumerate(items):
            if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str) and item[0]):
                problems.append(f"{kind} constraint {i + 1} got {item!r} but expected a (name, expression) pair whose "
                                f"name says which reaction the row carries, e.g. {example}")
                continue
            expr = sp.sympify(item[1])
            if isinstance(expr, sp.MatrixBase) or not isinstance(expr, sp.Expr):
                problems.append(f"{kind} constraint {item[0]!r} got {item[1]!r} but expected one scalar expression")
                continue
            pairs.append((item[0], expr))
        out.append(pairs)
    if problems:
        raise SystemDescriptionError(system_name, problems)
    holonomic, nonholonomic = out
    names = tuple(n for n, _ in holonomic) + tuple(n for n, _ in nonholonomic)
    return names, [e for _, e in holonomic], [e for _, e in nonholonomic]


def check_symbols(argument: str, symbols, system_name: str = "?") -> tuple:
    """``symbols`` as a tuple of sympy Symbols, or SystemDescriptionError naming the bad entries."""
    symbols = tuple(symbols)
    bad = [f"{argument}[{i}] got {s!r} ({type(s).__name__}) but expected a sympy Symbol, e.g. "
           f"sympy.symbols('x y', real=True)" for i, s in enumerate(symbols) if not isinstance(s, sp.Symbol)]
    if bad:
        raise SystemDescriptionError(system_name, bad)
    return symbols


def vector3(x, what="vector"):
    """``x`` as a sympy (3, 1) column, or ValueError naming ``what`` and the value."""
    try:
        m = sp.Matrix(x)
    except (TypeError, ValueError, sp.SympifyError):
        m = None
    if m is None or len(m) != 3:
        raise ValueError(f"{what} got {x!r} but expected 3 components")
    return m.reshape(3, 1)


def column(argument: str, value, length: int, what: str, system_name: str = "?"):
    """``value`` as a sympy column of ``length`` entries, or SystemDescriptionError naming the shape."""
    try:
        m = sp.Matrix(value) if not isinstance(value, sp.MatrixBase) else sp.Matrix(value)
    except (TypeError, ValueError, sp.SympifyError):
        m = None
    if m is None or not (m.shape == (length, 1) or m.shape == (1, length)):
        shape = None if m is None else m.shape
        raise SystemDescriptionError(system_name, [f"{argument} got {value!r} (shape {shape}) but expected "
                                                   f"{length} entries: {what}"])
    return m.reshape(length, 1)


def tidy(expr, simplify=True):
    """Cheap simplification of a builder output, entrywise: expand, then reduce sin(a)^2 to
    1 - cos(a)^2 for every angle a and expand again. This removes the sin^2 + cos^2 terms that
    products of rotation matrices create, in time linear in the expression (no search, unlike
    trigsimp), so that derivation time stays small."""
    if not simplify:
        return expr
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: tidy(e, simplify))
    e = sp.expand(expr)
    sines = e.atoms(sp.sin)
    if sines:
        e = sp.expand(e.subs({s**2: 1 - sp.cos(s.args[0]) ** 2 for s in sines}))
    return e


class SlowBuildWarning(UserWarning):
    """A build has run longer than its warning threshold; the message names its slowest steps."""


class BuildClock:
    """Times the named steps of a symbolic build. Once the build has run ``warn_after`` seconds,
    one SlowBuildWarning names the slowest steps so far (and the hint of any step that has one);
    ``seconds`` maps each step to its time."""

    def __init__(self, system_name: str, warn_after: float = 30.0):
        self.system_name, self.warn_after = system_name, warn_after
        self.seconds: dict = {}
        self.hints: dict = {}
        self.start = time.perf_counter()
        self.warned = False

    @contextmanager
    def step(self, name: str, hint: str = ""):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0
            if hint:
                self.hints[name] = hint
            self._check()

    def _check(self):
        elapsed = time.perf_counter() - self.start
        if self.warned or elapsed < self.warn_after:
            return
        self.warned = True
        slowest = sorted(self.seconds.items(), key=lambda kv: -kv[1])[:4]
        steps = "; ".join(f"{name} {sec:.1f} s" for name, sec in slowest)
        hints = " ".join(self.hints[name] for name, _ in slowest if name in self.hints)
        warnings.warn(f"building system {self.system_name!r} has taken {elapsed:.1f} s so far; slowest steps: {steps}."
                      + (f" {hints}" if hints else ""), SlowBuildWarning, stacklevel=4)


def contact_rows(holonomic, unilateral=(), friction=(), contacts=(), system_name: str = "?"):
    """(holonomic rows, contacts) with the builders' ``unilateral`` and ``friction`` declarations
    added (systems.contacts):

    unilateral: (name, gap) or (name, gap, restitution) per contact that may open, the gap g(p) >= 0
        open; it adds the holonomic row (name, -g), whose multiplier is the normal force (> 0 pushing);
    friction: (normal row, tangential rows, mu) per friction group; it adds the tangential rows and mu
        to the contact of that normal row (declared in ``unilateral`` or not).
    The contacts themselves are checked with the system (systems.contacts.check)."""
    from ..contacts import Contact

    problems, rows, found = [], list(holonomic), {}
    for i, item in enumerate(unilateral):
        if not (isinstance(item, (tuple, list)) and len(item) in (2, 3) and isinstance(item[0], str) and item[0]):
            problems.append(f"unilateral[{i}] got {item!r:.80} but expected (name, gap) or (name, gap, restitution), "
                            f"the gap an expression in p that is >= 0 where the contact is open, e.g. "
                            f"('normal force', z)")
            continue
        rows.append((item[0], -sp.sympify(item[1])))
        found[item[0]] = Contact(item[0], restitution=item[2] if len(item) == 3 else 0.0)
    for i, item in enumerate(friction):
        if not (isinstance(item, (tuple, list)) and len(item) == 3 and isinstance(item[0], str)):
            problems.append(f"friction[{i}] got {item!r:.80} but expected (normal row, tangential rows, mu), e.g. "
                            f"('normal force', ['friction x', 'friction y'], 'mu')")
            continue
        normal, tangential, mu = item
        base = found.get(normal, Contact(normal))
        found[normal] = Contact(normal, tuple([tangential] if isinstance(tangential, str) else tangential), mu,
                                base.restitution)
    if problems:
        raise SystemDescriptionError(system_name, problems)
    return rows, tuple(contacts) + tuple(found.values())

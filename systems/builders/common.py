"""Pieces shared by the builders: Pfaffian rows from velocity expressions, named constraints."""
from __future__ import annotations

from typing import Iterable, Sequence

import sympy as sp

from ..errors import SystemDescriptionError


def pfaffian_matrix(rows: Sequence[sp.Expr], velocities: Sequence[sp.Symbol], system_name: str = "?"):
    """C_nh with C_nh v = rows, shape (l, n); rows must be linear and homogeneous in v."""
    v = list(velocities)
    problems = []
    out = sp.zeros(len(rows), len(v))
    vset = set(v)
    for i, expr in enumerate(rows):
        expr = sp.sympify(expr)
        J = sp.Matrix([[expr.diff(s) for s in v]])
        if any(c.free_symbols & vset for c in J):  # coefficients free of v: the row is affine in v
            problems.append(f"nonholonomic row {i + 1} is not linear in the velocities: {expr}")
            continue
        rest = sp.expand(expr.subs({s: 0 for s in v}))  # affine and zero at v = 0: linear and homogeneous
        if rest != 0:
            problems.append(f"nonholonomic row {i + 1} has a velocity-free term {rest} (rheonomic rows are "
                            "not supported)")
            continue
        out[i, :] = J
    if problems:
        raise SystemDescriptionError(system_name, problems)
    return sp.ImmutableMatrix(out)


def split_constraints(holonomic: Iterable, nonholonomic: Iterable):
    """([(name, Phi_i)], [(name, row_i)]) -> (names, Phi list, row list)."""
    holonomic, nonholonomic = list(holonomic), list(nonholonomic)
    names = tuple(n for n, _ in holonomic) + tuple(n for n, _ in nonholonomic)
    return names, [e for _, e in holonomic], [e for _, e in nonholonomic]


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

"""The numeric phase of a system's constraint analysis, run before any symbolic step.

Every quantity here comes from the system's matrices lambdified once (C, A, the embedding) and
evaluated at the analysed point and at random consistent points: the rank of Phi_p and of C (so
redundant rows, where the rank is short at every point, are told from a singular configuration,
where it drops at one), the growth vector of ker C by brackets of numeric fields, and the
exactness and Frobenius values of each nonholonomic row (systems.analysis.numeric_fields).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..dependent_rows import independent_rows
from .numeric_fields import NumericGrowth, form_derivatives, matrix_function, row_residuals
from .pfaffian_rows import NUMERIC


@dataclass
class Ranks:
    """Ranks of Phi_p and C at the analysed point and their generic values (the largest over the
    random consistent points)."""

    jacobian: int | None = None
    jacobian_generic: int | None = None
    C: int | None = None
    C_generic: int | None = None
    points: int = 0

    @property
    def redundant_rows(self) -> bool:
        """Phi_p short of rank at every point: dependent rows, not a singular configuration."""
        return self.jacobian_generic is not None and self.jacobian == self.jacobian_generic

    def how(self, m) -> str:
        if self.jacobian is None:
            return ""
        generic = (f" and {self.jacobian_generic} at {self.points} random consistent points"
                   if self.jacobian_generic is not None else "")
        return f"{NUMERIC}: rank {self.jacobian} there{generic}"


def _time_at(point, system, timed):
    return {"t": float(point[-1])} if timed else {}


def ranks(system, p0, points, timed) -> Ranks:
    """Ranks of Phi_p and C at p0 and at ``points`` (each (n_p,), or (n_p + 1,) with the time)."""
    num, par = system.numeric, system.params
    out = Ranks(points=len(points))
    out.C = independent_rows(num.C(p0, par))[0]
    ranks_C = [independent_rows(num.C(z[:len(p0)], par, **_time_at(z, system, timed)))[0] for z in points]
    out.C_generic = max([out.C] + ranks_C)
    if system.m:
        out.jacobian = independent_rows(num.constraints(p0, par)[1])[0]
        found = [independent_rows(num.constraints(z[:len(p0)], par, **_time_at(z, system, timed))[1])[0]
                 for z in points]
        out.jacobian_generic = max([out.jacobian] + found) if found else None
    return out


def matrix_functions(P, C, A):
    """(C_fn, A_fn) over the symbols P (the system's parameters already substituted)."""
    return matrix_function(C, P), matrix_function(A, P)


def growth(C_fn, A_fn, points, nx, target, clock):
    """(growth vector, complete, number of base points, kept bracket words) of ker C mapped by A."""
    numeric = NumericGrowth(C_fn, A_fn, points, nx)
    if not numeric.points:
        return (), False, 0, []
    vector, complete, kept = numeric.grow(target, clock)
    return vector, complete, numeric.points, kept


def form_function(system, subs, C_fn, A_fn, timed):
    """(x, a_fn) of the nonholonomic rows as forms a(x) . dx (x = q with an embedding whose A_q is
    the identity, else p; the time last where the rows depend on it); a_fn(Z (b, len(x))) ->
    (b, l, len(x)); (None, None) where the rows have no such form (A not square)."""
    m, t = system.m, system.time
    emb = system.embedding
    if emb is not None and emb.A_q == sp.eye(len(emb.coordinates)):
        x = list(emb.coordinates) + ([t] if timed else [])
        g = sp.Matrix(emb.g).xreplace(subs)
        G = g.jacobian(x)
        if timed:
            G = G.col_join(sp.Matrix([[0] * (len(x) - 1) + [1]]))
        g_fn, G_fn = matrix_function(g, x), matrix_function(G, x)

        def a_fn(Z):
            p = g_fn(Z)[:, :, 0]
            PZ = np.column_stack([p, Z[:, -1]]) if timed else p
            return C_fn(PZ)[:, m:] @ np.linalg.solve(A_fn(PZ), G_fn(Z))

        return x, a_fn
    if sp.Matrix(system.A).shape[0] != sp.Matrix(system.A).shape[1]:
        return None, None
    x = list(system.coordinates) + ([t] if timed else [])

    def a_fn(Z):
        C, A = C_fn(Z)[:, m:], A_fn(Z)
        return np.swapaxes(np.linalg.solve(np.swapaxes(A, 1, 2), np.swapaxes(C, 1, 2)), 1, 2)

    return x, a_fn


def row_values(a_fn, sampler):
    """Per row (curl values, Frobenius values, scales) at the sampler's points."""
    a, Da = form_derivatives(a_fn, sampler.points, len(sampler.x))
    return row_residuals(a, Da)

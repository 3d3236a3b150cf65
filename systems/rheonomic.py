"""The time-dependent and affine parts of a constraint set (see systems.description).

Velocity level: C(p, t) v + c(p, t) = 0 with c = [Phi_t; c_nh]; a row is rheonomic where it depends
on the time symbol, affine where c_nh != 0. Such rows move the constraint manifold or the admissible
velocities, and their forces do work (systems.energy). For a holonomic row the acceleration term
xi = (d/dp (C v + c)) A v + d/dt (C v + c) holds Phi_tt and the mixed term Phi_pt A v twice (once from
d/dt of Phi_p A v, once from d/dp of Phi_t). A rheonomic embedding is p = g(q, t): p' = g_q A_q w + g_t,
so v = D w + d_0 with d_0 = A^+ g_t (formulations.coordinates.embedding).
"""
from __future__ import annotations

from functools import cached_property

import sympy as sp


class TimeDependence:
    """Phi_t, c, xi and the flags for anything with Phi, C, C_nh, c_nh, A, time, m and l (the System)."""

    @cached_property
    def Phi_t(self) -> sp.ImmutableMatrix:
        """Partial derivative of Phi in time, shape (m, 1) (zero for scleronomic rows)."""
        return sp.ImmutableMatrix(sp.Matrix(self.Phi).diff(self.time)) if self.m else sp.ImmutableMatrix(
            sp.zeros(0, 1))

    @cached_property
    def c(self) -> sp.ImmutableMatrix:
        """The velocity-free term of all rows, c = [Phi_t; c_nh], shape (m + l, 1): C v + c = 0."""
        return sp.ImmutableMatrix(sp.Matrix.vstack(sp.Matrix(self.Phi_t), sp.Matrix(self.c_nh)))

    @cached_property
    def xi(self) -> sp.ImmutableMatrix:
        """The acceleration term of all rows, shape (m + l, 1): C v' + xi = 0 with
        xi = (d/dp (C v + c)) A v + d/dt (C v + c), every partial derivative in t included."""
        if not self.C.shape[0]:
            return sp.ImmutableMatrix(sp.zeros(0, 1))
        v = sp.Matrix(self.velocities)
        rows = sp.Matrix(self.C) * v + sp.Matrix(self.c)
        return sp.ImmutableMatrix(rows.jacobian(self.coordinates) * sp.Matrix(self.A) * v + rows.diff(self.time))

    @cached_property
    def is_rheonomic(self) -> bool:
        """True where a constraint row depends on time or has a velocity-free term (c != 0): the
        constraint forces may then do work, and the constraint manifold moves."""
        return any(e != 0 for e in self.c) or self.time in (self.Phi.free_symbols | self.C_nh.free_symbols)

    @cached_property
    def has_moving_holonomic(self) -> bool:
        """True where a holonomic constraint depends on time (the configuration manifold moves)."""
        return self.time in self.Phi.free_symbols

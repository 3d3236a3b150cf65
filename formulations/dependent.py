"""Formulation 1, dependent variables: states (p, v), multipliers for every constraint.

    p' = A v,   [[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]
Baumgarte replaces -xi by -xi - 2 alpha C v - beta^2 [Phi; 0]; Projection moves (p, v) back onto
the constraint manifold after every accepted step (Blajer 2002).
"""
from __future__ import annotations

import numpy as np

from systems.state import project_positions, project_velocities, renormalize

from .base import Formulation, register
from .equations import Equations, primitive_pieces
from .linear import solve_accelerations
from .stabilization import Baumgarte


@register
class Dependent(Formulation):
    name = "dependent"
    numeric_form = "explicit ODE in (p, v); v' and lambda from the augmented (saddle-point) system each evaluation"
    stabilizations = ("none", "baumgarte", "projection")

    def state_names(self):
        return self.system.coordinate_names + self.system.velocity_names

    def initial_state(self, p, v):
        return np.concatenate([p, v])

    def dependent_state(self, y):
        n_p = len(self.system.coordinates)
        return renormalize(self.system, y[:n_p]) if self.system.unit_norm_blocks else y[:n_p], y[n_p:]

    def _evaluate(self, t, y, multipliers=True):
        p, v = self.dependent_state(y)
        p, (M, d, f0, F, C, xi, A, _) = self._dynamics(t, p, v)
        b = -xi
        stab = self.stabilization
        if isinstance(stab, Baumgarte) and C.shape[0]:
            b = b - 2 * stab.alpha * (C @ v)
            if self.system.m:
                b[: self.system.m] -= stab.beta**2 * self.num.Phi(p, self.par)
        _, vdot, lam = solve_accelerations(M, f0 - d, None, None, C, b, F=F if self.nonideal else None, C=C,
                                           quantity="the augmented matrix [[M, C^T], [C, 0]]")
        return np.concatenate([A @ v, vdot]), vdot, lam

    def project(self, t, y):
        stab = self.stabilization
        p, v = self.dependent_state(y)
        if stab.positions:
            p = project_positions(self.system, p, tol=stab.tol, max_iter=stab.max_iter)[0]
        if stab.velocities:
            v = project_velocities(self.system, p, v)[0]
        return np.concatenate([p, v])

    def equations(self, expanded=False):
        return Equations(self.name, self.system.name, (
            "p' = A v",
            "M v' + d = f - C^T lambda,   C = [C_h; C_nh],  C_h = Phi_p A",
            "C v' + xi = 0,   xi = (dC/dt) v",
            "[[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]"), primitive_pieces(self.system))

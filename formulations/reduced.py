"""Formulation 2, reduced coordinates: holonomic constraints eliminated by p = g(q).

States (q, w) with q' = A_q w (w = q' unless q holds Euler parameters); v = D w,
v' = D w' + gamma; nonholonomic multipliers only:
    [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]
    M_bar = D^T M D,  d_bar = D^T (M gamma + d),  f_bar = D^T f,  C_bar_nh = C_nh D,
    xi_bar = xi_nh + C_nh gamma.
Holonomic reactions are recovered afterwards in resolved form, C^T lambda = f - d - M v'.
Stabilization: Baumgarte on the velocity residual C_bar_nh w, or Projection of w onto
C_bar_nh w = 0 in the metric M_bar after every step.
"""
from __future__ import annotations

import numpy as np

from .base import Formulation, register
from .equations import Equations, embedding_pieces, primitive_pieces
from .geometry import Geometry
from .linear import resolved_reactions, solve_accelerations
from .stabilization import Baumgarte


@register
class Reduced(Formulation):
    name = "reduced"
    numeric_form = "explicit ODE in (q, w); w' and lambda_nh from the reduced saddle-point system"
    stabilizations = ("none", "baumgarte", "projection")

    def _configure(self):
        self.geometry = Geometry(self.system, self.name)

    def state_names(self):
        return self.geometry.q_names + self.geometry.w_names

    def initial_state(self, p, v):
        return np.concatenate(self.geometry.from_dependent(p, v))

    def _split(self, y):
        k_q = len(self.geometry.q_names)
        return y[:k_q], y[k_q:]

    def dependent_state(self, y):
        q, w = self._split(y)
        p, D = self.geometry.at(q)[:2]
        return p, D @ w

    def _evaluate(self, t, y):
        sysm, m = self.system, self.system.m
        q, w = self._split(y)
        p, D, A_q, A, _ = self.geometry.at(q)
        v = D @ w
        M, d, f0, F, C, xi, _, pdd2 = self.num.dynamics(t, p, v, self.par)
        gamma = self.geometry.gamma(q, w, A, pdd2)
        C_nh = C[m:]
        b = -xi[m:] - C_nh @ gamma
        if isinstance(self.stabilization, Baumgarte) and sysm.l:
            b = b - 2 * self.stabilization.alpha * (C_nh @ v)
        a, vdot, mu = solve_accelerations(M, f0 - d, D, gamma, C_nh @ D, b, F=F if self.nonideal else None, C=C,
                                          quantity="the reduced matrix [[M_bar, C_bar_nh^T], [C_bar_nh, 0]]")
        lam = mu if self.nonideal and np.any(F) else resolved_reactions(C, f0 - d - M @ vdot)
        return np.concatenate([A_q @ w, a]), vdot, lam

    def project(self, t, y):
        if not self.system.l:
            return y
        q, w = self._split(y)
        q = self.geometry.renormalize(q)
        p, D, _, _, C = self.geometry.at(q)
        M = self.num.dynamics(t, p, D @ w, self.par)[0]
        C_bar = C[self.system.m:] @ D
        M_bar = D.T @ M @ D
        Minv_Ct = np.linalg.solve(M_bar, C_bar.T)
        w = w - Minv_Ct @ np.linalg.solve(C_bar @ Minv_Ct, C_bar @ w)
        return np.concatenate([q, w])

    def equations(self, expanded=False):
        pieces = primitive_pieces(self.system)
        pieces.update(embedding_pieces(self.system, expanded))
        return Equations(self.name, self.system.name, (
            "p = g(q),  q' = A_q w,  v = D w,  D = A^-1 g_q A_q,  v' = D w' + gamma",
            "M_bar = D^T M D,  d_bar = D^T (M gamma + d),  f_bar = D^T f,  C_bar_nh = C_nh D",
            "[[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]",
            "holonomic reactions: C^T lambda = f - d - M v' (resolved)"), pieces)

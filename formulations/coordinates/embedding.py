"""Reduced coordinates through the system's embedding p = g(q), evaluated numerically.

At q: p = g(q), v = D w with D = A^+ g_q A_q (n, k). Differentiating p' = g_q A_q w = A v once
more gives A v' + (d/dp (A v)) A v = g_q A_q w' + (d/dq (g_q A_q w)) A_q w, so
    v' = D w' + gamma,   gamma = A^+ [(d/dq (g_q A_q w)) A_q w - (d/dp (A v)) A v].
Systems without holonomic constraints and without an embedding use the identity embedding
q = p, w = v (D = I, gamma = 0).

A moving embedding p = g(q, t) (rheonomic holonomic constraints) adds g_t to p': v = D w + d_0 with
d_0 = A^+ g_t, and the terms in t to the second derivative: gamma = A^+ [(d/dq (g_q A_q w + g_t)) A_q w
+ d/dt (g_q A_q w + g_t) - (d/dp (A v)) A v], with v = D w + d_0 in the last term.
"""
from __future__ import annotations

import numpy as np

from systems.state import normalize_blocks, q_from_state

from ..errors import CapabilityError
from ..linalg import solve_square


def c_bar_nh(num, par, m, p, t, C, d_0) -> np.ndarray:
    """The velocity-free term of the nonholonomic rows in reduced velocities, shape (l,):
    C_bar_nh w + c_bar_nh = 0 with c_bar_nh = C_nh d_0 + c_nh (zero for fixed, homogeneous rows)."""
    return C[m:] @ d_0 + num.c_term(p, par, t)[m:]


class Geometry:
    """Numeric embedding of one system: D, gamma and the maps between (p, v) and (q, w)."""

    def __init__(self, system, formulation_name):
        self.system = system
        self.num, self.par = system.numeric, system.params
        emb = system.embedding
        if emb is None and system.m:
            raise CapabilityError(
                f"formulation {formulation_name!r} got system {system.name!r} with {system.m} holonomic constraints "
                f"and no embedding p = g(q), but expected an embedding (or use the 'dependent' formulation)")
        self.trivial = emb is None
        self.square = len(system.coordinates) == system.n
        if self.trivial:
            self.q_names, self.w_names = system.coordinate_names, system.velocity_names
            self.unit_blocks = system.unit_norm_blocks
        else:
            self.q_names, self.w_names = emb.coordinate_names, emb.velocity_names
            self.unit_blocks = emb.unit_norm_blocks
        self.k = len(self.w_names)
        self.moving = emb is not None and system.time in emb.g.free_symbols

    def _left_solve(self, A, B):
        return solve_square(A, B, "the kinematics A") if self.square else np.linalg.lstsq(A, B, rcond=None)[0]

    def renormalize(self, q):
        return normalize_blocks(q, self.unit_blocks) if self.unit_blocks else q

    def at(self, q, t=0.0):
        """(p, D (n, k), A_q (k_q, k), A(p), C(p, t)) at (q, t)."""
        q = self.renormalize(q)
        if self.trivial:
            A = self.num.A(q, self.par)
            return q, np.eye(self.system.n), A, A, self.num.C(q, self.par, t)
        g, G, A_q, A, C = self.num.chart(q, self.par, t)
        return g, self._left_solve(A, G), A_q, A, C

    def drift(self, q, A, t=0.0):
        """d_0 = A^+ g_t (n,) at (q, t): the part of v = D w + d_0 that the moving embedding gives."""
        if self.trivial or not self.moving:
            return np.zeros(self.system.n)
        return self._left_solve(A, self.num.embedding_rate(self.renormalize(q), self.par, t))

    def gamma(self, q, w, A, pdd2, t=0.0):
        """gamma (n,) with v' = D w' + gamma; pdd2 = (d/dp (A v)) A v from the dynamics."""
        if self.trivial:
            return np.zeros(self.system.n)
        h1 = self.num.embedding_acceleration(self.renormalize(q), w, self.par, t)
        return self._left_solve(A, h1 - pdd2)

    def from_dependent(self, p, v, t=0.0):
        """(q, w) from a consistent (p, v) at time t."""
        if self.trivial:
            return np.array(p, float), np.array(v, float)
        return q_from_state(self.system, p, v, t)
def unit_norm_constraints(x, blocks):
    """(Psi (b,), Psi_x (b, len(x))): Psi = (|e|^2 - 1) / 2 for each index block e of x."""
    Psi, Psi_x = np.zeros(len(blocks)), np.zeros((len(blocks), len(x)))
    for i, block in enumerate(blocks):
        idx = list(block)
        Psi[i] = (x[idx] @ x[idx] - 1.0) / 2
        Psi_x[i, idx] = x[idx]
    return Psi, Psi_x

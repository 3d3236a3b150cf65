"""Tangent-space charts of the holonomic constraint manifold (Haug & Pavesic, *Mechanical system
kinematics and dynamics on differentiable manifolds*, sections 3 and 5).

At a chart origin p0, with U = Phi_p(p0)^T (n_p, m_a) and V an orthonormal basis of the null space
of Phi_p(p0) (n_p, k), the configuration is parametrized by chart coordinates w (k,):

    p = p0 + V w - U h(w),          h from  h <- h + B Phi(p)         (to |Phi| <= utol)
    B ~ (Phi_p U)^-1,               kept by B <- 2 B - B (Phi_p U) B  (to |Phi_p U B - I| <= Btol)
    p' = D_p w',                    D_p = (I - U B Phi_p) V
    p'' = D_p w'' + gamma_p,        gamma_p = -U B (d/dp (Phi_p p')) p'

Where Phi depends on time (a driven mechanism: the manifold moves), the chart is held fixed in p
and h solves Phi(p0 + V w - U h, t) = 0 at each time, so that p' = D_p w' + d_p with the drift
d_p = -U B Phi_t, and gamma_p = -U B ((d/dp (Phi_p p')) p' + 2 Phi_pt p' + Phi_tt).

The constraint set Phi_a holds Phi and, for Euler parameters, their unit norm. A new chart is
taken at the current configuration when |w| or cond(Phi_p U) passes a bound; a configuration where
Phi_p loses rank cannot be charted, and the run stops there with a message that names it.

The class has the interface of formulations.coordinates.embedding.Geometry (chart coordinates in the role of
q, their rates in the role of w), so the reduced and minimal formulations run on charts unchanged.
The compiled backend reads the chart from ``compiled_chart`` and solves for h by Newton's method
with the current Phi_p (formulations.kernels.embedded).
"""
from __future__ import annotations

import time

import numpy as np

from ..errors import StopRun
from ..linalg import solve_square


class ChartError(StopRun):
    """The chart iteration failed (a singular or far-away configuration)."""


class Atlas:
    """Charts of Phi_a(p) = 0 for one system, with their statistics."""

    trivial = False
    unit_blocks = ()

    def __init__(self, system, *, utol=1e-12, Btol=1e-12, w_limit=0.75, cond_limit=1e3, max_iter=25):
        self.system = system
        self.moving = system.has_moving_holonomic
        self.num, self.par = system.numeric, system.params
        self.utol, self.Btol = float(utol), float(Btol)
        self.w_limit, self.cond_limit, self.max_iter = float(w_limit), float(cond_limit), int(max_iter)
        self.n_p = len(system.coordinates)
        self.square = self.n_p == system.n
        self.m_a = system.m + len(system.unit_norm_blocks)
        self.k = self.n_p - self.m_a
        self.q_names = tuple(f"w_{i + 1}" for i in range(self.k))
        self.w_names = tuple(f"w_{i + 1}_dot" for i in range(self.k))
        self.charts = 0
        self.chart_seconds = 0.0
        self.p0 = None
        self._last = None

    # -- charts ----------------------------------------------------------------------------------
    def _constraints(self, p, pdot=None, t=0.0):
        pdot = np.zeros(self.n_p) if pdot is None else pdot
        return self.num.holonomic_chart(p, pdot, self.par, t)

    def new_chart(self, p, t=0.0):
        """A chart with origin p (a configuration consistent at time t)."""
        started = time.perf_counter()
        p = np.array(p, float)
        _, Phi_p, _ = self._constraints(p, t=t)
        _, s, Vt = np.linalg.svd(Phi_p)
        if s.size and s[-1] < 1e-10 * max(1.0, s[0]):
            raise ChartError(self._singular_message(p, s), quantity="Phi_p")
        self.p0, self.U, self.V = p, Phi_p.T.copy(), Vt[self.m_a:].T.copy()
        self.B = np.linalg.inv(Phi_p @ self.U)
        self.h = np.zeros(self.m_a)
        self.iterations = 0
        self._last = None
        self.charts += 1
        self.chart_seconds += time.perf_counter() - started

    def adopt_chart(self, p0, U, V, B, seconds=0.0):
        """A chart taken elsewhere (the compiled module's new_chart), counted as new_chart counts."""
        self.p0, self.U, self.V, self.B = p0, U, V, B
        self.h = np.zeros(self.m_a)
        self.iterations = 0
        self._last = None
        self.charts += 1
        self.chart_seconds += seconds

    def compiled_chart(self) -> np.ndarray:
        """The chart as the compiled module reads it (formulations.kernels.embedded): (utol, w_limit,
        cond_limit, p0 (n_p,), U (n_p, m_a), V (n_p, k)), flat, row-major."""
        if self.p0 is None:
            raise ChartError("no chart yet: take one with from_dependent(p, v) first", quantity="chart")
        return np.concatenate([[self.utol, self.w_limit, self.cond_limit], self.p0, self.U.ravel(), self.V.ravel()])

    def _singular_message(self, p, s):
        where = ", ".join(f"{n}={x:.4g}" for n, x in zip(self.system.coordinate_names, p))
        return (f"singular configuration: Phi_p loses rank (smallest singular value {s[-1]:.2e}, largest {s[0]:.2e}) "
                f"at p = ({where}); the motion cannot be continued on a chart through it")

    def position(self, w, t=0.0):
        """p on the manifold for chart coordinates w: Newton iteration for h with the matrix B held
        fixed; where that stalls, B is brought up to date at the current iterate (its own iteration).
        The iteration starts from the last h found (a trial stage's, perhaps far from w); where it
        fails from there, Newton's method with the current Phi_p starts again from the chart's
        origin, h = 0 (as the compiled backend solves)."""
        if not np.all(np.isfinite(w)):
            raise ChartError("non-finite chart coordinates", quantity="w")
        try:
            return self._position_from(w, self.h.copy(), t=t)
        except (ChartError, np.linalg.LinAlgError):
            return self._position_from(w, np.zeros(self.m_a), newton=True, t=t)

    def _position_from(self, w, h, newton=False, t=0.0):
        B = self.B
        for it in range(self.max_iter):
            p = self.p0 + self.V @ w - self.U @ h
            Phi, Phi_p, _ = self._constraints(p, t=t)
            if np.max(np.abs(Phi), initial=0.0) <= self.utol:
                self.h, self.iterations = h, it
                return p
            if newton:
                h = h + solve_square(Phi_p @ self.U, Phi, "Phi_p U")
                continue
            if it in (6, 12, 18):
                B = self._inverse(Phi_p @ self.U, B)
            h = h + B @ Phi
        raise ChartError(f"the chart iteration for h(w) did not converge within {self.max_iter} iterations at "
                         f"|w| = {np.linalg.norm(w):.3g} (|Phi| = {np.max(np.abs(Phi)):.2e}); the chart is too far "
                         f"from its origin or the configuration is near-singular", quantity="h(w)")

    def _inverse(self, S, B):
        """(S)^-1 by the Newton iteration B <- 2 B - B S B from B (to |S B - I| <= Btol)."""
        eye = np.eye(self.m_a)
        previous = np.inf
        for _ in range(self.max_iter):
            residual = np.max(np.abs(S @ B - eye), initial=0.0)
            if residual <= self.Btol:
                return B
            if residual < 1e-8 and residual > previous / 2:  # stalled at the round-off floor (cond(S) eps)
                return B
            if not residual < 1.0:  # outside the iteration's basin: start from the exact inverse
                B = np.linalg.inv(S)
                previous = np.inf
                continue
            previous = residual
            B = 2 * B - B @ S @ B
        raise ChartError(f"the iteration for B = (Phi_p U)^-1 did not converge (cond(Phi_p U) = "
                         f"{np.linalg.cond(S):.2e})", quantity="B")

    def refresh_B(self, Phi_p):
        """B <- (Phi_p U)^-1 by its Newton iteration from the current B."""
        self.B = self._inverse(Phi_p @ self.U, self.B)
        return self.B

    # -- the Geometry interface --------------------------------------------------------------------
    def renormalize(self, q):
        return q

    def _left_solve(self, A, X):
        return solve_square(A, X, "the kinematics A") if self.square else np.linalg.lstsq(A, X, rcond=None)[0]

    def at(self, q, t=0.0):
        """(p, D (n, k), A_q = I, A(p), C(p, t)) at chart coordinates q."""
        if self.p0 is None:
            raise ChartError(f"system {self.system.name!r}: chart coordinates without a chart: take one with "
                             f"initial_state(p, v) (or from_dependent) first", quantity="chart")
        if self._last is not None and np.array_equal(self._last[0], q) and self._last[5] == t:
            self.iterations = self._last[4]
            return self._last[1]
        p = self.position(q, t)
        _, Phi_p, _ = self._constraints(p, t=t)
        B = self.refresh_B(Phi_p)
        D_p = self.V - self.U @ (B @ (Phi_p @ self.V))
        A = self.num.A(p, self.par)
        C = self.num.C(p, self.par, t)
        out = (p, self._left_solve(A, D_p), np.eye(self.k), A, C)
        self._last = (np.array(q), out, D_p, Phi_p, self.iterations, t)
        return out

    def _drift_p(self, q, t):
        """d_p = -U B Phi_a_t (n_p,): the rate of p at w' = 0 (zero for a fixed manifold)."""
        if not self.moving:
            return np.zeros(self.n_p)
        p = self.at(q, t)[0]
        Phi_t = np.zeros(self.m_a)
        Phi_t[:self.system.m] = self.num.constraint_terms(p, self.par, t)[3][:self.system.m]
        return -self.U @ (self.B @ Phi_t)

    def drift(self, q, A, t=0.0):
        """d_0 (n,) with v = D w + d_0: A^-1 d_p (zero for a fixed manifold)."""
        if not self.moving:
            return np.zeros(self.system.n)
        return self._left_solve(A, self._drift_p(q, t))

    def gamma(self, q, w, A, pdd2, t=0.0):
        """gamma (n,) with v' = D w' + gamma."""
        p = self.at(q, t)[0]
        D_p = self._last[2]
        acc = self._constraints(p, D_p @ w + self._drift_p(q, t), t)[2]
        gamma_p = -self.U @ (self.B @ acc)
        return self._left_solve(A, gamma_p - pdd2)

    def from_dependent(self, p, v, t=0.0):
        """A chart at p at time t; (q, w) = (0, V^T A v) (V^T d_p = 0 at the origin, as V^T U = 0)."""
        self.new_chart(p, t)
        return np.zeros(self.k), self.V.T @ (self.num.A(p, self.par) @ np.asarray(v, float))

    def needs_new_chart(self, q, t=0.0):
        if np.linalg.norm(q) > self.w_limit:
            return True
        self.at(q, t)
        if self.iterations > 4:  # the chart is wearing out: h(w) needs many Newton steps
            return True
        _, Phi_p, _ = self._constraints(self.at(q, t)[0], t=t)
        return np.linalg.cond(Phi_p @ self.U) > self.cond_limit


def make_geometry(system, formulation_name, **chart_options):
    """The embedding's Geometry where the system has one (or no holonomic constraints), else an Atlas."""
    from .embedding import Geometry

    if system.embedding is not None or system.m == 0:
        return Geometry(system, formulation_name)
    return Atlas(system, **chart_options)

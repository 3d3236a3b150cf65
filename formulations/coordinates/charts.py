"""Tangent-space charts of the holonomic constraint manifold (Haug & Pavesic, *Mechanical system
kinematics and dynamics on differentiable manifolds*, sections 3 and 5).

At a chart origin p0, with U = Phi_p(p0)^T (n_p, m_a) and V an orthonormal basis of the null space
of Phi_p(p0) (n_p, k), the configuration is parametrized by chart coordinates w (k,):

    p = p0 + V w - U h(w),          h from  h <- h + B Phi(p)   (to max |Phi| <= utol)
    B = (Phi_p U)^-1                at the iterate
    p' = D_p w',                    D_p = (I - U B Phi_p) V
    p'' = D_p w'' + gamma_p,        gamma_p = -U B (d/dp (Phi_p p')) p'

Where Phi depends on time (a driven mechanism: the manifold moves), the chart is held fixed in p
and h solves Phi(p0 + V w - U h, t) = 0 at each time, so that p' = D_p w' + d_p with the drift
d_p = -U B Phi_t, and gamma_p = -U B ((d/dp (Phi_p p')) p' + 2 Phi_pt p' + Phi_tt).

The constraint set Phi_a holds Phi and, for Euler parameters, their unit norm. h is found by
Newton's method, B = (Phi_p U)^-1 at every iterate (Haug & Pavesic hold B fixed and bring it up to
date by B <- 2 B - B (Phi_p U) B), and only on the chart's own sheet, where det(Phi_p U) > 0 as at
the origin. A new chart is taken at the
current configuration when |w| or cond(Phi_p U) passes a bound, and on a moving manifold also when
|h| passes MOVED * w_limit: the constraints have carried the manifold away from the chart's origin
(on the rotating hoop, started off its default state, a chart held until |h| ~ 0.9 left the runs
2.4e-8 off the others at rtol 1e-11, and one at rtol 1e-8 stopped where no trial stage reached the
manifold; with the bound, 9e-12 and 6e-10). A configuration where Phi_p loses rank cannot be
charted, and the run stops there with a message that names it.

The class has the interface of formulations.coordinates.embedding.Geometry (chart coordinates in the role of
q, their rates in the role of w), so the reduced and minimal formulations run on charts unchanged.
The compiled backend reads the chart from ``compiled_chart`` and solves for h the same way, with
the same test (formulations.kernels.compiled.embedded).
"""
from __future__ import annotations


import numpy as np

from ..errors import SINGULAR, StopRun
from ..linalg import solve_square


class ChartError(StopRun):
    """The chart iteration failed (a singular or far-away configuration)."""


MOVED = 0.2  # a moving manifold's new chart where |h| > MOVED * w_limit (see the module docstring)


class Atlas:
    """Charts of Phi_a(p) = 0 for one system; the current one is its state."""

    trivial = False
    unit_blocks = ()

    def __init__(self, system, *, utol=1e-12, w_limit=0.75, cond_limit=1e3, max_iter=25):
        self.system = system
        self.moving = system.has_moving_holonomic
        self.num, self.par = system.numeric, system.params
        self.utol = float(utol)
        self.w_limit, self.cond_limit, self.max_iter = float(w_limit), float(cond_limit), int(max_iter)
        self.n_p = len(system.coordinates)
        self.square = self.n_p == system.n
        self.m_a = system.m + len(system.unit_norm_blocks)
        self.k = self.n_p - self.m_a
        self.q_names = tuple(f"w_{i + 1}" for i in range(self.k))
        self.w_names = tuple(f"w_{i + 1}_dot" for i in range(self.k))
        self.p0 = None
        self._last = None

    # -- charts ----------------------------------------------------------------------------------
    def _constraints(self, p, pdot=None, t=0.0):
        pdot = np.zeros(self.n_p) if pdot is None else pdot
        return self.num.holonomic_chart(p, pdot, self.par, t)

    def new_chart(self, p, t=0.0):
        """A chart with origin p (a configuration consistent at time t)."""
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

    def adopt_chart(self, p0, U, V, B):
        """A chart taken elsewhere (the compiled module's new_chart)."""
        self.p0, self.U, self.V, self.B = p0, U, V, B
        self.h = np.zeros(self.m_a)
        self.iterations = 0
        self._last = None

    def compiled_chart(self) -> np.ndarray:
        """The chart as the compiled module reads it (formulations.kernels.compiled.embedded): (utol, w_limit,
        cond_limit, p0 (n_p,), U (n_p, m_a), V (n_p, k)), flat, row-major."""
        if self.p0 is None:
            raise ChartError("no chart yet: take one with from_dependent(p, v) first", quantity="chart")
        return np.concatenate([[self.utol, self.w_limit, self.cond_limit], self.p0, self.U.ravel(), self.V.ravel()])

    def _singular_message(self, p, s):
        where = ", ".join(f"{n}={x:.4g}" for n, x in zip(self.system.coordinate_names, p))
        return (f"{SINGULAR}Phi_p loses rank (smallest singular value {s[-1]:.2e}, largest {s[0]:.2e}) "
                f"at p = ({where}); the motion cannot be continued on a chart through it")

    def position(self, w, t=0.0):
        """p = p0 + V w - U h on Phi_a(p) = 0 for chart coordinates w, by the chart solve (_newton):
        first from the last h found (a trial stage's, perhaps far from w), then, where that fails,
        from the chart's origin h = 0; the compiled chart solves the same way
        (formulations.kernels.compiled.embedded). Where both fail, a ChartError with the time and the
        residual: the solver shrinks its step, or the run stops with it (its message names the system)."""
        if not np.all(np.isfinite(w)):
            raise ChartError(f"non-finite chart coordinates w at t = {t:.6g}", quantity="w")
        zero = np.zeros(self.m_a)
        residual = np.inf
        for h in ((self.h, zero) if np.any(self.h != 0.0) else (zero,)):
            p, h, Phi_p, found, residual = self._newton(w, h.copy(), t)
            if found is not None:
                self.h, self.iterations, self._Phi_p = h, found, Phi_p
                return p
        self.h = zero  # as the compiled chart: the next solve starts from the origin
        if residual <= self.utol:  # a root, but past a fold: on another sheet of the manifold over the chart
            raise ChartError(f"the chart solve for h(w) at t = {t:.6g} reached a root (max |Phi_a| = {residual:.2e}) "
                             f"where det(Phi_p U) <= 0, on another sheet of the manifold than the chart's origin "
                             f"(|w| = {np.linalg.norm(w):.3g}): the chart is too far from its origin, or the "
                             f"constraints moved it away", quantity="h(w)")
        raise ChartError(f"the chart solve for h(w) did not converge at t = {t:.6g} within "
                         f"{self.max_iter} Newton iterations (max |Phi_a| = {residual:.2e} > utol = {self.utol:.0e}, "
                         f"|w| = {np.linalg.norm(w):.3g}): the chart is too far from its origin or the configuration "
                         f"is near-singular", quantity="h(w)")

    def _newton(self, w, h, t):
        """(p, h, Phi_p, iterations, max |Phi_a|) by Newton's method in h, h <- h + (Phi_p U)^-1 Phi_a(p):
        the iteration of Haug & Pavesic (section 5) with B = (Phi_p U)^-1 taken at every iterate
        instead of held fixed. Converged at max |Phi_a| <= utol where det(Phi_p U) > 0, the sign it
        has at the origin (Phi_p U = Phi_p Phi_p^T there): a root with det <= 0 lies on another sheet
        of the manifold over the chart, past a fold where Phi_p U is singular (the far intersection
        of p0 + V w + range(U) with a unit sphere of Euler parameters, say), and counts as a failure,
        as do a singular Phi_p U and a non-finite Phi_a. iterations is None where it fails."""
        base = self.p0 + self.V @ w
        residual = np.inf
        for it in range(self.max_iter):
            p = base - self.U @ h
            Phi, Phi_p, _ = self._constraints(p, t=t)
            if not (np.all(np.isfinite(Phi)) and np.all(np.isfinite(Phi_p))):
                break
            S = Phi_p @ self.U
            residual = np.max(np.abs(Phi), initial=0.0)
            if residual <= self.utol:
                return p, h, Phi_p, (it if np.linalg.det(S) > 0.0 else None), residual
            try:
                h = h + np.linalg.solve(S, Phi)
            except np.linalg.LinAlgError:
                break
        return None, h, None, None, residual

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
        Phi_p = self._Phi_p
        self.B = B = solve_square(Phi_p @ self.U, np.eye(self.m_a), "Phi_p U")
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
        """True where |w| > w_limit or cond(Phi_p U) > cond_limit (2-norm) at q, the tests of the
        compiled post_step, or, on a moving manifold (which the compiled charts do not serve), where
        |h| > MOVED * w_limit; where the chart no longer reaches q, its ChartError."""
        if np.linalg.norm(q) > self.w_limit:
            return True
        self.at(q, t)  # h: the solve's at (q, t)
        if self.moving and np.linalg.norm(self.h) > MOVED * self.w_limit:
            return True
        return np.linalg.cond(self._last[3] @ self.U) > self.cond_limit


def make_geometry(system, formulation_name, **chart_options):
    """The embedding's Geometry where the system has one (or no holonomic constraints), else an Atlas."""
    from .embedding import Geometry

    if system.embedding is not None or system.m == 0:
        return Geometry(system, formulation_name)
    return Atlas(system, **chart_options)

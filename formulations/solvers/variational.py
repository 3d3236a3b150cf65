"""Variational integrators for holonomic and nonholonomic systems, fixed step, second order.

Both methods step the configuration p and the discrete momentum P = A^-T M v of the trapezoidal
discrete Lagrangian L_d (formulations.discrete_lagrangian) and differ in where the constraint
impulses act:

``DLA``, discrete Lagrange-d'Alembert (Cortes & Martinez, *Non-holonomic integrators*,
Nonlinearity 14, 2001; McLachlan & Perlmutter, *Integrators for nonholonomic mechanical systems*,
J. Nonlinear Sci. 16, 2006): the variations of the discrete action obey the constraints at p_k,

    P_k + D1 L_d(p_k, p_k+1) = a(p_k)^T mu + Phi_p(p_k)^T nu
    a(p_mid) (p_k+1 - p_k) / h = 0,   Phi(p_k+1) = 0,         p_mid = (p_k + p_k+1) / 2
    P_k+1 = D2 L_d(p_k, p_k+1)

with a = C_nh A^-1; the nonholonomic rows hold at the step's midpoint and Phi at its end, while the
momentum at a step point need not meet the velocity constraints.

``NH-RATTLE`` adds to the same first stage an impulse at p_k+1 that puts the momentum on the
constraints there, as RATTLE does for holonomic rows:

    P_k+1 = D2 L_d(p_k, p_k+1) + a(p_k+1)^T mu' + Phi_p(p_k+1)^T nu',   C(p_k+1) v_k+1 = 0

(v = M^-1 A^T P, C = [Phi_p A; C_nh]: the M-orthogonal projection of Blajer). The scheme is
symmetric: stepping back by -h from (p_k+1, P_k+1) returns (p_k, P_k), because the midpoint row
does not change under the swap and each end carries its own impulse. On a system with holonomic
rows only it is RATTLE (with M and A constant, Stormer-Verlet with SHAKE and the velocity
projection; Hairer, Lubich & Wanner, Geometric Numerical Integration, VII.1).

The two methods take the same positions: the end impulse of NH-RATTLE acts along the rows at
p_k+1, as the next step's first impulse does, which absorbs it (as SHAKE's positions are
RATTLE's). They differ in the velocity at a step point: DLA's is the discrete momentum D2 L_d,
off the velocity constraints by O(h) and of first order; NH-RATTLE's is on them and of second order.

The first stage is solved for ((p_k+1 - p_k)/h, mu, nu), with the rows of Phi divided by h, by
Newton's method (the Jacobian at the first guess, its columns in p_k+1 by differences and in the
impulses exact, taken again where the iterations contract slowly; the last step's impulses, in
proportion to h, as their first guess). In these unknowns the Jacobian's scale does not depend on
h, and the increment is tested relative to the rate (p_k+1 - p_k)/h (or to 1 unit/s), so that a
short step, to an output time just after another, is as exact as a long one. A step that does not
converge ends the run with a message naming the system, the time and the residual. On the compiled backend the whole
run is one call into machine code (formulations.solvers.compiled_variational), with the same
steps. Steps land on every output time (t_eval), so output points are step points (output times
closer together than the step shorten the steps between them, as with the other fixed-step
methods).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..discrete_lagrangian import model_of
from ..errors import CapabilityError
from ..forms import EVENTS, VARIATIONAL
from .base import StepFailure, equal_steps, register
from .driver import SteppingSolver

METHODS = ("DLA", "NH-RATTLE")
MAX_ITERATIONS = 30
SLOW = 0.2      # a contraction slower than this refreshes the Jacobian
TOLERANCE = 1e-14  # of the Newton increment of (p_k+1 - p_k) / h, relative to max(1, its size)
ROUND_OFF = 1e-10  # an increment this small that no longer halves is at round-off


def _increment(rate, h, p):
    """The difference increment of a rate (p1 - p) / h: relative to it (or to 1 unit/s), but large
    enough to move p1 = p + h rate."""
    return max(1.49e-8 * max(abs(rate), 1.0), 64 * 2.2e-16 * max(1.0, abs(p + h * rate)) / h)


@dataclass(frozen=True)
class VariationalMethod:
    """Settings of a variational method, passed as ``simulate(..., method=VariationalMethod(...),
    step=h)``: ``name`` one of METHODS; ``gauge`` a function S of the coordinates (a sympy expression
    in the system's coordinates and parameters, None: none) whose total derivative dS/dt is added to
    the Lagrangian. The motion is the same; the discrete equations are not (the trapezoidal rule does
    not integrate dS/dt exactly), which is how Modin & Verdier (2020) make test problems that are not
    reversible for the methods (formulations.discrete_lagrangian)."""

    name: str = "NH-RATTLE"
    gauge: object = None

    def __post_init__(self):
        if self.name not in METHODS:
            raise CapabilityError(f"VariationalMethod got name={self.name!r} but expected one of {', '.join(METHODS)}")


class VariationalStepper:
    """One method of METHODS on the dependent state y = (p, v), behind the stepping interface of
    formulations.solvers.driver; ``stops`` are the times the steps land on; ``gauge``: S, see
    VariationalMethod."""

    supports_post_step = True

    def __init__(self, system, method, step, gauge=None):
        if method not in METHODS:
            raise CapabilityError(f"variational integration got method {method!r} but expected one of "
                                  f"{', '.join(METHODS)}")
        try:
            self.model = model_of(system, gauge)
        except ValueError as exc:
            raise CapabilityError(str(exc)) from None
        self.system, self.method, self.h_max = system, method, float(step)
        self.rattle = method == "NH-RATTLE"
        self.n, self.m, self.l = self.model.n, self.model.m, self.model.l
        self.rejected = 0
        self.stops = None
        self.newton_iterations = 0
        self.jacobians = 0
        self.evaluations = [0]  # residuals of the discrete equations (the run's "RHS evaluations")

    # -- the stepping interface ------------------------------------------------------------------
    def plan(self, t0, t_bound):
        """The ends of the steps from t0 to t_bound: equal steps of at most the step size through
        every output time (``stops``)."""
        if t_bound < t0:
            raise CapabilityError("the variational methods run forward in time: expected t_span[1] > t_span[0]")
        grid = np.asarray(self.stops if self.stops is not None else [], float)
        targets = sorted(set(grid[(grid > t0) & (grid < t_bound)]) | {float(t_bound)})
        return equal_steps(float(t0), targets, self.h_max)[0]

    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.times = self.plan(t0, t_bound)
        self.index = 0
        self.h_last = np.nan
        self.t = float(t0)
        self.replace_state(y0)
        self._last = (self.t, self.y, self.t, self.y)

    def replace_state(self, y):
        y = np.array(y, float)
        self.y = y
        self.p = y[:self.n].copy()
        self.pieces = self.model.at(self.p)
        self.P = self.model.momentum(self.pieces, y[self.n:])
        self.history = [self.p]  # the last configurations of equal steps, for the predictor
        self.impulses = np.zeros(self.l + self.m)  # (mu, nu) of the last step: the next one's first guess
        self._impulse_directions()

    def _impulse_directions(self):
        """a(p0)^T = A^-T C_nh^T (n, l) at the step's start."""
        self.a0T = self.model.solve_A(self.pieces, self.pieces[7].T, transposed=True)

    def step(self):
        t0, t1 = self.t, float(self.times[self.index])
        h = t1 - t0
        p1, pieces1, rate = self._first_stage(h, t0)
        D2 = self.model.D(h, self.p, p1, self.pieces, pieces1, t0, rate)[1]
        if self.rattle:
            v1 = self._onto_constraints(pieces1, self.model.velocity(pieces1, D2))
            P1 = self.model.momentum(pieces1, v1)
        else:
            P1, v1 = D2, self.model.velocity(pieces1, D2)
        y_new = np.concatenate([p1, v1])
        self._last = (t0, self.y, t1, y_new)
        self.t, self.y, self.p, self.pieces, self.P = t1, y_new, p1, pieces1, P1
        self.history = (self.history + [p1])[-3:] if abs(h - self.h_last) <= 1e-9 * h else [self.p0_of_step, p1]
        self.h_last = h
        self._impulse_directions()
        self.index += 1
        return self.t, self.y

    def interpolant(self):
        t0, y0, t1, y1 = self._last

        def linear(t):
            s = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
            return (1 - s) * y0 + s * y1
        return linear

    step_size = property(lambda self: self.h_max)

    # -- the stages ------------------------------------------------------------------------------
    def _residual(self, h, t0, x):
        """The first stage's equations at x = ((p1 - p0) / h, mu, nu), and p1's pieces; the rows of
        Phi divided by h, so that the Jacobian's scale does not depend on h."""
        n, l = self.n, self.l
        self.evaluations[0] += 1
        p0, pieces0 = self.p, self.pieces
        rate, mu, nu = x[:n], x[n:n + l], x[n + l:]
        p1 = p0 + h * rate
        pieces1 = self.model.at(p1)
        D1 = self.model.D(h, p0, p1, pieces0, pieces1, t0, rate)[0]
        R1 = self.P + D1
        if l:
            R1 = R1 - self.a0T @ mu
        if self.m:
            R1 = R1 - pieces0[6].T @ nu
        parts = [R1]
        if l:
            mid = self.model.at(p0 + 0.5 * h * rate)
            parts.append(mid[7] @ self.model.solve_A(mid, rate))
        if self.m:
            parts.append(pieces1[5] / h)
        return np.concatenate(parts), pieces1

    def _differences(self, h, t0, x, r):
        """The first stage's Jacobian columns in p1 at x (x.size, n), by differences."""
        n = self.n
        columns = np.empty((x.size, n))
        for j in range(n):
            dx = np.zeros_like(x)
            dx[j] = _increment(x[j], h, self.p[j])
            columns[:, j] = (self._residual(h, t0, x + dx)[0] - r) / dx[j]
        self.jacobians += 1
        return columns

    def _inverse_jacobian(self, columns):
        """The inverse of the first stage's Jacobian: the ``columns`` in p1, exact in the impulses
        (the rows at the step's start)."""
        n, l = self.n, self.l
        J = np.zeros((columns.shape[0], columns.shape[0]))
        J[:, :n] = columns
        if l:
            J[:n, n:n + l] = -self.a0T
        if self.m:
            J[:n, n + l:] = -self.pieces[6].T
        return np.linalg.inv(J)

    def _first_stage(self, h, t0):
        """(p1, its pieces, (p1 - p0) / h): Newton's method on the first stage from the guess — the
        parabola through the last three configurations after two equal steps of size h, else
        p1 = p0 + h A v0, and the last step's impulses in proportion to h — with the Jacobian at the
        guess (its columns in the rate by differences, _increment; in the impulses exact; taken
        again where the iterations contract slowly)."""
        n = self.n
        self.p0_of_step = self.p
        if len(self.history) == 3 and abs(h - self.h_last) <= 1e-9 * h:
            guess = (3 * self.history[2] - 3 * self.history[1] + self.history[0] - self.p) / h
        else:
            guess = self.pieces[0] @ self.y[n:]
        growth = h / self.h_last if np.isfinite(self.h_last) else 1.0  # impulses grow with the step
        x = np.concatenate([guess, growth * self.impulses])
        r, pieces1 = self._residual(h, t0, x)
        inverse = self._inverse_jacobian(self._differences(h, t0, x, r))
        previous, refreshes = np.inf, 0
        for _ in range(MAX_ITERATIONS):
            dx = -inverse @ r
            x = x + dx
            r, pieces1 = self._residual(h, t0, x)
            self.newton_iterations += 1
            size = np.max(np.abs(dx[:n]))
            scale = max(1.0, np.max(np.abs(x[:n])))
            if not np.all(np.isfinite(x)):
                break
            # converged: to TOLERANCE, below what moves p1 by a few units in the last place, or at round-off
            resolution = 8 * 2.2e-16 * max(1.0, np.max(np.abs(self.p + h * x[:n]))) / h
            if size <= max(TOLERANCE * scale, resolution) or (size <= ROUND_OFF * scale and size > 0.5 * previous):
                self.impulses = x[n:]
                return self.p + h * x[:n], pieces1, x[:n]  # converged, or at round-off
            if size > SLOW * previous and refreshes < 2:
                inverse, refreshes = self._inverse_jacobian(self._differences(h, t0, x, r)), refreshes + 1
            previous = size
        raise StepFailure(f"{self.method} on system {self.system.name!r}: Newton's method did not converge in the step "
                          f"from t = {t0:.6g} to {t0 + h:.6g} (largest residual {np.max(np.abs(r)):.3g}, last "
                          f"increment {np.max(np.abs(dx)):.3g}); try a smaller step")

    def _onto_constraints(self, pieces, v):
        """v moved M-orthogonally onto C(p) v = 0 (the second stage of NH-RATTLE)."""
        A, M, Phi_p, C_nh = pieces[0], pieces[2], pieces[6], pieces[7]
        C = np.vstack([Phi_p @ A, C_nh])
        if C.shape[0] == 0:
            return v
        MinvCT = np.linalg.solve(M, C.T)
        kappa = np.linalg.solve(C @ MinvCT, -(C @ v))
        return v + MinvCT @ kappa


@register(*METHODS)
class Variational(SteppingSolver):
    """``DLA`` and ``NH-RATTLE``: variational integrators, fixed step, second order; output points
    are step points. ``settings``: a VariationalMethod (its gauge term)."""

    forms = (VARIATIONAL,)
    offers = frozenset({EVENTS})  # located on the linear interpolant of each step: to the order of the step
    # points (second in p; in v second for NH-RATTLE, first for DLA, whose step-point velocity is first order)
    order = 2
    fixed_step = True
    step_hint = "or the configuration 'dependent@NH-RATTLE:1e-3'"
    max_steps = 10**7

    def __init__(self, method, step=None, settings=None):
        super().__init__(method, step)
        self.gauge = None if settings is None else settings.gauge

    def stepper(self, problem):
        stepper = VariationalStepper(problem.formulation.system, self.method, self.step, self.gauge)
        stepper.stops = problem.t_eval
        stepper.evaluations = problem.evaluations  # counted as the run's evaluations
        return stepper

    def integrate(self, problem):
        from . import compiled_variational

        if not compiled_variational.applies(problem):
            return super().integrate(problem)
        return compiled_variational.run(self.stepper(problem), problem, TOLERANCE, ROUND_OFF, SLOW, MAX_ITERATIONS)

"""Index-3 augmented Lagrangian integration with mass-orthogonal projections.

After Bayo & Ledesma, *Augmented Lagrangian and mass-orthogonal projection methods for constrained
multibody dynamics* (Nonlinear Dynamics 9, 1996), extended to nonholonomic rows and to kinematics
p' = A(p) v. The trapezoidal rule over one step h,

    v1 = v0 + h/2 (a0 + a1),        p1 = p0 + h/2 (A(p0) v0 + A(p1) v1),

is solved for the accelerations a1 of

    M a1 + d - f + C_h^T (lambda*_h + alpha_h Phi(p1)) + C_nh^T (lambda*_nh + alpha_nh C_nh v1) = 0

by a Newton iteration with the tangent M + (h^2/4) C_h^T alpha_h C_h + (h/2) C_nh^T alpha_nh C_nh
(C^T - F in place of C^T for non-ideal constraints; the derivatives of d and f are left out), the multiplier estimates being updated after every
iteration, lambda* <- lambda* + alpha (Phi, C_nh v1) (the augmented Lagrangian iteration). The
penalties are per row and dimensionless through the rows' equivalent masses
m_bar_R = 1 / (c_R M^-1 c_R^T): alpha_h,R = penalty 4 m_bar_R / h^2, alpha_nh,R = penalty 2 m_bar_R / h,
so the constraint part of the tangent is ``penalty`` times the inertia it acts on. Positions are
held by the penalty iteration (index 3); after convergence the velocities are projected
M-orthogonally onto C v = 0 and the accelerations onto C v' + xi = 0 (for ideal constraints the
projected accelerations are the saddle-point solution at (p1, v1), which is how they are computed).
With Euler parameters p1 is renormalized after every iterate. The method is of second order.
Non-ideal constraints (f affine in lambda) take f = f0 + F lambda with the current estimate.

On the compiled backend (the dependent formulation's module: al_run of
formulations.kernels.compiled.dependent_steps) the steps run in machine code, and the recorded points
are evaluated after the run by one compiled pass, with the rank watch of the compiled loops
(formulations.solvers.compiled_rk.recorded_run).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from systems.state import project_velocities, renormalize

from ..errors import StopRun
from ..forms import EVENTS, INDEX3
from ..stabilization import ConstraintDynamics
from .base import Problem, RunRecord, Solver, equal_steps, interruption_message, register


@dataclass(frozen=True)
class AugmentedLagrangian:
    """Settings of the method: penalty (dimensionless, see the module docstring), iteration limit
    per step, and the convergence test ‖delta a‖ <= tol (1 + ‖a‖) (max-norms), or position
    increments h^2/4 ‖delta a‖ at round-off, 1e-15 (1 + ‖p‖)."""

    penalty: float = 1e4
    max_iter: int = 30
    tol: float = 1e-10
    name = "augmented_lagrangian"

    def __post_init__(self):
        if not self.penalty > 0:
            raise ValueError(f"AugmentedLagrangian got penalty={self.penalty} but expected a positive number")
        if not (isinstance(self.max_iter, int) and self.max_iter >= 1):
            raise ValueError(f"AugmentedLagrangian got max_iter={self.max_iter!r} but expected an integer >= 1")
        if not self.tol > 0:
            raise ValueError(f"AugmentedLagrangian got tol={self.tol} but expected a positive number")


def _positions(system, A_of, p0, pdot0, v1, h, iterations=50):
    """p1 of p1 = p0 + h/2 (pdot0 + A(p1) v1) by fixed-point iteration (exact in one pass for constant A)."""
    p1 = renormalize(system, p0 + h * pdot0)
    for _ in range(iterations):
        new = renormalize(system, p0 + h / 2 * (pdot0 + A_of(p1) @ v1))
        if np.max(np.abs(new - p1)) <= 1e-15 * (1 + np.max(np.abs(new))):
            return new
        p1 = new
    return p1


@register("augmented_lagrangian")
class AugmentedLagrangianSolver(Solver):
    """Fixed-step index-3 integration of the dependent formulation; ``settings`` an AugmentedLagrangian.

    Output at every step, or on the grid t_eval: between output points the steps are equal and at
    most ``step``, so that every output point is a step point. Events are located by Brent's method
    on the cubic Hermite interpolant of each step (p from p' = A v, v from v' = a at its ends); a
    terminal one ends the run there with status 1. No post-step hook (the method enforces the
    constraints itself)."""

    forms = (INDEX3,)
    offers = frozenset({EVENTS})
    order = 2
    fixed_step = True

    def __init__(self, method="augmented_lagrangian", step=None, settings=None):
        super().__init__(method, step)
        self.settings = settings if settings is not None else AugmentedLagrangian()

    def integrate(self, problem: Problem) -> RunRecord:
        return _run(problem.formulation, problem.t_span, problem.y0, step=self.step, settings=self.settings,
                    t_eval=problem.t_eval, record=problem.record, monitor=problem.monitor,
                    events=_EventWatch(problem) if problem.events else None)


class _EventWatch:
    """The run's events between fixed steps: crossings located on each step's cubic Hermite
    interpolant of (p, v) (formulations.solvers.driver.crossings), kept in ``t_events`` as (t, index).
    ``last`` is (t, y, y') where the next step begins."""

    def __init__(self, problem):
        self.problem, self.t_events, self.last = problem, [], None
        self.g = problem.event_values(float(problem.t_span[0]), np.asarray(problem.y0, float))

    def step(self, t1, y1, dy1):
        """(the time of a terminal crossing in the step from ``last`` to t1 or None, its interpolant)."""
        from .driver import crossings
        from .explicit_rk import hermite

        interp = hermite(*self.last, t1, y1, dy1)
        self.g, stop_at = crossings(self.problem, interp, self.last[0], t1, y1, self.g, 1.0, self.t_events)
        self.last = (t1, y1, dy1)
        return stop_at, interp


def _run(formulation, t_span, y0, *, step, settings: AugmentedLagrangian, t_eval, record, monitor,
         events=None) -> RunRecord:
    """Integrate the index-3 form over t_span with fixed step ``step``."""
    system, num, par = formulation.system, formulation.num, formulation.par
    m = system.m
    t0, t1 = float(t_span[0]), float(t_span[1])
    n_p = len(system.coordinates)
    p, v = np.array(y0[:n_p], float), np.array(y0[n_p:], float)
    evaluations = [0]

    def dynamics(t, p, v):
        evaluations[0] += 1
        return formulation.dynamics(t, p, v)[1]  # the Dynamics record

    def A_of(p):
        return num.A(p, par)

    _, a, lam = formulation.accelerations(t0, np.concatenate([p, v]))
    grid = None if t_eval is None else np.asarray(t_eval, float)
    targets = [t1] if grid is None else sorted(set(grid[(grid > t0) & (grid < t1)]) | {t1})
    ends = equal_steps(t0, targets, step)  # equal steps of at most ``step`` landing on every target
    if formulation.backend == "compiled" and formulation.compiled_dae and formulation.inputs is None and events is None:
        return _run_compiled(formulation, t0, np.concatenate([p, v]), ends, grid, settings)
    ts, ys = [t0], [record(t0, np.concatenate([p, v]), False)]
    if events:
        events.last = (t0, np.concatenate([p, v]), np.concatenate([A_of(p) @ v, a]))
    status, message, steps, t = 0, "the integration reached the end of the interval", 0, t0
    interrupted = False
    try:
        for t_next, on_target in zip(*ends):
            p, v, a, lam = _step(system, dynamics, A_of, num, par, m, t_next, t_next - t, p, v, a, lam, settings)
            steps += 1
            t = float(t_next)
            y = np.concatenate([p, v])
            _, a, lam = formulation.accelerations(t, y)  # the M-orthogonal projection of the accelerations
            stop_at, interp = events.step(t, y, np.concatenate([A_of(p) @ v, a])) if events else (None, None)
            if stop_at is not None:
                ts.append(stop_at)
                ys.append(record(stop_at, interp(stop_at), True))
                status, message = 1, f"a terminal event occurred at t = {stop_at:.6g}"
                break
            if grid is None or on_target:
                ts.append(t)
                ys.append(record(t, y, False))
            if monitor is not None:
                monitor(t, y)
    except (StopRun, np.linalg.LinAlgError, FloatingPointError) as exc:
        status, message = -1, f"stopped at t = {t:.6g}: {exc}"
    except KeyboardInterrupt:
        del ts[len(ys):], ys[len(ts):]  # a point half appended or half removed
        status, message, interrupted = -1, interruption_message(ts, t0), True
        if events:
            events.t_events = [e for e in events.t_events if ts and e[0] <= ts[-1]]
    if grid is not None and (t1 not in grid or t0 not in grid):  # only the requested points (and a terminal event's)
        keep = [i for i, tk in enumerate(ts) if np.any(grid == tk) or (status == 1 and i == len(ts) - 1)]
        ts, ys = [ts[i] for i in keep], [ys[i] for i in keep]
    return RunRecord(ts, ys, status, message, steps, events.t_events if events else [], evaluations=evaluations[0],
                     interrupted=interrupted)


def _run_compiled(formulation, t0, y0, step_ends, grid, settings) -> RunRecord:
    """The steps in machine code (al_run), the output points as the Python loop keeps them."""
    from .compiled_rk import compiled_module, recorded_run, run_constants
    from .interrupts import run_interruptible

    times, recorded = step_ends
    keep = recorded if grid is not None else np.ones(times.size, bool)
    module = compiled_module(formulation)
    params, extra = run_constants(formulation)
    states = np.full((int(keep.sum()), y0.size), np.nan)  # the output points only
    (done, status, size, evaluations), interrupted = run_interruptible(
        module.module.al_run_at, module.stored_model(), float(t0), times, keep, y0, params, extra,
        float(settings.penalty), int(settings.max_iter), float(settings.tol), states)
    kept = np.flatnonzero(keep[:done])
    ts, ys = np.concatenate([[t0], times[kept]]), np.vstack([y0, states[:kept.size]])
    if grid is not None and (times[-1] not in grid or t0 not in grid):  # only the requested points
        wanted = np.isin(ts, grid)
        ts, ys = ts[wanted], ys[wanted]
    reached = float(times[done - 1]) if done else float(t0)
    message = {0: "the integration reached the end of the interval",
               1: f"stopped at t = {reached:.6g}: the augmented Lagrangian iteration did not converge in "
                  f"{settings.max_iter} iterations (last |delta a| = {size:.2e}); take a smaller step or a larger "
                  f"penalty",
               2: f"stopped at t = {reached:.6g}: a singular or non-finite matrix in the step to t = "
                  f"{float(times[min(done, times.size - 1)]):.6g} (the mass matrix, the iteration's tangent or the "
                  f"velocity projection)",
               3: "interrupted"}[int(status)]
    return recorded_run(formulation, module, t0, [(ts, ys, extra)], -1 if status in (1, 2) else 0, message,
                        int(done), 0, int(evaluations), interrupted=interrupted or status == 3)


def _step(system, dynamics, A_of, num, par, m, t1, h, p0, v0, a0, lam, settings):
    """One trapezoidal step; returns (p1, v1 projected, a1 from the iteration, lambda*)."""
    pdot0 = A_of(p0) @ v0
    a = a0.copy()
    v1 = v0 + h / 2 * (a0 + a)
    p1 = _positions(system, A_of, p0, pdot0, v1, h)
    residual = None  # (Phi(p1, t1), C_nh(p1, t1) v1 + c_nh)
    alpha = scale = None
    for _ in range(settings.max_iter):
        M, d, f0, F, C, xi, A, _ = dynamics(t1, p1, v1)
        if alpha is None:  # penalties from the equivalent masses at the first iterate
            m_bar = ConstraintDynamics.equivalent_mass(M, C)
            alpha = np.concatenate([settings.penalty * 4 * m_bar[:m] / h**2, settings.penalty * 2 * m_bar[m:] / h])
            scale = np.concatenate([np.full(m, h**2 / 4), np.full(len(m_bar) - m, h / 2)])
            residual = _residual(num, par, m, t1, p1, v1)
        reacting = (C.T - F) if F.size else C.T  # non-ideal: f = f0 + F lambda
        R = M @ a + d - f0 + reacting @ (lam + alpha * residual)
        delta = -np.linalg.solve(M + reacting @ ((alpha * scale)[:, None] * C), R)
        a = a + delta
        v1 = v0 + h / 2 * (a0 + a)
        p1 = _positions(system, A_of, p0, pdot0, v1, h)
        residual = _residual(num, par, m, t1, p1, v1)
        lam = lam + alpha * residual
        size = np.max(np.abs(delta))
        if size <= settings.tol * (1 + np.max(np.abs(a))) or h**2 / 4 * size <= 1e-15 * (1 + np.max(np.abs(p1))):
            break  # converged, or the position increments are at round-off
    else:
        raise StopRun(f"the augmented Lagrangian iteration did not converge in {settings.max_iter} iterations "
                      f"(last |delta a| = {np.max(np.abs(delta)):.2e}); take a smaller step or a larger penalty",
                      quantity="accelerations")
    v1 = project_velocities(system, p1, v1, t=t1)[0]
    return p1, v1, a, lam


def _residual(num, par, m, t, p, v):
    """(Phi(p, t), C_nh(p, t) v + c_nh(p, t)): the residuals the penalties act on, (m + l,)."""
    Phi, _, C, c = num.constraint_terms(p, par, t)
    return np.concatenate([Phi, C[m:] @ v + c[m:]])

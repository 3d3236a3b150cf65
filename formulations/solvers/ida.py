"""Direct solution of the equations of motion as differential-algebraic equations by SUNDIALS IDA.

IDA (variable-order BDF with Newton iteration on F(t, Y, Y') = 0; Hindmarsh et al., ACM TOMS 31,
2005) is reached through scikit-sundae, the optional extra ``dae``: pip install "pfaff[dae]".
Two forms (formulations.forms INDEX1_DAE and GGL_DAE), for any formulation that gives its
saddle-point system (``Formulation.saddle``: the dependent and the reduced formulations), with
y = (y_pos, y_vel) the formulation's own state:

index 1 (stabilization none, Baumgarte or constraint dynamics), unknowns Y = (y, lambda):
    y_pos' - kinematics(y) = 0,     K(y) [y_vel'; lambda] - rhs(y) = 0
  the accelerations and multipliers are found by IDA's Newton iteration together with the states,
  not by a separate solve.

GGL, the stabilized index-2 form (Gear, Gupta & Leimkuhler, J. Comput. Appl. Math. 12, 1985),
unknowns Y = (y, lambda, mu):
    y_pos' - kinematics(y) + Psi_y^T mu = 0,   (dynamics rows of K) [y_vel'; lambda] = rhs,
    G y_vel + g_0 = 0,   Psi(y_pos, t) = 0
  with G the kept constraint rows (velocity level; g_0 their velocity-free term, zero unless a row is
  rheonomic or affine: Saddle.offset) and Psi the position constraints of the own
  coordinates (dependent: Phi and the unit norms of Euler parameters; reduced: the unit norms of
  Euler parameters in q). mu vanishes on the exact solution.

In both forms the multipliers (and mu) are left out of IDA's error test (their absolute tolerance
is set to EXCLUDED): they are algebraic functions of the states, so their accuracy follows from the
states'. For the index-2 variables of GGL this is what Hairer & Wanner (Solving ODEs II, VII.3)
advise; in the index-1 form it matters with feedback stabilization, whose multipliers carry the
term 2 alpha m_bar C v: kept in the test at the states' absolute tolerance, that term's round-off
level forced steps of 1e-5 s on the knife edge at alpha = 60 1/s (20797 steps over 0.2 s against 74).

Initial values of y', lambda (and mu = 0) are computed from the consistent initial state by the
formulation's own linear solve, so IDA starts without an initial-condition correction.

On the compiled backend, where the formulation's module has them (the dependent formulation), the
residual and IDA's Jacobian dF/dY + cj dF/dY' are evaluated in machine code (dae_residual and
dae_jacobian of formulations.kernels.compiled.dependent_steps; the Jacobian by difference quotients
with an increment like IDA's), one call each from IDA; elsewhere the residual is evaluated in Python and IDA
forms the Jacobian. The compiled run's points are evaluated after the run and the rank watch applies
to them (compiled_rk.recorded_run), where the Python run tests every step.
"""
from __future__ import annotations

import numpy as np

from ..errors import CapabilityError, StopRun
from ..forms import ADAPTIVE, DENSE_OUTPUT, EVENTS, GGL_DAE, INDEX1_DAE
from ..linalg import solve_square
from ..results.status import LoopStop
from .base import Problem, RunRecord, Solver, interruption_message, register
from .explicit_rk import hermite

EXCLUDED = 1e12  # absolute tolerance that takes a variable out of IDA's error test


class MissingDependencyError(ImportError):
    """An optional dependency is not installed; says which and how to install it."""


def require_ida():
    """The IDA class of scikit-sundae, or MissingDependencyError with the install command."""
    try:
        from sksundae.ida import IDA
    except ImportError as exc:
        raise MissingDependencyError(
            "method 'IDA' needs the optional package scikit-sundae (SUNDIALS IDA), which is not installed; "
            "install it with: pip install \"pfaff[dae]\" (or pip install scikit-sundae)") from exc
    return IDA


class Residual:
    """F(t, Y, Y') = 0 of one formulation in one form, with consistent Y0, Y0' and the error weights."""

    def __init__(self, formulation, t0, y0, form, atol):
        self.formulation, self.form = formulation, form
        self.n_y = y0.size
        s = formulation.saddle(t0, y0)
        self.n_pos, self.na = s.kinematics.size, s.na
        self.n_lam = s.K.shape[1] - s.na
        self.rows = s.rows
        sol = solve_square(s.K, s.rhs, f"the saddle-point matrix of {formulation.name!r} at the start")
        yp0 = np.concatenate([s.kinematics, sol[: s.na]])
        lam0 = sol[s.na:]
        self.n_mu = formulation.position_constraints(y0[: self.n_pos], t0)[0].size if form == GGL_DAE else 0
        self.Y0 = np.concatenate([y0, lam0, np.zeros(self.n_mu)])
        self.YP0 = np.concatenate([yp0, np.zeros(self.n_lam + self.n_mu)])
        self.algebraic = list(range(self.n_y, self.Y0.size))
        self.atol = np.concatenate([np.full(self.n_y, atol), np.full(self.n_lam + self.n_mu, EXCLUDED)])
        self.evaluations = 0

    def residual(self, t, Y, YP, res):
        self.evaluations += 1
        n_pos, n_y, na = self.n_pos, self.n_y, self.na
        y = Y[:n_y]
        s = self.formulation.saddle(t, y)
        unknowns = np.concatenate([YP[n_pos:n_y], Y[n_y:n_y + self.n_lam]])
        res[:n_pos] = YP[:n_pos] - s.kinematics
        if self.form != GGL_DAE:
            res[n_pos:] = s.K @ unknowns - s.rhs
            return
        dyn = s.K.shape[0] - s.rows
        mu = Y[n_y + self.n_lam:]
        Psi, Psi_y = self.formulation.position_constraints(y[:n_pos], t)
        res[:n_pos] += Psi_y.T @ mu
        res[n_pos:n_pos + dyn] = s.K[:dyn] @ unknowns - s.rhs[:dyn]
        offset = 0.0 if s.offset is None else s.offset
        res[n_pos + dyn:n_pos + dyn + s.rows] = s.K[dyn:, :na] @ s.velocity + offset
        res[n_pos + dyn + s.rows:] = Psi


class CompiledResidual(Residual):
    """The residual and its Jacobian in machine code: the formulation module's dae_residual and
    dae_jacobian (formulations.kernels.compiled.dependent_steps) on its stored model, one call from IDA each."""

    def __init__(self, formulation, t0, y0, form, atol, rtol):
        from .compiled_rk import compiled_module, run_constants

        super().__init__(formulation, t0, y0, form, atol)
        module = self.module = compiled_module(formulation)
        self.where = module.stored_model()
        self.residual_at, self.jacobian_at = module.module.dae_residual_at, module.module.dae_jacobian_at
        self.params, self.extra = run_constants(formulation)
        self.ggl = form == GGL_DAE
        self.rtol = float(rtol)
        self.work = np.zeros(int(module.DAE_WORK))

    @staticmethod
    def available(formulation) -> bool:
        """True where the formulation runs on the compiled backend and its module has dae_residual."""
        return formulation.backend == "compiled" and formulation.compiled_dae and formulation.inputs is None

    def residual(self, t, Y, YP, res):
        self.evaluations += 1
        self.residual_at(self.where, float(t), Y, YP, self.params, self.extra, self.ggl, res, self.work)

    def jacobian(self, t, Y, YP, res, cj, JJ):
        self.evaluations += Y.size
        self.jacobian_at(self.where, float(t), Y, YP, float(cj), self.params, self.extra, self.ggl, self.rtol,
                         self.atol, res, JJ, self.work)


@register("IDA")
class IDASolver(Solver):
    """SUNDIALS IDA through scikit-sundae: variable-order BDF on the index-1 or GGL residual.

    Every internal step is an output point unless t_eval is given (then IDA's interpolant gives
    the grid). A failed step ends the run with status -1 and IDA's message; the points so far are
    kept. Events are located by IDA's own root finding on the formulation's state (its step ends at
    each; a terminal one ends the run with status 1 and an output point there). Post-step hooks are
    not offered (IDA keeps a history that a projection would break). On a compiled residual the
    points are evaluated after the run by one compiled pass, and the rank watch applies to them as
    it does to the compiled loops' (compiled_rk.recorded_run).
    """

    forms = (INDEX1_DAE, GGL_DAE)
    offers = frozenset({ADAPTIVE, DENSE_OUTPUT, EVENTS})
    order = 5
    max_steps = 10**7

    def __init__(self, method="IDA", step=None):
        super().__init__(method, step)
        self.IDA = require_ida()

    def integrate(self, problem: Problem) -> RunRecord:
        return _run(self.IDA, problem, self.max_steps)


def _run(IDA, run: Problem, max_steps) -> RunRecord:
    """Integrate ``run`` with IDA; own states y are recorded through run.record, or on a compiled
    residual as they are, for the compiled pass after the run."""
    t_eval = run.t_eval
    t0, t1 = float(run.t_span[0]), float(run.t_span[1])
    if t1 <= t0:
        raise CapabilityError(f"method 'IDA' got t_span={run.t_span!r} but expected t1 > t0")
    y0 = np.asarray(run.y0, float)
    compiled = CompiledResidual.available(run.formulation)
    if compiled:
        problem = CompiledResidual(run.formulation, t0, y0, run.form, run.atol, run.rtol)
        jacobian = {"jacfn": problem.jacobian}
        monitor = None

        def record(t, y, interpolated):
            return y
    else:
        problem, jacobian = Residual(run.formulation, t0, y0, run.form, run.atol), {}
        record, monitor = run.record, run.monitor
    options = dict(**jacobian, algebraic_idx=problem.algebraic, rtol=run.rtol, atol=problem.atol, max_num_steps=100000,
                   max_step=0.0 if not np.isfinite(run.max_step) else float(run.max_step))
    if run.first_step:
        options["first_step"] = float(run.first_step)
    if run.events:
        options.update(eventsfn=_events_function(run, problem.n_y), num_events=len(run.events))
    solver = IDA(problem.residual, **options)
    t_events, seen = [], 0
    n_y = problem.n_y
    ts, ys = [], []
    grid = None if t_eval is None else np.asarray(t_eval, float)
    next_eval = 0
    if grid is None or (grid.size and grid[0] == t0):
        ts.append(t0)
        ys.append(record(t0, problem.Y0[:n_y].copy(), False))
        next_eval = 0 if grid is None else 1
    status, message, steps, t_now = 0, "the integration reached the end of the interval", 0, t0
    interrupted = False
    last = (t0, np.array(problem.Y0[:n_y], float), np.array(problem.YP0[:n_y], float)) if run.events else None
    try:
        start = solver.init_step(t0, problem.Y0, problem.YP0)
        if not start.success:
            raise StopRun(f"IDA could not start: {start.message}", quantity="initial values")
        while t_now < t1:
            out = solver.step(t1, method="onestep", tstop=t1)
            if not out.success:
                raise StopRun(f"IDA failed ({out.message})", quantity="IDA step")
            steps += 1
            t_now = float(out.t)
            next_eval = _output(solver, out, grid, next_eval, ts, ys, record, n_y, last)
            if last is not None:
                last = (t_now, np.array(out.y[:n_y], float), np.array(out.yp[:n_y], float))
            if monitor is not None:
                monitor(t_now, np.array(out.y[:n_y]))
            if out.status == ROOT_FOUND:
                seen, stop = _roots(run, out, seen, t_events)
                if stop:
                    if grid is not None and (not ts or ts[-1] != t_now):
                        ts.append(t_now)
                        ys.append(record(t_now, np.array(out.y[:n_y]), False))
                    status, message = 1, f"a terminal event occurred at t = {t_now:.6g}"
                    break
            if steps >= max_steps and t_now < t1:
                raise StopRun(LoopStop.MAX_STEPS.message(max_steps=max_steps), quantity="max_steps")
    except (StopRun, np.linalg.LinAlgError, FloatingPointError) as exc:
        status, message = -1, f"stopped at t = {t_now:.6g}: {exc}"
    except KeyboardInterrupt:
        del ts[len(ys):], ys[len(ts):]  # a point half appended or half removed
        status, message, interrupted = -1, interruption_message(ts, t0), True
    if compiled:
        from .compiled_rk import recorded_run

        states = np.array(ys, float).reshape(len(ys), n_y)
        return recorded_run(run.formulation, problem.module, t0, [(np.array(ts, float), states, problem.extra)],
                            status, message, steps, 0, problem.evaluations, interrupted=interrupted, t_events=t_events)
    return RunRecord(ts, ys, status, message, steps, t_events, evaluations=problem.evaluations,
                     interrupted=interrupted)


def _output(solver, out, grid, next_eval, ts, ys, record, n_y, last=None):
    """Record IDA's step that ended at out.t: the step point, or the grid points it passed; the
    index of the next grid point. The grid points come from IDA's interpolant, or, in a run with
    events (``last``: (t, y, y') where the step began), from the cubic Hermite interpolant of the
    step: asking IDA for a time behind a root would make it find the root again."""
    t_now = float(out.t)
    if grid is None:
        ts.append(t_now)
        ys.append(record(t_now, np.array(out.y[:n_y]), False))
        return next_eval
    step = None if last is None else hermite(*last, t_now, np.array(out.y[:n_y]), np.array(out.yp[:n_y]))
    while next_eval < grid.size and grid[next_eval] <= t_now:
        te = float(grid[next_eval])
        if te == t_now:
            y = np.array(out.y[:n_y])
        else:
            y = step(te) if step is not None else np.array(solver.step(te, method="normal").y[:n_y])
        ts.append(te)
        ys.append(record(te, y, True))
        next_eval += 1
    return next_eval


ROOT_FOUND = 2  # IDASolve's return where a root of the events function was found (IDA_ROOT_RETURN)


def _events_function(run, n_y):
    """IDA's events function g(t, Y, Y', out): the run's event values on its own state, the first
    n_y entries of Y; their directions and which are terminal as the Events say."""
    def events(t, Y, Yp, out):
        out[:] = run.event_values(t, np.asarray(Y[:n_y]))

    events.direction = [int(ev.direction) for ev in run.events]
    events.terminal = [bool(ev.terminal) for ev in run.events]
    return events


def _roots(run, out, seen, t_events):
    """Append the events IDA found at this return (rows of out.i_events after the first ``seen``)
    to t_events as (t, index): (the rows seen now, whether a terminal one is among them)."""
    rows, times = np.atleast_2d(out.i_events)[seen:], np.atleast_1d(out.t_events)[seen:]
    stop = False
    for row, t in zip(rows, times):
        for i in np.flatnonzero(row):
            t_events.append((float(t), int(i)))
            stop = stop or bool(run.events[i].terminal)
    return seen + len(rows), stop

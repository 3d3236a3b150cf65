"""simulate: a formulation and a solver matched, run, and the result recorded as a Trajectory."""
from __future__ import annotations

import copy
import time

import numpy as np

from systems.errors import ArgumentError
from systems.numeric.compiling import compiled_seconds, watch_compiling

from ..coordinates.charts import ChartError
from ..errors import CapabilityError, RunInterrupted, StopRun
from ..forms import EVENTS
from ..inputs import InputSchedule
from ..results.assessment import assess
from ..results.recording import trajectory
from ..results.trajectory import Stats, Trajectory
from . import options as checking
from . import tiers
from .base import Problem, create, names, solver_class
from .faults import explain_step_failure, guarded_rhs
from .options import MAX_STEPS
from .threads import one_blas_thread
from .monitor import rank_monitor


def match(formulation, solver, events=()) -> str:
    """The form in which ``solver`` integrates ``formulation``: the first of the solver's forms that
    the formulation gives and for which the solver offers what the formulation (and ``events``)
    needs; otherwise CapabilityError naming both, what is missing and the methods that would fit."""
    reasons = {form: formulation.gives(form) for form in solver.forms}
    given = [f for f in solver.forms if reasons[f] is None]
    if not given:
        why = "; ".join(dict.fromkeys(r for r in reasons.values()))
        raise CapabilityError(f"method {solver.method!r} got formulation {formulation.label()!r}, which does not give "
                              f"the {' or '.join(solver.forms)} the method integrates: {why}"
                              f"{_alternatives(formulation, events)}")
    needs = dict(formulation.needs())
    if events:
        needs[EVENTS] = ("events", "their zero crossings are located between steps")
    for form in given:
        missing = [c for c in needs if c not in solver.offers_for(form)]
        if not missing:
            return form
    subject, why = needs[missing[0]]
    raise CapabilityError(f"method {solver.method!r} got {subject} ({why}): that takes a solver that offers "
                          f"{missing[0]}, which the method does not{_alternatives(formulation, events)}")


def _alternatives(formulation, events) -> str:
    """'; expected one of: ...' — the registered methods that fit ``formulation`` and ``events``."""
    needs = set(formulation.needs()) | ({EVENTS} if events else set())
    fits = [name for name in names() if needs <= solver_class(name).offers
            and any(formulation.gives(f) is None for f in solver_class(name).forms)]
    return f"; expected one of: {', '.join(fits)}" if fits else ""


def simulate(formulation, t_span, state0=None, *, rtol=1e-8, atol=1e-8, method="DOP853", max_step=np.inf,
             t_eval=None, events=(), step=None, first_step=None, project_initial=False,
             check_initial=True, max_steps=MAX_STEPS, inputs=None) -> Trajectory:
    """Integrate ``formulation`` from the dependent state ``state0`` = (p, v) (default: the system's).

    Parameters
    ----------
    formulation : Formulation
        A created formulation (``formulations.create``).
    t_span : tuple of float
        (t0, t1) in s, with t1 > t0.
    state0 : tuple of array_like, optional
        (p, v), arrays or lists; by default the system's default state. A state that violates the
        constraints is refused unless ``check_initial=False`` (to watch a feedback stabilization pull
        it back) or ``project_initial=True`` (moved onto them first).
    rtol, atol : float
        rtol between machine epsilon and 0.1; atol positive, at most a tenth of the state's scale.
    method : str or Solver
        A registered solver (``formulations.solvers.names()``): scipy's and our Runge-Kutta methods;
        the Munthe-Kaas methods "RKMK4-SE3", "RKMK4-SO3xR3" (fixed ``step``), "RKMK45-SE3",
        "RKMK45-SO3xR3" (adaptive) for the dependent formulation of rigid-body systems; "IDA"
        (SUNDIALS, a DAE solver; extra ``dae``); "augmented_lagrangian" (index 3, trapezoidal, fixed
        step; an AugmentedLagrangian instance sets its penalty); or a Solver instance.
    max_step, first_step : float, optional
        Bounds on the adaptive step, in s.
    step : float, optional
        The step of the fixed-step methods ("rk4", the RKMK4 methods, "augmented_lagrangian"), in s,
        at most t1 - t0.
    t_eval : array_like, optional
        Output times, sorted, inside t_span (None: every step; more than 10^5 points warn of the cost).
    events : Event or callable or sequence of them
        ``Event`` objects or callables g(t, p, v) (terminal, both directions); the trajectory's
        ``events`` say which fired when.
    max_steps : int
        Bound on the accepted steps; a run that reaches it stops with status -1, keeping its result.
    inputs : dict, optional
        {name of a force or torque parameter: (times, values) interpolated linearly, covering t_span,
        or a callable u(t, p, v) (feedback)}: parameters that vary during the run. The run evaluates
        the formulation in Python on the backend's primitives (the machine-code loops hold parameters
        fixed), leaves out the energy check (the inputs do work); ``settings["inputs"]`` names them.

    Returns
    -------
    Trajectory
        The run. A failed step, a singular matrix or a piece of the model that is not finite (e.g.
        "the forces f are not finite at t = ...") ends it with status -1 and a message naming the
        system, the time and the quantity, keeping what was computed; a finished run whose result
        fails a check (``formulations.results.assessment``) has status 2 and says why.

    Raises
    ------
    systems.ArgumentError, systems.ArgumentTypeError
        For bad arguments, naming the argument.
    formulations.RunInterrupted
        On Ctrl-C: a KeyboardInterrupt whose ``trajectory`` holds the run up to its last accepted step.

    Examples
    --------
    >>> import systems, formulations
    >>> form = formulations.create("minimal", systems.load("rolling_disc"))
    >>> traj = formulations.simulate(form, (0.0, 0.5), rtol=1e-8, atol=1e-8)
    >>> float(traj.t[-1]), traj.status, traj.success
    (0.5, 0, True)
    """
    started = time.perf_counter()
    system = formulation.system
    args = checking.check(system, t_span, state0, rtol=rtol, atol=atol, t_eval=t_eval, events=events, step=step,
                        max_step=max_step, first_step=first_step, max_steps=max_steps)
    state = None if args.p0 is None else (args.p0, args.v0)
    formulation, backend_note = tiers.for_run(formulation, method, args.step, state, args.t_span[0], inputs is not None)
    formulation = formulation.for_run()  # what the run changes, it changes on a copy of its own
    if inputs_given := inputs is not None:
        formulation.inputs = InputSchedule(system, inputs)
        formulation.inputs.check_span(args.t_span)
    return _run(formulation, system, args, started, method, project_initial, check_initial, inputs_given,
                backend_note)


def _run(formulation, system, args, started, method, project_initial, check_initial, inputs_given, backend_note):
    """simulate after its arguments are checked (formulation.inputs set for the run); ``backend_note``
    what the tiers chose (formulations.solvers.tiers), into the settings."""
    # compiling counts from the start: preparing the run may compile (the module behind y') as well
    with watch_compiling() as compiling:
        p0, v0 = _initial_state(formulation, args, project_initial, check_initial)
        solver = _solver(method, args)
        events = args.events
        checking.check_event_values(events, args.t_span[0], p0, v0)
        form = match(formulation, solver, events)
        try:
            problem = _problem(formulation, form, solver, args, p0, v0)
        except ChartError as exc:
            raise _singular_start(formulation, args, exc) if exc.quantity == "Phi_p" else exc from None
        setup = time.perf_counter() - started - (compiled_seconds() - compiling.start)
        with one_blas_thread():  # small matrices: spinning BLAS threads only wait
            run = solver.integrate(problem)
    wall = time.perf_counter() - started - compiling.seconds  # the run's own time, without compiling
    message = run.message
    if run.status < 0:
        message = f"system {system.name!r}, formulation {formulation.label()!r}: {run.message}"
    stats = _stats(formulation, problem, run, wall, setup, compiling.seconds)
    settings = dict(method=solver.method, rtol=args.rtol, atol=args.atol,
                    stabilization=formulation.stabilization.label(), formulation=formulation.name, step=solver.step)
    if backend_note:
        settings["backend"] = backend_note
    if inputs_given:
        settings["inputs"] = formulation.inputs.names
    if getattr(solver, "gauge", None) is not None:  # a variational method on L + dS/dt
        settings["gauge"] = str(solver.gauge)
    traj = trajectory(formulation, run, stats, message, settings, events)
    traj = assess(traj, system, t_span=args.t_span, t_eval=args.t_eval, tol=max(args.rtol, args.atol),
                  adaptive=solver.step is None, initial_violation=not check_initial,
                  kinematic_ratio=run.kinematic_ratio)
    if run.interrupted:
        raise RunInterrupted(traj)
    return traj


def _initial_state(formulation, args, project_initial, check_initial):
    """The starting (p, v): the checked ``state0`` or the system's default, made consistent at t0 with
    ``project_initial``, refused where it violates the constraints with ``check_initial``."""
    system = formulation.system
    p0, v0 = system.default_state() if args.p0 is None else (args.p0, args.v0)
    checking.check_tolerance_scale(args.atol, p0, v0)
    t0 = float(args.t_span[0])
    if project_initial:
        p0, v0 = system.consistent_state(p0, v0, t=t0)
    if check_initial:
        formulation.check_state(p0, v0, t=t0)
    return p0, v0


def _singular_start(formulation, args, exc):
    """The ArgumentError for a run whose start lies on a singular configuration (no chart there)."""
    name = formulation.system.name
    argument = "state0" if args.p0 is not None else f"the default state (default_p of system {name!r})"
    return ArgumentError(f"{argument} got a singular configuration, where formulation {formulation.label()!r} cannot "
                         f"start: {exc}. Expected a start where Phi_p has full rank: start from a configuration away "
                         f"from it (system.consistent_state(p, v) from a guess nearby), or run formulation "
                         f"'dependent', which passes through singular configurations", "state0")


def _solver(method, args):
    """The solver of ``method``, checked against the fixed step and told max_steps where it counts
    its own steps."""
    solver = create(method, args.step)
    checking.check_fixed_step(solver, args.t_span, args.max_steps)
    if solver.max_steps is not None:  # a loop that counts its own steps (the compiled one)
        solver = copy.copy(solver)
        solver.max_steps = args.max_steps
    return solver


def _problem(formulation, form, solver, args, p0, v0) -> Problem:
    """The formulation prepared at (p0, v0) for ``solver``, and the Problem the solver integrates."""
    t0 = float(args.t_span[0])
    if formulation.system.is_rheonomic:  # formulations written for fixed constraints need no start time
        formulation.prepare(p0, v0, solver.offers, t0)
    else:
        formulation.prepare(p0, v0, solver.offers)
    y0 = formulation.own_state(p0, v0, t0)  # on charts: the first chart, taken here
    formulation.resolve_stabilization(args.t_span, y0)
    recorder = _recorder(formulation)
    if args.t_eval is not None and args.t_eval.size > checking.LARGE_OUTPUT:
        timer = time.perf_counter()
        recorder(args.t_span[0], np.array(y0, float), False)
        checking.warn_large_output(args.t_eval, time.perf_counter() - timer)
    events = args.events
    problem = Problem(formulation, form, None, args.t_span, y0, args.rtol, args.atol, recorder,
                      max_step=args.max_step, first_step=args.first_step, t_eval=args.t_eval, events=events,
                      event_values=_event_values(formulation, events),
                      monitor=_bounded(lambda: rank_monitor(formulation, p0, t0), args.max_steps, args.t_span[1]),
                      post_step=formulation.post_step if formulation.uses_post_step else None,
                      explain=explain_step_failure(formulation, args.t_span[0], y0))
    problem.fun = guarded_rhs(formulation, problem.evaluations, formulation.reject_singular_stages)
    return problem


def _stats(formulation, problem, run, wall, setup, compile_time) -> Stats:
    """The run's costs: times, evaluations, steps, and what its post-steps changed (the first chart,
    taken before the run, counted among the charts)."""
    changes = run.changes
    return Stats(wall_time=wall, rhs_evaluations=run.evaluations if run.evaluations is not None else
                 problem.evaluations[0], steps=run.steps, rejected=run.rejected, projections=changes.projections,
                 rechoices=changes.rechoices, setup_time=setup, charts=changes.charts + formulation.on_charts,
                 chart_time_share=changes.chart_seconds / wall if wall > 0 else 0.0, backend=formulation.backend,
                 compile_time=compile_time)


def _bounded(make_monitor, max_steps, t_end):
    """The monitor (made by ``make_monitor`` at the first accepted step: a loop in machine code
    never calls it) after every accepted step, and a stop with a message after ``max_steps``
    steps short of ``t_end``."""
    count = [0]
    made = []

    def bounded(t, y):
        if not made:
            made.append(make_monitor())
        monitor = made[0]
        if monitor is not None:
            monitor(t, y)
        count[0] += 1
        if count[0] >= max_steps and t < t_end:
            raise StopRun(f"max_steps = {max_steps} accepted steps reached before the end of t_span (raise "
                          f"max_steps, loosen the tolerance or shorten t_span; the points so far are kept)",
                          quantity="max_steps")

    return bounded


def _recorder(formulation):
    """record(t, y, interpolated) -> (y, p, v, v', lambda): everything about an output point,
    evaluated now — own states are only meaningful in the chart and choice of independent
    velocities that is current when they are produced."""
    project_samples = formulation.stabilization.projects

    def record(t, y, interpolated):
        if interpolated and project_samples:  # dense output interpolates unprojected states
            y = formulation.project(t, y)
        p, v = formulation.state_at(y, t)
        try:
            _, vdot, lam = formulation.accelerations(t, y)
        except (np.linalg.LinAlgError, StopRun):
            vdot, lam = None, None
        return np.array(y, float), p, v, vdot, lam

    return record


def _event_values(formulation, events):
    def event_values(t, y):
        p, v = formulation.state_at(y, t)
        return np.array([ev.function(t, p, v) for ev in events], dtype=float)
    return event_values if events else None

"""simulate: a formulation and a solver matched, run, and the result recorded as a Trajectory."""
from __future__ import annotations

import time

import numpy as np

from ..errors import CapabilityError, StopRun
from ..forms import EVENTS
from ..linear import SingularMatrixError
from ..charts import ChartError
from ..results.recording import trajectory
from ..results.trajectory import Stats, Trajectory
from ..stabilization import Projection
from .base import Event, Problem, create, names, solver_class
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
             check_initial=True) -> Trajectory:
    """Integrate ``formulation`` from the dependent state ``state0`` = (p, v) (default: the system's).

    method: a registered solver (formulations.solvers.names(): scipy's and our Runge-Kutta methods,
    the Munthe-Kaas methods "RKMK4-SE3", "RKMK4-SO3xR3" (fixed ``step``), "RKMK45-SE3",
    "RKMK45-SO3xR3" (adaptive) for the dependent formulation of rigid-body systems, "IDA" (SUNDIALS,
    a DAE solver; optional extra ``dae``), "augmented_lagrangian" (index-3, trapezoidal, fixed step;
    an AugmentedLagrangian instance sets its penalty)), or a Solver instance. ``step`` is the fixed
    step of the fixed-step methods ("rk4", "RKMK4-*", "augmented_lagrangian").
    events: Event objects or callables g(t, p, v) (terminal, both directions).
    check_initial=False starts from a state that violates the constraints (to watch a feedback
    stabilization pull it back); by default such a state is refused.
    A failed step or singular matrix ends the run with status -1 and a message naming the
    system, the time and the quantity; the trajectory computed so far is kept.
    """
    if not (np.isscalar(rtol) and rtol > 0 and np.isscalar(atol) and atol > 0):
        raise ValueError(f"tolerances got rtol={rtol!r}, atol={atol!r} but expected positive numbers")
    if len(t_span) != 2 or not np.all(np.isfinite(t_span)):
        raise ValueError(f"t_span got {t_span!r} but expected (t0, t1) finite")
    started = time.perf_counter()
    system = formulation.system
    p0, v0 = system.default_state() if state0 is None else (np.asarray(state0[0], float),
                                                            np.asarray(state0[1], float))
    if project_initial:
        p0, v0 = system.consistent_state(p0, v0)
    if check_initial:
        formulation.check_state(p0, v0)
    solver = create(method, step)
    events = tuple(e if isinstance(e, Event) else Event(e) for e in events)
    form = match(formulation, solver, events)
    formulation.prepare(p0, v0, solver.offers)
    formulation.reset_statistics()
    y0 = formulation.initial_state(p0, v0)
    formulation.resolve_stabilization(t_span, y0)
    problem = Problem(formulation, form, None, tuple(float(t) for t in t_span), y0, rtol, atol, _recorder(formulation),
                      max_step=max_step, first_step=first_step,
                      t_eval=None if t_eval is None else np.asarray(t_eval, float), events=events,
                      event_values=_event_values(formulation, events), monitor=rank_monitor(formulation, p0),
                      post_step=formulation.post_step if formulation.uses_post_step else None)
    problem.fun = _counted_rhs(formulation, problem.evaluations)
    setup = time.perf_counter() - started
    run = solver.integrate(problem)
    wall = time.perf_counter() - started
    message = run.message
    if run.status < 0:
        message = f"system {system.name!r}, formulation {formulation.label()!r}: {run.message}"
    charts, chart_seconds = formulation.chart_statistics()
    stats = Stats(wall_time=wall, rhs_evaluations=run.evaluations if run.evaluations is not None else
                  problem.evaluations[0], steps=run.steps, rejected=run.rejected, projections=formulation.projections,
                  rechoices=formulation.rechoices, setup_time=setup, charts=charts,
                  chart_time_share=chart_seconds / wall if wall > 0 else 0.0, backend=formulation.backend)
    settings = dict(method=solver.method, rtol=rtol, atol=atol, stabilization=formulation.stabilization.label(),
                    formulation=formulation.name, step=solver.step)
    return trajectory(formulation, run, stats, message, settings)


def _counted_rhs(formulation, counter):
    """y' = F(t, y), counted; where the formulation asks for it, a singular trial stage gives NaN so
    that the solver shrinks the step instead of ending the run."""
    rhs = formulation.rhs
    if not formulation.reject_singular_stages:
        def fun(t, y):
            counter[0] += 1
            return rhs(t, y)
        return fun

    def guarded(t, y):
        counter[0] += 1
        try:
            return rhs(t, y)
        except (SingularMatrixError, ChartError):
            return np.full(len(y), np.nan)
    return guarded


def _recorder(formulation):
    """record(t, y, interpolated) -> (y, p, v, v', lambda): everything about an output point,
    evaluated now — own states are only meaningful in the chart and choice of independent
    velocities that is current when they are produced."""
    project_samples = isinstance(formulation.stabilization, Projection)

    def record(t, y, interpolated):
        if interpolated and project_samples:  # dense output interpolates unprojected states
            y = formulation.project(t, y)
        p, v = formulation.dependent_state(y)
        try:
            _, vdot, lam = formulation.accelerations(t, y)
        except (np.linalg.LinAlgError, StopRun):
            vdot, lam = None, None
        return np.array(y, float), p, v, vdot, lam

    return record


def _event_values(formulation, events):
    def event_values(t, y):
        p, v = formulation.dependent_state(y)
        return np.array([ev.function(t, p, v) for ev in events], dtype=float)
    return event_values if events else None

"""The driver shared by the solvers that take one step at a time (SteppingSolver).

A stepper has start(fun, t0, y0, t_bound, rtol, atol, max_step, first_step), step() -> (t, y),
interpolant() -> a function of t on the last step, replace_state(y), and the attributes t,
rejected, supports_post_step. The driver produces the output (every step, or the t_eval grid from
the interpolant), locates events by Brent's method on the interpolant, runs the monitor and the
post-step hook after every accepted step, and ends with a status and message, keeping what was
computed, when a step fails.
"""
from __future__ import annotations

import time
from abc import abstractmethod

import numpy as np
from scipy.optimize import brentq

from systems.numeric.compiling import compiled_seconds

from ..errors import CapabilityError, StopRun
from ..forms import EXPLICIT_ODE
from .base import Problem, RunRecord, Solver, StateChanges, StepFailure, interruption_message


class SteppingSolver(Solver):
    """A solver whose ``stepper(problem)`` takes one step at a time; the driver does the rest."""

    forms = (EXPLICIT_ODE,)

    @abstractmethod
    def stepper(self, problem: Problem):
        """A fresh stepper for ``problem``."""

    def integrate(self, problem: Problem) -> RunRecord:
        return run(self.stepper(problem), problem)


def run(stepper, problem: Problem) -> RunRecord:
    """Integrate y' = problem.fun(t, y) over problem.t_span with ``stepper``.

    The output row of a point is problem.record(t, y, interpolated), made when the point is
    produced, before the post-step hook of that step. Exceptions StepFailure and StopRun (and
    numpy's LinAlgError) end the run with status -1; a StopRun from the monitor that carries
    ``locate`` ends it where that function crosses zero within the step.
    """
    t0, t1 = float(problem.t_span[0]), float(problem.t_span[1])
    direction = 1.0 if t1 >= t0 else -1.0
    _check_post_step(stepper, problem)
    out = _Output(problem.record)
    next_eval = _first_point(out, problem, t0)
    g_old = problem.event_values(t0, problem.y0) if problem.events else None
    status, message, interrupted = 0, "the integration reached the end of the interval", False
    try:
        status, message = _steps(stepper, problem, out, next_eval, g_old)
    except (StepFailure, StopRun, np.linalg.LinAlgError, FloatingPointError) as exc:
        status, message = -1, _failure_message(exc, stepper, problem, t0)
    except KeyboardInterrupt:
        out.keep_whole_points(direction)
        status, message, interrupted = -1, interruption_message(out.ts, t0), True
    return RunRecord(out.ts, out.ys, status, message, out.steps, out.t_events,
                     rejected=getattr(stepper, "rejected", None), interrupted=interrupted, changes=out.changes)


class _Output:
    """What a run has produced so far: the output times and rows, the event crossings (t, index) and
    the accepted steps; kept when the run ends early."""

    def __init__(self, record):
        self.record = record
        self.ts, self.ys, self.t_events, self.steps = [], [], [], 0
        self.changes = StateChanges()

    def keep_whole_points(self, direction):
        """Drop a point half appended or half removed, and the crossings past the last point kept."""
        ts, ys = self.ts, self.ys
        del ts[len(ys):], ys[len(ts):]
        self.t_events = [e for e in self.t_events if ts and direction * (e[0] - ts[-1]) <= 0]


def _check_post_step(stepper, problem):
    if problem.post_step is not None and not stepper.supports_post_step:
        raise CapabilityError(f"a post-step hook got method={getattr(stepper, 'method', '?')!r} but "
                              f"expected a method that accepts a changed state")


def _first_point(out, problem, t0) -> int:
    """Record the starting point where it is an output point; the index of the next t_eval point."""
    t_eval = problem.t_eval
    if t_eval is None or (t_eval.size and t_eval[0] == t0):
        out.ts.append(t0)
        out.ys.append(out.record(t0, np.array(problem.y0, float), False))
        return 1 if t_eval is not None else 0
    return 0


def _steps(stepper, problem, out, next_eval, g_old):
    """Step to the end of t_span or to a terminal event: (status, message)."""
    t0, t1 = float(problem.t_span[0]), float(problem.t_span[1])
    direction = 1.0 if t1 >= t0 else -1.0
    events, t_eval = problem.events, problem.t_eval
    stepper.start(problem.fun, t0, problem.y0, t1, problem.rtol, problem.atol, problem.max_step, problem.first_step)
    while direction * (stepper.t - t1) < 0:
        t_prev = stepper.t
        t_new, y_new = stepper.step()
        out.steps += 1
        interp = stepper.interpolant() if (events or t_eval is not None) else None
        stop_at = None
        if events:
            g_old, stop_at = crossings(problem, interp, t_prev, t_new, y_new, g_old, direction, out.t_events)
        next_eval = _output_step(out, t_eval, t_new, y_new, interp, stop_at, next_eval, direction)
        if stop_at is not None:
            return 1, f"a terminal event occurred at t = {stop_at:.6g}"
        if problem.monitor is not None:
            _run_monitor(problem.monitor, stepper, out, t_prev, t_new, y_new, direction)
        if problem.post_step is not None:
            _post_step(problem.post_step, stepper, out, t_new, y_new, t_eval is None)
    return 0, "the integration reached the end of the interval"


def _post_step(post_step, stepper, out, t_new, y_new, every_step):
    """The formulation's hook after an accepted step: the stepper goes on from the changed state,
    which replaces the step's output row where every step is output; the change is counted."""
    started, compiling = time.perf_counter(), compiled_seconds()
    change = post_step(t_new, y_new)
    if change is None:
        return
    out.changes.count(change, time.perf_counter() - started - (compiled_seconds() - compiling))
    stepper.replace_state(change.y)
    if every_step:
        out.ys[-1] = out.record(t_new, np.array(change.y), False)


def crossings(problem, interp, t_prev, t_new, y_new, g_old, direction, t_events):
    """Locate the events that cross zero within the step on its interpolant ``interp`` (appended to
    ``t_events`` as (t, index); those past a terminal crossing, which did not happen, dropped): (the
    event values at t_new, the time of the first terminal crossing or None). Every solver that
    locates events between its own steps calls this."""
    event_values = problem.event_values
    g_new = event_values(t_new, y_new)
    stop_at = None
    for i, ev in enumerate(problem.events):
        a, b = g_old[i], g_new[i]
        crossed = np.sign(a) != np.sign(b) and a != 0
        if crossed and (ev.direction == 0 or np.sign(b - a) == ev.direction):
            on_interpolant = lambda s: event_values(s, interp(s))[i]  # noqa: E731
            # the interpolant's ends may miss the step's values by its error: then the crossing is the step's end
            tc = (brentq(on_interpolant, t_prev, t_new, xtol=1e-14)
                  if np.sign(on_interpolant(t_prev)) != np.sign(on_interpolant(t_new)) else t_new)
            t_events.append((tc, i))
            if ev.terminal and (stop_at is None or direction * (tc - stop_at) < 0):
                stop_at = tc
    if stop_at is not None:
        t_events[:] = [e for e in t_events if direction * (e[0] - stop_at) <= 0]
    return g_new, stop_at


def _output_step(out, t_eval, t_new, y_new, interp, stop_at, next_eval, direction) -> int:
    """Record the output points of the step (up to ``stop_at`` where an event ends the run); the
    index of the next t_eval point."""
    ts, ys, record = out.ts, out.ys, out.record
    if t_eval is None:
        if stop_at is None:
            ts.append(t_new)
            ys.append(record(t_new, np.array(y_new), False))
        else:
            ts.append(stop_at)
            ys.append(record(stop_at, np.array(interp(stop_at)), True))
        return next_eval
    limit = t_new if stop_at is None else stop_at
    while next_eval < t_eval.size and direction * (t_eval[next_eval] - limit) <= 0:
        ts.append(t_eval[next_eval])
        ys.append(record(t_eval[next_eval], np.array(interp(t_eval[next_eval])), True))
        next_eval += 1
    if stop_at is not None and (not ts or ts[-1] != stop_at):
        ts.append(stop_at)
        ys.append(record(stop_at, np.array(interp(stop_at)), True))
    return next_eval


def _run_monitor(monitor, stepper, out, t_prev, t_new, y_new, direction):
    """The monitor after an accepted step. Its StopRun passes on, with the output cut at the
    located stop where it carries ``locate``."""
    try:
        monitor(t_new, y_new)
    except StopRun as stop:
        located = _locate(stop, stepper, t_prev, t_new, out.record)
        if located is None:
            raise
        tc, row = located
        while out.ts and direction * (out.ts[-1] - tc) > 0:
            out.ts.pop()
            out.ys.pop()
        out.ts.append(tc)
        out.ys.append(row)
        raise StopRun(f"{stop} (located at t = {tc:.10g})", stop.quantity, at=tc) from None


def _failure_message(exc, stepper, problem, t0) -> str:
    """'stopped at t = ...: why' for an exception that ended the run."""
    at = getattr(exc, "at", None)
    text = str(exc)
    if isinstance(exc, StepFailure) and "spacing" in text and problem.explain is not None:
        text = problem.explain(stepper_time(stepper, t0), getattr(stepper, "y", problem.y0))
    return f"stopped at t = {stepper_time(stepper, t0) if at is None else at:.6g}: {text}"


def stepper_time(stepper, default):
    try:
        return float(stepper.t)
    except AttributeError:
        return default


def _locate(stop, stepper, t_prev, t_new, record):
    """(t, record(t, y)) where stop.locate crosses zero within the last step, or None where it cannot
    be located.

    Brent's method on the step's interpolant; where g cannot be evaluated inside the step (a chart
    cannot reach a singular configuration), bisection instead, counting such points as past the
    crossing, so the stop falls at the last point that can still be evaluated.
    """
    if stop.locate is None or t_new == t_prev:
        return None
    interp = stepper.interpolant()
    xtol = 1e-12 * max(abs(t_new - t_prev), 1e-300)

    def g(s):
        try:
            with np.errstate(all="ignore"):
                value = float(stop.locate(s, np.array(interp(s))))
        except (StopRun, np.linalg.LinAlgError, FloatingPointError, ValueError):
            return None
        return value if np.isfinite(value) else None

    g_prev = g(t_prev)
    if g_prev is None or not g_prev > 0:
        return None
    g_new = g(t_new)
    if g_new is not None and g_new <= 0:
        try:
            tc = brentq(lambda s: _raise_on_none(g(s)), t_prev, t_new, xtol=xtol, rtol=4 * np.finfo(float).eps)
            return tc, record(tc, np.array(interp(tc)), True)
        except (_Unevaluable, StopRun, np.linalg.LinAlgError):
            pass
    good, bad = t_prev, t_new
    while abs(bad - good) > xtol:
        mid = (good + bad) / 2
        value = g(mid)
        if value is not None and value > 0:
            good = mid
        else:
            bad = mid
    try:
        return good, record(good, np.array(interp(good)), True)
    except (StopRun, np.linalg.LinAlgError):
        return None


class _Unevaluable(Exception):
    pass


def _raise_on_none(value):
    if value is None:
        raise _Unevaluable()
    return value

"""The arguments of ``simulate`` checked before any work: each bad one is named with the value got
and what is expected (systems.ArgumentError, systems.ArgumentTypeError)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from systems.arguments import real, state_pair, time_grid, time_span, whole
from systems.errors import ArgumentError, ArgumentTypeError

from .base import Event

RTOL_RANGE = (np.finfo(float).eps, 0.1)  # below: beyond double precision; above: no error control left
MAX_STEPS = 10**6                        # default bound on the accepted steps of one run
LARGE_OUTPUT = 10**5                     # t_eval longer than this gets a warning with the expected cost


@dataclass(frozen=True)
class Inputs:
    """The checked arguments of one run."""

    t_span: tuple
    p0: np.ndarray | None
    v0: np.ndarray | None
    rtol: float
    atol: float
    t_eval: np.ndarray | None
    events: tuple
    step: float | None
    max_step: float
    first_step: float | None
    max_steps: int


def relative_tolerance(name, value):
    """``value`` as a float in RTOL_RANGE, else ArgumentError naming ``name``: the one range of every
    relative tolerance (simulate, compare, its sweep and reference, the command line)."""
    return real(name, value, positive=True, low=RTOL_RANGE[0], high=RTOL_RANGE[1],
                expected=f"a relative tolerance between {RTOL_RANGE[0]:.1e} and {RTOL_RANGE[1]:g}",
                fix="tolerances e.g. rtol=1e-8, atol=1e-8")


def tolerances(rtol, atol, *, atol_from_rtol=False) -> tuple:
    """(rtol, atol) checked; with atol_from_rtol (compare, the command line) atol = rtol where it is None."""
    rtol = relative_tolerance("rtol", rtol)
    if atol is None and atol_from_rtol:
        atol = rtol
    atol = real("atol", atol, positive=True, expected="a positive absolute tolerance",
                fix="tolerances e.g. rtol=1e-8, atol=1e-8")
    return rtol, atol


def check(system, t_span, state0, *, rtol, atol, t_eval, events, step, max_step, first_step, max_steps) -> Inputs:
    """Inputs with every argument checked and converted (lists to arrays, numbers to floats)."""
    span = time_span(t_span)
    p0 = v0 = None
    if state0 is not None:
        p0, v0 = state_pair(system, state0)
    rtol, atol = tolerances(rtol, atol)
    grid = None if t_eval is None else time_grid(t_eval, span)
    if step is not None:
        step = real("step", step, positive=True, expected="a positive step size in s", fix="e.g. step=1e-3")
        if step > span[1] - span[0]:
            raise ArgumentError(f"step got {step:g} but expected at most the interval t1 - t0 = {span[1] - span[0]:g} "
                                f"(a step longer than the run)", "step")
    max_step = real("max_step", max_step, positive=True, finite=False, expected="a positive step bound in s (inf: none)")
    if first_step is not None:
        first_step = real("first_step", first_step, positive=True, high=span[1] - span[0],
                          expected=f"a positive first step of at most t1 - t0 = {span[1] - span[0]:g} s")
    max_steps = whole("max_steps", max_steps, minimum=1, fix=f"default {MAX_STEPS}")
    return Inputs(span, p0, v0, rtol, atol, grid, as_events(events), step, max_step, first_step, max_steps)


def as_events(events) -> tuple:
    """Event objects from Event objects or callables g(t, p, v) (one, or a sequence)."""
    if events is None:
        return ()
    if isinstance(events, Event) or callable(events):
        events = (events,)
    try:
        events = tuple(events)
    except TypeError:
        raise ArgumentTypeError(f"events got {events!r} but expected Event objects or callables g(t, p, v)",
                                "events") from None
    out = []
    for i, ev in enumerate(events):
        if not isinstance(ev, Event):
            if not callable(ev):
                raise ArgumentTypeError(f"events[{i}] got {ev!r} ({type(ev).__name__}) but expected an Event or a "
                                        f"callable g(t, p, v) returning a number", "events")
            ev = Event(ev)
        if not callable(ev.function):
            raise ArgumentTypeError(f"events[{i}] has function {ev.function!r} but expected a callable g(t, p, v) "
                                    f"returning a number", "events")
        if ev.direction not in (-1, 0, 1):
            raise ArgumentError(f"events[{i}] has direction {ev.direction!r} but expected -1, 0 or +1", "events")
        out.append(ev)
    return tuple(out)


def check_event_values(events, t0, p0, v0):
    """Each event evaluated at the start: a finite number, or a clear error naming the event."""
    for i, ev in enumerate(events):
        label = f"events[{i}]{f' ({ev.name!r})' if ev.name else ''}"
        try:
            value = ev.function(t0, np.array(p0), np.array(v0))
        except Exception as exc:  # noqa: BLE001 - any failure of user code, reported with its cause
            raise ArgumentError(f"{label} raised {type(exc).__name__} at the start (t = {t0:g}): {exc}; expected "
                                f"a function g(t, p, v) returning a number", "events") from exc
        if np.ndim(value) != 0:
            raise ArgumentError(f"{label} returned an array of shape {np.shape(value)} at the start but expected "
                                f"one number g(t, p, v)", "events")
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"{label} returned {value!r} but expected a number", "events") from None
        if not np.isfinite(value):
            raise ArgumentError(f"{label} returned {value} at the start but expected a finite number", "events")


def check_fixed_step(solver, span, max_steps):
    """A fixed-step method whose steps over t_span would exceed max_steps is refused up front."""
    if not getattr(solver, "fixed_step", False) or solver.step is None:
        return
    needed = int(np.ceil((span[1] - span[0]) / solver.step))
    if needed > max_steps:
        raise ArgumentError(f"method {solver.method!r} with step {solver.step:g} needs {needed} steps over t_span = "
                            f"({span[0]:g}, {span[1]:g}) but max_steps = {max_steps}: take a larger step, a shorter "
                            f"t_span or raise max_steps", "max_steps")


def check_tolerance_scale(atol, p0, v0):
    """atol at most a tenth of the state's scale 1 + max |(p, v)|: beyond, no error control is left."""
    scale = 1.0 + float(max(np.max(np.abs(p0), initial=0.0), np.max(np.abs(v0), initial=0.0)))
    if atol > 0.1 * scale:
        raise ArgumentError(f"atol got {atol:g} but expected at most 0.1 x (1 + max |(p, v)|) = {0.1 * scale:g} for "
                            f"this state (an absolute error in the state's units; e.g. atol=1e-8)", "atol")


def warn_large_output(grid, seconds_per_point):
    """A warning with the expected recording cost when t_eval is long."""
    if grid is None or grid.size <= LARGE_OUTPUT:
        return
    estimate = grid.size * seconds_per_point
    warnings.warn(f"t_eval has {grid.size} points: every point is recorded with its accelerations, reactions and "
                  f"constraint errors (about {seconds_per_point * 1e3:.2g} ms each here, {estimate:.0f} s in all); "
                  f"pass fewer points for a faster run", UserWarning, stacklevel=4)

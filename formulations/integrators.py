"""Integrators behind one stepping interface, and the driver that runs them.

Steppers:
  - scipy's solvers ``RK23``, ``RK45``, ``DOP853``, ``Radau``, ``BDF``, ``LSODA``, stepped one step at a
    time (their dense output serves t_eval and events). The explicit Runge-Kutta ones accept a
    post-step change of the state (their stored derivative is recomputed), so projection works
    with them; the implicit and multistep ones keep a history that cannot be changed.
  - ``dopri5``: our Dormand-Prince 5(4) pair with the usual step-size controller (Hairer, Norsett
    & Wanner, Solving ODEs I, II.4 and II.5), local extrapolation, FSAL.
  - ``rk4``: the classical fixed-step Runge-Kutta method, for teaching (``step=`` sets h).

The driver calls an optional post-step hook after every accepted step (projection), evaluates
events (functions of (t, y) located by Brent's method on the step's interpolant) and stops with a
status and message, keeping what was computed, when a step fails.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.integrate as si
from scipy.optimize import brentq

SCIPY_METHODS = ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA")
OWN_METHODS = ("dopri5", "rk4")
DAE_METHODS = ("IDA", "augmented_lagrangian")  # served by formulations.dae and .augmented_lagrangian
LIE_METHODS = ("RKMK4-SE3", "RKMK4-SO3xR3", "RKMK45-SE3", "RKMK45-SO3xR3")  # served by formulations.lie
METHODS = SCIPY_METHODS + OWN_METHODS + LIE_METHODS + DAE_METHODS
_EXPLICIT_RK = {"RK23": 3, "RK45": 6, "DOP853": 12}  # stages per attempted step (FSAL)
ORDER = {"RK23": 3, "RK45": 5, "DOP853": 8, "dopri5": 5, "rk4": 4, "Radau": 5, "BDF": 5, "LSODA": 12, "IDA": 5,
         "augmented_lagrangian": 2, "RKMK4-SE3": 4, "RKMK4-SO3xR3": 4, "RKMK45-SE3": 5, "RKMK45-SO3xR3": 5}


class CapabilityError(ValueError):
    """A requested combination is not supported; says what was got and what was expected."""


class StepFailure(RuntimeError):
    """The integrator could not take a step (step size underflow, non-finite values)."""


def _rms(x):
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


def _hermite(t0, y0, f0, t1, y1, f1):
    h = t1 - t0

    def interp(t):
        s = (t - t0) / h
        h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
        h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
        return h00 * y0 + h10 * h * f0 + h01 * y1 + h11 * h * f1

    return interp


class ScipyStepper:
    """One of scipy's OdeSolver classes, stepped by the driver."""

    def __init__(self, method):
        self.method = method
        self.supports_post_step = method in _EXPLICIT_RK
        self.rejected = 0 if self.supports_post_step else None

    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.fun = fun
        self.count = [0]

        def counted(t, y):
            self.count[0] += 1
            return fun(t, y)

        kwargs = dict(rtol=rtol, atol=atol, max_step=max_step)
        if first_step is not None:
            kwargs["first_step"] = first_step
        self.solver = getattr(si, self.method)(counted, t0, np.array(y0, float), t_bound, **kwargs)
        self._counted = counted

    @property
    def t(self):
        return self.solver.t

    @property
    def y(self):
        return self.solver.y

    def step(self):
        before = self.count[0]
        message = self.solver.step()
        if self.solver.status == "failed":
            raise StepFailure(message or "step failed")
        if self.rejected is not None:
            attempts = (self.count[0] - before) // _EXPLICIT_RK[self.method]
            self.rejected += max(0, attempts - 1)
        return self.solver.t, self.solver.y

    def interpolant(self):
        return self.solver.dense_output()

    def replace_state(self, y):
        if not self.supports_post_step:
            raise CapabilityError(f"method {self.method!r} cannot change its state after a step")
        self.solver.y = np.array(y, float)
        self.solver.f = self._counted(self.solver.t, self.solver.y)

    @property
    def step_size(self):
        return getattr(self.solver, "h_abs", None)


# Dormand-Prince 5(4) tableau
_C = np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1])
_A = [np.array([]), np.array([1 / 5]), np.array([3 / 40, 9 / 40]), np.array([44 / 45, -56 / 15, 32 / 9]),
      np.array([19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]),
      np.array([9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]),
      np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84])]
_B = _A[6]
_E = np.array([71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])


class DormandPrince54:
    """Adaptive Dormand-Prince 5(4) with FSAL and the standard controller (own implementation)."""

    method = "dopri5"
    supports_post_step = True
    safety, min_factor, max_factor = 0.9, 0.2, 10.0

    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.fun, self.t, self.y = fun, float(t0), np.array(y0, float)
        self.t_bound, self.rtol, self.atol, self.max_step = t_bound, rtol, atol, max_step
        self.direction = np.sign(t_bound - t0) or 1.0
        self.f = fun(self.t, self.y)
        self.rejected = 0
        self.h = first_step if first_step else self._initial_step()
        self._last = None

    def _scale(self, y0, y1):
        return self.atol + self.rtol * np.maximum(np.abs(y0), np.abs(y1))

    def _initial_step(self):
        sc = self._scale(self.y, self.y)
        d0, d1 = _rms(self.y / sc), _rms(self.f / sc)
        h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        h0 = min(h0, abs(self.t_bound - self.t))
        y1 = self.y + self.direction * h0 * self.f
        d2 = _rms((self.fun(self.t + self.direction * h0, y1) - self.f) / sc) / h0
        h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else (0.01 / max(d1, d2)) ** (1 / 5)
        return min(100 * h0, h1, self.max_step)

    def step(self):
        t, y, f = self.t, self.y, self.f
        h = min(self.h, self.max_step, abs(self.t_bound - t))
        while True:
            if h < 10 * np.spacing(abs(t) + 1.0):
                raise StepFailure(f"step size {h:.3e} fell below the spacing of t = {t:.6g}")
            hs = self.direction * h
            K = np.empty((7, y.size))
            K[0] = f
            for i in range(1, 7):
                K[i] = self.fun(t + _C[i] * hs, y + hs * (_A[i] @ K[:i]))
            y_new = y + hs * (_B @ K[:6])
            err = _rms(hs * (_E @ K) / self._scale(y, y_new))
            if not np.isfinite(err):
                self.rejected += 1
                h *= self.min_factor
                continue
            if err <= 1.0:
                factor = self.max_factor if err == 0 else min(self.max_factor, self.safety * err ** -0.2)
                self._last = (t, y, f, t + hs, y_new, K[6])
                self.t, self.y, self.f = t + hs, y_new, K[6]
                self.h = h * factor
                return self.t, self.y
            self.rejected += 1
            h *= max(self.min_factor, self.safety * err ** -0.2)

    def interpolant(self):
        return _hermite(*self._last)

    def replace_state(self, y):
        self.y = np.array(y, float)
        self.f = self.fun(self.t, self.y)

    @property
    def step_size(self):
        return self.h


class RungeKutta4:
    """The classical Runge-Kutta method with a fixed step h."""

    method = "rk4"
    supports_post_step = True

    def __init__(self, step):
        if step is None or not step > 0:
            raise CapabilityError(f"method 'rk4' needs a fixed step: got step={step!r} but expected step > 0")
        self.h = float(step)
        self.rejected = 0

    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.fun, self.t, self.y, self.t_bound = fun, float(t0), np.array(y0, float), t_bound
        self.direction = np.sign(t_bound - t0) or 1.0
        self.f = fun(self.t, self.y)

    def step(self):
        t, y = self.t, self.y
        h = self.direction * min(self.h, abs(self.t_bound - t))
        k1 = self.f
        k2 = self.fun(t + h / 2, y + h / 2 * k1)
        k3 = self.fun(t + h / 2, y + h / 2 * k2)
        k4 = self.fun(t + h, y + h * k3)
        y_new = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        f_new = self.fun(t + h, y_new)
        self._last = (t, y, k1, t + h, y_new, f_new)
        self.t, self.y, self.f = t + h, y_new, f_new
        return self.t, self.y

    def interpolant(self):
        return _hermite(*self._last)

    def replace_state(self, y):
        self.y = np.array(y, float)
        self.f = self.fun(self.t, self.y)

    step_size = property(lambda self: self.h)


def make_stepper(method: str, step=None):
    if method in SCIPY_METHODS:
        return ScipyStepper(method)
    if method == "dopri5":
        return DormandPrince54()
    if method == "rk4":
        return RungeKutta4(step)
    raise CapabilityError(f"integrator got method={method!r} but expected one of: {', '.join(METHODS)}")


@dataclass(frozen=True)
class Event:
    """A function g(t, p, v) whose zero crossing is reported (and stops the run if terminal).

    direction: +1 only upward crossings, -1 only downward, 0 both.
    """

    function: object
    terminal: bool = True
    direction: int = 0
    name: str = ""


class StopRun(Exception):
    """Raised inside the driver's callbacks to stop a run with a message (the state so far is kept).

    locate: for a monitor, an optional function g(t, y) that is positive at the previous accepted
    step and <= 0 at the step that raised; the driver then ends the run where g crosses zero on the
    step's interpolant (Brent's method, to 1e-12 of the step's span) instead of at the step's end.
    """

    def __init__(self, message, quantity="", locate=None, at=None):
        super().__init__(message)
        self.quantity = quantity
        self.locate = locate
        self.at = at


@dataclass
class RunRecord:
    """What the driver produced: output times and states, status and message."""

    t: list
    y: list
    status: int
    message: str
    steps: int
    t_events: list


def run(stepper, fun, t_span, y0, *, rtol, atol, max_step=np.inf, first_step=None, t_eval=None,
        post_step=None, events=(), event_values=None, record=None, monitor=None) -> RunRecord:
    """Integrate y' = fun(t, y) over t_span with ``stepper``.

    post_step(t, y) -> y or None (None: unchanged) is called after every accepted step.
    events: Event objects evaluated through event_values(t, y) -> array of g values.
    record(t, y, interpolated) -> what is stored for an output point (default: a copy of y); it is
    called when the output is produced, before the post-step hook of that step.
    monitor(t, y) is called after every accepted step and may raise StopRun; it changes nothing.
    Exceptions StepFailure and StopRun (and numpy LinAlgError) end the run with status -1.
    """
    if record is None:
        def record(t, y, interpolated):
            return np.array(y, float)

    t0, t1 = float(t_span[0]), float(t_span[1])
    direction = 1.0 if t1 >= t0 else -1.0
    if post_step is not None and not stepper.supports_post_step:
        raise CapabilityError(f"a post-step projection got method={getattr(stepper, 'method', '?')!r} but "
                              f"expected one of: RK23, RK45, DOP853, dopri5, rk4")
    ts, ys = [], []
    t_eval = None if t_eval is None else np.asarray(t_eval, float)
    next_eval = 0
    if t_eval is None or (t_eval.size and t_eval[0] == t0):
        ts.append(t0)
        ys.append(record(t0, np.array(y0, float), False))
        next_eval = 1 if t_eval is not None else 0
    steps, t_events = 0, []
    g_old = event_values(t0, y0) if events else None
    status, message = 0, "the integration reached the end of the interval"
    try:
        stepper.start(fun, t0, y0, t1, rtol, atol, max_step, first_step)
        while direction * (stepper.t - t1) < 0:
            t_prev = stepper.t
            t_new, y_new = stepper.step()
            steps += 1
            interp = stepper.interpolant() if (events or t_eval is not None) else None
            stop_at = None
            if events:
                g_new = event_values(t_new, y_new)
                for i, ev in enumerate(events):
                    a, b = g_old[i], g_new[i]
                    crossed = np.sign(a) != np.sign(b) and a != 0
                    if crossed and (ev.direction == 0 or np.sign(b - a) == ev.direction):
                        tc = brentq(lambda s: event_values(s, interp(s))[i], t_prev, t_new, xtol=1e-14)
                        t_events.append(tc)
                        if ev.terminal and (stop_at is None or direction * (tc - stop_at) < 0):
                            stop_at = tc
                g_old = g_new
            limit = t_new if stop_at is None else stop_at
            if t_eval is None:
                if stop_at is None:
                    ts.append(t_new)
                    ys.append(record(t_new, np.array(y_new), False))
                else:
                    ts.append(stop_at)
                    ys.append(record(stop_at, np.array(interp(stop_at)), True))
            else:
                while next_eval < t_eval.size and direction * (t_eval[next_eval] - limit) <= 0:
                    ts.append(t_eval[next_eval])
                    ys.append(record(t_eval[next_eval], np.array(interp(t_eval[next_eval])), True))
                    next_eval += 1
            if stop_at is not None:
                if t_eval is not None and (not ts or ts[-1] != stop_at):
                    ts.append(stop_at)
                    ys.append(record(stop_at, np.array(interp(stop_at)), True))
                status, message = 1, f"a terminal event occurred at t = {stop_at:.6g}"
                break
            if monitor is not None:
                try:
                    monitor(t_new, y_new)
                except StopRun as stop:
                    located = _locate(stop, stepper, t_prev, t_new, record)
                    if located is None:
                        raise
                    tc, row = located
                    while ts and direction * (ts[-1] - tc) > 0:
                        ts.pop()
                        ys.pop()
                    ts.append(tc)
                    ys.append(row)
                    raise StopRun(f"{stop} (located at t = {tc:.10g})", stop.quantity, at=tc) from None
            if post_step is not None:
                changed = post_step(t_new, y_new)
                if changed is not None:
                    stepper.replace_state(changed)
                    if t_eval is None:
                        ys[-1] = record(t_new, np.array(changed), False)
    except (StepFailure, StopRun, np.linalg.LinAlgError, FloatingPointError) as exc:
        status = -1
        at = getattr(exc, "at", None)
        message = f"stopped at t = {stepper_time(stepper, t0) if at is None else at:.6g}: {exc}"
    return RunRecord(ts, ys, status, message, steps, t_events)


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


def stepper_time(stepper, default):
    try:
        return float(stepper.t)
    except AttributeError:
        return default

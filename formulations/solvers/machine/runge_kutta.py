"""The Dormand-Prince 5(4) and classical Runge-Kutta loops in machine code, and the helpers that
they and DOP853's loop (machine.dop853) share.

Same tableau, controller, initial step and FSAL as the Python ``dopri5``
(formulations.solvers.explicit_rk); output at every accepted step, or on t_eval from the step's
cubic Hermite interpolant. Nothing returns to Python per step and a step allocates nothing. After
every accepted step the formulation's ``post_step`` says 0 (nothing), 2 (y projected in place: the
loop records it and evaluates y' anew), 1 (a new chart is wanted: the loop returns with status 1)
or -1 (the projection failed). Where ``form`` says so (charts), a trial stage whose evaluation
fails shrinks the step instead of ending the run. Status: 1 new chart, 0 finished, -1 singular
matrix, -2 step size underflow, -3 too many steps, -4 non-finite values, -5 stopped by the ``stop``
flag (Ctrl-C: the loop runs on a thread, formulations.solvers.interrupts), -6 a failed projection.

``form`` = (where, rhs_at, post_step_at, work, reject_failed_stages): see formulations.solvers.machine.
"""
import math

import numba
import numpy as np

from formulations.kernels.borrowed import borrowed, hold
from formulations.kernels.by_address import call_post_step_at, call_rhs_at
from formulations.kernels.linalg import copy_into, finite, put

_C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
_A = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
               [1 / 5, 0.0, 0.0, 0.0, 0.0, 0.0],
               [3 / 40, 9 / 40, 0.0, 0.0, 0.0, 0.0],
               [44 / 45, -56 / 15, 32 / 9, 0.0, 0.0, 0.0],
               [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0.0, 0.0],
               [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0.0],
               [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]])
_E = np.array([71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])
_RK4_A = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
_RK4_C = np.array([0.0, 0.5, 0.5, 1.0])


@numba.njit(cache=True)
def workspace(form):
    """The work array of rhs: one per run, reused by every evaluation."""
    return np.zeros(form[3])


@numba.njit(cache=True)
def rhs(form, t, y, params, extra, out, work):
    """The formulation's y' into out (False: a singular matrix)."""
    return call_rhs_at(form[1], (form[0], t, y, params, extra, out, work))


@numba.njit(cache=True)
def post_step(form, t, y, params, extra, work):
    """The formulation's action after an accepted step (its post_step: formulations.kernels.compiled)."""
    return call_post_step_at(form[2], (form[0], t, y, params, extra, work))


@numba.njit(cache=True)
def rms(x):
    return math.sqrt(np.mean(x * x)) if x.size else 0.0


@numba.njit(cache=True)
def hermite(t0, y0, f0, t1, y1, f1, t, out):
    """The cubic Hermite interpolant of the step (t0, t1) at t, into out."""
    h = t1 - t0
    s = (t - t0) / h
    c0, c1, c2, c3 = 2 * s**3 - 3 * s**2 + 1, (s**3 - 2 * s**2 + s) * h, -2 * s**3 + 3 * s**2, (s**3 - s**2) * h
    for i in range(y0.size):
        out[i] = c0 * y0[i] + c1 * f0[i] + c2 * y1[i] + c3 * f1[i]


@numba.njit(cache=True)
def first_point(t0, y, t_eval):
    """(ts, ys, count, next_eval): output arrays (t_eval's size, or 256 rows to grow) holding the
    initial point where it is wanted."""
    grid = t_eval.size > 0
    cap = t_eval.size if grid else 256
    ts = np.empty(cap)
    ys = np.empty((cap, y.size))
    if grid and t_eval[0] != t0:
        return ts, ys, 0, 0
    ts[0] = t0
    put(ys[0], y)
    return ts, ys, 1, 1 if grid else 0


@numba.njit(cache=True)
def append(ts, ys, count, t, y):
    """(ts, ys) with (t, y) stored at row count, doubled in size where full."""
    if count == ts.size:
        ts2 = np.empty(2 * ts.size)
        ys2 = np.empty((2 * ts.size, y.size))
        put(ts2[:count], ts[:count])
        copy_into(ys2[:count], ys[:count])
        ts, ys = ts2, ys2
    ts[count] = t
    put(ys[count], y)
    return ts, ys


@numba.njit(cache=True)
def stage(y, h, a, K, s, out):
    """out = y + h sum_(j < s) a[j] K[j], a Runge-Kutta stage's argument (no allocation)."""
    for i in range(y.size):
        acc = 0.0
        for j in range(s):
            acc += a[j] * K[j, i]
        out[i] = y[i] + h * acc


@numba.njit(cache=True)
def _initial_step(form, t, y, f, t1, rtol, atol, max_step, params, extra, order, work):
    """(h, ok): the initial step of Hairer, Norsett & Wanner II.4 for an error estimate of ``order``
    (as scipy's select_initial_step); one evaluation, ok False where it fails."""
    scale = atol + rtol * np.abs(y)
    d0, d1 = rms(y / scale), rms(f / scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, abs(t1 - t))
    f1 = np.empty(y.size)
    if not rhs(form, t + h0, y + h0 * f, params, extra, f1, work):
        return h0, False
    d2 = rms((f1 - f) / scale) / h0
    h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else (0.01 / max(d1, d2)) ** (1 / (order + 1))
    return min(100 * h0, h1, abs(t1 - t), max_step), True


@numba.njit(cache=True)
def prologue(form, t0, t1, y, t_eval, params, extra, rtol, atol, max_step, first_step, order, f, work):
    """(ts, ys, count, next_eval, h, evaluations, ok) of the adaptive loops: the output arrays holding
    the initial point where wanted, f = y'(t0) and the first step (first_step, else chosen for an
    error estimate of ``order``); ok False where an evaluation failed (count 0 where the first did)."""
    ts, ys, count, next_eval = first_point(t0, y, t_eval)
    if not rhs(form, t0, y, params, extra, f, work):
        return ts, ys, 0, next_eval, 0.0, 1, False
    if first_step > 0:
        return ts, ys, count, next_eval, first_step, 1, True
    h, ok = _initial_step(form, t0, y, f, t1, rtol, atol, max_step, params, extra, order, work)
    return ts, ys, count, next_eval, h if ok else 0.0, 2, ok


@numba.njit(cache=True)
def after_step(form, t, y, params, extra, work, ys, count, grid, f):
    """(code, evaluations) of the loops after an accepted step to (t, y), f = y'(t): the
    formulation's post-step action. code 0 go on, 1 a new chart wanted at y, -6 the projection
    failed, -1 the derivative of a projected state failed; a projected y replaces its output row
    (every-step output) and f is evaluated anew."""
    action = post_step(form, t, y, params, extra, work)
    if action == 1:
        return 1, 0
    if action < 0:
        return -6, 0
    if action == 2:
        if not grid:
            put(ys[count - 1], y)
        if not rhs(form, t, y, params, extra, f, work):
            return -1, 1
        return 0, 1
    return 0, 0


@numba.njit(cache=True)
def _output(t, y, f, t_new, y_new, f_new, grid, t_eval, next_eval, ts, ys, count):
    """(ts, ys, count, next_eval) after an accepted step (t, y) -> (t_new, y_new) with derivatives f,
    f_new at its ends: the t_eval points it passes, from its cubic Hermite interpolant, or (no
    grid) its end."""
    if not grid:
        ts, ys = append(ts, ys, count, t_new, y_new)
        return ts, ys, count + 1, next_eval
    while next_eval < t_eval.size and t_eval[next_eval] <= t_new:
        ts[count] = t_eval[next_eval]
        hermite(t, y, f, t_new, y_new, f_new, t_eval[next_eval], ys[count])
        count += 1
        next_eval += 1
    return ts, ys, count, next_eval


@numba.njit(cache=True)
def _step(form, t, y, h, params, extra, rtol, atol, K, y_new, work):
    """(status, h, factor, evaluations, rejected) of one accepted Dormand-Prince step from (t, y),
    K[0] = y'(t): the stages into K (K[6] = y' at y_new, FSAL), the step h taken and the factor for
    the next; status 0, or -1 a failed evaluation, -2 step size underflow, -4 non-finite values."""
    n = y.size
    evaluations = rejected = 0
    while True:
        if h < 10 * np.spacing(abs(t) + 1.0):
            return -2, h, 1.0, evaluations, rejected
        ok = True
        for i in range(1, 7):  # the last stage's argument is the new state (FSAL)
            stage(y, h, _A[i], K, i, y_new)
            evaluations += 1
            ok = rhs(form, t + _C[i] * h, y_new, params, extra, K[i], work)
            if not ok:
                break
        if not ok:
            if form[4]:  # a trial stage the chart cannot reach: a shorter step
                rejected += 1
                h *= 0.2
                continue
            return -1, h, 1.0, evaluations, rejected
        acc = 0.0
        for i in range(n):
            e = 0.0
            for j in range(7):
                e += _E[j] * K[j, i]
            e = h * e / (atol + rtol * max(abs(y[i]), abs(y_new[i])))
            acc += e * e
        err = math.sqrt(acc / n) if n else 0.0
        if not np.isfinite(err):
            if not finite(y_new):
                return -4, h, 1.0, evaluations, rejected
            rejected += 1
            h *= 0.2
            continue
        if err <= 1.0:
            return 0, h, 10.0 if err == 0 else min(10.0, 0.9 * err ** -0.2), evaluations, rejected
        rejected += 1
        h *= max(0.2, 0.9 * err ** -0.2)


@numba.njit(cache=True, nogil=True)
def integrate(form, t0, t1, y0, params, extra, rtol, atol, max_step, first_step, t_eval, max_steps, stop):
    """(ts, ys, status, t_stop, evaluations, steps, rejected, y, h): the Dormand-Prince 5(4) run's
    output (t_eval empty: every accepted step), the state y at t_stop and the next step size h. One
    work array serves every evaluation; a step allocates nothing (output rows grow by doubling)."""
    n = y0.size
    grid = t_eval.size > 0
    work = workspace(form)
    y = y0.copy()
    y_new = np.empty(n)
    t = t0
    K_store = np.empty((7, n))
    K = borrowed(K_store)  # its rows, the stages' outputs, without reference counting
    ts, ys, count, next_eval, h, evaluations, ok = prologue(form, t0, t1, y, t_eval, params, extra, rtol, atol,
                                                            max_step, first_step, 4, K[0], work)
    if not ok:
        return ts[:count], ys[:count], -1, t, evaluations, 0, 0, y, 0.0
    steps = 0
    rejected = 0
    while t < t1:
        if steps >= max_steps:
            return ts[:count], ys[:count], -3, t, evaluations, steps, rejected, y, h
        if stop[0] != 0:  # set by the calling thread on Ctrl-C
            return ts[:count], ys[:count], -5, t, evaluations, steps, rejected, y, h
        h = min(h, max_step, t1 - t)
        status, h, factor, more, fewer = _step(form, t, y, h, params, extra, rtol, atol, K, y_new, work)
        evaluations += more
        rejected += fewer
        if status != 0:
            return ts[:count], ys[:count], status, t, evaluations, steps, rejected, y, h
        t_new = t + h
        steps += 1
        ts, ys, count, next_eval = _output(t, y, K[0], t_new, y_new, K[6], grid, t_eval, next_eval, ts, ys, count)
        t = t_new
        put(y[:], y_new)
        put(K[0], K[6])
        h = h * factor
        code, more = after_step(form, t, y, params, extra, work, ys, count, grid, K[0])
        evaluations += more
        if code != 0:
            return ts[:count], ys[:count], code, t, evaluations, steps, rejected, y, h
    hold(K_store)  # alive up to here: K borrows it
    return ts[:count], ys[:count], 0, t, evaluations, steps, rejected, y, h


@numba.njit(cache=True, nogil=True)
def integrate_rk4(form, t0, t1, y0, params, extra, rtol, atol, max_step, first_step, t_eval, max_steps, stop):
    """As integrate, for the classical Runge-Kutta method with the fixed step first_step (the last
    step shortened to land on t1): the steps of formulations.solvers.fixed_step's RungeKutta4, with
    its cubic Hermite output; rtol, atol and max_step are not used, and the step it returns is
    first_step."""
    n = y0.size
    grid = t_eval.size > 0
    work = workspace(form)
    y = y0.copy()
    y_new = np.empty(n)
    t = t0
    K_store = np.empty((5, n))  # the four stages' outputs, then y' at the step's end
    K = borrowed(K_store)
    ts, ys, count, next_eval = first_point(t0, y, t_eval)
    evaluations, steps = 1, 0
    if not rhs(form, t0, y, params, extra, K[0], work):
        return ts[:0], ys[:0], -1, t, evaluations, 0, 0, y, first_step
    while t < t1:
        if steps >= max_steps:
            return ts[:count], ys[:count], -3, t, evaluations, steps, 0, y, first_step
        if stop[0] != 0:
            return ts[:count], ys[:count], -5, t, evaluations, steps, 0, y, first_step
        h = min(first_step, t1 - t)
        for i in range(1, 5):  # the stages, then y' at the new state
            if i < 4:
                stage(y, h, _RK4_A[i], K, i, y_new)
            else:
                for j in range(n):
                    y_new[j] = y[j] + h / 6 * (K[0, j] + 2 * K[1, j] + 2 * K[2, j] + K[3, j])
            evaluations += 1
            if not rhs(form, t + _RK4_C[i] * h if i < 4 else t + h, y_new, params, extra, K[i], work):
                return ts[:count], ys[:count], -1, t, evaluations, steps, 0, y, first_step
        if not finite(y_new):
            return ts[:count], ys[:count], -4, t, evaluations, steps, 0, y, first_step
        t_new = t + h
        steps += 1
        ts, ys, count, next_eval = _output(t, y, K[0], t_new, y_new, K[4], grid, t_eval, next_eval, ts, ys, count)
        t = t_new
        put(y[:], y_new)
        put(K[0], K[4])
        code, more = after_step(form, t, y, params, extra, work, ys, count, grid, K[0])
        evaluations += more
        if code != 0:
            return ts[:count], ys[:count], code, t, evaluations, steps, 0, y, first_step
    hold(K_store)
    return ts[:count], ys[:count], 0, t, evaluations, steps, 0, y, first_step

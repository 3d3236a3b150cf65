"""The Dormand-Prince 8(5,3) loop in machine code (method "DOP853" on the COMPILED_ODE form): the
tableau, error estimate, step-size controller, initial step and 7th-order dense output of scipy's
DOP853 (Hairer, Norsett & Wanner, Solving ODEs I, II.10), so that the compiled loop takes the steps
scipy takes with the same right-hand side. The coefficients are scipy's (numba holds them as
constants of the machine code). ``form``: see formulations.solvers.machine.
"""
import math

import numba
import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _dc

from formulations.kernels.borrowed import borrowed, hold
from formulations.kernels.linalg import finite, put

from .runge_kutta import after_step, append, prologue, rhs, stage, workspace

_S = _dc.N_STAGES
_A8 = np.ascontiguousarray(_dc.A, float)
_B8 = np.ascontiguousarray(_dc.B, float)
_C8 = np.ascontiguousarray(_dc.C, float)
_E3 = np.ascontiguousarray(_dc.E3, float)
_E5 = np.ascontiguousarray(_dc.E5, float)
_D8 = np.ascontiguousarray(_dc.D, float)


@numba.njit(cache=True)
def _dense853(form, t0, h, y0, y1, f0, f1, K, params, extra, t, work, out):
    """y(t) in the step (t0, t0 + h) from the 7th-order interpolant, into out; K (16, n) holds the
    step's stages and room for the three extra ones, which are evaluated here once (K[13, 0] NaN
    marks them missing), with out as scratch. False where an extra stage is singular."""
    n = y0.size
    if np.isnan(K[13, 0]):
        for s in range(13, 16):
            stage(y0, h, _A8[s], K, s, out)
            if not rhs(form, t0 + _C8[s] * h, out, params, extra, K[s], work):
                return False
    x = (t - t0) / h
    for i in range(n):
        delta = y1[i] - y0[i]
        F0, F1, F2 = delta, h * f0[i] - delta, 2 * delta - h * (f1[i] + f0[i])
        F3, F4, F5, F6 = 0.0, 0.0, 0.0, 0.0
        for j in range(16):
            F3 += _D8[0, j] * K[j, i]
            F4 += _D8[1, j] * K[j, i]
            F5 += _D8[2, j] * K[j, i]
            F6 += _D8[3, j] * K[j, i]
        value = h * F6 * x
        value = (value + h * F5) * (1 - x)
        value = (value + h * F4) * x
        value = (value + h * F3) * (1 - x)
        value = (value + F2) * x
        value = (value + F1) * (1 - x)
        value = (value + F0) * x
        out[i] = value + y0[i]
    return True


@numba.njit(cache=True)
def _error(h, y, y_new, K, rtol, atol):
    """The error estimate of a DOP853 step from its stages K (scipy's _estimate_error_norm)."""
    n = y.size
    e5 = 0.0
    e3 = 0.0
    for i in range(n):
        scale = atol + max(abs(y[i]), abs(y_new[i])) * rtol
        a5 = 0.0
        a3 = 0.0
        for j in range(_S + 1):
            a5 += _E5[j] * K[j, i]
            a3 += _E3[j] * K[j, i]
        a5 /= scale
        a3 /= scale
        e5 += a5 * a5
        e3 += a3 * a3
    if e5 == 0 and e3 == 0:
        return 0.0
    return abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * n)


@numba.njit(cache=True)
def _step(form, t, t1, y, f, h_abs, min_step, params, extra, rtol, atol, K, arg, y_new, work):
    """(status, t_new, h, h_abs, evaluations, rejected) of one accepted DOP853 step from (t, y),
    f = y'(t): its stages into K (K[_S] = y' at y_new), the step h taken and the next step size
    h_abs; status 0, or -1 a failed evaluation, -2 step size underflow, -4 non-finite values."""
    evaluations = rejected = 0
    step_rejected = False
    while True:
        if h_abs < min_step:
            return -2, t, 0.0, h_abs, evaluations, rejected
        t_new = min(t + h_abs, t1)
        h = t_new - t
        h_abs = abs(h)
        put(K[0], f)
        ok = True
        for s in range(1, _S):
            stage(y, h, _A8[s], K, s, arg)
            evaluations += 1
            if not rhs(form, t + _C8[s] * h, arg, params, extra, K[s], work):
                ok = False
                break
        if ok:
            stage(y, h, _B8, K, _S, y_new)
            evaluations += 1
            ok = rhs(form, t + h, y_new, params, extra, K[_S], work)
        if not ok and not form[4]:
            return -1, t, h, h_abs, evaluations, rejected
        error = _error(h, y, y_new, K, rtol, atol) if ok else np.inf  # not ok: a stage the chart cannot reach
        if not np.isfinite(error):
            if ok and not finite(y_new):
                return -4, t, h, h_abs, evaluations, rejected
            h_abs *= 0.2
        elif error < 1:
            factor = 10.0 if error == 0 else min(10.0, 0.9 * error ** (-1 / 8))
            return 0, t_new, h, h_abs * (min(1.0, factor) if step_rejected else factor), evaluations, rejected
        else:
            h_abs *= max(0.2, 0.9 * error ** (-1 / 8))
        step_rejected = True
        rejected += 1


@numba.njit(cache=True, nogil=True)
def integrate853(form, t0, t1, y0, params, extra, rtol, atol, max_step, first_step, t_eval, max_steps, stop):
    """(ts, ys, status, t_stop, evaluations, steps, rejected, y, h), as the 5(4) loop
    (machine.runge_kutta.integrate). A step allocates nothing."""
    n = y0.size
    grid = t_eval.size > 0
    work = workspace(form)
    y = y0.copy()
    y_new = np.empty(n)
    arg = np.empty(n)
    t = t0
    K_store = np.empty((16, n))
    K = borrowed(K_store)  # its rows, the stages' outputs, without reference counting
    f = np.empty(n)
    ts, ys, count, next_eval, h_abs, evaluations, ok = prologue(form, t0, t1, y, t_eval, params, extra, rtol, atol,
                                                                max_step, first_step, 7, f, work)
    if not ok:
        return ts[:count], ys[:count], -1, t, evaluations, 0, 0, y, 0.0
    steps = 0
    rejected = 0
    while t < t1:
        if steps >= max_steps:
            return ts[:count], ys[:count], -3, t, evaluations, steps, rejected, y, h_abs
        if stop[0] != 0:  # set by the calling thread on Ctrl-C
            return ts[:count], ys[:count], -5, t, evaluations, steps, rejected, y, h_abs
        min_step = 10 * abs(np.nextafter(t, np.inf) - t)
        h_abs = min(max(h_abs, min_step), max_step)
        status, t_new, h, h_abs, more, fewer = _step(form, t, t1, y, f, h_abs, min_step, params, extra, rtol, atol,
                                                     K, arg, y_new, work)
        evaluations += more
        rejected += fewer
        if status != 0:
            return ts[:count], ys[:count], status, t, evaluations, steps, rejected, y, h_abs
        steps += 1
        if grid:
            K[13, 0] = np.nan
            while next_eval < t_eval.size and t_eval[next_eval] <= t_new:
                if not _dense853(form, t, h, y, y_new, f, K[_S], K, params, extra, t_eval[next_eval], work, arg):
                    return ts[:count], ys[:count], -1, t, evaluations, steps, rejected, y, h_abs
                ts[count] = t_eval[next_eval]
                put(ys[count], arg)
                count += 1
                next_eval += 1
        else:
            ts, ys = append(ts, ys, count, t_new, y_new)
            count += 1
        t = t_new
        put(y[:], y_new)
        put(f[:], K[_S])
        code, more = after_step(form, t, y, params, extra, work, ys, count, grid, f)
        evaluations += more
        if code != 0:
            return ts[:count], ys[:count], code, t, evaluations, steps, rejected, y, h_abs
    hold(K_store)  # alive up to here: K borrows it
    return ts[:count], ys[:count], 0, t, evaluations, steps, rejected, y, h_abs

"""The Dormand-Prince 8(5,3) loop in machine code (method "DOP853" on the COMPILED_ODE form): the
tableau, error estimate, step-size controller, initial step and 7th-order dense output of scipy's
DOP853 (Hairer, Norsett & Wanner, Solving ODEs I, II.10), so that the compiled loop takes the steps
scipy takes with the same right-hand side. The coefficients are scipy's, written into the source.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _dc


def _array(x) -> str:
    return f"np.array({np.asarray(x, float).tolist()!r})"


LOOP853 = f'''

_S = {_dc.N_STAGES}
_A8 = {_array(_dc.A)}
_B8 = {_array(_dc.B)}
_C8 = {_array(_dc.C)}
_E3 = {_array(_dc.E3)}
_E5 = {_array(_dc.E5)}
_D8 = {_array(_dc.D)}


@numba.njit(cache=True)
def _dense853(t0, h, y0, y1, f0, f1, K, params, extra, t):
    """y(t) in the step (t0, t0 + h) from the 7th-order interpolant; K (16, n) holds the step's
    stages and room for the three extra ones, which are evaluated here once (K[13, 0] NaN marks
    them missing). False where an extra stage is singular."""
    if np.isnan(K[13, 0]):
        for s in range(13, 16):
            dy = np.zeros(y0.size)
            for j in range(s):
                dy += _A8[s, j] * K[j]
            if not rhs(t0 + _C8[s] * h, y0 + h * dy, params, extra, K[s]):
                return y0, False
    F = np.empty((7, y0.size))
    delta = y1 - y0
    F[0] = delta
    F[1] = h * f0 - delta
    F[2] = 2 * delta - h * (f1 + f0)
    for i in range(4):
        row = np.zeros(y0.size)
        for j in range(16):
            row += _D8[i, j] * K[j]
        F[3 + i] = h * row
    x = (t - t0) / h
    y = np.zeros(y0.size)
    for i in range(7):
        y += F[6 - i]
        if i % 2 == 0:
            y *= x
        else:
            y *= 1 - x
    return y + y0, True


@numba.njit(cache=True, nogil=True)
def integrate853(t0, t1, y0, params, extra, rtol, atol, max_step, first_step, t_eval, max_steps, stop):
    """(ts, ys, status, t_stop, evaluations, steps, rejected), as integrate (the 5(4) loop, whose
    helpers it shares: the module holds both)."""
    n = y0.size
    grid = t_eval.size > 0
    y = y0.copy()
    t = t0
    f = np.empty(n)
    evaluations = 1
    ts, ys, count, next_eval = _first_point(t0, y, t_eval)
    if not rhs(t, y, params, extra, f):
        return ts[:0], ys[:0], -1, t, evaluations, 0, 0
    h_abs = first_step
    if first_step <= 0:
        evaluations += 1
        h_abs, ok = _initial_step(t, y, f, t1, rtol, atol, max_step, params, extra, 7)
        if not ok:
            return ts[:count], ys[:count], -1, t, evaluations, 0, 0
    K = np.empty((16, n))
    steps = 0
    rejected = 0
    while t < t1:
        if steps >= max_steps:
            return ts[:count], ys[:count], -3, t, evaluations, steps, rejected
        if stop[0] != 0:  # set by the calling thread on Ctrl-C
            return ts[:count], ys[:count], -5, t, evaluations, steps, rejected
        min_step = 10 * abs(np.nextafter(t, np.inf) - t)
        if h_abs > max_step:
            h_abs = max_step
        elif h_abs < min_step:
            h_abs = min_step
        step_rejected = False
        while True:
            if h_abs < min_step:
                return ts[:count], ys[:count], -2, t, evaluations, steps, rejected
            t_new = t + h_abs
            if t_new > t1:
                t_new = t1
            h = t_new - t
            h_abs = abs(h)
            K[0] = f
            ok = True
            for s in range(1, _S):
                dy = np.zeros(n)
                for j in range(s):
                    dy += _A8[s, j] * K[j]
                evaluations += 1
                if not rhs(t + _C8[s] * h, y + h * dy, params, extra, K[s]):
                    ok = False
                    break
            if not ok:
                return ts[:count], ys[:count], -1, t, evaluations, steps, rejected
            y_new = y.copy()
            for j in range(_S):
                y_new += h * _B8[j] * K[j]
            evaluations += 1
            if not rhs(t + h, y_new, params, extra, K[_S]):
                return ts[:count], ys[:count], -1, t, evaluations, steps, rejected
            scale = atol + np.maximum(np.abs(y), np.abs(y_new)) * rtol
            err5 = np.zeros(n)
            err3 = np.zeros(n)
            for j in range(_S + 1):
                err5 += _E5[j] * K[j]
                err3 += _E3[j] * K[j]
            err5 /= scale
            err3 /= scale
            e5, e3 = np.sum(err5 * err5), np.sum(err3 * err3)
            if e5 == 0 and e3 == 0:
                error = 0.0
            else:
                error = abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * n)
            if not np.isfinite(error):
                if not np.all(np.isfinite(y_new)):
                    return ts[:count], ys[:count], -4, t, evaluations, steps, rejected
                h_abs *= 0.2
                step_rejected = True
                rejected += 1
                continue
            if error < 1:
                factor = 10.0 if error == 0 else min(10.0, 0.9 * error ** (-1 / 8))
                if step_rejected:
                    factor = min(1.0, factor)
                h_abs *= factor
                break
            h_abs *= max(0.2, 0.9 * error ** (-1 / 8))
            step_rejected = True
            rejected += 1
        steps += 1
        f_new = K[_S].copy()
        if grid:
            K[13, 0] = np.nan
            while next_eval < t_eval.size and t_eval[next_eval] <= t_new:
                value, ok = _dense853(t, h, y, y_new, f, f_new, K, params, extra, t_eval[next_eval])
                if not ok:
                    return ts[:count], ys[:count], -1, t, evaluations, steps, rejected
                ts[count] = t_eval[next_eval]
                ys[count] = value
                count += 1
                next_eval += 1
        else:
            ts, ys = _append(ts, ys, count, t_new, y_new)
            count += 1
        t, y, f = t_new, y_new, f_new
    return ts[:count], ys[:count], 0, t, evaluations, steps, rejected
'''

"""The steps of the compiled Runge-Kutta loops (formulations.solvers.compiled_rk, .compiled_dop853)
that do not depend on the formulation: compiled once per machine and shared by every generated module."""
from __future__ import annotations

import math

import numba
import numpy as np


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
    ys[0] = y
    return ts, ys, 1, 1 if grid else 0


@numba.njit(cache=True)
def append(ts, ys, count, t, y):
    """(ts, ys) with (t, y) stored at row count, doubled in size where full."""
    if count == ts.size:
        ts2 = np.empty(2 * ts.size)
        ys2 = np.empty((2 * ts.size, y.size))
        ts2[:count] = ts[:count]
        ys2[:count] = ys[:count]
        ts, ys = ts2, ys2
    ts[count] = t
    ys[count] = y
    return ts, ys


@numba.njit(cache=True)
def stage(y, h, a, K, s, out):
    """out = y + h sum_(j < s) a[j] K[j], a Runge-Kutta stage's argument (no allocation)."""
    for i in range(y.size):
        acc = 0.0
        for j in range(s):
            acc += a[j] * K[j, i]
        out[i] = y[i] + h * acc

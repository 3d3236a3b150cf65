"""Munthe-Kaas Runge-Kutta on SE(3) or SO(3) x R^3 in machine code (RKMK4 and RKMK45): the steps of
formulations.solvers.lie (LieStepper) for the dependent formulation on the compiled backend, driven by
formulations.solvers.compiled_lie. The group operations are those of formulations.solvers.groups;
the accelerations come from the formulation's compiled module through the address of its entry
point rhs_at and its stored model (formulations.kernels.by_address).
"""
import math

import numba
import numpy as np

from formulations.kernels.by_address import call_rhs_at

SERIES_BELOW2 = 0.01  # theta^2 below which the coefficients take their Taylor series (groups.SERIES_BELOW)
RK4 = (np.array([0.0, 0.5, 0.5, 1.0]), np.array([[0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0],
                                                 [0.0, 0.0, 1.0, 0.0]]), np.array([1 / 6, 1 / 3, 1 / 3, 1 / 6]))
DP_C = np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1])
DP_A = np.array([[0, 0, 0, 0, 0, 0, 0], [1 / 5, 0, 0, 0, 0, 0, 0], [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
                 [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0], [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
                 [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
                 [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]])
DP_E = np.array([71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0


@numba.njit(cache=True)
def _series(t2, c0, c1, c2, c3, c4):
    return c0 + c1 * t2 + c2 * t2**2 + c3 * t2**3 + c4 * t2**4


@numba.njit(cache=True)
def _coefficients(x):
    """(theta^2, a, b, c) of formulations.solvers.groups."""
    t2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
    if t2 < SERIES_BELOW2:
        return (t2, _series(t2, 1, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880),
                _series(t2, 1 / 2, -1 / 24, 1 / 720, -1 / 40320, 1 / 3628800),
                _series(t2, 1 / 6, -1 / 120, 1 / 5040, -1 / 362880, 1 / 39916800))
    t = math.sqrt(t2)
    s, co = math.sin(t), math.cos(t)
    return t2, s / t, (1 - co) / t2, (t - s) / (t2 * t)


@numba.njit(cache=True)
def _hat(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


@numba.njit(cache=True)
def _so3_exp(x):
    _, a, b, _ = _coefficients(x)
    K = _hat(x)
    return np.eye(3) + a * K + b * (K @ K)


@numba.njit(cache=True)
def _se3_exp(X):
    _, a, b, c = _coefficients(X[:3])
    K = _hat(X[:3])
    K2 = K @ K
    return np.eye(3) + a * K + b * K2, X[3:] + b * (K @ X[3:]) + c * (K2 @ X[3:])


@numba.njit(cache=True)
def _so3_dexpinv(x):
    t2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
    if t2 < SERIES_BELOW2:
        e = _series(t2, 1 / 12, 1 / 720, 1 / 30240, 1 / 1209600, 1 / 47900160)
    else:
        t = math.sqrt(t2)
        e = (1 - t / 2 / math.tan(t / 2)) / t2
    K = _hat(x)
    return np.eye(3) - 0.5 * K + e * (K @ K)


@numba.njit(cache=True)
def _se3_dexpinv(X):
    w, v = X[:3], X[3:]
    t2, _, _, c1 = _coefficients(w)
    if t2 < SERIES_BELOW2:
        c2 = _series(t2, 1 / 24, -1 / 720, 1 / 40320, -1 / 3628800, 1 / 479001600)
        c3 = _series(t2, 1 / 120, -1 / 2520, 3 / 362880, -4 / 39916800, 5 / 6227020800)
    else:
        t = math.sqrt(t2)
        s, co = math.sin(t), math.cos(t)
        c2 = (t2 + 2 * co - 2) / (2 * t2 * t2)
        c3 = (2 * t - 3 * s + t * co) / (2 * t2 * t2 * t)
    W, V = _hat(w), _hat(v)
    WV, VW = W @ V, V @ W
    WVW = WV @ W
    Q = 0.5 * V + c1 * (WV + VW + WVW) + c2 * (W @ WV + VW @ W - 3 * WVW) + c3 * (WVW @ W + W @ WVW)
    Di = _so3_dexpinv(w)
    out = np.zeros((6, 6))
    out[:3, :3] = Di
    out[3:, 3:] = Di
    out[3:, :3] = -(Di @ Q) @ Di
    return out


@numba.njit(cache=True)
def _rotation(e):
    """World <- body rotation of the unit quaternion e (systems.builders.rotations.rotation_matrix)."""
    e0, e1, e2, e3 = e[0], e[1], e[2], e[3]
    return np.array([[e0**2 + e1**2 - e2**2 - e3**2, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                     [2 * (e1 * e2 + e0 * e3), e0**2 - e1**2 + e2**2 - e3**2, 2 * (e2 * e3 - e0 * e1)],
                     [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0**2 - e1**2 - e2**2 + e3**2]])


@numba.njit(cache=True)
def _quaternion(R, like):
    """The unit quaternion of R by Shepperd's method, with the sign closest to ``like``
    (groups.quaternion_from_rotation)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    k, best = 0, tr
    for i in range(3):
        if R[i, i] > best:
            k, best = i + 1, R[i, i]
    q = np.empty(4)
    if k == 0:
        e0 = 0.5 * math.sqrt(max(1.0 + tr, 0.0))
        q[0] = e0
        q[1] = (R[2, 1] - R[1, 2]) / (4 * e0)
        q[2] = (R[0, 2] - R[2, 0]) / (4 * e0)
        q[3] = (R[1, 0] - R[0, 1]) / (4 * e0)
    else:
        i, j, l = k - 1, k % 3, (k + 1) % 3
        ei = 0.5 * math.sqrt(max(1.0 + 2 * R[i, i] - tr, 0.0))
        q[1 + i] = ei
        q[0] = (R[l, j] - R[j, l]) / (4 * ei)
        q[1 + j] = (R[j, i] + R[i, j]) / (4 * ei)
        q[1 + l] = (R[l, i] + R[i, l]) / (4 * ei)
    q /= math.sqrt(np.sum(q * q))
    if np.sum(q * like) < 0:
        q = -q
    return q


@numba.njit(cache=True)
def _split(y, n_p, rot, pos, vel, world, group_world, R, r, w, like):
    """(R, r, w, like) of y = (p, v), in place (lie.BodyStates.split)."""
    for i in range(rot.shape[0]):
        for k in range(4):
            like[i, k] = y[rot[i, k]]
        R[i] = _rotation(like[i] / math.sqrt(np.sum(like[i] * like[i])))
        for k in range(3):
            r[i, k] = y[pos[i, k]]
        for k in range(6):
            w[i, k] = y[n_p + vel[i, k]]
        if world[i] != group_world:
            w[i, 3:] = R[i] @ w[i, 3:] if group_world else R[i].T @ w[i, 3:]


@numba.njit(cache=True)
def _join(R, r, w, like, n_p, rot, pos, vel, world, group_world, y):
    """y = (p, v) of a group state, the Euler parameters' signs closest to ``like`` (BodyStates.join)."""
    for i in range(rot.shape[0]):
        q = _quaternion(R[i], like[i])
        for k in range(4):
            y[rot[i, k]] = q[k]
        for k in range(3):
            y[pos[i, k]] = r[i, k]
        lin = w[i, 3:].copy()
        if world[i] != group_world:
            lin = R[i].T @ lin if group_world else R[i] @ lin
        for k in range(3):
            y[n_p + vel[i, k]] = w[i, k]
            y[n_p + vel[i, 3 + k]] = lin[k]


@numba.njit(cache=True)
def _compose(R, r, Theta, group_world, R_new, r_new):
    """g exp(Theta) per body into (R_new, r_new)."""
    for i in range(R.shape[0]):
        if group_world:
            R_new[i] = R[i] @ _so3_exp(Theta[i, :3])
            r_new[i] = r[i] + Theta[i, 3:]
        else:
            dR, dr = _se3_exp(Theta[i])
            R_new[i] = R[i] @ dR
            r_new[i] = r[i] + R[i] @ dr


@numba.njit(cache=True)
def _dexpinv_neg(Theta, w, group_world, out):
    for i in range(w.shape[0]):
        if group_world:
            out[i, :3] = _so3_dexpinv(-Theta[i, :3]) @ w[i, :3]
            out[i, 3:] = w[i, 3:]
        else:
            out[i] = _se3_dexpinv(-Theta[i]) @ w[i]


@numba.njit(cache=True)
def _field(t, R, r, w, like, run, y, ydot, wd):
    """w' (N, 6) at a group state into wd (BodyStates.acceleration of the formulation's v'); False
    where the accelerations are not finite or the formulation's matrix is singular."""
    (address, where, params, extra, work, n_p, rot, pos, vel, world, group_world) = run
    _join(R, r, w, like, n_p, rot, pos, vel, world, group_world, y)
    if not call_rhs_at(address, (where, t, y, params, extra, ydot, work)):
        return False
    for k in range(n_p, y.size):
        if not math.isfinite(ydot[k]):
            return False
    for i in range(rot.shape[0]):
        for k in range(6):
            wd[i, k] = ydot[n_p + vel[i, k]]
        if world[i] != group_world:
            omega = w[i, :3]
            if group_world:  # body axes in the system: w_lin = R u, w_lin' = R (omega x u + u')
                u = R[i].T @ w[i, 3:]
                wd[i, 3:] = R[i] @ (np.cross(omega, u) + wd[i, 3:])
            else:  # world axes in the system: w_lin = R^T u, w_lin' = R^T u' - omega x w_lin
                wd[i, 3:] = R[i].T @ wd[i, 3:] - np.cross(omega, w[i, 3:])
    return True


@numba.njit(cache=True)
def _stages(t, h, R, r, w, wd, like, c, a, b, fsal, run, y, ydot, K, Wd, R_new, r_new):
    """One RKMK step of size h from (R, r, w) (LieStepper._stages): (w_new, ok) with (R_new, r_new)
    filled; K and Wd (stages, N, 6) the stage values of dexp^-1 w and w'."""
    group_world = run[10]
    stages = K.shape[0]
    K[0] = w
    Wd[0] = wd
    W = w.copy()
    for i in range(1, stages):
        Theta = np.zeros_like(w)
        W = w.copy()
        for j in range(i):
            Theta += h * a[i, j] * K[j]
            W += h * a[i, j] * Wd[j]
        _compose(R, r, Theta, group_world, R_new, r_new)
        if not _field(t + c[i] * h, R_new, r_new, W, like, run, y, ydot, Wd[i]):
            return W, False
        _dexpinv_neg(Theta, W, group_world, K[i])
    if fsal:
        return W, True
    Theta = np.zeros_like(w)
    w_new = w.copy()
    for j in range(stages):
        Theta += h * b[j] * K[j]
        w_new += h * b[j] * Wd[j]
    _compose(R, r, Theta, group_world, R_new, r_new)
    return w_new, True


@numba.njit(cache=True)
def _error(h, K, Wd, r, r_new, w, w_new, rtol, atol):
    """RMS of the embedded error estimate in the algebra, scaled by the tolerances (LieStepper._error)."""
    total = 0.0
    for i in range(w.shape[0]):
        size_r = max(np.max(np.abs(r[i])), np.max(np.abs(r_new[i])))
        for k in range(6):
            ex = 0.0
            ew = 0.0
            for j in range(DP_E.size):
                ex += DP_E[j] * K[j, i, k]
                ew += DP_E[j] * Wd[j, i, k]
            scale_x = atol + rtol if k < 3 else atol + rtol * size_r
            scale_w = atol + rtol * max(abs(w[i, k]), abs(w_new[i, k]))
            total += (h * ex / scale_x) ** 2 + (h * ew / scale_w) ** 2
    return math.sqrt(total / (12 * w.shape[0]))


@numba.njit(cache=True)
def _grow(ts, ys, count):
    if count < ts.size:
        return ts, ys
    ts2 = np.empty(2 * ts.size)
    ys2 = np.empty((2 * ts.size, ys.shape[1]))
    ts2[:count] = ts[:count]
    ys2[:count] = ys[:count]
    return ts2, ys2


@numba.njit(cache=True)
def _initial_step(w, wd, t, t1, rtol, atol, max_step):
    """The first step of RKMK45 (LieStepper._initial_step) from the twists w and their rates wd."""
    N = w.shape[0]
    d0 = d1 = 0.0
    for i in range(N):
        for k in range(6):
            scale = atol + rtol * abs(w[i, k])
            d0 += (w[i, k] / scale) ** 2
            d1 += (wd[i, k] / scale) ** 2
    d0, d1 = math.sqrt(d0 / (6 * N)), math.sqrt(d1 / (6 * N))
    h = 0.01 * d0 / d1 if d0 > 1e-5 and d1 > 1e-5 else 1e-6
    return min(h, max_step, 0.1 * (t1 - t))


@numba.njit(cache=True)
def _adaptive_step(t, h, target, R, r, w, wd, like, c, a, b, run, y, ydot, K, Wd, R_new, r_new, rtol, atol, max_step,
                   stages):
    """(w_new, ok, t_new, h, reached, evaluations, rejected): one accepted RKMK45 step from t toward
    ``target`` (landing on it where it is within reach; h the size the controller has reached, not
    shrunk by a step cut to land); ok False where the step size fell below the spacing of t."""
    trial = min(h, max_step, target - t)
    evaluations = rejected = 0
    while True:
        if trial < 10 * (np.nextafter(abs(t) + 1.0, np.inf) - (abs(t) + 1.0)):
            return w, False, t, h, False, evaluations, rejected
        w_new, ok = _stages(t, trial, R, r, w, wd, like, c, a, b, True, run, y, ydot, K, Wd, R_new, r_new)
        evaluations += stages - 1
        err = _error(trial, K, Wd, r, r_new, w, w_new, rtol, atol) if ok else np.inf
        if err <= 1.0:
            factor = MAX_FACTOR if err == 0 else min(MAX_FACTOR, SAFETY * err ** -0.2)
            reached = trial >= target - t
            t_new = target if reached else t + trial
            h = max(h, trial * factor) if reached else trial * factor  # a step cut to land on a target
            return w_new, True, t_new, h, reached, evaluations, rejected
        rejected += 1
        trial *= MIN_FACTOR if not math.isfinite(err) else max(MIN_FACTOR, SAFETY * err ** -0.2)


@numba.njit(cache=True, nogil=True)
def lie_run(address, where, params, extra, work, n_p, rot, pos, vel, world, group_world, adaptive, t0, y0,
            targets, recorded, every_step, rtol, atol, max_step, first_step, max_steps, stop):
    """RKMK4 (adaptive False: ``targets`` the step ends) or RKMK45 (adaptive: ``targets`` the output
    grid and t1, the steps landing on each) from (t0, y0); the output points are every step's end
    (every_step) or the targets marked in ``recorded``. Returns (ts, ys, status: 0 done, 1 a stage failed (non-finite
    accelerations or a singular matrix), 2 the step size fell below the spacing of t, 3 max_steps,
    4 stopped by stop[0]; t reached, steps, rejected, evaluations)."""
    run = (address, where, params, extra, work, n_p, rot, pos, vel, world, group_world)
    N = rot.shape[0]
    R, r, w, like = np.empty((N, 3, 3)), np.empty((N, 3)), np.empty((N, 6)), np.empty((N, 4))
    R_new, r_new, wd = np.empty((N, 3, 3)), np.empty((N, 3)), np.empty((N, 6))
    y, ydot = np.empty(y0.size), np.empty(y0.size)
    _split(y0, n_p, rot, pos, vel, world, group_world, R, r, w, like)
    if adaptive:
        c, a, b, stages = DP_C, DP_A, DP_A[6], 7
    else:
        c, a, b, stages = RK4[0], RK4[1], RK4[2], 4
    K, Wd = np.zeros((stages, N, 6)), np.zeros((stages, N, 6))
    capacity = targets.size + 1 if not adaptive else 1024  # grown as needed
    ts, ys = np.empty(capacity), np.empty((capacity, y0.size))
    ts[0] = t0
    _join(R, r, w, like, n_p, rot, pos, vel, world, group_world, y)
    ys[0] = y
    count, steps, rejected, evaluations = 1, 0, 0, 1
    t = t0
    if not _field(t, R, r, w, like, run, y, ydot, wd):
        return ts[:count], ys[:count], 1, t, steps, rejected, evaluations
    h = first_step  # the step size the controller has reached (LieStepper.h)
    if adaptive and h <= 0.0:
        h = _initial_step(w, wd, t, targets[-1], rtol, atol, max_step)
    next_target = 0
    while next_target < targets.size:
        target = targets[next_target]
        if not adaptive:
            w_new, ok = _stages(t, target - t, R, r, w, wd, like, c, a, b, False, run, y, ydot, K, Wd, R_new, r_new)
            evaluations += stages - 1
            if not ok:
                return ts[:count], ys[:count], 1, t, steps, rejected, evaluations
            t_new = target
            reached = True
        else:
            w_new, ok, t_new, h, reached, more, fewer = _adaptive_step(t, h, target, R, r, w, wd, like, c, a, b, run,
                                                                       y, ydot, K, Wd, R_new, r_new, rtol, atol,
                                                                       max_step, stages)
            evaluations += more
            rejected += fewer
            if not ok:
                return ts[:count], ys[:count], 2, t, steps, rejected, evaluations
        steps += 1
        t = t_new
        R[:] = R_new
        r[:] = r_new
        w[:] = w_new
        _join(R, r, w, like, n_p, rot, pos, vel, world, group_world, y)
        for i in range(N):
            for k in range(4):
                like[i, k] = y[rot[i, k]]
        if adaptive:
            wd[:] = Wd[stages - 1]
        else:
            evaluations += 1
            if not _field(t, R, r, w, like, run, y, ydot, wd):
                return ts[:count], ys[:count], 1, t, steps, rejected, evaluations
        if every_step or (reached and recorded[next_target]):
            ts, ys = _grow(ts, ys, count)
            ts[count] = t
            ys[count] = y
            count += 1
        if reached:
            next_target += 1
        if steps >= max_steps and next_target < targets.size:
            return ts[:count], ys[:count], 3, t, steps, rejected, evaluations
        if stop[0] != 0:
            return ts[:count], ys[:count], 4, t, steps, rejected, evaluations
    return ts[:count], ys[:count], 0, t, steps, rejected, evaluations

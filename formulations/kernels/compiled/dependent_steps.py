"""The dependent formulation's pieces for the other solvers, in machine code: the residual of
formulations.solvers.ida (index 1 and GGL) with its Jacobian, and the steps of
formulations.solvers.augmented_lagrangian (Bayo & Ledesma 1996). The model is the one of
formulations.kernels.compiled.dependent; the entry points ``<name>_at`` take it from where it is
stored and release the GIL (a run on the worker thread of formulations.solvers.interrupts leaves the
main thread free to take Ctrl-C).
"""
import math

import numba
import numpy as np

from formulations.kernels.borrowed import borrowed_items
from formulations.kernels.by_address import load_model
from formulations.kernels.linalg import all_finite, mv, put, solve, solve1, unit_blocks

from .dependent import MODEL_TYPE, _project_velocities, _saddle_rhs, evaluate_through
from .fields import views


@numba.njit(cache=True)
def _ggl_rows(md, t, Y, p, v, params, extra, Cm, res, work):
    """The GGL rows of dae_residual: C v + c = 0 and Psi(p, t) = 0 in place of the acceleration rows,
    and Psi_y^T mu added to the kinematic rows."""
    N_P, N, C, CON, DYN, SIZE, M_A = md.N_P, md.N, md.C, md.CON, md.DYN, md.SIZE, md.M_A
    cbuf = work[DYN + SIZE * SIZE + SIZE:DYN + SIZE * SIZE + SIZE + CON]
    cbuf[:] = 0.0
    md.CONSTRAINTS(p, params, t, cbuf)
    for i in range(C):
        value = cbuf[CON - C + i]
        if extra[7 + i] == 0.0:
            for j in range(N):
                value += Cm[i, j] * v[j]
        res[N_P + N + i] = value
    if M_A == 0:
        return
    E = md.EVAL_WORK
    q = work[E + N_P:E + 2 * N_P]
    put(q[:], Y[:N_P])  # Psi of the positions as they are, not normalized (Dependent.position_constraints)
    hc = work[E + 3 * N_P + N:md.DAE_WORK]
    hc[:] = 0.0
    md.HOLONOMIC_CHART(q, work[E + 2 * N_P:E + 3 * N_P], params, t, hc)
    mu = Y[N_P + N + C:]
    for i in range(M_A):
        res[N_P + N + C + i] = hc[i]
        for j in range(N_P):
            res[j] += hc[M_A + i * N_P + j] * mu[i]


@numba.njit(cache=True)
def dae_residual(model, t, Y, YP, params, extra, ggl, res, work):
    """F(t, Y, Y') of formulations.solvers.ida into res, Y = (p, v, lambda[, mu]): the kinematics
    p' - A v (+ Psi_y^T mu in GGL), then [[M, C^T - F], [C, 0]] [v'; lambda] - [f0 - d; b] with b as
    evaluate's (stabilization gains in extra; rows set aside as dependent: lambda_i = 0), or in GGL
    (ggl True) the dynamics rows, C v + c and Psi. Y and Y' may be read-only. work: DAE_WORK zeros."""
    md = borrowed_items(model)
    N_P, N, C, E = md.N_P, md.N, md.C, md.EVAL_WORK
    p = work[E:E + N_P]
    put(p[:], Y[:N_P])
    unit_blocks(p, md.BLOCKS)
    v = work[E + 3 * N_P:E + 3 * N_P + N]
    put(v[:], Y[N_P:N_P + N])
    vdot = YP[N_P:N_P + N]
    lam = Y[N_P + N:N_P + N + C]
    buf = work[:md.DYN]
    buf[:] = 0.0
    md.DYNAMICS(t, p, v, params, buf)
    b, _ = _saddle_rhs(md, t, p, v, params, extra, buf, work)
    M, _, _, F, Cm, _, Ad, _ = views(md, buf)
    for i in range(N_P):
        value = YP[i]
        for j in range(N):
            value -= Ad[i, j] * v[j]
        res[i] = value
    for i in range(N):
        value = -b[i]
        for j in range(N):
            value += M[i, j] * vdot[j]
        for k in range(C):
            if extra[7 + k] == 0.0:
                value += (Cm[k, i] - F[i, k]) * lam[k]
        res[N_P + i] = value
    if ggl:
        _ggl_rows(md, t, Y, p, v, params, extra, Cm, res, work)
        return
    for i in range(C):
        value = -b[N + i]
        if extra[7 + i] == 0.0:
            for j in range(N):
                value += Cm[i, j] * vdot[j]
        else:
            value += lam[i]
        res[N_P + N + i] = value


@numba.njit(cache=True)
def dae_jacobian(model, t, Y, YP, cj, params, extra, ggl, rtol, atol, res, JJ, work):
    """JJ = dF/dY + cj dF/dY' of dae_residual by difference quotients as IDA forms its own, column j
    from Y_j + h and Y'_j + cj h, h = max(sqrt(eps) max(|Y_j|, |Y'_j| / cj), rtol |Y_j| + atol_j)
    signed as Y'_j (IDA's increment uses its last step and error weights). res: F(t, Y, Y')."""
    size = Y.size
    Yh = Y.copy()
    YPh = YP.copy()
    column = np.empty(size)
    root = math.sqrt(np.finfo(np.float64).eps)
    for j in range(size):
        h = max(root * max(abs(Y[j]), abs(YP[j]) / cj), rtol * abs(Y[j]) + atol[j])
        if YP[j] < 0.0:
            h = -h
        h = (Y[j] + h) - Y[j]
        Yh[j] = Y[j] + h
        YPh[j] = YP[j] + cj * h
        dae_residual(model, t, Yh, YPh, params, extra, ggl, column, work)
        for i in range(size):
            JJ[i, j] = (column[i] - res[i]) / h
        Yh[j] = Y[j]
        YPh[j] = YP[j]


@numba.njit(cache=True, nogil=True)
def dae_residual_at(where, t, Y, YP, params, extra, ggl, res, work):
    """dae_residual of the model stored at ``where``."""
    return dae_residual(load_model(where, MODEL_TYPE), t, Y, YP, params, extra, ggl, res, work)


@numba.njit(cache=True, nogil=True)
def dae_jacobian_at(where, t, Y, YP, cj, params, extra, ggl, rtol, atol, res, JJ, work):
    """dae_jacobian of the model stored at ``where``."""
    return dae_jacobian(load_model(where, MODEL_TYPE), t, Y, YP, cj, params, extra, ggl, rtol, atol, res, JJ, work)


@numba.njit(cache=True)
def _al_positions(md, p0, pdot0, v1, h, params, p1, abuf):
    """p1 of p1 = p0 + h/2 (pdot0 + A(p1) v1) by fixed-point iteration, unit blocks normalized
    (augmented_lagrangian._positions)."""
    N_P, N = md.N_P, md.N
    for i in range(N_P):
        p1[i] = p0[i] + h * pdot0[i]
    unit_blocks(p1, md.BLOCKS)
    new = np.empty(N_P)
    for _ in range(50):
        abuf[:] = 0.0
        md.KINEMATICS(p1, params, abuf)
        Av = mv(abuf.reshape((N_P, N)), v1)
        for i in range(N_P):
            new[i] = p0[i] + h / 2 * (pdot0[i] + Av[i])
        unit_blocks(new, md.BLOCKS)
        change = np.max(np.abs(new - p1))
        put(p1[:], new)
        if change <= 1e-15 * (1 + np.max(np.abs(new))):
            return


@numba.njit(cache=True)
def _al_residual(md, t, p, v, params, cbuf, residual):
    """(Phi(p, t), C_nh v + c_nh) into residual (C,)."""
    N_P, N, C, M_H = md.N_P, md.N, md.C, md.M_H
    cbuf[:] = 0.0
    md.CONSTRAINTS(p, params, t, cbuf)
    Cv = mv(cbuf[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N)), v)
    for i in range(C):
        residual[i] = cbuf[i] if i < M_H else Cv[i] + cbuf[md.CON - C + i]


@numba.njit(cache=True)
def _al_penalties(md, M, Cm, h, penalty, alpha, scale):
    """The penalties alpha (C,) from the rows' equivalent masses (C M^-1 C^T)_ii^-1 and the scales of
    their residuals; False where M is singular or a row vanishes."""
    MCt, ok = solve(M, np.ascontiguousarray(Cm.T))
    if not ok:
        return False
    for i in range(md.C):
        m_bar = 0.0
        for j in range(md.N):
            m_bar += Cm[i, j] * MCt[j, i]
        if not m_bar > 0.0:  # a vanishing row: no equivalent mass
            return False
        m_bar = 1.0 / m_bar
        alpha[i] = penalty * 4 * m_bar / h**2 if i < md.M_H else penalty * 2 * m_bar / h
        scale[i] = h**2 / 4 if i < md.M_H else h / 2
    return True


@numba.njit(cache=True)
def _al_newton(md, buf, a, lam, alpha, scale, force, T, R):
    """The Newton matrix T and residual R of the step's dynamics in the accelerations a, with the
    augmented forces ``force`` = lambda + alpha residual; buf holds the dynamics at the step's end."""
    M, d, f0, F, Cm, _, _, _ = views(md, buf)
    N, C = md.N, md.C
    Ma = mv(M, a)
    for i in range(N):
        R[i] = Ma[i] + d[i] - f0[i]
        for j in range(C):
            R[i] += (Cm[j, i] - F[i, j]) * force[j]
        for j in range(N):
            value = M[i, j]
            for r in range(C):
                value += (Cm[r, i] - F[i, r]) * alpha[r] * scale[r] * Cm[r, j]
            T[i, j] = value


@numba.njit(cache=True)
def _al_step(md, t1, h, p0, v0, a0, lam, params, penalty, max_iter, tol, p1, v1, state):
    """(status, last max |delta a|, evaluations) of one step to t1: 0 converged (p1, v1 and lam
    updated), 1 the iteration did not converge, 2 a singular or non-finite matrix. ``state`` holds
    the work arrays (buf, cbuf, abuf, pn, residual, alpha, scale, T, R)."""
    buf, cbuf, abuf, pn, residual, alpha, scale, T, R = state
    N_P, N = md.N_P, md.N
    abuf[:] = 0.0
    md.KINEMATICS(p0, params, abuf)
    pdot0 = mv(abuf.reshape((N_P, N)), v0)
    a = a0.copy()
    put(v1[:], v0 + h / 2 * (a0 + a))
    _al_positions(md, p0, pdot0, v1, h, params, p1, abuf)
    size = np.inf
    evaluations = 0
    for it in range(max_iter):
        put(pn[:], p1)
        unit_blocks(pn, md.BLOCKS)
        buf[:] = 0.0
        md.DYNAMICS(t1, pn, v1, params, buf)
        evaluations += 1
        M, _, _, F, Cm, _, _, _ = views(md, buf)
        if not (all_finite(M) and all_finite(Cm) and all_finite(F)):
            return 2, size, evaluations
        if it == 0:  # penalties from the equivalent masses at the first iterate
            if not _al_penalties(md, M, Cm, h, penalty, alpha, scale):
                return 2, size, evaluations
            _al_residual(md, t1, p1, v1, params, cbuf, residual)
        _al_newton(md, buf, a, lam, alpha, scale, lam + alpha * residual, T, R)
        delta, ok = solve1(T, R)
        if not ok:
            return 2, size, evaluations
        a -= delta
        put(v1[:], v0 + h / 2 * (a0 + a))
        _al_positions(md, p0, pdot0, v1, h, params, p1, abuf)
        _al_residual(md, t1, p1, v1, params, cbuf, residual)
        lam += alpha * residual
        size = np.max(np.abs(delta))
        if size <= tol * (1 + np.max(np.abs(a))) or h**2 / 4 * size <= 1e-15 * (1 + np.max(np.abs(p1))):
            return 0, size, evaluations
    return 1, size, evaluations


@numba.njit(cache=True)
def al_run(model, t0, times, keep, y0, params, extra, penalty, max_iter, tol, ys, stop):
    """The index-3 augmented Lagrangian method of formulations.solvers.augmented_lagrangian (Bayo &
    Ledesma 1996) from (t0, y0) through the step ends ``times`` (k,), the state after each step where
    ``keep`` (k,) into the next row of ys; the accelerations and multipliers after each step from
    evaluate (the M-orthogonal projection). Returns (steps done, status: 0 done, 1 the iteration did
    not converge, 2 a singular or non-finite matrix, 3 stopped by the flag stop[0], the last
    max |delta a|, evaluations of the dynamics in the iterations)."""
    md = borrowed_items(model)
    N_P, N, C = md.N_P, md.N, md.C
    work = np.zeros(md.EVAL_WORK)
    out, lam, p, v, vdot = np.empty(N_P + N), np.empty(C), np.empty(N_P), np.empty(N), np.empty(N)
    y = y0.copy()
    evaluations = 0
    if not evaluate_through(md, t0, y, params, extra, out, lam, p, v, vdot, bool(True), work):
        return 0, 2, 0.0, evaluations
    p0, v0, a0 = y0[:N_P].copy(), y0[N_P:].copy(), vdot.copy()
    p1, v1 = np.empty(N_P), np.empty(N)
    state = (np.zeros(md.DYN), np.zeros(md.CON), np.zeros(N_P * N), np.empty(N_P), np.empty(C), np.empty(C),
             np.empty(C), np.empty((N, N)), np.empty(N))
    t = t0
    kept = 0
    for k in range(times.size):
        status, size, more = _al_step(md, times[k], times[k] - t, p0, v0, a0, lam, params, penalty, max_iter, tol,
                                      p1, v1, state)
        evaluations += more
        if status != 0:
            return k, status, size, evaluations
        if C > 0 and not _project_velocities(md, times[k], p1, v1, params, state[0]):
            return k, 2, size, evaluations
        put(y[:N_P], p1)
        put(y[N_P:], v1)
        if not evaluate_through(md, times[k], y, params, extra, out, lam, p, v, vdot, bool(True), work):
            return k, 2, size, evaluations
        if keep[k]:
            put(ys[kept], y)
            kept += 1
        put(p0[:], p1)
        put(v0[:], v1)
        put(a0[:], vdot)
        t = times[k]
        if stop[0] != 0:
            return k + 1, 3, size, evaluations
    return times.size, 0, 0.0, evaluations


@numba.njit(cache=True, nogil=True)
def al_run_at(where, t0, times, keep, y0, params, extra, penalty, max_iter, tol, ys, stop):
    """al_run of the model stored at ``where``."""
    return al_run(load_model(where, MODEL_TYPE), t0, times, keep, y0, params, extra, penalty, max_iter, tol, ys,
                  stop)

"""DLA and NH-RATTLE in machine code: the steps of formulations.solvers.variational, driven by
formulations.solvers.compiled_variational. The pieces of the discrete Lagrangian and the forces come
as two first-class functions (kernels of the system), so the module is the same for every system.
"""
import math

import numba
import numpy as np

from formulations.kernels.linalg import lu_in_place, lu_solve, mm, mv



@numba.njit(cache=True)
def _views(buf, off, n, m, l):
    """(A, dA, M, dM, grad V, Phi, Phi_p, C_nh, grad S, its Jacobian): views of the flat output of the
    pieces kernel, made once per buffer (a reshape costs more than the evaluation of a small system's
    pieces)."""
    return (buf[off[0]:off[1]].reshape((n, n)), buf[off[1]:off[2]].reshape((n, n, n)),
            buf[off[2]:off[3]].reshape((n, n)), buf[off[3]:off[4]].reshape((n, n, n)), buf[off[4]:off[5]],
            buf[off[5]:off[6]], buf[off[6]:off[7]].reshape((m, n)), buf[off[7]:off[8]].reshape((l, n)),
            buf[off[8]:off[9]], buf[off[9]:off[10]].reshape((n, n)))


@numba.njit(cache=True)
def _at(pieces, p, params, buf, V, lu, perm, identity, full):
    """The pieces at p into buf (seen as V) and the LU factors of A into lu[0], and where ``full`` of
    A^T and M into lu[1], lu[2]; False where one is singular (the code, 1 A or 2 M, in perm[3, 0])."""
    pieces(p, params, buf)
    A, M = V[0], V[2]
    if not identity:
        lu[0, :, :] = A
        if not lu_in_place(lu[0], perm[0]):
            perm[3, 0] = 1
            return False
        if full:
            lu[1, :, :] = A.T
            if not lu_in_place(lu[1], perm[1]):
                perm[3, 0] = 1
                return False
    if not full:
        return True
    lu[2, :, :] = M
    if not lu_in_place(lu[2], perm[2]):
        perm[3, 0] = 2
        return False
    return True


@numba.njit(cache=True)
def _solve(lu, perm, which, x, identity):
    """x overwritten by A^-1 x (which 0), A^-T x (1) or M^-1 x (2)."""
    if which < 2 and identity:
        return
    lu_solve(lu[which], perm[which], x)


@numba.njit(cache=True)
def _kinetic_momentum(V, lu, perm, identity, v, P):
    """P = A^-T M v."""
    M = V[2]
    for i in range(v.size):
        acc = 0.0
        for j in range(v.size):
            acc += M[i, j] * v[j]
        P[i] = acc
    _solve(lu, perm, 1, P, identity)


@numba.njit(cache=True)
def _momentum(V, lu, perm, identity, v, P):
    """P = A^-T M v + grad S."""
    _kinetic_momentum(V, lu, perm, identity, v, P)
    P += V[8]


@numba.njit(cache=True)
def _partials(force, forced, t, p, params, V, lu, perm, identity, d, L_p, P, Q, v):
    """L_p (n,) and P = L_p' (n,) at p and p' = d; where forced, Q = A^-T f + grad V, the forces
    the potential does not hold (v: scratch, left holding A^-1 d)."""
    dA, dM, gV, gS, dgS = V[1], V[3], V[4], V[8], V[9]
    n = d.size
    v[:] = d
    _solve(lu, perm, 0, v, identity)
    _kinetic_momentum(V, lu, perm, identity, v, P)
    for j in range(n):
        acc = -gV[j]
        for a in range(n):
            va, Pa = 0.5 * v[a], P[a]
            acc += dgS[j, a] * d[a]
            for b in range(n):
                acc += va * dM[j, a, b] * v[b]
                if not identity:
                    acc -= Pa * dA[j, a, b] * v[b]
        L_p[j] = acc
    P += gS
    if forced:
        force(t, p, v, params, Q)
        _solve(lu, perm, 1, Q, identity)
        for j in range(n):
            Q[j] += gV[j]


@numba.njit(cache=True)
def _residual(pieces, force, forced, params, n, m, l, identity, h, t0, p0, Pk, a0T, x, r, work, bufs, V0, V1, Vm,
              lus, perms):
    """The first stage's equations at x = (d, mu, nu), p1 = p0 + h d, into r (the rows of Phi divided
    by h); p1's pieces into bufs[1] (V1) and lus[1]. False where A or M is singular at p1 or at the
    midpoint. work: (8, n) scratch, work[6] holding p1 and work[7] the midpoint."""
    d, L_p, P0, P1, Q, v, p1, pm = work[0], work[1], work[2], work[3], work[4], work[5], work[6], work[7]
    for i in range(n):
        p1[i] = p0[i] + h * x[i]
        d[i] = x[i]
    if not _at(pieces, p1, params, bufs[1], V1, lus[1], perms[1], identity, True):
        return False
    _partials(force, forced, t0, p0, params, V0, lus[0], perms[0], identity, d, L_p, P0, Q, v)
    for i in range(n):
        r[i] = Pk[i] + 0.5 * h * L_p[i] + (0.5 * h * Q[i] if forced else 0.0)
    _partials(force, forced, t0 + h, p1, params, V1, lus[1], perms[1], identity, d, L_p, P1, Q, v)
    Phi_p0 = V0[6]
    for i in range(n):
        acc = 0.5 * (P0[i] + P1[i])
        for k in range(l):
            acc += a0T[i, k] * x[n + k]
        for k in range(m):
            acc += Phi_p0[k, i] * x[n + l + k]
        r[i] -= acc
    if l:
        for i in range(n):
            pm[i] = p0[i] + 0.5 * h * x[i]
        if not _at(pieces, pm, params, bufs[2], Vm, lus[2], perms[2], identity, False):  # A only, as Python
            return False
        v[:] = d
        _solve(lus[2], perms[2], 0, v, identity)
        Cm = Vm[7]
        for k in range(l):
            acc = 0.0
            for j in range(n):
                acc += Cm[k, j] * v[j]
            r[n + k] = acc
    Phi1 = V1[5]
    for k in range(m):
        r[n + l + k] = Phi1[k] / h
    return True


@numba.njit(cache=True)
def _second_stage(V, lu, perm, n, m, l, identity, rattle, D2, v, P):
    """v (and P) at the step's end: DLA's P = D2, v = M^-1 A^T (P - grad S); NH-RATTLE's v moved
    M-orthogonally onto C(p1) v = 0, C = [Phi_p A; C_nh], and P = A^-T M v + grad S. False where
    C M^-1 C^T is singular."""
    A, Phi_p, Cnh, gS = V[0], V[6], V[7], V[8]
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += A[j, i] * (D2[j] - gS[j])
        v[i] = acc
    _solve(lu, perm, 2, v, identity)
    c = m + l
    if not rattle or c == 0:
        P[:] = D2
        return True
    C = np.empty((c, n))
    C[:m] = mm(Phi_p, A)
    C[m:] = Cnh
    MinvCT = np.ascontiguousarray(C.T)
    _solve(lu, perm, 2, MinvCT, identity)
    S = mm(C, MinvCT)
    kappa = -mv(C, v)
    perm_S = np.empty(c, np.int64)
    if not lu_in_place(S, perm_S):
        return False
    lu_solve(S, perm_S, kappa)
    v += mv(MinvCT, kappa)
    _momentum(V, lu, perm, identity, v, P)
    return True


@numba.njit(cache=True)
def _jacobian(Jd, J, jperm, a0T, Phi_p0, n, m, l):
    """The LU factors of the first stage's Jacobian into J: the columns in p1 from Jd, those in the
    impulses exact (the rows at the step's start). False where it is singular."""
    J[:, :n] = Jd
    J[:, n:] = 0.0
    for i in range(n):
        for k in range(l):
            J[i, n + k] = -a0T[i, k]
        for k in range(m):
            J[i, n + l + k] = -Phi_p0[k, i]
    return lu_in_place(J, jperm)


@numba.njit(cache=True)
def _singular(perms):
    """The code of the singular matrix met at the step's end or midpoint."""
    return perms[1, 3, 0] if perms[1, 3, 0] else perms[2, 3, 0]


@numba.njit(cache=True)
def _columns(pieces, force, forced, params, n, m, l, identity, h, t0, p0, Pk, a0T, x, r, r2, Jd, work, bufs, V0, V1,
             Vm, lus, perms):
    """The first stage's Jacobian columns in p1 at x by differences into Jd (r: the residual at x);
    False where a probe meets a singular matrix. The probes overwrite p1's pieces."""
    for j in range(n):
        # relative to the rate (or to 1 unit/s), large enough to move p1 (variational._increment)
        step_j = max(1.49e-8 * max(abs(x[j]), 1.0), 64 * 2.2e-16 * max(1.0, abs(p0[j] + h * x[j])) / h)
        saved = x[j]
        x[j] = saved + step_j
        ok = _residual(pieces, force, forced, params, n, m, l, identity, h, t0, p0, Pk, a0T, x, r2, work, bufs, V0,
                       V1, Vm, lus, perms)
        x[j] = saved
        if not ok:
            return False
        for i in range(x.size):
            Jd[i, j] = (r2[i] - r[i]) / step_j
    return True


@numba.njit(cache=True)
def _first_stage(pieces, force, forced, params, n, m, l, identity, h, t0, p0, Pk, a0T, x, r, r2, dx, Jd, J, jperm,
                 work, bufs, V0, V1, Vm, lus, perms, tolerance, round_off, slow, max_iterations, counts, info, fresh):
    """Newton's method on the first stage from the guess in x (as the Python stepper's _first_stage):
    status 0, or -1 (no convergence), -4 (non-finite values), -7 (a singular matrix: its code in
    info[3]); counts (evaluations, jacobians, iterations) updated; info[1:3] the residual and
    increment of a failed step. Jd holds the Jacobian's columns in p1, taken at the guess where
    ``fresh`` and again where the iterations contract slowly."""
    n_x = x.size
    refresh, refreshes, previous, factored = fresh, 0, np.inf, False
    dx[:] = 0.0
    for it in range(max_iterations + 1):  # the guess, then one iterate each
        ok = _residual(pieces, force, forced, params, n, m, l, identity, h, t0, p0, Pk, a0T, x, r, work, bufs, V0, V1,
                       Vm, lus, perms)
        counts[0] += 1
        if it > 0:
            counts[2] += 1
            for i in range(n_x):
                if not math.isfinite(x[i]):
                    return -4
            size, scale, reach = 0.0, 1.0, 1.0  # the increment of the rate, relative to it (or to 1 unit/s)
            for i in range(n):
                size = max(size, abs(dx[i]))
                scale = max(scale, abs(x[i]))
                reach = max(reach, abs(p0[i] + h * x[i]))
            # converged: to the tolerance, below what moves p1 by a few units in the last place, or at round-off
            if ok and (size <= max(tolerance * scale, 8 * 2.2e-16 * reach / h)
                       or (size <= round_off * scale and size > 0.5 * previous)):
                return 0
            if size > slow * previous and refreshes < 2:
                refresh, refreshes = True, refreshes + 1
            previous = size
        if not ok:
            info[3] = _singular(perms)
            return -7
        if it == max_iterations:
            break
        if refresh:
            if not _columns(pieces, force, forced, params, n, m, l, identity, h, t0, p0, Pk, a0T, x, r, r2, Jd, work,
                            bufs, V0, V1, Vm, lus, perms):
                info[3] = _singular(perms)
                return -7
            counts[0] += n
            counts[1] += 1
            refresh, factored = False, False
        if not factored:
            if not _jacobian(Jd, J, jperm, a0T, V0[6], n, m, l):
                info[3] = 4
                return -7
            factored = True
        for i in range(n_x):
            dx[i] = -r[i]
        lu_solve(J, jperm, dx)
        x += dx
    for i in range(n_x):
        info[1] = max(info[1], abs(r[i]))
        info[2] = max(info[2], abs(dx[i]))
    return -1


@numba.njit(cache=True)
def _predict(V0, lu, perm, identity, l, h, h_last, hist, n_hist, p0, v, a0T, D2, x):
    """The step's first guess into x and a(p0)^T = A^-T C_nh^T into a0T (D2 as scratch): the
    parabola through the last three configurations where the steps are equal, else p0 + h A v; the
    impulses x[n:] of the last step scaled to this one. Returns whether h equals the last step."""
    n = p0.size
    A0, C0 = V0[0], V0[7]
    for k in range(l):
        D2[:] = C0[k]
        _solve(lu, perm, 1, D2, identity)
        a0T[:, k] = D2
    equal = abs(h - h_last) <= 1e-9 * h
    if n_hist == 3 and equal:
        for i in range(n):
            x[i] = (3 * hist[2, i] - 3 * hist[1, i] + hist[0, i] - p0[i]) / h
    else:
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += A0[i, j] * v[j]
            x[i] = acc
    if h_last == h_last:  # x[n:] holds the last step's impulses: in proportion to h, this one's guess
        for i in range(n, x.size):
            x[i] *= h / h_last
    return equal


@numba.njit(cache=True, nogil=True)
def run(pieces, force, forced, identity, rattle, n, m, l, off, params, times, recorded, y0, tolerance, round_off,
        slow, max_iterations, stop):
    """(ys (k, 2n), status, steps, counts (evaluations, jacobians, iterations), info (time, residual,
    increment, singular code)): the steps to times[1:] from y0 = (p0, v0) at times[0]; the rows of
    the points flagged in ``recorded`` (times' size, y0's row first)."""
    n_x = n + l + m
    ys = np.empty((int(np.sum(recorded)), 2 * n))
    info = np.zeros(4)
    counts = np.zeros(3, np.int64)
    count = 0
    if recorded[0]:
        ys[0] = y0
        count = 1
    bufs = np.zeros((3, off[10]))  # the pieces at the step's start, end and midpoint
    lus = np.zeros((3, 3, n, n))  # their LU factors of A, A^T and M
    perms = np.zeros((3, 4, max(n, 1)), np.int64)
    work, vectors, xs = np.zeros((8, n)), np.zeros((4, n)), np.zeros((4, n_x))
    J, Jd, jperm = np.zeros((n_x, n_x)), np.zeros((n_x, n)), np.zeros(n_x, np.int64)
    hist, a0T = np.zeros((3, n)), np.zeros((n, l))
    V0, V1, Vm = _views(bufs[0], off, n, m, l), _views(bufs[1], off, n, m, l), _views(bufs[2], off, n, m, l)
    p0, Pk, v, D2 = vectors[0], vectors[1], vectors[2], vectors[3]
    p1 = work[6]
    p0[:] = y0[:n]
    v[:] = y0[n:]
    x, r, r2, dx = xs[0], xs[1], xs[2], xs[3]
    hist[2] = p0
    n_hist, h_last = 1, np.nan
    info[0] = times[0]
    if not _at(pieces, p0, params, bufs[0], V0, lus[0], perms[0], identity, True):
        info[3] = perms[0, 3, 0]
        return ys[:count], -7, 0, counts, info
    _momentum(V0, lus[0], perms[0], identity, v, Pk)
    for step in range(times.size - 1):
        if stop[0] != 0:
            return ys[:count], -5, step, counts, info
        t0, h = times[step], times[step + 1] - times[step]
        info[0] = t0
        equal = _predict(V0, lus[0], perms[0], identity, l, h, h_last, hist, n_hist, p0, v, a0T, D2, x)
        status = _first_stage(pieces, force, forced, params, n, m, l, identity, h, t0, p0, Pk, a0T, x, r, r2, dx, Jd,
                              J, jperm, work, bufs, V0, V1, Vm, lus, perms, tolerance, round_off, slow,
                              max_iterations, counts, info, True)
        if status != 0:
            return ys[:count], status, step, counts, info
        # D2 L_d + h/2 Q1 from the last residual, at the converged rate: L_p and Q at p1, P0, P1 in work
        for i in range(n):
            D2[i] = 0.5 * h * work[1, i] + 0.5 * (work[2, i] + work[3, i]) + (0.5 * h * work[4, i] if forced else 0.0)
        if not _second_stage(V1, lus[1], perms[1], n, m, l, identity, rattle, D2, v, Pk):
            info[0], info[3] = times[step + 1], 3
            return ys[:count], -7, step, counts, info
        if equal:
            n_hist = min(3, n_hist + 1)
            hist[0] = hist[1]
            hist[1] = hist[2]
        else:
            hist[1] = p0
            n_hist = 2
        hist[2] = p1
        h_last = h
        p0[:] = p1
        bufs[0, :] = bufs[1]
        lus[0, :, :, :] = lus[1]
        perms[0, :, :] = perms[1]
        if recorded[step + 1]:
            ys[count, :n] = p1
            ys[count, n:] = v
            count += 1
    return ys[:count], 0, times.size - 1, counts, info

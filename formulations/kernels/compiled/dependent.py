"""The dependent formulation's whole evaluation in machine code (stabilization none, Baumgarte or
constraint dynamics: extra = (alpha, beta, projection flag, position tolerance, iterations,
project positions, project velocities, then one flag per row set aside as dependent from the
start)); formulations.dependent states the equations.

The model (``Model``, built by formulations.kernels.dependent.dependent_model) holds, besides the
fields of formulations.kernels.compiled.passes: L (nonholonomic rows), BLOCKS (the Euler-parameter
blocks of p, (k, 4)), M_A (rows of Phi_a: Phi and the blocks' unit norms), SIZE = N + C, the
work-array offsets SPARE, SPARSE and DAE_WORK, the program of the sparse LU of
K = [[M, C^T - F], [C, 0]] (KS_*, formulations.kernels.sparse_pattern.symbolic_lu) with the indices
of its values in the dynamics output (KS_PLUS, KS_MINUS), the sparse products C v and A v (CV_*,
AV_*), and the kernels KINEMATICS and HOLONOMIC_CHART (Phi_a, writing nothing where M_A is 0).

The helpers of evaluate and post_step are inlined where they are called (``inline="always"``, at
numba's level): a call passes the model field by field, some 170 ns on the rolling disc, a sixth of
a whole evaluation, and each function compiled on its own costs a second or two of compiling more.
"""
from collections import namedtuple

import numba
import numpy as np
from numba.core import types

from formulations.kernels.borrowed import borrowed_items
from formulations.kernels.by_address import call_evaluate, call_post_step, call_rhs, load_model
from formulations.kernels.lapack import least_squares, pseudo_inverse
from formulations.kernels.linalg import (SADDLE_RTOL, all_finite, copy_into, finite, mm, mv, put, solve, solve1,
                                         solve1_min_norm, solve_min_norm_in_place, tmv, unit_blocks)
from formulations.kernels.sparse_linalg import sparse_factor, sparse_mv, sparse_solve

from .fields import ADDRESSES, BLOCKS, FLAG, INDEX, INT, LU_FIELDS, PRIMITIVES, kernel, views
from .passes import rhs  # y' alone, called through its address as this module's own

_FIELDS = (("N_P", INT), ("N", INT), ("C", INT), ("M_H", INT), ("L", INT), ("BLOCKS", BLOCKS), ("DYN", INT),
           ("CON", INT), ("DYN_AT", INDEX), ("A_CONSTANT", FLAG), ("M_A", INT), ("SIZE", INT), ("SPARE", INT),
           ("SPARSE", INT), ("EVAL_WORK", INT), ("DAE_WORK", INT), ("SCRATCH", INT), ("WORK", INT),
           *((f"KS_{name}", INDEX) for name in LU_FIELDS), ("KS_PLUS", INDEX), ("KS_MINUS", INDEX),
           ("KS_NNZ", INT), ("CV_ROW", INDEX), ("CV_INDEX", INDEX), ("CV_COL", INDEX), ("AV_ROW", INDEX),
           ("AV_INDEX", INDEX), ("AV_COL", INDEX), ("REJECT_FAILED_STAGES", FLAG),
           *PRIMITIVES, ("KINEMATICS", kernel(False, False)), ("HOLONOMIC_CHART", kernel(False, False, False, True)),
           *ADDRESSES)
Model = namedtuple("Model", [name for name, _ in _FIELDS])  # pickled by reference: its name is its own
MODEL_TYPE = types.NamedTuple([kind for _, kind in _FIELDS], Model)
# what evaluate is made of, in order (formulations.workbench.derivation.export)
EVALUATION = ("views", "_sparse_saddle", "_saddle_rhs", "_dense_saddle", "evaluate")


@numba.njit(cache=True, inline="always")
def _sparse_saddle(md, buf, b, work):
    """[v'; lambda] into b by the LU factors without pivoting of K on its non-zero entries only
    (sparse_pattern.symbolic_lu, M's rows first); False, b unchanged, where a pivot is too small."""
    vals = work[md.SPARSE:md.SPARSE + md.KS_NNZ]
    for e in range(md.KS_NNZ):
        value = buf[md.KS_PLUS[e]] if md.KS_PLUS[e] >= 0 else 0.0
        if md.KS_MINUS[e] >= 0:
            value -= buf[md.KS_MINUS[e]]
        vals[e] = value
    program = (md.KS_PIVOT, md.KS_LOWER_PTR, md.KS_LOWER, md.KS_LOWER_ROW, md.KS_UPDATE_PTR, md.KS_UPDATE_TARGET,
               md.KS_UPDATE_LEFT, md.KS_UPDATE_RIGHT, md.KS_UPPER_PTR, md.KS_UPPER, md.KS_UPPER_COL)
    if not sparse_factor(vals, *program):
        return False
    x = work[md.SPARSE + md.KS_NNZ:md.SPARSE + md.KS_NNZ + md.SIZE]
    put(x[:], b)
    if not sparse_solve(vals, x, *program):
        return False
    put(b[:], x)
    return True


@numba.njit(cache=True, inline="always")
def _saddle_rhs(md, t, p, v, params, extra, buf, work):
    """(b, dropped): the saddle's right-hand side b = [f0 - d; -xi - 2 alpha (C v + c) - beta^2 [Phi; 0]]
    in work, the rows dependent from the start (extra[7 + i], Dependent.saddle) set to 0, and
    whether there are such rows; buf holds the dynamics at (t, p, v)."""
    N, C, M_H, CON, DYN, SIZE = md.N, md.C, md.M_H, md.CON, md.DYN, md.SIZE
    alpha, beta = extra[0], extra[1]
    b = work[DYN + SIZE * SIZE:DYN + SIZE * SIZE + SIZE]
    for i in range(N):
        b[i] = buf[md.DYN_AT[2] + i] - buf[md.DYN_AT[1] + i]  # f0 - d
    sparse_mv(buf, md.CV_ROW, md.CV_INDEX, md.CV_COL, v, b[N:])
    cbuf = work[DYN + SIZE * SIZE + SIZE:DYN + SIZE * SIZE + SIZE + CON]
    if alpha != 0.0 or (beta != 0.0 and M_H > 0):  # the velocity residual is C v + c, c = [Phi_t; c_nh]
        md.CONSTRAINTS(p, params, t, cbuf)
        for i in range(C):
            b[N + i] += cbuf[CON - C + i]
    for i in range(C):
        b[N + i] = -buf[md.DYN_AT[5] + i] - 2 * alpha * b[N + i]  # xi
    if beta != 0.0 and M_H > 0:
        for i in range(M_H):
            b[N + i] -= beta**2 * cbuf[i]
    dropped = False
    for i in range(C):
        if extra[7 + i] != 0.0:
            dropped = True
            b[N + i] = 0.0
    return b, dropped


@numba.njit(cache=True, inline="always")
def _dense_saddle(md, extra, buf, b, dropped, work, out, vdot, lam):
    """The dense saddle solve, where the sparse one fails or rows are dropped: partial pivoting, and
    least squares where C has dependent rows (minimum-norm lambda); the solution stored into out,
    vdot and lam. False where the matrix is singular or not finite."""
    N, C, N_P, DYN, SIZE = md.N, md.C, md.N_P, md.DYN, md.SIZE
    M, _, _, F, Cm, _, _, _ = views(md, buf)
    K = work[DYN:DYN + SIZE * SIZE].reshape((SIZE, SIZE))
    copy_into(K[:N, :N], M)
    copy_into(K[N:, :N], Cm)
    K[N:, N:] = 0.0
    for i in range(N):
        for j in range(C):
            K[i, N + j] = Cm[j, i] - F[i, j]
    for i in range(C):
        if extra[7 + i] != 0.0:
            K[N + i, :] = 0.0
            K[:, N + i] = 0.0
            K[N + i, N + i] = 1.0
    if not (all_finite(K) and finite(b)):
        return False
    ok, _ = solve_min_norm_in_place(K, b, work[md.SPARE:])
    if not ok:
        return False
    put(out[N_P:], b[:N])
    put(vdot[:], b[:N])
    put(lam[:], b[N:])
    if dropped:  # the minimum-norm multipliers of the same force C^T lambda
        put(lam[:], least_squares(np.ascontiguousarray(Cm.T), tmv(Cm, b[N:]), SADDLE_RTOL))
    return True


@numba.njit(cache=True)
def evaluate(model, t, y, params, extra, out, lam, p, v, vdot, multipliers, work):
    """y' of the dependent formulation: p' = A v, [[M, C^T - F], [C, 0]] [v'; lambda] =
    [f0 - d; -xi - 2 alpha (C v + c) - beta^2 [Phi; 0]] (minimum-norm lambda where C has dependent
    rows); False where the matrix is singular. The sparse LU without pivoting first, the dense one
    with partial pivoting (and least squares where C has dependent rows) where that fails.
    work: EVAL_WORK zeros (workspace()), reused from call to call."""
    md = borrowed_items(model)
    N_P, N = md.N_P, md.N
    put(p[:], y[:N_P])
    unit_blocks(p, md.BLOCKS)
    put(v[:], y[N_P:])
    buf = work[:md.DYN]
    md.DYNAMICS(t, p, v, params, buf)
    b, dropped = _saddle_rhs(md, t, p, v, params, extra, buf, work)
    sparse_mv(buf, md.AV_ROW, md.AV_INDEX, md.AV_COL, v, out[:N_P])
    if not dropped and _sparse_saddle(md, buf, b, work):
        put(out[N_P:], b[:N])
        put(vdot[:], b[:N])
        put(lam[:], b[N:])
        return True
    return _dense_saddle(md, extra, buf, b, dropped, work, out, vdot, lam)


@numba.njit(cache=True, inline="always")
def _project_positions(md, t, p, params, extra, buf):
    """p onto Phi(p, t) = 0 (and the unit norms of Euler parameters) by Newton's method in the metric
    W = A^+T M A^+ + (I - A A^+) frozen at the first iterate, to max |Phi| <= extra[3] within
    extra[4] iterations, in place; False where a matrix is singular or not finite."""
    N_P, N, M_A, M_H = md.N_P, md.N, md.M_A, md.M_H
    have_metric = False
    W = np.eye(N_P)
    hc = np.zeros(M_A * (N_P + 2))
    for it in range(int(extra[4]) + 1):
        hc[:] = 0.0
        md.HOLONOMIC_CHART(p, np.zeros(N_P), params, t, hc)
        if not finite(hc):
            return False
        if np.max(np.abs(hc[:M_H])) <= extra[3] or it == int(extra[4]):
            break
        if not have_metric:
            buf[:] = 0.0
            md.DYNAMICS(t, p, np.zeros(N), params, buf)
            M, _, _, _, _, _, Ad, _ = views(md, buf)
            if not all_finite(Ad) or not all_finite(M):
                return False
            A_pinv = pseudo_inverse(Ad)
            W = mm(mm(A_pinv.T, M), A_pinv) + np.eye(N_P) - mm(Ad, A_pinv)
            have_metric = True
        J = np.ascontiguousarray(hc[M_A:M_A + M_A * N_P].reshape((M_A, N_P)))
        WJt, ok = solve(W, np.ascontiguousarray(J.T))
        if not ok:
            return False
        mult, ok = solve1_min_norm(mm(J, WJt), hc[:M_A].copy())
        if not ok:
            return False
        p -= mv(WJt, mult)
        unit_blocks(p, md.BLOCKS)
    return True


@numba.njit(cache=True)
def post_step(model, t, y, params, extra, work):
    """Stabilization 'projection' (extra[2] = 1; else 0: nothing): p onto Phi(p) = 0 (where extra[5]
    and there are holonomic rows), then v onto C v + c = 0 in the metric M (where extra[6]), in
    place; 2 where y changed, -1 where a matrix is singular. At time t: Phi(p, t) = 0 and
    C v + c = 0 (an affine projection where c != 0)."""
    if extra[2] == 0.0:
        return 0
    md = borrowed_items(model)
    p = y[:md.N_P]
    v = y[md.N_P:]
    unit_blocks(p, md.BLOCKS)
    buf = np.zeros(md.DYN)
    if extra[5] != 0.0 and md.M_H > 0:
        if not _project_positions(md, t, p, params, extra, buf):
            return -1
    if extra[6] != 0.0 and md.C > 0:
        if not _project_velocities(md, t, p, v, params, buf):
            return -1
    return 2


@numba.njit(cache=True)
def _project_velocities(md, t, p, v, params, buf):
    """v onto C v + c = 0 at (t, p) in the metric M (Blajer), in place, as
    systems.state.project_velocities; False where a matrix is singular or not finite. buf: DYN."""
    buf[:] = 0.0
    md.DYNAMICS(t, p, v, params, buf)
    M, _, _, _, Cm, _, _, _ = views(md, buf)
    cb = np.zeros(md.CON)
    md.CONSTRAINTS(p, params, t, cb)
    if not (all_finite(M) and all_finite(Cm) and finite(cb)):
        return False
    MCt, ok = solve(M, np.ascontiguousarray(Cm.T))
    if not ok:
        return False
    mult, ok = solve1_min_norm(mm(Cm, MCt), mv(Cm, v) + cb[md.CON - md.C:])
    if not ok:
        return False
    v -= mv(MCt, mult)
    return True


@numba.njit(cache=True)
def rhs_at(where, t, y, params, extra, out, work):
    """rhs of the model stored at ``where``, for the shared loops (formulations.solvers.machine)."""
    model = load_model(where, MODEL_TYPE)
    return call_rhs(model.ADDRESS_RHS, (model, t, y, params, extra, out, work))


@numba.njit(cache=True)
def post_step_at(where, t, y, params, extra, work):
    """post_step of the model stored at ``where``."""
    model = load_model(where, MODEL_TYPE)
    return call_post_step(model.ADDRESS_POST_STEP, (model, t, y, params, extra, work))


@numba.njit(cache=True)
def evaluate_through(md, t, y, params, extra, out, lam, p, v, vdot, multipliers, work):
    """evaluate, called through its address (compiled once, not into every caller)."""
    return call_evaluate(md.ADDRESS_EVALUATE, (md, t, y, params, extra, out, lam, p, v, vdot, multipliers, work))


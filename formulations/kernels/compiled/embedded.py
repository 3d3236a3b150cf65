"""The reduced and minimal formulations' whole evaluation in machine code, through the system's
embedding p = g(q), the identity embedding of a system without holonomic constraints, or a
tangent-space chart (formulations.coordinates.charts); formulations.reduced and formulations.minimal
state the equations.

extra, reduced: (alpha, beta) of a feedback stabilization on C_bar_nh w (+ c_bar_nh), then, on a
chart, (utol, w_limit, cond_limit, p0 (n_p,), U (n_p, m_a), V (n_p, k)) (Atlas.compiled_chart).
extra, minimal: the choice of independent velocities u = E w, E = S_w + S_v D, as S_w (r, k) then
S_v (r, n), row-major (u = E w + S_v d_0, w = D_bar u + d_bar_0 with rheonomic or affine rows); for
quasi-velocities u = Y(p) v (QUASI), Y and Y' v come from the SPEEDS kernel in place of S_v.
Rheonomic or affine rows (through an embedding, not on charts): v = D w + d_0 with d_0 = A^+ g_t of
a moving embedding p = g(q, t), and the feedback acts on C_nh v + c_nh.

Three evaluations share the steps: ``evaluate_reduced`` and ``evaluate_minimal`` through the
embedding or the identity, ``evaluate_chart`` (the reduced formulation on a chart, with
``post_step_chart`` and ``new_chart``); a formulation's model is bound to the one it runs
(formulations.kernels.embedded.embedded_functions), so a run compiles only that one.

The model (``Model``, built by formulations.kernels.embedded.embedded_model) holds, besides the
fields of formulations.kernels.compiled.passes: L, K, K_Q, R (sizes of the nonholonomic rows, w, q
and u), QBLOCKS (the unit-norm blocks of q), the flags GEOMETRY (IDENTITY, EMBEDDING or CHART),
TIMED (rheonomic or affine rows), MOVING (g depends on t), SQUARE (A square) and NONIDEAL,
the layout of the chart kernel's output (CHART_AT) and of the embedding kernel's (G_T_AT: g_t), the
chart's sizes and work offsets (M_A, HC, W_H, W_Y, W_S, W_B, W_D: Phi_a's rows, its kernel's output,
and where the work array keeps that output, the last h, the row swaps and LU factors of
S = Phi_a_p U, and D_p), TMP (where an evaluation's temporaries start), the program of the sparse LU
of a square A (AL_*, formulations.kernels.sparse_pattern.symbolic_lu; AL_ROW, AL_COL the entries of
A it reads, -1 for fill-in) and the kernels KINEMATICS, CHART (g, g_q A_q, A_q, A, C at q),
EMBEDDING (g, g_q, A_q, g_t), EMBEDDING_ACC, HOLONOMIC_CHART and SPEEDS (Y and Y' v of
quasi-velocities at p, v). A kernel a system does not have is a placeholder of the same type, never
called.

The work array of an evaluation (EVAL_WORK zeros, reused from call to call): the dynamics output
first, then (on a chart) the chart's part, then from TMP the temporaries, carved in order by
``_take``. A system kernel writes only its non-zero entries, so each temporary that receives a
kernel's output keeps its own place from call to call and its zeros stay zeros.
"""
from collections import namedtuple

import numba
import numpy as np
from numba.core import types

from formulations.kernels.borrowed import borrowed_items
from formulations.kernels.by_address import call_post_step, call_rhs, load_model
from formulations.kernels.lapack import least_squares, least_squares_columns, sigma_ratio, singular_values
from formulations.kernels.linalg import (all_finite, any_nonzero, copy_into, det, finite, lu_in_place, lu_solve,
                                         max_abs, mm, mm_into, mv, mv_into, put, resolved, solve, solve1,
                                         solve_in_place, tmm, tmm_into, tmv, tmv_into, unit_blocks)
from formulations.kernels.sparse_linalg import sparse_factor, sparse_solve, sparse_solve_columns

from .fields import ADDRESSES, BLOCKS, FLAG, INDEX, INT, LU_FIELDS, PRIMITIVES, kernel, views
from .passes import rhs  # y' alone, called through its address as this module's own

IDENTITY, EMBEDDING, CHART = 0, 1, 2  # the geometry: p = q, p = g(q (, t)), or a tangent-space chart
XC = 2  # where the chart starts in extra (after alpha, beta)
CHART_ITERATIONS = 25

_FIELDS = (("N_P", INT), ("N", INT), ("C", INT), ("M_H", INT), ("L", INT), ("DYN", INT), ("CON", INT),
           ("DYN_AT", INDEX), ("A_CONSTANT", FLAG), ("K", INT), ("K_Q", INT), ("R", INT), ("QBLOCKS", BLOCKS),
           ("GEOMETRY", INT), ("TIMED", FLAG), ("MOVING", FLAG), ("SQUARE", FLAG),
           ("NONIDEAL", FLAG), ("QUASI", FLAG), ("CHART_AT", INDEX), ("G_T_AT", INT), ("M_A", INT), ("HC", INT),
           ("W_H", INT),
           ("W_Y", INT), ("W_S", INT), ("W_B", INT), ("W_D", INT), ("TMP", INT), ("EVAL_WORK", INT),
           ("SCRATCH", INT), ("WORK", INT), *((f"AL_{name}", INDEX) for name in LU_FIELDS), ("AL_ROW", INDEX),
           ("AL_COL", INDEX), ("AL_NNZ", INT), ("REJECT_FAILED_STAGES", FLAG), *PRIMITIVES,
           ("KINEMATICS", kernel(False, False)), ("CHART", kernel(False, False, True)),
           ("EMBEDDING", kernel(False, False, True)), ("EMBEDDING_ACC", kernel(False, False, False, True)),
           ("HOLONOMIC_CHART", kernel(False, False, False, True)), ("SPEEDS", kernel(False, False, False)),
           *ADDRESSES)
Model = namedtuple("Model", [name for name, _ in _FIELDS])  # pickled by reference: its name is its own
MODEL_TYPE = types.NamedTuple([kind for _, kind in _FIELDS], Model)
# what each evaluation is made of, in order (formulations.workbench.derivation.export)
_PARTS = ("IDENTITY", "EMBEDDING", "CHART", "XC", "CHART_ITERATIONS", "views", "_take", "_program", "_solve_A",
          "_solve_D", "_identity_geometry", "_embedding_geometry", "_flat_geometry", "_position", "_offsets",
          "_dynamics", "_gamma", "_reduced_system", "_solve_and_store")
EVALUATION = {"evaluate_reduced": _PARTS + ("evaluate_reduced",),
              "evaluate_minimal": _PARTS + ("_speeds", "_choice", "_velocity_map", "_minimal_w", "_minimal_system",
                                            "evaluate_minimal"),
              "evaluate_chart": _PARTS + ("_chart", "_det_positive", "_chart_solve", "_chart_geometry",
                                          "_chart_gamma", "evaluate_chart")}


@numba.njit(cache=True, inline="always")
def _take(work, at, size):
    """(work[at:at + size], at + size): the next temporary of an evaluation."""
    return work[at:at + size], at + size


@numba.njit(cache=True, inline="always")
def _program(md):
    """The program of the sparse LU of a square A (sparse_linalg)."""
    return (md.AL_PIVOT, md.AL_LOWER_PTR, md.AL_LOWER, md.AL_LOWER_ROW, md.AL_UPDATE_PTR, md.AL_UPDATE_TARGET,
            md.AL_UPDATE_LEFT, md.AL_UPDATE_RIGHT, md.AL_UPPER_PTR, md.AL_UPPER, md.AL_UPPER_COL)


@numba.njit(cache=True, inline="always")
def _solve_A(md, A, LU, perm, x):
    """(x, ok): A x = x solved, in place by the factors of a square A (the sparse ones where perm is
    empty, the dense ones otherwise), by least squares where A is not square."""
    if md.SQUARE:
        if perm.size == 0:
            return x, sparse_solve(LU[0], x, *_program(md))
        return x, lu_solve(LU, perm, x)
    return least_squares(A, x, -1.0), True


@numba.njit(cache=True, inline="always")
def _solve_D(md, G, A_q, A, Cg, perm, work, at):
    """_geometry's result from D = A^-1 G (least squares where A is not square): a square A is
    factored once, for D here and gamma in evaluate, by its sparse LU (no pivoting) first and by the
    dense one with pivoting where that fails."""
    N_P, K = md.N_P, md.K
    if md.SQUARE:
        D_buf, at = _take(work, at, N_P * K)
        D = D_buf.reshape((N_P, K))
        copy_into(D, G)
        vals, at = _take(work, at, md.AL_NNZ)
        for e in range(md.AL_NNZ):
            vals[e] = A[md.AL_ROW[e], md.AL_COL[e]] if md.AL_ROW[e] >= 0 else 0.0
        if sparse_factor(vals, *_program(md)) and sparse_solve_columns(vals, D, *_program(md)):
            return D, A_q, A, Cg, vals.reshape((1, md.AL_NNZ)), np.empty(0, np.int64), True, at
        LU = A.copy()
        D = G.copy()
        ok = lu_in_place(LU, perm) and lu_solve(LU, perm, D)
        return D, A_q, A, Cg, LU, perm, ok, at
    return least_squares_columns(A, G, -1.0), A_q, A, Cg, A, perm, True, at


@numba.njit(cache=True, inline="always")
def _identity_geometry(md, q, params, p, t, work, at):
    """_geometry without an embedding: p = q, D = I."""
    N_P, N, C, M_H = md.N_P, md.N, md.C, md.M_H
    put(p[:], q)
    kb, at = _take(work, at, N_P * N)
    md.KINEMATICS(q, params, kb)
    A = kb.reshape((N_P, N))
    cb, at = _take(work, at, md.CON)
    md.CONSTRAINTS(q, params, t if md.TIMED else 0.0, cb)
    D_buf, at = _take(work, at, N * N)
    D = D_buf.reshape((N, N))
    for i in range(N):
        D[i, i] = 1.0
    Cg = cb[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N))
    return D, A, A, Cg, A, np.empty(0, np.int64), True, at


@numba.njit(cache=True, inline="always")
def _embedding_geometry(md, q, params, p, t, work, at):
    """_geometry through the embedding p = g(q): the chart kernel's g, g_q A_q, A_q, A, C and D."""
    N_P, N, K, o = md.N_P, md.N, md.K, md.CHART_AT
    cb, at = _take(work, at, o[5])
    md.CHART(q, params, t, cb)
    put(p[:], cb[o[0]:o[1]])
    G = cb[o[1]:o[2]].reshape((N_P, K))
    A_q = cb[o[2]:o[3]].reshape((md.K_Q, K))
    A = cb[o[3]:o[4]].reshape((N_P, N))
    Cg = cb[o[4]:o[5]].reshape((md.C, N))
    perm = np.empty(N if md.SQUARE else 0, np.int64)
    if not finite(cb):
        return np.zeros((N, K)), A_q, A, Cg, A, perm, False, at
    return _solve_D(md, G, A_q, A, Cg, perm, work, at)


@numba.njit(cache=True, inline="always")
def _chart(md, extra):
    """(p0 (n_p,), U (n_p, m_a), V (n_p, k)) of the chart in extra."""
    N_P, M_A, o = md.N_P, md.M_A, XC + 3
    return (extra[o:o + N_P], extra[o + N_P:o + N_P + N_P * M_A].reshape((N_P, M_A)),
            extra[o + N_P + N_P * M_A:o + N_P + N_P * M_A + N_P * md.K].reshape((N_P, md.K)))


@numba.njit(cache=True, inline="always")
def _det_positive(LU, perm):
    """det > 0 for the factors of lu_in_place: the signs of the pivots and of the row swaps."""
    positive = True
    for j in range(LU.shape[0]):
        if (perm[j] != j) != (LU[j, j] < 0.0):
            positive = not positive
    return positive


@numba.njit(cache=True)
def _chart_solve(md, q, params, extra, work, p, S, perm):
    """p = p0 + V q - U h on Phi_a(p) = 0 (to max |Phi_a| <= utol) by Newton's method in h, from the
    last h in work; Phi_a_p at p left in work[W_H:], S = Phi_a_p U there in LU factors (S, perm). A
    root where det(Phi_a_p U) <= 0 (another sheet, past a fold) counts as a failure. Where it fails
    from the last h (a trial stage's, perhaps far from q), it starts again from the chart's origin,
    h = 0. The number of iterations, or -1 where Newton's method fails (the test of
    formulations.coordinates.charts Atlas.position)."""
    N_P, M_A = md.N_P, md.M_A
    p0, U, V = _chart(md, extra)
    h = work[md.W_Y:md.W_Y + M_A]
    hc = work[md.W_H:md.W_H + md.HC]
    zero = np.zeros(N_P)
    base = p0 + mv(V, q)
    warm = np.any(h != 0.0)
    for attempt in range(2 if warm else 1):
        if attempt == 1:
            h[:] = 0.0
        for it in range(CHART_ITERATIONS):
            for i in range(N_P):
                acc = base[i]
                for j in range(M_A):
                    acc -= U[i, j] * h[j]
                p[i] = acc
            hc[:] = 0.0
            md.HOLONOMIC_CHART(p, zero, params, 0.0, hc)
            if not finite(hc):
                break
            copy_into(S, mm(hc[M_A:M_A + M_A * N_P].reshape((M_A, N_P)), U))
            if not lu_in_place(S, perm):
                break
            if np.max(np.abs(hc[:M_A])) <= extra[XC]:
                if _det_positive(S, perm):
                    return it
                break  # a root on another sheet, past a fold (Atlas._newton)
            step = hc[:M_A].copy()
            if not lu_solve(S, perm, step):
                break
            h += step
    h[:] = 0.0
    return -1


@numba.njit(cache=True, inline="always")
def _chart_geometry(md, q, params, p, extra, work, at):
    """_geometry on a chart: p at q by _chart_solve, the LU factors of S = Phi_a_p U (and their row
    swaps, as numbers) and D_p = (I - U S^-1 Phi_a_p) V into work (S^-1 applied by the factors), then
    C, A and D at p."""
    N_P, N, C, K, M_A, M_H = md.N_P, md.N, md.C, md.K, md.M_A, md.M_H
    S = work[md.W_B:md.W_D].reshape((M_A, M_A))
    perm_s = np.empty(M_A, np.int64)
    ok = _chart_solve(md, q, params, extra, work, p, S, perm_s) >= 0
    if ok:
        p0, U, V = _chart(md, extra)
        for i in range(M_A):
            work[md.W_S + i] = perm_s[i]
        X = mm(work[md.W_H + M_A:md.W_H + M_A + M_A * N_P].reshape((M_A, N_P)), V)
        ok = lu_solve(S, perm_s, X)
        put(work[md.W_D:md.W_D + N_P * K], (V - mm(U, X)).ravel())
    cb, at = _take(work, at, md.CON)
    md.CONSTRAINTS(p, params, 0.0, cb)
    Cg = cb[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N))
    kb, at = _take(work, at, N_P * N)
    md.KINEMATICS(p, params, kb)
    A = kb.reshape((N_P, N))
    perm = np.empty(N if md.SQUARE else 0, np.int64)
    if not (ok and finite(cb) and finite(kb)):
        return np.zeros((N, K)), np.eye(K), A, Cg, A, perm, False, at
    return _solve_D(md, work[md.W_D:md.W_D + N_P * K].reshape((N_P, K)), np.eye(K), A, Cg, perm, work, at)


@numba.njit(cache=True, inline="always")
def _flat_geometry(md, q, params, p, t, work, at):
    """(D (n, k), A_q (k_q, k), A (n_p, n), C (c, n), the LU factors of a square A and their row
    swaps (lu_in_place; perm empty: sparse factors, vals (1, AL_NNZ)), ok, at) at q through the
    embedding or the identity, and p = g(q) into p; the temporaries from work[at:]."""
    if md.GEOMETRY == EMBEDDING:
        return _embedding_geometry(md, q, params, p, t, work, at)
    return _identity_geometry(md, q, params, p, t, work, at)


@numba.njit(cache=True, inline="always")
def _position(md, t, y, params, p, work):
    """(q, then _flat_geometry's result) at the state y: q from y (its unit-norm blocks normalized)
    as the evaluation's first temporary."""
    q, at = _take(work, md.TMP, md.K_Q)
    put(q[:], y[:md.K_Q])
    unit_blocks(q, md.QBLOCKS)
    D, A_q, A, Cg, LU, perm, ok, at = _flat_geometry(md, q, params, p, t, work, at)
    return q, D, A_q, A, Cg, LU, perm, ok, at


@numba.njit(cache=True, inline="always")
def _speeds(md, p, v, params, extra, buf):
    """(Y (r, n), Y' v (r,)) of u = S_w w + Y v: Y = S_v of extra for components of v (Y' v unused),
    Y(p) and Y' v of the SPEEDS kernel, written into buf (r n + r), for quasi-velocities."""
    R, N = md.R, md.N
    if md.QUASI:
        md.SPEEDS(p, v, params, buf)
        return buf[:R * N].reshape((R, N)), buf[R * N:R * N + R]
    return extra[R * md.K:R * md.K + R * N].reshape((R, N)), buf[R * N:R * N + R]


@numba.njit(cache=True, inline="always")
def _choice(md, D, Cg, extra, Y, Kc):
    """Kc = [C_bar_nh; E] with E = S_w + Y D (l + r, k), in place."""
    R, K, L = md.R, md.K, md.L
    S_w = extra[:R * K].reshape((R, K))
    mm_into(Cg[md.M_H:], D, Kc[:L])
    mm_into(Y, D, Kc[L:])
    for i in range(R):
        for j in range(K):
            Kc[L + i, j] += S_w[i, j]


@numba.njit(cache=True, inline="always")
def _velocity_map(md, D, Cg, extra, Y, work, at):
    """(Kc, perm_c, D_bar, ok, at) of the minimal formulation: [C_bar_nh; E] D_bar = [0; I], Kc left
    in the LU factors of [C_bar_nh; E] (perm_c its row swaps)."""
    L, R, K = md.L, md.R, md.K
    Kc_buf, at = _take(work, at, (L + R) * K)
    Kc = Kc_buf.reshape((L + R, K))
    D_bar_buf, at = _take(work, at, (L + R) * R)
    D_bar = D_bar_buf.reshape((L + R, R))
    perm_c = np.empty(L + R, np.int64)
    _choice(md, D, Cg, extra, Y, Kc)
    D_bar[:, :] = 0.0
    for i in range(R):
        D_bar[L + i, i] = 1.0
    big = max_abs(Kc)
    if not (lu_in_place(Kc, perm_c) and lu_solve(Kc, perm_c, D_bar)):  # Kc: its factors from here
        return Kc, perm_c, D_bar, False, at
    return Kc, perm_c, D_bar, max_abs(D_bar) * big <= 1e8, at


@numba.njit(cache=True, inline="always")
def _offsets(md, t, q, p, params, A, LU, perm, work, at):
    """(d_0, c_nh, ok, at) of rheonomic or affine rows: d_0 = A^+ g_t of a moving embedding (zero
    otherwise) and c_nh at t (empty where the rows do not depend on time)."""
    d_0, at = _take(work, at, md.N)
    c_nh = d_0[:0]
    ok = True
    if md.MOVING:
        eb = np.zeros(md.G_T_AT + md.N_P)
        md.EMBEDDING(q, params, t, eb)
        put(d_0[:], eb[md.G_T_AT:])
        d_0, ok = _solve_A(md, A, LU, perm, d_0)
    if md.TIMED and md.L:
        cb_t = np.zeros(md.CON)
        md.CONSTRAINTS(p, params, t, cb_t)
        c_nh = cb_t[md.CON - md.L:]
    return d_0, c_nh, ok, at


@numba.njit(cache=True, inline="always")
def _minimal_w(md, y, Cg, d_0, c_nh, Kc, perm_c, D_bar, Y, work, at):
    """(w, ok, at): w = D_bar u (+ d_bar_0, [C_bar_nh; E] d_bar_0 = [-(C_nh d_0 + c_nh); -Y d_0],
    where the rows depend on time)."""
    L, R, K = md.L, md.R, md.K
    w, at = _take(work, at, K)
    if not md.TIMED:
        mv_into(D_bar, y[md.K_Q:], w)
        return w, True, at
    d_bar_0 = np.empty(L + R)
    if L:
        put(d_bar_0[:L], -(mv(Cg[md.M_H:], d_0) + c_nh))
    put(d_bar_0[L:], -mv(Y, d_0))
    ok = lu_solve(Kc, perm_c, d_bar_0)
    put(w[:], mv(D_bar, y[md.K_Q:]) + d_bar_0)
    return w, ok, at


@numba.njit(cache=True, inline="always")
def _dynamics(md, t, p, v, w, d_0, D, params, work, at):
    """v = D w (+ d_0) into v, the dynamics at (t, p, v) and h = f0 - d: (M, F, C, xi, pdd2, h, at)."""
    if md.MOVING:
        put(v[:], mv(D, w) + d_0)
    else:
        mv_into(D, w, v)
    buf = work[:md.DYN]
    md.DYNAMICS(t, p, v, params, buf)
    M, d, f0, F, Cm, xi, _, pdd2 = views(md, buf)
    h, at = _take(work, at, md.N)
    for i in range(md.N):
        h[i] = f0[i] - d[i]
    return M, F, Cm, xi, pdd2, h, at


@numba.njit(cache=True, inline="always")
def _gamma(md, q, w, params, t, A, LU, perm, pdd2, work, at):
    """(gamma, ok, at), v' = D w' + gamma: zero without an embedding, A^-1 (the embedding's
    acceleration - pdd2) through one."""
    N = md.N
    if md.GEOMETRY == IDENTITY:
        gamma, at = _take(work, at, N)  # never written: zero
        return gamma, True, at
    acc, at = _take(work, at, md.N_P)
    md.EMBEDDING_ACC(q, w, params, t, acc)
    gamma, at = _take(work, at, N)
    if md.SQUARE:
        for i in range(N):
            gamma[i] = acc[i] - pdd2[i]
        return gamma, _solve_A(md, A, LU, perm, gamma)[1], at
    gamma, ok = _solve_A(md, A, LU, perm, acc - pdd2)
    return gamma, ok, at


@numba.njit(cache=True, inline="always")
def _chart_gamma(md, w, p, params, extra, A, LU, perm, pdd2, work):
    """(gamma, ok), v' = D w' + gamma on a chart: gamma_p = -U S^-1 (d/dp (Phi_a_p p')) p' with
    p' = D_p w, and A gamma = gamma_p."""
    N_P, K, M_A = md.N_P, md.K, md.M_A
    p0, U, V = _chart(md, extra)
    hc = work[md.W_H:md.W_H + md.HC]
    hc[:] = 0.0
    md.HOLONOMIC_CHART(p, mv(work[md.W_D:md.W_D + N_P * K].reshape((N_P, K)), w), params, 0.0, hc)
    g_a = hc[M_A + M_A * N_P:].copy()
    lu_solve(work[md.W_B:md.W_D].reshape((M_A, M_A)), work[md.W_S:md.W_B].astype(np.int64), g_a)  # S^-1 g_a
    return _solve_A(md, A, LU, perm, -mv(U, g_a) - pdd2)


@numba.njit(cache=True, inline="always")
def _minimal_system(md, M, F, Cm, xi, h, D, gamma, Kc, perm_c, D_bar, Y, Y_dot_v, nonideal, work, at):
    """(Km, b, T, tau, ok): the minimal system Km a = b in u' (with the multipliers where nonideal),
    v' = T a + tau; w' = D_bar u' + gamma_bar, [C_bar_nh; E] gamma_bar = [-xi_bar; -(Y gamma + Y' v)]
    (Y' v only for quasi-velocities)."""
    N, C, L, R, M_H = md.N, md.C, md.L, md.R, md.M_H
    gamma_bar, at = _take(work, at, L + R)
    mv_into(Cm[M_H:], gamma, gamma_bar[:L])
    for i in range(L):
        gamma_bar[i] = -(xi[M_H + i] + gamma_bar[i])
    mv_into(Y, gamma, gamma_bar[L:])
    for i in range(R):
        gamma_bar[L + i] = -(gamma_bar[L + i] + Y_dot_v[i]) if md.QUASI else -gamma_bar[L + i]
    ok = lu_solve(Kc, perm_c, gamma_bar)
    T_buf, at = _take(work, at, N * R)
    T = T_buf.reshape((N, R))
    mm_into(D, D_bar, T)
    tau, at = _take(work, at, N)
    mv_into(D, gamma_bar, tau)
    for i in range(N):
        tau[i] += gamma[i]
    residual, at = _take(work, at, N)
    mv_into(M, tau, residual)
    for i in range(N):
        residual[i] = h[i] - residual[i]
    MT_buf, at = _take(work, at, N * R)
    MT = MT_buf.reshape((N, R))
    mm_into(M, T, MT)
    if nonideal:
        Km_buf, at = _take(work, at, N * (R + C))
        Km = Km_buf.reshape((N, R + C))
        copy_into(Km[:, :R], MT)
        for i in range(N):
            for j in range(C):
                Km[i, R + j] = Cm[j, i] - F[i, j]
        return Km, residual, T, tau, ok
    Km_buf, at = _take(work, at, R * R + R)
    Km = Km_buf[:R * R].reshape((R, R))
    tmm_into(T, MT, Km)
    b = Km_buf[R * R:]
    tmv_into(T, residual, b)
    return Km, b, T, tau, ok


@numba.njit(cache=True, inline="always")
def _reduced_system(md, M, F, Cm, xi, h, D, gamma, v, c_nh, extra, nonideal):
    """(Km, b, T, tau): the reduced saddle system [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] =
    [f_bar - d_bar; -xi_bar - 2 alpha (C_nh v + c_nh)] ([[M D, C^T - F], [C_bar_nh, 0]] where
    nonideal), v' = D w' + gamma."""
    N, C, K, L = md.N, md.C, md.K, md.L
    C_nh = Cm[md.M_H:]
    Gk = mm(C_nh, D)
    rate = mv(C_nh, v)
    if md.TIMED and L:  # c_nh: rows that depend on time
        rate += c_nh
    kept = -xi[md.M_H:] - mv(C_nh, gamma) - 2 * extra[0] * rate
    if nonideal:
        Km = np.zeros((N + L, K + C))
        copy_into(Km[:N, :K], mm(M, D))
        copy_into(Km[:N, K:], Cm.T - F)
        b = np.empty(N + L)
        put(b[:N], h - mv(M, gamma))
    else:
        Km = np.zeros((K + L, K + L))
        copy_into(Km[:K, :K], tmm(D, mm(M, D)))
        b = np.empty(K + L)
        put(b[:K], tmv(D, h - mv(M, gamma)))
        copy_into(Km[:K, K:], Gk.T)
    rows = Km.shape[0] - L
    copy_into(Km[rows:, :K], Gk)
    put(b[rows:], kept)
    return Km, b


@numba.njit(cache=True, inline="always")
def _solve_and_store(md, Km, b, T, tau, A_q, w, M, Cm, h, nonideal, multipliers, out, lam, vdot):
    """Km a = b solved, y' = (A_q w, a), v' = T a + tau and the multipliers stored; False where the
    system is singular or not finite."""
    if not (all_finite(Km) and finite(b)):
        return False
    if Km.shape[0] == Km.shape[1]:  # a square system: solved in place
        sol = b
        if not solve_in_place(Km, sol):
            return False
    else:
        sol, ok = solve1(Km, b)
        if not ok:
            return False
    na = T.shape[1]
    a = sol[:na]
    mv_into(T, a, vdot)
    for i in range(md.N):
        vdot[i] += tau[i]
    mv_into(A_q, w, out[:md.K_Q])
    put(out[md.K_Q:], a)
    if nonideal:
        put(lam[:], sol[na:])
    elif multipliers:
        put(lam[:], resolved(Cm, h - mv(M, vdot))[0])
    return True


@numba.njit(cache=True)
def evaluate_reduced(model, t, y, params, extra, out, lam, p, v, vdot, multipliers, work):
    """y' of the reduced formulation through the embedding or the identity; False where a matrix is
    singular. work: EVAL_WORK zeros, reused from call to call."""
    md = borrowed_items(model)
    q, D, A_q, A, Cg, LU, perm, ok, at = _position(md, t, y, params, p, work)
    if not ok:
        return False
    d_0, c_nh, ok, at = _offsets(md, t, q, p, params, A, LU, perm, work, at)
    if not ok:
        return False
    w, at = _take(work, at, md.K)
    put(w[:], y[md.K_Q:])
    M, F, Cm, xi, pdd2, h, at = _dynamics(md, t, p, v, w, d_0, D, params, work, at)
    gamma, ok, at = _gamma(md, q, w, params, t, A, LU, perm, pdd2, work, at)
    if not ok:
        return False
    nonideal = md.NONIDEAL and any_nonzero(F)
    Km, b = _reduced_system(md, M, F, Cm, xi, h, D, gamma, v, c_nh, extra, nonideal)
    return _solve_and_store(md, Km, b, D, gamma, A_q, w, M, Cm, h, nonideal, multipliers, out, lam, vdot)


@numba.njit(cache=True)
def evaluate_chart(model, t, y, params, extra, out, lam, p, v, vdot, multipliers, work):
    """y' of the reduced formulation on a tangent-space chart; False where a matrix is singular or
    the chart does not reach y. work: the chart's part and EVAL_WORK zeros, reused from call to call."""
    md = borrowed_items(model)
    q, at = _take(work, md.TMP, md.K_Q)
    put(q[:], y[:md.K_Q])
    D, A_q, A, Cg, LU, perm, ok, at = _chart_geometry(md, q, params, p, extra, work, at)
    if not ok:
        return False
    w, at = _take(work, at, md.K)
    put(w[:], y[md.K_Q:])
    M, F, Cm, xi, pdd2, h, at = _dynamics(md, t, p, v, w, w, D, params, work, at)  # no d_0 on a chart
    gamma, ok = _chart_gamma(md, w, p, params, extra, A, LU, perm, pdd2, work)
    if not ok:
        return False
    nonideal = md.NONIDEAL and any_nonzero(F)
    Km, b = _reduced_system(md, M, F, Cm, xi, h, D, gamma, v, w[:0], extra, nonideal)
    return _solve_and_store(md, Km, b, D, gamma, A_q, w, M, Cm, h, nonideal, multipliers, out, lam, vdot)


@numba.njit(cache=True)
def evaluate_minimal(model, t, y, params, extra, out, lam, p, v, vdot, multipliers, work):
    """y' of the minimal formulation through the embedding or the identity; False where a matrix is
    singular or [C_bar_nh; E] near-singular. work: EVAL_WORK zeros, reused from call to call."""
    md = borrowed_items(model)
    q, D, A_q, A, Cg, LU, perm, ok, at = _position(md, t, y, params, p, work)
    if not ok:
        return False
    speeds, at = _take(work, at, md.R * md.N + md.R)
    Y, Y_dot_v = _speeds(md, p, v, params, extra, speeds)  # Y' v at the v of the call before, taken again below
    Kc, perm_c, D_bar, ok, at = _velocity_map(md, D, Cg, extra, Y, work, at)
    if not ok:
        return False
    d_0, c_nh, ok, at = _offsets(md, t, q, p, params, A, LU, perm, work, at)
    if not ok:
        return False
    w, ok, at = _minimal_w(md, y, Cg, d_0, c_nh, Kc, perm_c, D_bar, Y, work, at)
    if not ok:
        return False
    M, F, Cm, xi, pdd2, h, at = _dynamics(md, t, p, v, w, d_0, D, params, work, at)
    Y, Y_dot_v = _speeds(md, p, v, params, extra, speeds)
    gamma, ok, at = _gamma(md, q, w, params, t, A, LU, perm, pdd2, work, at)
    if not ok:
        return False
    nonideal = md.NONIDEAL and any_nonzero(F)
    Km, b, T, tau, ok = _minimal_system(md, M, F, Cm, xi, h, D, gamma, Kc, perm_c, D_bar, Y, Y_dot_v, nonideal, work,
                                        at)
    if not ok:
        return False
    return _solve_and_store(md, Km, b, T, tau, A_q, w, M, Cm, h, nonideal, multipliers, out, lam, vdot)


@numba.njit(cache=True)
def choice_all(model, ys, params, extra, ts):
    """cond and det of [C_bar_nh; E] (the minimal formulation's) at the recorded states ys at their
    times ts (NaN where the geometry fails)."""
    md = borrowed_items(model)
    out = np.full((ys.shape[0], 2), np.nan)
    p = np.empty(md.N_P)
    work = np.zeros(md.EVAL_WORK)
    for i in range(ys.shape[0]):
        q = ys[i, :md.K_Q].copy()
        unit_blocks(q, md.QBLOCKS)
        D, A_q, A, Cg, LU, perm, ok, _ = _flat_geometry(md, q, params, p, ts[i], work, md.TMP)
        if ok:
            Kc = np.empty((md.L + md.R, md.K))
            Y, _ = _speeds(md, p, np.zeros(md.N), params, extra, np.zeros(md.R * md.N + md.R))
            _choice(md, D, Cg, extra, Y, Kc)
            ratio = sigma_ratio(Kc)
            out[i, 0] = 1.0 / ratio if ratio > 0 else np.inf
            out[i, 1] = det(Kc)
    return out


@numba.njit(cache=True)
def post_step(model, t, y, params, extra, work):
    """0: nothing changes between steps (through the embedding or the identity)."""
    return 0


@numba.njit(cache=True)
def post_step_chart(model, t, y, params, extra, work):
    """1 where the run should take a new chart at y (|w| past w_limit, cond(Phi_a_p U) past
    cond_limit (2-norm), or a chart that no longer reaches y), else 0. work: the run's."""
    md = borrowed_items(model)
    M_A = md.M_A
    q = y[:md.K_Q]
    if np.sqrt(np.sum(q * q)) > extra[XC + 1]:
        return 1
    p = np.empty(md.N_P)
    S = np.empty((M_A, M_A))
    perm = np.empty(M_A, np.int64)
    evaluation = work[md.SCRATCH:]
    if _chart_solve(md, q, params, extra, evaluation, p, S, perm) < 0:
        return 1
    p0, U, V = _chart(md, extra)
    ratio = sigma_ratio(mm(evaluation[md.W_H + M_A:md.W_H + M_A + M_A * md.N_P].reshape((M_A, md.N_P)), U))
    return 1 if ratio <= 0.0 or 1.0 / ratio > extra[XC + 2] else 0


@numba.njit(cache=True)
def new_chart(model, t, y, params, extra):
    """(y on a new chart, p0 (n_p,), U (n_p, m_a), V (n_p, k), B (m_a, m_a), ok): the chart of
    formulations.coordinates.charts.Atlas.new_chart taken at the state y has on the chart of extra,
    with y = (0, V^T A v); ok False where that chart no longer reaches y or Phi_a_p loses rank there
    (the Python chart then says why)."""
    md = borrowed_items(model)
    N_P, M_A, K_Q, K = md.N_P, md.M_A, md.K_Q, md.K
    work = np.zeros(md.EVAL_WORK)
    p = np.empty(N_P)
    y_new = np.zeros(y.size)
    U = np.empty((N_P, M_A))
    V = np.empty((N_P, K))
    B = np.eye(M_A)
    D, A_q, A, Cg, LU, perm, ok, _ = _chart_geometry(md, y[:K_Q].copy(), params, p, extra, work, md.TMP)
    if not ok:
        return y_new, p, U, V, B, False
    hc = np.zeros(md.HC)
    md.HOLONOMIC_CHART(p, np.zeros(N_P), params, 0.0, hc)
    Phi_p = np.ascontiguousarray(hc[M_A:M_A + M_A * N_P].reshape((M_A, N_P)))
    if not finite(hc):
        return y_new, p, U, V, B, False
    s, Vt = singular_values(Phi_p)
    if s[M_A - 1] < 1e-10 * max(1.0, s[0]):
        return y_new, p, U, V, B, False
    copy_into(U, Phi_p.T)
    copy_into(V, Vt[M_A:].T)
    B, ok = solve(mm(Phi_p, U), np.eye(M_A))
    put(y_new[K_Q:], tmv(V, mv(A, mv(D, y[K_Q:]))))
    return y_new, p, U, V, B, ok


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

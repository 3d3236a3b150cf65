"""Generated source of the dependent formulation's whole evaluation (stabilization none, Baumgarte
or constraint dynamics; extra = (alpha, beta))."""
from __future__ import annotations

import numpy as np

from .common import Layout, header, passes, primitive_kernels
from .sparse_pattern import block_pattern, sparse_product, symbolic_lu


def dependent_source(formulation) -> str:
    """The dependent formulation's module: evaluate by the saddle solve, the passes and the projection,
    IDA's residual and Jacobian and the augmented Lagrangian's steps."""
    sysm, num = formulation.system, formulation.num
    lay = Layout(sysm)
    kernels = primitive_kernels(num)
    m_a = lay.m + len(sysm.unit_norm_blocks)
    kernels["_kinematics"] = num.kernel("kinematics")
    if m_a:
        kernels["_holonomic_chart"] = num.kernel("holonomic_chart")
    size = lay.n + lay.c
    nonzero = num.nonzero("dynamics")
    program, gather = saddle_program(nonzero, lay)
    return (header(sysm, kernels) + _work_layout(program, gather, nonzero, lay, size)
            + _sparse_saddle_source(program, size) + _evaluate_source(sysm, lay, size)
            + passes(sysm, projection_source(lay, m_a)) + dae_source(lay, m_a) + augmented_lagrangian_source(lay))


def _work_layout(program, gather, nonzero, lay, size) -> str:
    """The sparse patterns (K's LU program, C v and A v) and the work-array layout of evaluate."""
    o = lay.dyn
    products = (sparse_product(block_pattern(nonzero, o[4], lay.c, lay.n), o[4], "CV")
                + sparse_product(block_pattern(nonzero, o[6], lay.n_p, lay.n), o[6], "AV"))
    return program.constants("KS") + f'''KS_PLUS = np.array({gather[0]!r}, dtype=np.int64)
KS_MINUS = np.array({gather[1]!r}, dtype=np.int64)
KS_NNZ = {program.nnz}
{products}SIZE = {size}
M_A = {lay.m + len(lay.blocks)}  # rows of Phi_a: Phi and the unit norms of the Euler-parameter blocks
SPARE = DYN + SIZE * SIZE + SIZE + CON
SPARSE = SPARE + SIZE * SIZE + SIZE
EVAL_WORK = SPARSE + KS_NNZ + SIZE
DAE_WORK = EVAL_WORK + 3 * N_P + N + M_A * (N_P + 2)  # dae_residual: p, Y's positions, zeros, v, Psi and Psi_y
'''


def _sparse_saddle_source(program, size) -> str:
    """_sparse_saddle: the saddle solve by K's sparse LU factors without pivoting."""
    return f'''

@numba.njit(cache=True)
def _sparse_saddle(buf, b, work):
    """[v'; lambda] into b by the LU factors without pivoting of K on its non-zero entries only
    (sparse_pattern.symbolic_lu, M's rows first); False, b unchanged, where a pivot is too small."""
    vals = work[SPARSE:SPARSE + KS_NNZ]
    for e in range(KS_NNZ):
        value = buf[KS_PLUS[e]] if KS_PLUS[e] >= 0 else 0.0
        if KS_MINUS[e] >= 0:
            value -= buf[KS_MINUS[e]]
        vals[e] = value
    if not sparse_factor(vals, {program.arguments("KS")}):
        return False
    x = work[SPARSE + KS_NNZ:SPARSE + KS_NNZ + SIZE]
    x[:] = b
    if not sparse_solve(vals, x, {program.arguments("KS")}):
        return False
    b[:] = x
    return True
'''


def _evaluate_source(sysm, lay, size) -> str:
    """evaluate: the primitives at (p, v), the saddle's right-hand side, the sparse then the dense solve."""
    return f'''

@numba.njit(cache=True)
def evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work):
    """y' of the dependent formulation: p' = A v, [[M, C^T - F], [C, 0]] [v'; lambda] =
    [f0 - d; -xi - 2 alpha (C v + c) - beta^2 [Phi; 0]] (minimum-norm lambda where C has dependent
    rows); False where the matrix is singular. The sparse LU without pivoting first, the dense one
    with partial pivoting (and least squares where C has dependent rows) where that fails.
    work: EVAL_WORK zeros (workspace()), reused from call to call."""
    alpha, beta = extra[0], extra[1]
    p[:] = y[:N_P]
    unit_blocks(p, BLOCKS)
    v[:] = y[N_P:]
    buf = work[:DYN]
    _dynamics(t, p, v, params, buf)
{_saddle_rhs()}
    sparse_mv(buf, AV_ROW, AV_INDEX, AV_COL, v, out[:N_P])
    if not dropped and _sparse_saddle(buf, b, work):
{_accept("        ")}
        return True
{_dense_saddle(lay, size)}'''


def _saddle_rhs() -> str:
    """Lines of evaluate for the saddle's right-hand side b, with the stabilization and dropped rows."""
    return '''    b = work[DYN + SIZE * SIZE:DYN + SIZE * SIZE + SIZE]
    for i in range(N):
        b[i] = buf[DYN_AT[2] + i] - buf[DYN_AT[1] + i]  # f0 - d
    sparse_mv(buf, CV_ROW, CV_INDEX, CV_COL, v, b[N:])
    cbuf = work[DYN + SIZE * SIZE + SIZE:DYN + SIZE * SIZE + SIZE + CON]
    if alpha != 0.0 or (beta != 0.0 and M_H > 0):  # the velocity residual is C v + c, c = [Phi_t; c_nh]
        _constraints(p, params, t, cbuf)
        for i in range(C):
            b[N + i] += cbuf[CON - C + i]
    for i in range(C):
        b[N + i] = -buf[DYN_AT[5] + i] - 2 * alpha * b[N + i]  # xi
    if beta != 0.0 and M_H > 0:
        for i in range(M_H):
            b[N + i] -= beta**2 * cbuf[i]
    dropped = False
    for i in range(C):  # rows dependent from the start, set aside (Dependent.saddle)
        if extra[7 + i] != 0.0:
            dropped = True
            b[N + i] = 0.0'''


def _dense_saddle(lay, size) -> str:
    """Lines of evaluate for the dense saddle solve, where the sparse one fails or rows are dropped."""
    return f'''{lay.dynamics_views()}
    K = work[DYN:DYN + SIZE * SIZE].reshape((SIZE, SIZE))
    K[:N, :N] = M
    K[N:, :N] = Cm
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
    ok, _ = solve_min_norm_in_place(K, b, work[SPARE:])  # minimum-norm lambda where C has dependent rows
    if not ok:
        return False
{_accept("    ")}
    if dropped:  # the minimum-norm multipliers of the same force C^T lambda
        lam[:] = least_squares(np.ascontiguousarray(Cm.T), tmv(Cm, b[N:]), SADDLE_RTOL)
    return True
'''


def _accept(indent) -> str:
    """Lines of evaluate storing the solution [v'; lambda] in b into out, vdot and lam."""
    return f"{indent}out[N_P:] = b[:N]\n{indent}vdot[:] = b[:N]\n{indent}lam[:] = b[N:]"


def projection_source(lay, m_a) -> str:
    """post_step of the dependent formulation: stabilization 'projection' as Dependent.project does
    it (systems.state.project_positions and project_velocities), in place on y."""
    views, inner = lay.dynamics_views(), lay.dynamics_views(indent=" " * 16)
    positions = f'''
    if extra[5] != 0.0 and M_H > 0:
        have_metric = False
        W = np.eye(N_P)
        hc = np.zeros(M_A * (N_P + 2))
        for it in range(int(extra[4]) + 1):
            hc[:] = 0.0
            _holonomic_chart(p, np.zeros(N_P), params, t, hc)
            if not finite(hc):
                return -1
            if np.max(np.abs(hc[:M_H])) <= extra[3] or it == int(extra[4]):
                break
            if not have_metric:  # W = A^+T M A^+ + (I - A A^+), frozen at the first iterate
                buf[:] = 0.0
                _dynamics(t, p, np.zeros(N), params, buf)
{inner}
                if not all_finite(Ad) or not all_finite(M):
                    return -1
                A_pinv = pseudo_inverse(Ad)
                W = mm(mm(A_pinv.T, M), A_pinv) + np.eye(N_P) - mm(Ad, A_pinv)
                have_metric = True
            J = np.ascontiguousarray(hc[M_A:M_A + M_A * N_P].reshape((M_A, N_P)))
            WJt, ok = solve(W, np.ascontiguousarray(J.T))
            if not ok:
                return -1
            mult, ok = solve1_min_norm(mm(J, WJt), hc[:M_A].copy())
            if not ok:
                return -1
            p -= mv(WJt, mult)
            unit_blocks(p, BLOCKS)''' if m_a else ""
    return f'''
REJECT_FAILED_STAGES = False


@numba.njit(cache=True)
def post_step(t, y, params, extra, work):
    \"\"\"Stabilization 'projection' (extra[2] = 1; else 0: nothing): p onto Phi(p) = 0 (with Euler
    parameters, their unit norms too) by Newton's method in the metric W frozen at the first iterate,
    to max |Phi| <= extra[3] within extra[4] iterations (where extra[5]), then v onto C v + c = 0 in the
    metric M (where extra[6]), in place; 2 where y changed, -1 where a matrix is singular. At time t:
    Phi(p, t) = 0 and C v + c = 0 (an affine projection where c != 0).\"\"\"
    if extra[2] == 0.0:
        return 0
    p = y[:N_P]
    v = y[N_P:]
    unit_blocks(p, BLOCKS)
    buf = np.zeros(DYN){positions}
    if extra[6] != 0.0 and C > 0:
        if not _project_velocities(t, p, v, params, buf):
            return -1
    return 2


@numba.njit(cache=True)
def _project_velocities(t, p, v, params, buf):
    \"\"\"v onto C v + c = 0 at (t, p) in the metric M (Blajer), in place, as
    systems.state.project_velocities; False where a matrix is singular or not finite. buf: DYN.\"\"\"
    buf[:] = 0.0
    _dynamics(t, p, v, params, buf)
{views}
    cb = np.zeros(CON)
    _constraints(p, params, t, cb)
    if not (all_finite(M) and all_finite(Cm) and finite(cb)):
        return False
    MCt, ok = solve(M, np.ascontiguousarray(Cm.T))
    if not ok:
        return False
    mult, ok = solve1_min_norm(mm(Cm, MCt), mv(Cm, v) + cb[CON - C:])
    if not ok:
        return False
    v -= mv(MCt, mult)
    return True
'''


def saddle_program(nonzero, lay):
    """(SparseLU of K = [[M, C^T - F], [C, 0]], (plus, minus)): the program of its factorization
    on the structural non-zeros of M, C and F_lambda (``nonzero``: those of the dynamics output,
    NumericModel.nonzero("dynamics")), and per entry of its values the index into the dynamics
    buffer to add (-1: none) and to subtract (-1: none)."""
    n, c, o = lay.n, lay.c, lay.dyn
    C = block_pattern(nonzero, o[4], c, n)
    F = block_pattern(nonzero, o[3], n, c)
    pattern = np.zeros((n + c, n + c), dtype=bool)
    pattern[:n, :n] = block_pattern(nonzero, o[0], n, n)
    pattern[n:, :n] = C
    pattern[:n, n:] = C.T | F
    program = symbolic_lu(pattern)
    plus, minus = [], []
    for i, j in program.entries:
        if i < n and j < n:
            plus.append(o[0] + i * n + j if pattern[i, j] else -1)
            minus.append(-1)
        elif i < n:  # C^T - F
            plus.append(o[4] + (j - n) * n + i if C[j - n, i] else -1)
            minus.append(o[3] + i * c + (j - n) if F[i, j - n] else -1)
        elif j < n:
            plus.append(o[4] + (i - n) * n + j if pattern[i, j] else -1)
            minus.append(-1)
        else:
            plus.append(-1)
            minus.append(-1)
    return program, (plus, minus)


def dae_source(lay, m_a) -> str:
    """dae_residual and dae_jacobian: the residual F(t, Y, Y') of formulations.solvers.ida (index 1
    and GGL) and its Jacobian dF/dY + cj dF/dY' by difference quotients, in machine code."""
    views = lay.dynamics_views()
    ggl = f'''
    if ggl:  # GGL: C v + c = 0 and Psi(p, t) = 0 in place of the acceleration rows, Psi_y^T mu
        cbuf = work[DYN + SIZE * SIZE + SIZE:DYN + SIZE * SIZE + SIZE + CON]
        cbuf[:] = 0.0
        _constraints(p, params, t, cbuf)
        for i in range(C):
            value = cbuf[CON - C + i]
            if extra[7 + i] == 0.0:
                for j in range(N):
                    value += Cm[i, j] * v[j]
            res[N_P + N + i] = value{_ggl_positions(m_a)}
        return'''
    return f'''

@numba.njit(cache=True)
def dae_residual(t, Y, YP, params, extra, ggl, res, work):
    """F(t, Y, Y') of formulations.solvers.ida into res, Y = (p, v, lambda[, mu]): the kinematics
    p' - A v (+ Psi_y^T mu in GGL), then [[M, C^T - F], [C, 0]] [v'; lambda] - [f0 - d; b] with b as
    evaluate's (stabilization gains in extra; rows set aside as dependent: lambda_i = 0), or in GGL
    (ggl True) the dynamics rows, C v + c and Psi. Y and Y' may be read-only. work: DAE_WORK zeros."""
    alpha, beta = extra[0], extra[1]
    p = work[EVAL_WORK:EVAL_WORK + N_P]
    p[:] = Y[:N_P]
    unit_blocks(p, BLOCKS)
    v = work[EVAL_WORK + 3 * N_P:EVAL_WORK + 3 * N_P + N]
    v[:] = Y[N_P:N_P + N]
    vdot = YP[N_P:N_P + N]
    lam = Y[N_P + N:N_P + N + C]
    buf = work[:DYN]
    buf[:] = 0.0
    _dynamics(t, p, v, params, buf)
{_saddle_rhs()}
{views}
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
        res[N_P + i] = value{ggl}
    for i in range(C):
        value = -b[N + i]
        if extra[7 + i] == 0.0:
            for j in range(N):
                value += Cm[i, j] * vdot[j]
        else:
            value += lam[i]
        res[N_P + N + i] = value
''' + _DAE_JACOBIAN


_DAE_JACOBIAN = '''

@numba.njit(cache=True)
def dae_jacobian(t, Y, YP, cj, params, extra, ggl, rtol, atol, res, JJ, work):
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
        dae_residual(t, Yh, YPh, params, extra, ggl, column, work)
        for i in range(size):
            JJ[i, j] = (column[i] - res[i]) / h
        Yh[j] = Y[j]
        YPh[j] = YP[j]
'''


def _ggl_positions(m_a) -> str:
    """Lines of dae_residual for Psi (Phi and the unit norms of Euler parameters) and Psi_y^T mu."""
    if not m_a:
        return ""
    return '''
        q = work[EVAL_WORK + N_P:EVAL_WORK + 2 * N_P]
        q[:] = Y[:N_P]  # Psi of the positions as they are, not normalized (Dependent.position_constraints)
        hc = work[EVAL_WORK + 3 * N_P + N:DAE_WORK]
        hc[:] = 0.0
        _holonomic_chart(q, work[EVAL_WORK + 2 * N_P:EVAL_WORK + 3 * N_P], params, t, hc)
        mu = Y[N_P + N + C:]
        for i in range(M_A):
            res[N_P + N + C + i] = hc[i]
            for j in range(N_P):
                res[j] += hc[M_A + i * N_P + j] * mu[i]'''


def augmented_lagrangian_source(lay) -> str:
    """al_run: the steps of formulations.solvers.augmented_lagrangian in machine code."""
    return _AL_HELPERS + _AL_RUN.replace("{views}", lay.dynamics_views(indent=" " * 12))


_AL_HELPERS = '''
@numba.njit(cache=True)
def _al_positions(p0, pdot0, v1, h, params, p1, abuf):
    """p1 of p1 = p0 + h/2 (pdot0 + A(p1) v1) by fixed-point iteration, unit blocks normalized
    (augmented_lagrangian._positions)."""
    for i in range(N_P):
        p1[i] = p0[i] + h * pdot0[i]
    unit_blocks(p1, BLOCKS)
    new = np.empty(N_P)
    for _ in range(50):
        abuf[:] = 0.0
        _kinematics(p1, params, abuf)
        Av = mv(abuf.reshape((N_P, N)), v1)
        for i in range(N_P):
            new[i] = p0[i] + h / 2 * (pdot0[i] + Av[i])
        unit_blocks(new, BLOCKS)
        change = np.max(np.abs(new - p1))
        p1[:] = new
        if change <= 1e-15 * (1 + np.max(np.abs(new))):
            return


@numba.njit(cache=True)
def _al_residual(t, p, v, params, cbuf, residual):
    """(Phi(p, t), C_nh v + c_nh) into residual (C,)."""
    cbuf[:] = 0.0
    _constraints(p, params, t, cbuf)
    Cv = mv(cbuf[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N)), v)
    for i in range(C):
        residual[i] = cbuf[i] if i < M_H else Cv[i] + cbuf[CON - C + i]

'''

_AL_RUN = '''

@numba.njit(cache=True)
def al_run(t0, times, keep, y0, params, extra, penalty, max_iter, tol, ys, stop):
    """The index-3 augmented Lagrangian method of formulations.solvers.augmented_lagrangian (Bayo &
    Ledesma 1996) from (t0, y0) through the step ends ``times`` (k,), the state after each step where
    ``keep`` (k,) into the next row of ys; the accelerations and multipliers after each step from evaluate (the M-orthogonal
    projection). Returns (steps done, status: 0 done, 1 the iteration did not converge, 2 a singular
    or non-finite matrix, 3 stopped by the flag stop[0], the last max |delta a|, evaluations of the
    dynamics in the iterations)."""
    work = np.zeros(EVAL_WORK)
    out, lam, p, v, vdot = np.empty(N_P + N), np.empty(C), np.empty(N_P), np.empty(N), np.empty(N)
    buf, cbuf, abuf = np.zeros(DYN), np.zeros(CON), np.zeros(N_P * N)
    y = y0.copy()
    evaluations = 0
    if not evaluate(t0, y, params, extra, out, lam, p, v, vdot, bool(True), work):
        return 0, 2, 0.0, evaluations
    p0, v0, a0 = y0[:N_P].copy(), y0[N_P:].copy(), vdot.copy()
    p1, pn, v1, residual = np.empty(N_P), np.empty(N_P), np.empty(N), np.empty(C)
    alpha, scale = np.empty(C), np.empty(C)
    T = np.empty((N, N))
    R = np.empty(N)
    t = t0
    kept = 0
    for k in range(times.size):
        t1 = times[k]
        h = t1 - t
        abuf[:] = 0.0
        _kinematics(p0, params, abuf)
        pdot0 = mv(abuf.reshape((N_P, N)), v0)
        a = a0.copy()
        v1[:] = v0 + h / 2 * (a0 + a)
        _al_positions(p0, pdot0, v1, h, params, p1, abuf)
        size = np.inf
        converged = False
        for it in range(max_iter):
            pn[:] = p1
            unit_blocks(pn, BLOCKS)
            buf[:] = 0.0
            _dynamics(t1, pn, v1, params, buf)
            evaluations += 1
{views}
            if not (all_finite(M) and all_finite(Cm) and all_finite(F)):
                return k, 2, size, evaluations
            if it == 0:  # penalties from the equivalent masses at the first iterate
                MCt, ok = solve(M, np.ascontiguousarray(Cm.T))
                if not ok:
                    return k, 2, size, evaluations
                for i in range(C):
                    m_bar = 0.0
                    for j in range(N):
                        m_bar += Cm[i, j] * MCt[j, i]
                    if not m_bar > 0.0:  # a vanishing row: no equivalent mass
                        return k, 2, size, evaluations
                    m_bar = 1.0 / m_bar
                    alpha[i] = penalty * 4 * m_bar / h**2 if i < M_H else penalty * 2 * m_bar / h
                    scale[i] = h**2 / 4 if i < M_H else h / 2
                _al_residual(t1, p1, v1, params, cbuf, residual)
            force = lam + alpha * residual
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
            delta, ok = solve1(T, R)
            if not ok:
                return k, 2, size, evaluations
            a -= delta
            v1[:] = v0 + h / 2 * (a0 + a)
            _al_positions(p0, pdot0, v1, h, params, p1, abuf)
            _al_residual(t1, p1, v1, params, cbuf, residual)
            lam += alpha * residual
            size = np.max(np.abs(delta))
            if size <= tol * (1 + np.max(np.abs(a))) or h**2 / 4 * size <= 1e-15 * (1 + np.max(np.abs(p1))):
                converged = True
                break
        if not converged:
            return k, 1, size, evaluations
        if C > 0 and not _project_velocities(t1, p1, v1, params, buf):
            return k, 2, size, evaluations
        y[:N_P] = p1
        y[N_P:] = v1
        if not evaluate(t1, y, params, extra, out, lam, p, v, vdot, bool(True), work):
            return k, 2, size, evaluations
        if keep[k]:
            ys[kept] = y
            kept += 1
        p0[:] = p1
        v0[:] = v1
        a0[:] = vdot
        t = t1
        if stop[0] != 0:
            return k + 1, 3, size, evaluations
    return times.size, 0, 0.0, evaluations
'''

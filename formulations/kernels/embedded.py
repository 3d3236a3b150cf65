"""Generated source of the reduced and minimal formulations' whole evaluation, through the
system's embedding p = g(q) (or the identity embedding of a system without holonomic constraints);
formulations.reduced and formulations.minimal state the equations.

reduced: extra = (alpha,) of a feedback stabilization on C_bar_nh w (+ c_bar_nh).
Rheonomic or affine rows (through an embedding, not on charts): _geometry takes the time, v = D w + d_0
with d_0 = A^+ g_t of a moving embedding p = g(q, t), and the feedback acts on C_nh v + c_nh.
minimal: extra = (S_w (r, k) then S_v (r, n), row-major): the choice of independent velocities
u = E w, E = S_w + S_v D (u = E w + S_v d_0, w = D_bar u + d_bar_0 with rheonomic or affine rows).
"""
from __future__ import annotations

from ..charts import Atlas
from ..errors import CapabilityError
import numpy as np

from .common import Layout, affine_terms, header, passes
from .sparse_pattern import symbolic_lu

A_LU = ", ".join(f"AL_{name}" for name in ("PIVOT", "LOWER_PTR", "LOWER", "LOWER_ROW", "UPDATE_PTR", "UPDATE_TARGET",
                                           "UPDATE_LEFT", "UPDATE_RIGHT", "UPPER_PTR", "UPPER", "UPPER_COL"))
# a square A's solve by its sparse factors (perm empty) or its dense ones (_geometry)
A_SOLVE = "    ok = (sparse_solve(LU[0], {0}, " + A_LU + ") if perm.size == 0 else lu_solve(LU, perm, {0}))"


def _gather_lines(program, prefix):
    """<prefix>_ROW, _COL (-1: fill-in) of the program's values and <prefix>_NNZ."""
    rows = [i if (i, j) in program.structural else -1 for i, j in program.entries]
    cols = [j if (i, j) in program.structural else -1 for i, j in program.entries]
    return (f"{prefix}_ROW = np.array({rows!r}, dtype=np.int64)\n{prefix}_COL = np.array({cols!r}, dtype=np.int64)\n"
            f"{prefix}_NNZ = {program.nnz}\n")


def reduced_source(formulation) -> str:
    return _source(formulation, minimal=False)


def minimal_source(formulation) -> str:
    return _source(formulation, minimal=True)


def _source(formulation, minimal):
    sysm, num, geo = formulation.system, formulation.num, formulation.geometry
    lay = Layout(sysm)
    trivial = geo.trivial
    charts = isinstance(geo, Atlas)
    if charts and minimal:
        raise CapabilityError("the compiled minimal formulation runs through an embedding only, not on charts")
    timed = sysm.is_rheonomic
    if timed and charts:
        raise CapabilityError("the compiled modules of rheonomic or affine constraints run through an embedding, not "
                              "on charts")
    moving = timed and geo.moving
    at_t = ", t" if num.timed_chart else ""  # the chart kernels take the time where g or C depend on it
    n_p, n = lay.n_p, lay.n
    k, k_q, r = geo.k, len(geo.q_names), sysm.r
    blocks = [list(b) for b in geo.unit_blocks]
    kernels = {"_dynamics": num.kernel("dynamics"), "_constraints": num.kernel("constraints"),
               "_energy": num.kernel("energy")}
    if trivial:
        kernels["_kinematics"] = num.kernel("kinematics")
    elif charts:
        kernels["_kinematics"] = num.kernel("kinematics")
        kernels["_holonomic_chart"] = num.kernel("holonomic_chart")
    else:
        kernels["_chart"] = num.kernel("chart")
        kernels["_embedding_acc"] = num.kernel("embedding_acc")
        if moving:
            kernels["_embedding"] = num.kernel("embedding")
    square = n_p == n
    left = "solve(A, {0})" if square else "(np.linalg.lstsq(A, {0})[0], True)"
    chart = [0, n_p, n_p * k, k_q * k, n_p * n, lay.c * n]
    b = [sum(chart[:i + 1]) for i in range(len(chart))]  # bounds of g, g_q A_q, A_q, A, C
    name = "minimal" if minimal else "reduced"

    a_program = symbolic_lu(np.array([[sysm.A[i, j] != 0 for j in range(n)] for i in range(n_p)], dtype=bool)) \
        if square else None
    programs = a_program.constants("AL") + _gather_lines(a_program, "AL") if square else ""
    lines = [f"K, K_Q, R = {k}, {k_q}, {r}",
             f"QBLOCKS = np.array({blocks or [[0, 0, 0, 0]]}, dtype=np.int64)[:{len(blocks)}]", "", "",
             "@numba.njit(cache=True)",
             f"def _geometry(q, params, p, extra, work{', t' if timed else ''}):",
             '    """p = g(q) into p; (D (n, k), A_q (k_q, k), A (n_p, n), C (c, n), LU factors of a square A and',
             '    their row swaps (lu_in_place; empty otherwise), ok) at q."""']
    add = lines.append

    def solve_D(G, A_q):
        """Lines for D = A^-1 G (least squares where A is not square) and _geometry's return; a square
        A is factored once: D here, gamma in evaluate."""
        if square:  # the sparse LU of A first (no pivoting), the dense one with pivoting where it fails
            add(f"    D = {G}.copy()")
            add("    vals = np.empty(AL_NNZ)")
            add("    for e in range(AL_NNZ):")
            add("        vals[e] = A[AL_ROW[e], AL_COL[e]] if AL_ROW[e] >= 0 else 0.0")
            add(f"    if sparse_factor(vals, {A_LU}) and sparse_solve_columns(vals, D, {A_LU}):")
            add(f"        return D, {A_q}, A, Cg, vals.reshape((1, AL_NNZ)), np.empty(0, np.int64), True")
            add("    LU = A.copy()")
            add(f"    D = {G}.copy()")
            add("    ok = lu_in_place(LU, perm) and lu_solve(LU, perm, D)")
            add(f"    return D, {A_q}, A, Cg, LU, perm, ok")
        else:
            add("    D, ok = " + left.format(G + ".copy()"))
            add(f"    return D, {A_q}, A, Cg, A, perm, ok")

    if charts:
        del lines[2:]  # the chart's own _geometry and its helpers
        lines += ["", ""] + CHART_SOURCE.format(m_a=geo.m_a, hc=geo.m_a * (n_p + 2)).splitlines()
        add("    cb = np.zeros(CON)")
        add("    _constraints(p, params, 0.0, cb)")
        add("    Cg = cb[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N))")
        add("    kb = np.zeros(N_P * N)")
        add("    _kinematics(p, params, kb)")
        add("    A = kb.reshape((N_P, N))")
        add("    perm = np.empty(N if N_P == N else 0, np.int64)")
        add("    if not (ok and finite(cb) and finite(kb)):")
        add("        return np.zeros((N, K)), np.eye(K), A, Cg, A, perm, False")
        add("    D_p = work[W_D:W_D + N_P * K].reshape((N_P, K))")
        solve_D("D_p", "np.eye(K)")
    elif trivial:
        add("    p[:] = q")
        add("    kb = np.zeros(N_P * N)")
        add("    _kinematics(q, params, kb)")
        add("    A = kb.reshape((N_P, N))")
        add("    cb = np.zeros(CON)")
        add(f"    _constraints(q, params, {'t' if timed else '0.0'}, cb)")
        add("    return np.eye(N), A, A, cb[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N)), A, "
            "np.empty(0, np.int64), True")
    else:
        add(f"    cb = np.zeros({b[-1]})")
        add(f"    _chart(q, params{at_t}, cb)")
        add(f"    p[:] = cb[{b[0]}:{b[1]}]")
        add(f"    G = cb[{b[1]}:{b[2]}].reshape((N_P, K))")
        add(f"    A_q = cb[{b[2]}:{b[3]}].reshape((K_Q, K))")
        add(f"    A = cb[{b[3]}:{b[4]}].reshape((N_P, N))")
        add(f"    Cg = cb[{b[4]}:{b[5]}].reshape((C, N))")
        add("    perm = np.empty(N if N_P == N else 0, np.int64)")
        add("    if not finite(cb):")
        add("        return np.zeros((N, K)), A_q, A, Cg, A, perm, False")
        solve_D("np.ascontiguousarray(G)", "A_q")
    if minimal:
        lines += ["", "", "@numba.njit(cache=True)", "def _choice(D, Cg, extra):",
                  '    """[C_bar_nh; E] with E = S_w + S_v D (l + r, k)."""',
                  "    S_w = np.ascontiguousarray(extra[:R * K]).reshape((R, K))",
                  "    S_v = np.ascontiguousarray(extra[R * K:R * K + R * N]).reshape((R, N))",
                  "    Kc = np.empty((L + R, K))"]
        if lay.l:
            add("    Kc[:L] = mm(Cg[M_H:], D)")
        add("    Kc[L:] = S_w + mm(S_v, D)")
        add("    return Kc")
        lines += ["", "", "@numba.njit(cache=True)", "def choice_all(ys, params, extra, ts):",
                  '    """cond and det of [C_bar_nh; E] at the recorded states at their times ts (NaN where the',
                  '    geometry fails)."""',
                  "    out = np.full((ys.shape[0], 2), np.nan)",
                  "    p = np.empty(N_P)",
                  "    for i in range(ys.shape[0]):",
                  "        q = ys[i, :K_Q].copy()",
                  "        unit_blocks(q, QBLOCKS)",
                  f"        D, A_q, A, Cg, LU, perm, ok = _geometry(q, params, p, extra, np.empty(0)"
                  f"{', ts[i]' if timed else ''})",
                  "        if ok:",
                  "            Kc = _choice(D, Cg, extra)",
                  "            ratio = sigma_ratio(Kc)",
                  "            out[i, 0] = 1.0 / ratio if ratio > 0 else np.inf",
                  "            out[i, 1] = det(Kc)",
                  "    return out"]
    lines += ["", "", "EVAL_WORK = W_D + N_P * K" if charts else "EVAL_WORK = DYN", "", "", "@numba.njit(cache=True)",
              "def evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work):",
              f'    """y\' of the {name} formulation of {sysm.name}; False where a matrix is singular."""',
              "    q = y[:K_Q].copy()",
              "    unit_blocks(q, QBLOCKS)",
              f"    D, A_q, A, Cg, LU, perm, ok = _geometry(q, params, p, extra, work{', t' if timed else ''})",
              "    if not ok:",
              "        return False"]
    if minimal:
        # [C_bar_nh; E] D_bar = [0; I],  w = D_bar u
        add("    S_v = np.ascontiguousarray(extra[R * K:R * K + R * N]).reshape((R, N))")
        add("    Kc = _choice(D, Cg, extra)")
        add("    D_bar = np.zeros((L + R, R))")
        add("    D_bar[L:] = np.eye(R)")
        add("    big = np.max(np.abs(Kc))")
        add("    perm_c = np.empty(L + R, np.int64)")
        add("    if not (lu_in_place(Kc, perm_c) and lu_solve(Kc, perm_c, D_bar)):  # Kc: its factors from here")
        add("        return False")
        add("    if np.max(np.abs(D_bar)) * big > 1e8:")
        add("        return False")
    if timed:
        affine_terms(add, moving, lay.l, A_SOLVE if square else None, left, n_p + n_p * k_q + k_q * k)
    if minimal and timed:  # w = D_bar u + d_bar_0, [C_bar_nh; E] d_bar_0 = [-(C_nh d_0 + c_nh); -S_v d_0]
        add("    d_bar_0 = np.empty(L + R)")
        if lay.l:
            add("    d_bar_0[:L] = -(mv(Cg[M_H:], d_0) + c_nh)")
        add("    d_bar_0[L:] = -mv(S_v, d_0)")
        add("    if not lu_solve(Kc, perm_c, d_bar_0):")
        add("        return False")
        add("    w = mv(D_bar, y[K_Q:]) + d_bar_0")
    elif minimal:
        add("    w = mv(D_bar, y[K_Q:])")
    else:
        add("    w = y[K_Q:]")
    add("    v[:] = mv(D, w) + d_0" if moving else "    v[:] = mv(D, w)")
    add("    buf = work[:DYN]")
    add("    _dynamics(t, p, v, params, buf)")
    lines.extend(lay.dynamics_views().splitlines())
    if trivial:
        add("    gamma = np.zeros(N)")
    elif charts:  # gamma_p = -U B (d/dp (Phi_a_p p')) p' with p' = D_p w
        add("    p0, U, V = _chart(extra)")
        add("    hc = work[W_H:W_H + HC]")
        add("    hc[:] = 0.0")
        add("    _holonomic_chart(p, mv(work[W_D:W_D + N_P * K].reshape((N_P, K)), w), params, 0.0, hc)")
        add("    gamma = -mv(U, mv(work[W_B:W_D].reshape((M_A, M_A)), hc[M_A + M_A * N_P:])) - pdd2")
        if square:
            add(A_SOLVE.format("gamma"))
        else:
            add("    gamma, ok = " + left.format("gamma"))
        add("    if not ok:")
        add("        return False")
    else:
        add("    acc = np.zeros(N_P)")
        add(f"    _embedding_acc(q, w, params{at_t}, acc)")
        if square:
            add("    gamma = acc - pdd2")
            add(A_SOLVE.format("gamma"))
        else:
            add("    gamma, ok = " + left.format("acc - pdd2"))
        add("    if not ok:")
        add("        return False")
    add("    h = f0 - d")
    add("    nonideal = " + ("np.any(F != 0.0)" if formulation.nonideal else "False"))
    if minimal:
        # w' = D_bar u' + gamma_bar, [C_bar_nh; E] gamma_bar = [-xi_bar; -S_v gamma]
        add("    rest = np.empty(L + R)")
        if lay.l:
            add("    rest[:L] = -(xi[M_H:] + mv(Cm[M_H:], gamma))")
        add("    rest[L:] = -mv(S_v, gamma)")
        add("    gamma_bar = rest")
        add("    if not lu_solve(Kc, perm_c, gamma_bar):")
        add("        return False")
        add("    T = mm(D, D_bar)")
        add("    tau = mv(D, gamma_bar) + gamma")
        add("    if nonideal:")
        add("        Km = np.empty((N, R + C))")
        add("        Km[:, :R] = mm(M, T)")
        add("        Km[:, R:] = Cm.T - F")
        add("        b = h - mv(M, tau)")
        add("    else:")
        add("        Km = tmm(T, mm(M, T))")
        add("        b = tmv(T, h - mv(M, tau))")
        add("    na = R")
        add("    kinematics = mv(A_q, w)")
    else:
        # [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]
        add("    T = D")
        add("    tau = gamma")
        if lay.l:
            add("    C_nh = Cm[M_H:]")
            add("    Gk = mm(C_nh, D)")
            add("    kept = -xi[M_H:] - mv(C_nh, gamma) - 2 * extra[0] * " + (
                "(mv(C_nh, v) + c_nh)" if timed else "mv(C_nh, v)"))
        add("    if nonideal:")
        add("        Km = np.zeros((N + L, K + C))")
        add("        Km[:N, :K] = mm(M, D)")
        add("        Km[:N, K:] = Cm.T - F")
        add("        b = np.empty(N + L)")
        add("        b[:N] = h - mv(M, gamma)")
        add("    else:")
        add("        Km = np.zeros((K + L, K + L))")
        add("        Km[:K, :K] = tmm(D, mm(M, D))")
        add("        b = np.empty(K + L)")
        add("        b[:K] = tmv(D, h - mv(M, gamma))")
        if lay.l:
            add("        Km[:K, K:] = Gk.T")
        add("    rows = Km.shape[0] - L")
        if lay.l:
            add("    Km[rows:, :K] = Gk")
            add("    b[rows:] = kept")
        add("    na = K")
        add("    kinematics = mv(A_q, w)")
    add("    if not (np.all(np.isfinite(Km)) and np.all(np.isfinite(b))):")
    add("        return False")
    add("    sol, ok = solve1(Km, b)")
    add("    if not ok:")
    add("        return False")
    add("    a = sol[:na]")
    add("    vdot[:] = mv(T, a) + tau")
    add("    out[:K_Q] = kinematics")
    add("    out[K_Q:] = a")
    add("    if nonideal:")
    add("        lam[:] = sol[na:]")
    add("    elif multipliers:")
    add("        lam[:] = resolved(Cm, h - mv(M, vdot))[0]")
    add("    return True")
    return header(sysm, kernels) + programs + "\n" + "\n".join(lines) + "\n" + passes(sysm, CHART_POST_STEP if charts else None)


# the chart of formulations.charts in the module: _chart(extra) its arrays, _chart_solve the position
# p(w) by Newton's method, _geometry the pieces of the reduced formulation there, post_step the test
# for a new chart; work holds the constraints' buffer (W_H), the last h (W_Y, the next start), B (W_B)
# and D_p (W_D)
CHART_SOURCE = """M_A, HC = {m_a}, {hc}
XC = 2  # extra: (alpha, beta), then (utol, w_limit, cond_limit, p0, U, V) (Atlas.compiled_chart)
W_H = DYN
W_Y = W_H + HC
W_B = W_Y + M_A
W_D = W_B + M_A * M_A
CHART_ITERATIONS = 25
REJECT_FAILED_STAGES = True


@numba.njit(cache=True)
def _chart(extra):
    \"\"\"(p0 (n_p,), U (n_p, m_a), V (n_p, k)) of the chart in extra.\"\"\"
    o = XC + 3
    return (extra[o:o + N_P], extra[o + N_P:o + N_P + N_P * M_A].reshape((N_P, M_A)),
            extra[o + N_P + N_P * M_A:o + N_P + N_P * M_A + N_P * K].reshape((N_P, K)))


@numba.njit(cache=True)
def _chart_solve(q, params, extra, work, p, S, perm):
    \"\"\"p = p0 + V q - U h on Phi_a(p) = 0 (to max |Phi_a| <= utol) by Newton's method in h, from the
    last h in work; Phi_a_p at p left in work[W_H:], S = Phi_a_p U there in LU factors (S, perm).
    Where it fails from the last h (a trial stage's, perhaps far from q), it starts again from the
    chart's origin, h = 0. The number of iterations, or -1 where Newton's method fails.\"\"\"
    p0, U, V = _chart(extra)
    h = work[W_Y:W_Y + M_A]
    hc = work[W_H:W_H + HC]
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
            _holonomic_chart(p, zero, params, 0.0, hc)
            if not finite(hc):
                break
            S[:, :] = mm(hc[M_A:M_A + M_A * N_P].reshape((M_A, N_P)), U)
            if not lu_in_place(S, perm):
                break
            if np.max(np.abs(hc[:M_A])) <= extra[XC]:
                return it
            step = hc[:M_A].copy()
            if not lu_solve(S, perm, step):
                break
            h += step
    h[:] = 0.0
    return -1


@numba.njit(cache=True)
def _geometry(q, params, p, extra, work):
    \"\"\"p on the chart at q into p; (D (n, k), A_q = I, A (n_p, n), C (c, n), LU factors of a square A
    and their row swaps, ok); B = (Phi_a_p U)^-1 and D_p = (I - U B Phi_a_p) V into work.\"\"\"
    S = np.empty((M_A, M_A))
    perm_s = np.empty(M_A, np.int64)
    ok = _chart_solve(q, params, extra, work, p, S, perm_s) >= 0
    if ok:
        p0, U, V = _chart(extra)
        B = work[W_B:W_D].reshape((M_A, M_A))
        B[:, :] = np.eye(M_A)
        ok = lu_solve(S, perm_s, B)
        Phi_p = work[W_H + M_A:W_H + M_A + M_A * N_P].reshape((M_A, N_P))
        work[W_D:W_D + N_P * K] = (V - mm(U, mm(B, mm(Phi_p, V)))).ravel()"""

CHART_POST_STEP = '''

@numba.njit(cache=True)
def post_step(t, y, params, extra, work):
    """1 where the run should take a new chart at y (|w| past w_limit, cond(Phi_a_p U) past
    cond_limit (2-norm), or a chart that no longer reaches y), else 0. work: the run's."""
    q = y[:K_Q]
    if math.sqrt(np.sum(q * q)) > extra[XC + 1]:
        return 1
    p = np.empty(N_P)
    S = np.empty((M_A, M_A))
    perm = np.empty(M_A, np.int64)
    evaluation = work[SCRATCH:]
    if _chart_solve(q, params, extra, evaluation, p, S, perm) < 0:
        return 1
    p0, U, V = _chart(extra)
    ratio = sigma_ratio(mm(evaluation[W_H + M_A:W_H + M_A + M_A * N_P].reshape((M_A, N_P)), U))
    return 1 if ratio <= 0.0 or 1.0 / ratio > extra[XC + 2] else 0

@numba.njit(cache=True)
def new_chart(t, y, params, extra):
    """(y on a new chart, p0 (n_p,), U (n_p, m_a), V (n_p, k), B (m_a, m_a), ok): the chart of
    formulations.charts.Atlas.new_chart taken at the state y has on the chart of extra, with
    y = (0, V^T A v); ok False where that chart no longer reaches y or Phi_a_p loses rank there (the
    Python chart then says why)."""
    work = np.zeros(EVAL_WORK)
    p = np.empty(N_P)
    y_new = np.zeros(y.size)
    U = np.empty((N_P, M_A))
    V = np.empty((N_P, K))
    B = np.eye(M_A)
    D, A_q, A, Cg, LU, perm, ok = _geometry(y[:K_Q].copy(), params, p, extra, work)
    if not ok:
        return y_new, p, U, V, B, False
    hc = np.zeros(HC)
    _holonomic_chart(p, np.zeros(N_P), params, 0.0, hc)
    Phi_p = np.ascontiguousarray(hc[M_A:M_A + M_A * N_P].reshape((M_A, N_P)))
    if not finite(hc):
        return y_new, p, U, V, B, False
    _, s, Vt = np.linalg.svd(Phi_p)
    if s[M_A - 1] < 1e-10 * max(1.0, s[0]):
        return y_new, p, U, V, B, False
    U[:, :] = Phi_p.T
    V[:, :] = Vt[M_A:].T
    B, ok = solve(mm(Phi_p, U), np.eye(M_A))
    y_new[K_Q:] = tmv(V, mv(A, mv(D, y[K_Q:])))
    return y_new, p, U, V, B, ok
'''

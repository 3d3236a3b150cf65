"""Generated source of the reduced and minimal formulations' whole evaluation, through the
system's embedding p = g(q) (or the identity embedding of a system without holonomic constraints);
formulations.reduced and formulations.minimal state the equations.

reduced: extra = (alpha,) of a feedback stabilization on C_bar_nh w.
minimal: extra = (S_w (r, k) then S_v (r, n), row-major): the choice of independent velocities
u = E w, E = S_w + S_v D.
"""
from __future__ import annotations

from .common import Layout, header, passes


def reduced_source(formulation) -> str:
    return _source(formulation, minimal=False)


def minimal_source(formulation) -> str:
    return _source(formulation, minimal=True)


def _source(formulation, minimal):
    sysm, num, geo = formulation.system, formulation.num, formulation.geometry
    lay = Layout(sysm)
    trivial = geo.trivial
    n_p, n = lay.n_p, lay.n
    k, k_q, r = geo.k, len(geo.q_names), sysm.r
    blocks = [list(b) for b in geo.unit_blocks]
    kernels = {"_dynamics": num.kernel("dynamics"), "_constraints": num.kernel("constraints"),
               "_energy": num.kernel("energy")}
    if trivial:
        kernels["_kinematics"] = num.kernel("kinematics")
    else:
        kernels["_chart"] = num.kernel("chart")
        kernels["_embedding_acc"] = num.kernel("embedding_acc")
    square = n_p == n
    left = "solve(A, {0})" if square else "(np.linalg.lstsq(A, {0})[0], True)"
    chart = [0, n_p, n_p * k, k_q * k, n_p * n, lay.c * n]
    b = [sum(chart[:i + 1]) for i in range(len(chart))]  # bounds of g, g_q A_q, A_q, A, C
    name = "minimal" if minimal else "reduced"

    lines = [f"K, K_Q, R = {k}, {k_q}, {r}",
             f"QBLOCKS = np.array({blocks or [[0, 0, 0, 0]]}, dtype=np.int64)[:{len(blocks)}]", "", "",
             "@numba.njit(cache=True)",
             "def _geometry(q, params, p):",
             '    """p = g(q) into p; (D (n, k), A_q (k_q, k), A (n_p, n), C (c, n), LU factors of a square A and',
             '    their row swaps (lu_in_place; empty otherwise), ok) at q."""']
    add = lines.append
    if trivial:
        add("    p[:] = q")
        add("    kb = np.zeros(N_P * N)")
        add("    _kinematics(q, params, kb)")
        add("    A = kb.reshape((N_P, N))")
        add("    cb = np.zeros(CON)")
        add("    _constraints(q, params, cb)")
        add("    return np.eye(N), A, A, cb[M_H + M_H * N_P:].reshape((C, N)), A, np.empty(0, np.int64), True")
    else:
        add(f"    cb = np.zeros({b[-1]})")
        add("    _chart(q, params, cb)")
        add(f"    p[:] = cb[{b[0]}:{b[1]}]")
        add(f"    G = cb[{b[1]}:{b[2]}].reshape((N_P, K))")
        add(f"    A_q = cb[{b[2]}:{b[3]}].reshape((K_Q, K))")
        add(f"    A = cb[{b[3]}:{b[4]}].reshape((N_P, N))")
        add(f"    Cg = cb[{b[4]}:{b[5]}].reshape((C, N))")
        add("    perm = np.empty(N if N_P == N else 0, np.int64)")
        add("    if not finite(cb):")
        add("        return np.zeros((N, K)), A_q, A, Cg, A, perm, False")
        if square:  # factored once: D here, gamma in evaluate
            add("    LU = A.copy()")
            add("    D = np.ascontiguousarray(G)")
            add("    ok = lu_in_place(LU, perm) and lu_solve(LU, perm, D)")
            add("    return D, A_q, A, Cg, LU, perm, ok")
        else:
            add("    D, ok = " + left.format("np.ascontiguousarray(G)"))
            add("    return D, A_q, A, Cg, A, perm, ok")
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
        lines += ["", "", "@numba.njit(cache=True)", "def choice_all(ys, params, extra):",
                  '    """cond and det of [C_bar_nh; E] at the recorded states (NaN where the geometry fails)."""',
                  "    out = np.full((ys.shape[0], 2), np.nan)",
                  "    p = np.empty(N_P)",
                  "    for i in range(ys.shape[0]):",
                  "        q = ys[i, :K_Q].copy()",
                  "        unit_blocks(q, QBLOCKS)",
                  "        D, A_q, A, Cg, LU, perm, ok = _geometry(q, params, p)",
                  "        if ok:",
                  "            Kc = _choice(D, Cg, extra)",
                  "            ratio = sigma_ratio(Kc)",
                  "            out[i, 0] = 1.0 / ratio if ratio > 0 else np.inf",
                  "            out[i, 1] = det(Kc)",
                  "    return out"]
    lines += ["", "", "EVAL_WORK = DYN", "", "", "@numba.njit(cache=True)",
              "def evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work):",
              f'    """y\' of the {name} formulation of {sysm.name}; False where a matrix is singular."""',
              "    q = y[:K_Q].copy()",
              "    unit_blocks(q, QBLOCKS)",
              "    D, A_q, A, Cg, LU, perm, ok = _geometry(q, params, p)",
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
        add("    w = mv(D_bar, y[K_Q:])")
    else:
        add("    w = y[K_Q:]")
    add("    v[:] = mv(D, w)")
    add("    buf = work[:DYN]")
    add("    _dynamics(t, p, v, params, buf)")
    lines.extend(lay.dynamics_views().splitlines())
    if trivial:
        add("    gamma = np.zeros(N)")
    else:
        add("    acc = np.zeros(N_P)")
        add("    _embedding_acc(q, w, params, acc)")
        if square:
            add("    gamma = acc - pdd2")
            add("    ok = lu_solve(LU, perm, gamma)")
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
            add("    kept = -xi[M_H:] - mv(C_nh, gamma) - 2 * extra[0] * mv(C_nh, v)")
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
    return header(sysm, kernels) + "\n" + "\n".join(lines) + "\n" + passes(sysm)

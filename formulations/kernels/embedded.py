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

from ..coordinates.charts import Atlas
from ..errors import CapabilityError
from .chart_source import CHART_POST_STEP, CHART_SOURCE
from .common import Layout, affine_terms, header, passes, primitive_kernels
from .sparse_pattern import block_pattern, symbolic_lu

A_LU = ", ".join(f"AL_{name}" for name in ("PIVOT", "LOWER_PTR", "LOWER", "LOWER_ROW", "UPDATE_PTR", "UPDATE_TARGET",
                                           "UPDATE_LEFT", "UPDATE_RIGHT", "UPPER_PTR", "UPPER", "UPPER_COL"))
# a square A's solve by its sparse factors (perm empty) or its dense ones (_geometry)
A_SOLVE = "    ok = (sparse_solve(LU[0], {0}, " + A_LU + ") if perm.size == 0 else lu_solve(LU, perm, {0}))"


class _Scratch:
    """Views of an evaluation's work array for its temporaries, laid out when the source is written:
    from TMP on (past the regions the module's other functions use); ``size`` the floats taken.
    Sizes are expressions in the module's constants (``sizes``: their values) and offsets named
    constants T0, T1, ..., so that the text is the same for every system of a kind."""

    def __init__(self, sizes: dict):
        self.sizes, self.size, self.offsets = sizes, 0, [0]

    def take(self, rows: str, cols: str | None = None) -> str:
        self.size += eval(rows, {}, self.sizes) * (eval(cols, {}, self.sizes) if cols else 1)  # noqa: S307
        self.offsets.append(self.size)
        i = len(self.offsets) - 1
        view = f"work[TMP + T{i - 1}:TMP + T{i}]"
        return view if cols is None else f"{view}.reshape(({rows}, {cols}))"

    def constants(self) -> str:
        """The lines defining T0, T1, ..."""
        return "".join(f"T{i} = {offset}\n" for i, offset in enumerate(self.offsets))


def _gather_lines(program, prefix):
    """<prefix>_ROW, _COL (-1: fill-in) of the program's values and <prefix>_NNZ."""
    rows = [i if (i, j) in program.structural else -1 for i, j in program.entries]
    cols = [j if (i, j) in program.structural else -1 for i, j in program.entries]
    return (f"{prefix}_ROW = np.array({rows!r}, dtype=np.int64)\n{prefix}_COL = np.array({cols!r}, dtype=np.int64)\n"
            f"{prefix}_NNZ = {program.nnz}\n")


def reduced_source(formulation) -> str:
    """The reduced formulation's module (formulations.reduced, on an embedding or a chart)."""
    return _source(formulation, minimal=False)


def minimal_source(formulation) -> str:
    """The minimal formulation's module (formulations.minimal, on an embedding)."""
    return _source(formulation, minimal=True)


class _Writer:
    """The lines of a module's own functions as they are written, its scratch views and what the lines
    depend on: the geometry (identity, embedding or chart), a square A, rheonomic or affine rows."""

    def __init__(self, formulation, minimal):
        sysm, num, geo = formulation.system, formulation.num, formulation.geometry
        self.sysm, self.num, self.geo, self.lay = sysm, num, geo, Layout(sysm)
        self.minimal, self.nonideal = minimal, formulation.nonideal
        self.trivial, self.charts = geo.trivial, isinstance(geo, Atlas)
        self.timed = sysm.is_rheonomic
        self.moving = self.timed and geo.moving
        self.at_t = ", t" if num.timed_chart else ""  # the chart kernels take the time where g or C depend on it
        self.k, self.k_q, self.r = geo.k, len(geo.q_names), sysm.r
        self.square = self.lay.n_p == self.lay.n
        self.left = "solve(A, {0})" if self.square else "(least_squares(A, {0}, -1.0), True)"
        self.a_program = (symbolic_lu(block_pattern(num.nonzero("kinematics"), 0, self.lay.n_p, self.lay.n))
                          if self.square else None)
        self.lines = []
        lay = self.lay
        self.chart_out = [0, lay.n_p, lay.n_p * self.k, self.k_q * self.k, lay.n_p * lay.n, lay.c * lay.n]
        self.scratch = _Scratch(dict(N=lay.n, N_P=lay.n_p, C=lay.c, L=lay.l, CON=lay.con[-1], K=self.k,
                                     K_Q=self.k_q, R=self.r, CHART_OUT=sum(self.chart_out),
                                     AL_NNZ=self.a_program.nnz if self.square else 0))
        self.take = self.scratch.take

    def add(self, line):
        """One more line."""
        self.lines.append(line)

    def solve_A(self, x, rhs=None):
        """The line solving A x = rhs (default: x, a square A's solve in place) and setting ok."""
        return A_SOLVE.format(x) if self.square else f"    {x}, ok = " + self.left.format(rhs or x)


def _source(formulation, minimal):
    """The reduced or minimal formulation's module: _geometry, (minimal) _choice, evaluate and the passes."""
    geo = formulation.geometry
    charts = isinstance(geo, Atlas)
    if charts and minimal:
        raise CapabilityError("the compiled minimal formulation runs through an embedding only, not on charts")
    if formulation.system.is_rheonomic and charts:
        raise CapabilityError("the compiled modules of rheonomic or affine constraints run through an embedding, not "
                              "on charts")
    w = _Writer(formulation, minimal)
    kernels = _kernels(w)
    programs = w.a_program.constants("AL") + _gather_lines(w.a_program, "AL") if w.square else ""
    _geometry_source(w)
    if minimal:
        _choice_source(w)
    _evaluate_source(w)
    _work_layout(w)
    return (header(w.sysm, kernels) + programs + f"NONIDEAL = {bool(w.nonideal)}\n\n" + "\n".join(w.lines) + "\n"
            + passes(w.sysm, CHART_POST_STEP if charts else None))


def _kernels(w) -> dict:
    """The kernels the module imports: the primitives and those of its geometry."""
    kernels = primitive_kernels(w.num)
    if w.trivial:
        kernels["_kinematics"] = w.num.kernel("kinematics")
    elif w.charts:
        kernels["_kinematics"] = w.num.kernel("kinematics")
        kernels["_holonomic_chart"] = w.num.kernel("holonomic_chart")
    else:
        kernels["_chart"] = w.num.kernel("chart")
        kernels["_embedding_acc"] = w.num.kernel("embedding_acc")
        if w.moving:
            kernels["_embedding"] = w.num.kernel("embedding")
    return kernels


def _work_layout(w):
    """The work-array layout of evaluate (TMP, EVAL_WORK), before the module's first function."""
    base = "W_D + N_P * K" if w.charts else "DYN"
    bounds = [sum(w.chart_out[:i + 1]) for i in range(len(w.chart_out))]  # g, g_q A_q, A_q, A, C
    g_t_at = w.lay.n_p + w.lay.n_p * w.k_q + w.k_q * w.k  # g_t in the embedding kernel's output
    w.lines.insert(w.lines.index("@numba.njit(cache=True)"),
                   f"TMP = {base}\nEVAL_WORK = TMP + {w.scratch.size}\n{w.scratch.constants()}"
                   f"CHART_AT = np.array({bounds!r}, dtype=np.int64)\nCHART_OUT = {bounds[-1]}\nG_T_AT = {g_t_at}\n\n")


def _geometry_source(w):
    """The sizes of q and u and _geometry: p, D, A_q, A, C and the factors of a square A at q."""
    blocks = [list(b) for b in w.geo.unit_blocks]
    w.lines += [f"K, K_Q, R = {w.k}, {w.k_q}, {w.r}",
                f"QBLOCKS = np.array({blocks or [[0, 0, 0, 0]]}, dtype=np.int64)[:{len(blocks)}]", "", ""]
    if w.charts:  # the chart's own _geometry and its helpers
        w.lines += CHART_SOURCE.format(m_a=w.geo.m_a, hc=w.geo.m_a * (w.lay.n_p + 2)).splitlines()
        _chart_geometry(w)
        return
    w.lines += ["@numba.njit(cache=True)",
                f"def _geometry(q, params, p, extra, work{', t' if w.timed else ''}):",
                '    """p = g(q) into p; (D (n, k), A_q (k_q, k), A (n_p, n), C (c, n), LU factors of a square A and',
                '    their row swaps (lu_in_place; empty otherwise), ok) at q."""']
    if w.trivial:
        _identity_geometry(w)
    else:
        _embedding_geometry(w)


def _chart_geometry(w):
    """Lines of the chart's _geometry past its position on the chart: C, A and D at p."""
    add, take = w.add, w.take
    add(f"    cb = {take('CON')}")
    add("    _constraints(p, params, 0.0, cb)")
    add("    Cg = cb[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N))")
    add(f"    kb = {take('N_P * N')}")
    add("    _kinematics(p, params, kb)")
    add("    A = kb.reshape((N_P, N))")
    add("    perm = np.empty(N if N_P == N else 0, np.int64)")
    add("    if not (ok and finite(cb) and finite(kb)):")
    add("        return np.zeros((N, K)), np.eye(K), A, Cg, A, perm, False")
    add("    D_p = work[W_D:W_D + N_P * K].reshape((N_P, K))")
    _solve_D(w, "D_p", "np.eye(K)")


def _identity_geometry(w):
    """Lines of _geometry without an embedding: p = q, D = I."""
    add, take = w.add, w.take
    add("    p[:] = q")
    add(f"    kb = {take('N_P * N')}")
    add("    _kinematics(q, params, kb)")
    add("    A = kb.reshape((N_P, N))")
    add(f"    cb = {take('CON')}")
    add(f"    _constraints(q, params, {'t' if w.timed else '0.0'}, cb)")
    add(f"    D = {take('N', 'N')}")
    add("    for i in range(N):")
    add("        D[i, i] = 1.0")
    add("    return D, A, A, cb[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N)), A, "
        "np.empty(0, np.int64), True")


def _embedding_geometry(w):
    """Lines of _geometry through the embedding p = g(q): the chart kernel's g, g_q A_q, A_q, A, C and D."""
    add = w.add
    add(f"    cb = {w.take('CHART_OUT')}")
    add(f"    _chart(q, params{w.at_t}, cb)")
    add("    p[:] = cb[CHART_AT[0]:CHART_AT[1]]")
    add("    G = cb[CHART_AT[1]:CHART_AT[2]].reshape((N_P, K))")
    add("    A_q = cb[CHART_AT[2]:CHART_AT[3]].reshape((K_Q, K))")
    add("    A = cb[CHART_AT[3]:CHART_AT[4]].reshape((N_P, N))")
    add("    Cg = cb[CHART_AT[4]:CHART_AT[5]].reshape((C, N))")
    add("    perm = np.empty(N if N_P == N else 0, np.int64)")
    add("    if not finite(cb):")
    add("        return np.zeros((N, K)), A_q, A, Cg, A, perm, False")
    _solve_D(w, "np.ascontiguousarray(G)", "A_q")


def _solve_D(w, G, A_q):
    """Lines for D = A^-1 G (least squares where A is not square) and _geometry's return; a square
    A is factored once: D here, gamma in evaluate."""
    add, take = w.add, w.take
    if w.square:  # the sparse LU of A first (no pivoting), the dense one with pivoting where it fails
        add(f"    D = {take('N_P', 'K')}")
        add(f"    D[:, :] = {G}")
        add(f"    vals = {take('AL_NNZ')}")
        add("    for e in range(AL_NNZ):")
        add("        vals[e] = A[AL_ROW[e], AL_COL[e]] if AL_ROW[e] >= 0 else 0.0")
        add(f"    if sparse_factor(vals, {A_LU}) and sparse_solve_columns(vals, D, {A_LU}):")
        add(f"        return D, {A_q}, A, Cg, vals.reshape((1, AL_NNZ)), np.empty(0, np.int64), True")
        add("    LU = A.copy()")
        add(f"    D = {G}.copy()")
        add("    ok = lu_in_place(LU, perm) and lu_solve(LU, perm, D)")
        add(f"    return D, {A_q}, A, Cg, LU, perm, ok")
    else:
        add("    D, ok = " + w.left.format(G + ".copy()"))
        add(f"    return D, {A_q}, A, Cg, A, perm, ok")


def _choice_source(w):
    """_choice and choice_all of the minimal formulation: [C_bar_nh; E] and its cond and det."""
    w.lines += ["", "", "@numba.njit(cache=True)", "def _choice(D, Cg, extra, Kc):",
                '    """Kc = [C_bar_nh; E] with E = S_w + S_v D (l + r, k), in place."""',
                "    S_w = extra[:R * K].reshape((R, K))",
                "    S_v = extra[R * K:R * K + R * N].reshape((R, N))"]
    w.add("    mm_into(Cg[M_H:], D, Kc[:L])")
    w.lines += ["    mm_into(S_v, D, Kc[L:])",
                "    for i in range(R):",
                "        for j in range(K):",
                "            Kc[L + i, j] += S_w[i, j]"]
    w.lines += ["", "", "@numba.njit(cache=True)", "def choice_all(ys, params, extra, ts):",
                '    """cond and det of [C_bar_nh; E] at the recorded states at their times ts (NaN where the',
                '    geometry fails)."""',
                "    out = np.full((ys.shape[0], 2), np.nan)",
                "    p = np.empty(N_P)",
                "    work = np.zeros(EVAL_WORK)",
                "    for i in range(ys.shape[0]):",
                "        q = ys[i, :K_Q].copy()",
                "        unit_blocks(q, QBLOCKS)",
                f"        D, A_q, A, Cg, LU, perm, ok = _geometry(q, params, p, extra, work"
                f"{', ts[i]' if w.timed else ''})",
                "        if ok:",
                "            Kc = np.empty((L + R, K))",
                "            _choice(D, Cg, extra, Kc)",
                "            ratio = sigma_ratio(Kc)",
                "            out[i, 0] = 1.0 / ratio if ratio > 0 else np.inf",
                "            out[i, 1] = det(Kc)",
                "    return out"]


def _evaluate_source(w):
    """evaluate: the geometry at q, v, the primitives, gamma, the reduced or minimal system and its solve."""
    take, name = w.take, "minimal" if w.minimal else "reduced"
    w.lines += ["", "", "@numba.njit(cache=True)",
                "def evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work):",
                f'    """y\' of the {name} formulation; False where a matrix is singular. work:',
                '    EVAL_WORK zeros, reused from call to call (the temporaries are views of it from TMP on)."""',
                f"    q = {take('K_Q')}",
                "    q[:] = y[:K_Q]",
                "    unit_blocks(q, QBLOCKS)",
                f"    D, A_q, A, Cg, LU, perm, ok = _geometry(q, params, p, extra, work{', t' if w.timed else ''})",
                "    if not ok:",
                "        return False"]
    if w.minimal:
        _minimal_velocity_map(w)
    _velocities(w)
    _gamma(w)
    w.add(f"    h = {take('N')}")
    w.add("    for i in range(N):")
    w.add("        h[i] = f0[i] - d[i]")
    w.add("    nonideal = NONIDEAL and any_nonzero(F)")
    if w.minimal:
        _minimal_system(w)
    else:
        _reduced_system(w)
    _solve_and_store(w)


def _minimal_velocity_map(w):
    """Lines of evaluate for D_bar, w = D_bar u: [C_bar_nh; E] D_bar = [0; I], Kc left in LU factors."""
    add, take = w.add, w.take
    add("    S_v = extra[R * K:R * K + R * N].reshape((R, N))")
    add(f"    Kc = {take('L + R', 'K')}")
    add("    _choice(D, Cg, extra, Kc)")
    add(f"    D_bar = {take('L + R', 'R')}")
    add("    D_bar[:, :] = 0.0")
    add("    for i in range(R):")
    add("        D_bar[L + i, i] = 1.0")
    add("    big = max_abs(Kc)")
    add("    perm_c = np.empty(L + R, np.int64)")
    add("    if not (lu_in_place(Kc, perm_c) and lu_solve(Kc, perm_c, D_bar)):  # Kc: its factors from here")
    add("        return False")
    add("    if max_abs(D_bar) * big > 1e8:")
    add("        return False")


def _velocities(w):
    """Lines of evaluate for w and v = D w (+ d_0), and the primitives at (p, v) with their views."""
    add, lay = w.add, w.lay
    if w.timed:
        affine_terms(add, w.moving, lay.l, A_SOLVE if w.square else None, w.left)
    if w.minimal and w.timed:  # w = D_bar u + d_bar_0, [C_bar_nh; E] d_bar_0 = [-(C_nh d_0 + c_nh); -S_v d_0]
        add("    d_bar_0 = np.empty(L + R)")
        if lay.l:
            add("    d_bar_0[:L] = -(mv(Cg[M_H:], d_0) + c_nh)")
        add("    d_bar_0[L:] = -mv(S_v, d_0)")
        add("    if not lu_solve(Kc, perm_c, d_bar_0):")
        add("        return False")
        add("    w = mv(D_bar, y[K_Q:]) + d_bar_0")
    elif w.minimal:
        add(f"    w = {w.take('K')}")
        add("    mv_into(D_bar, y[K_Q:], w)")
    else:
        add("    w = y[K_Q:]")
    add("    v[:] = mv(D, w) + d_0" if w.moving else "    mv_into(D, w, v)")
    add("    buf = work[:DYN]")
    add("    _dynamics(t, p, v, params, buf)")
    w.lines.extend(lay.dynamics_views().splitlines())


def _gamma(w):
    """Lines of evaluate for gamma, v' = D w' + gamma: zero, from the chart or from the embedding."""
    add, take = w.add, w.take
    if w.trivial:
        add("    gamma = np.zeros(N)")
        return
    if w.charts:  # gamma_p = -U S^-1 (d/dp (Phi_a_p p')) p' with p' = D_p w
        add("    p0, U, V = _chart(extra)")
        add("    hc = work[W_H:W_H + HC]")
        add("    hc[:] = 0.0")
        add("    _holonomic_chart(p, mv(work[W_D:W_D + N_P * K].reshape((N_P, K)), w), params, 0.0, hc)")
        add("    g_a = hc[M_A + M_A * N_P:].copy()")
        add("    lu_solve(work[W_B:W_D].reshape((M_A, M_A)), work[W_S:W_B].astype(np.int64), g_a)  # S^-1 g_a")
        add("    gamma = -mv(U, g_a) - pdd2")
        add(w.solve_A("gamma"))
    else:
        add(f"    acc = {take('N_P')}")
        add(f"    _embedding_acc(q, w, params{w.at_t}, acc)")
        if w.square:
            add(f"    gamma = {take('N')}")
            add("    for i in range(N):")
            add("        gamma[i] = acc[i] - pdd2[i]")
        add(w.solve_A("gamma", "acc - pdd2"))
    add("    if not ok:")
    add("        return False")


def _minimal_system(w):
    """Lines of evaluate for the minimal system Km a = b in u' (with the multipliers where nonideal)."""
    add, take = w.add, w.take
    # w' = D_bar u' + gamma_bar, [C_bar_nh; E] gamma_bar = [-xi_bar; -S_v gamma]
    add(f"    gamma_bar = {take('L + R')}")
    add("    mv_into(Cm[M_H:], gamma, gamma_bar[:L])")
    add("    for i in range(L):")
    add("        gamma_bar[i] = -(xi[M_H + i] + gamma_bar[i])")
    add("    mv_into(S_v, gamma, gamma_bar[L:])")
    add("    for i in range(R):")
    add("        gamma_bar[L + i] = -gamma_bar[L + i]")
    add("    if not lu_solve(Kc, perm_c, gamma_bar):")
    add("        return False")
    add(f"    T = {take('N', 'R')}")
    add("    mm_into(D, D_bar, T)")
    add(f"    tau = {take('N')}")
    add("    mv_into(D, gamma_bar, tau)")
    add("    for i in range(N):")
    add("        tau[i] += gamma[i]")
    add(f"    residual = {take('N')}")
    add("    mv_into(M, tau, residual)")
    add("    for i in range(N):")
    add("        residual[i] = h[i] - residual[i]")
    add(f"    MT = {take('N', 'R')}")
    add("    mm_into(M, T, MT)")
    add("    if nonideal:")
    add(f"        Km = {take('N', 'R + C')}")
    add("        Km[:, :R] = MT")
    add("        for i in range(N):")
    add("            for j in range(C):")
    add("                Km[i, R + j] = Cm[j, i] - F[i, j]")
    add("        b = residual")
    add("    else:")
    add(f"        Km = {take('R', 'R')}")
    add("        tmm_into(T, MT, Km)")
    add(f"        b = {take('R')}")
    add("        tmv_into(T, residual, b)")
    add("    na = R")


def _reduced_system(w):
    """Lines of evaluate for the reduced saddle system [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] in [w'; lambda_nh]."""
    add = w.add
    # [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]
    add("    T = D")
    add("    tau = gamma")
    add("    C_nh = Cm[M_H:]")
    add("    Gk = mm(C_nh, D)")
    add("    kept = -xi[M_H:] - mv(C_nh, gamma) - 2 * extra[0] * " + (
        "(mv(C_nh, v) + c_nh)" if w.timed and w.lay.l else "mv(C_nh, v)"))  # c_nh: rows that depend on time
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
    add("        Km[:K, K:] = Gk.T")
    add("    rows = Km.shape[0] - L")
    add("    Km[rows:, :K] = Gk")
    add("    b[rows:] = kept")
    add("    na = K")


def _solve_and_store(w):
    """Lines of evaluate solving Km a = b and storing y', v' = T a + tau and the multipliers."""
    w.lines += ["    if not (all_finite(Km) and finite(b)):",
                "        return False",
                "    if Km.shape[0] == Km.shape[1]:  # a square system: solved in place",
                "        sol = b",
                "        if not solve_in_place(Km, sol):",
                "            return False",
                "    else:",
                "        sol, ok = solve1(Km, b)",
                "        if not ok:",
                "            return False",
                "    a = sol[:na]",
                "    mv_into(T, a, vdot)",
                "    for i in range(N):",
                "        vdot[i] += tau[i]",
                "    mv_into(A_q, w, out[:K_Q])",
                "    out[K_Q:] = a",
                "    if nonideal:",
                "        lam[:] = sol[na:]",
                "    elif multipliers:",
                "        lam[:] = resolved(Cm, h - mv(M, vdot))[0]",
                "    return True"]

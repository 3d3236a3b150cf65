"""Generated source of a tangent-space chart inside a compiled module (formulations.coordinates.charts):
the chart's arrays, the position on it by Newton's method, the pieces of the reduced formulation
there, the test for a new chart after a step and the new chart itself (formulations.kernels.embedded)."""

# the chart of formulations.coordinates.charts in the module: _chart(extra) its arrays, _chart_solve the position
# p(w) by Newton's method, _geometry the pieces of the reduced formulation there, post_step the test
# for a new chart; work holds the constraints' buffer (W_H), the last h (W_Y, the next start), the LU
# factors of S = Phi_a_p U (W_B) with their row swaps (W_S) in place of B = S^-1, and D_p (W_D)
CHART_SOURCE = """M_A, HC = {m_a}, {hc}
XC = 2  # extra: (alpha, beta), then (utol, w_limit, cond_limit, p0, U, V) (Atlas.compiled_chart)
W_H = DYN
W_Y = W_H + HC
W_S = W_Y + M_A
W_B = W_S + M_A
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
def _det_positive(LU, perm):
    \"\"\"det > 0 for the factors of lu_in_place: the signs of the pivots and of the row swaps.\"\"\"
    positive = True
    for j in range(LU.shape[0]):
        if (perm[j] != j) != (LU[j, j] < 0.0):
            positive = not positive
    return positive


@numba.njit(cache=True)
def _chart_solve(q, params, extra, work, p, S, perm):
    \"\"\"p = p0 + V q - U h on Phi_a(p) = 0 (to max |Phi_a| <= utol) by Newton's method in h, from the
    last h in work; Phi_a_p at p left in work[W_H:], S = Phi_a_p U there in LU factors (S, perm).
    A root where det(Phi_a_p U) <= 0 (another sheet, past a fold) counts as a failure. Where it fails
    from the last h (a trial stage's, perhaps far from q), it starts again from the chart's origin,
    h = 0. The number of iterations, or -1 where Newton's method fails (formulations.coordinates.charts
    Atlas.position, the same test).\"\"\"
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
                if _det_positive(S, perm):
                    return it
                break  # a root on another sheet, past a fold (Atlas._newton)
            step = hc[:M_A].copy()
            if not lu_solve(S, perm, step):
                break
            h += step
    h[:] = 0.0
    return -1


@numba.njit(cache=True)
def _geometry(q, params, p, extra, work):
    \"\"\"p on the chart at q into p; (D (n, k), A_q = I, A (n_p, n), C (c, n), LU factors of a square A
    and their row swaps, ok); the LU factors of S = Phi_a_p U (and their row swaps, as numbers) and
    D_p = (I - U S^-1 Phi_a_p) V into work, S^-1 applied by the factors (no inverse formed).\"\"\"
    S = work[W_B:W_D].reshape((M_A, M_A))
    perm_s = np.empty(M_A, np.int64)
    ok = _chart_solve(q, params, extra, work, p, S, perm_s) >= 0
    if ok:
        p0, U, V = _chart(extra)
        for i in range(M_A):
            work[W_S + i] = perm_s[i]
        Phi_p = work[W_H + M_A:W_H + M_A + M_A * N_P].reshape((M_A, N_P))
        X = mm(Phi_p, V)
        ok = lu_solve(S, perm_s, X)
        work[W_D:W_D + N_P * K] = (V - mm(U, X)).ravel()"""

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
    formulations.coordinates.charts.Atlas.new_chart taken at the state y has on the chart of extra, with
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
    s, Vt = singular_values(Phi_p)
    if s[M_A - 1] < 1e-10 * max(1.0, s[0]):
        return y_new, p, U, V, B, False
    U[:, :] = Phi_p.T
    V[:, :] = Vt[M_A:].T
    B, ok = solve(mm(Phi_p, U), np.eye(M_A))
    y_new[K_Q:] = tmv(V, mv(A, mv(D, y[K_Q:])))
    return y_new, p, U, V, B, ok
'''

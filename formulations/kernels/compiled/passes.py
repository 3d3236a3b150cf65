"""The right-hand side alone and the passes over recorded points, for the model of any formulation
whose module defines ``evaluate`` and ``post_step`` (called through the model's ADDRESS_EVALUATE and
ADDRESS_POST_STEP, formulations.kernels.by_address).

The model's fields read here: N_P, N, C, M_H (sizes of p, v, the rows and the holonomic rows), DYN,
CON, DYN_AT (the layout of the dynamics and constraints kernels' outputs,
formulations.kernels.layout.Layout), A_CONSTANT (A the same everywhere), EVAL_WORK, SCRATCH, WORK
(work-array sizes), DYNAMICS, CONSTRAINTS, ENERGY (the system's kernels).
"""
import numba
import numpy as np

from formulations.kernels.borrowed import borrowed, borrowed_items
from formulations.kernels.by_address import call_evaluate, call_post_step
from formulations.kernels.lapack import sigma_ratio
from formulations.kernels.linalg import copy_into, det, mm, mv, put


@numba.njit(cache=True)
def workspace(model):
    """The work array of rhs (WORK zeros): one per run, reused by every evaluation."""
    return np.zeros(model.WORK)


@numba.njit(cache=True)
def rhs(model, t, y, params, extra, out, work):
    """y' only (the rest into the scratch part of work); the arrays seen through borrowed views,
    which the call holds."""
    md = borrowed_items(model)
    C, N_P, N = md.C, md.N_P, md.N
    w = borrowed(work)
    lam = w[:C]
    p = w[C:C + N_P]
    v = w[C + N_P:C + N_P + N]
    vdot = w[C + N_P + N:md.SCRATCH]
    # bool(): a run-time flag, the type evaluate is compiled for (by_address.SIGNATURES)
    return call_evaluate(md.ADDRESS_EVALUATE, (md, t, borrowed(y), borrowed(params), borrowed(extra), borrowed(out),
                                               lam, p, v, vdot, bool(False), w[md.SCRATCH:]))


@numba.njit(cache=True)
def project_all(model, ts, ys, params, extra):
    """The rows of ys projected in place where post_step projects (points of an output grid,
    interpolated from steps that were not)."""
    work = workspace(model)
    for i in range(ys.shape[0]):
        row = ys[i].copy()
        if call_post_step(model.ADDRESS_POST_STEP, (model, ts[i], row, params, extra, work)) == 2:
            ys[i] = row


@numba.njit(cache=True)
def evaluate_all(model, ts, ys, params, extra):
    """(y' (K, n_y), lambda (K, c), ok (K,), p (K, n_p), v (K, n), v' (K, n)) at the recorded points."""
    C, N_P, N = model.C, model.N_P, model.N
    count = ys.shape[0]
    ydot = np.full(ys.shape, np.nan)
    lam = np.full((count, C), np.nan)
    ok = np.zeros(count, dtype=np.bool_)
    ps = np.full((count, N_P), np.nan)
    vs = np.full((count, N), np.nan)
    vdots = np.full((count, N), np.nan)
    out, mult = np.empty(ys.shape[1]), np.empty(C)
    p, v, vdot = np.empty(N_P), np.empty(N), np.empty(N)
    work = np.zeros(model.EVAL_WORK)
    for i in range(count):  # through work arrays: evaluate is compiled for one signature only
        ok[i] = call_evaluate(model.ADDRESS_EVALUATE, (model, ts[i], ys[i].copy(), params, extra, out, mult, p, v,
                                                       vdot, bool(True), work))
        for row, value in ((ydot[i], out), (lam[i], mult), (ps[i], p), (vs[i], v), (vdots[i], vdot)):
            put(row, value)
    return ydot, lam, ok, ps, vs, vdots


@numba.njit(cache=True)
def check_all(model, ts, ps, vs, vdots, ok, params):
    """Per recorded point: max |Phi|, max |C v + c|, max |C v' + xi| (NaN where v' is missing), the
    energy, sigma_min / sigma_max of Phi_p, det(Phi_p(p_k) Phi_p(p_k-1)^T) (1 at k = 0) and
    sigma_min / sigma_max of A with the sign of det A where A is square (NaN where A is not finite)."""
    C, N_P, N, M_H, DYN_AT = model.C, model.N_P, model.N, model.M_H, model.DYN_AT
    count = ts.size
    out = np.full((count, 7), np.nan)
    buf = np.zeros(model.DYN)
    cbuf = np.zeros(model.CON)
    ebuf = np.zeros(1)
    previous = np.zeros((M_H, N_P))
    for i in range(count):
        p, v = ps[i], vs[i]
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(v))):
            continue
        cbuf[:] = 0.0
        model.CONSTRAINTS(p, params, ts[i], cbuf)
        Phi = cbuf[:M_H]
        Phi_p = cbuf[M_H:M_H + M_H * N_P].reshape((M_H, N_P))
        Cm = cbuf[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N))
        c_free = cbuf[M_H + M_H * N_P + C * N:]
        out[i, 0] = np.max(np.abs(Phi)) if M_H else 0.0
        out[i, 1] = np.max(np.abs(mv(Cm, v) + c_free)) if C else 0.0
        buf[:] = 0.0
        model.DYNAMICS(ts[i], p, v, params, buf)
        if ok[i]:
            xi = buf[DYN_AT[5]:DYN_AT[6]]
            out[i, 2] = np.max(np.abs(mv(Cm, vdots[i]) + xi)) if C else 0.0
        Ad = buf[DYN_AT[6]:DYN_AT[7]]
        if model.A_CONSTANT and i > 0 and not np.isnan(out[0, 6]):  # the same A at every point
            out[i, 6] = out[0, 6]
        elif np.all(np.isfinite(Ad)):
            A = np.ascontiguousarray(Ad.reshape((N_P, N)))
            out[i, 6] = sigma_ratio(np.ascontiguousarray(A.T))
            if N_P == N and det(A) < 0.0:  # signed: a sign change between rows crosses a singular A
                out[i, 6] = -out[i, 6]
        ebuf[0] = 0.0
        model.ENERGY(p, v, params, ebuf)
        out[i, 3] = ebuf[0]
        if M_H:
            out[i, 4] = sigma_ratio(Phi_p)
            out[i, 5] = det(mm(Phi_p, previous.T)) if i > 0 else 1.0
            copy_into(previous, Phi_p)
    return out

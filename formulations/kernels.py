"""Generated numba source of whole formulation evaluations, for the COMPILED_ODE form (backend
"compiled"): the formulation's primitives (systems.codegen kernels), its matrices and solves in
one function, and compiled passes over recorded points. The solver appends its loop
(formulations.solvers.compiled_rk) and compiles the module."""
from __future__ import annotations

import numpy as np


def dependent_source(formulation) -> str:
    """Source of rhs, evaluate, evaluate_all and check_all for the dependent formulation of
    ``formulation.system`` (stabilization none, Baumgarte or constraint dynamics: the gains are
    arguments)."""
    sysm = formulation.system
    n_p, n, c, m = len(sysm.coordinates), sysm.n, sysm.m + sysm.l, sysm.m
    sizes = [n * n, n, n, n * c, c * n, c, n_p * n, n_p]
    o = np.cumsum([0] + sizes).tolist()
    num = formulation.num
    dyn, con, energy = num.kernel("dynamics"), num.kernel("constraints"), num.kernel("energy")
    blocks = [list(b) for b in sysm.unit_norm_blocks]
    return f"""import math

import numba
import numpy as np

from {dyn.__module__} import {dyn.__name__} as _dynamics
from {con.__module__} import {con.__name__} as _constraints
from {energy.__module__} import {energy.__name__} as _energy

N_P, N, C, M_H = {n_p}, {n}, {c}, {m}
BLOCKS = np.array({blocks or [[0, 0, 0, 0]]}, dtype=np.int64)[:{len(blocks)}]


@numba.njit(cache=True)
def evaluate(t, y, params, alpha, beta, out, lam):
    \"\"\"y' of the dependent formulation of {sysm.name}: p' = A v, [[M, C^T - F], [C, 0]] [v'; lambda] =
    [f0 - d; -xi - 2 alpha C v - beta^2 [Phi; 0]]; lambda into lam. False where the matrix is singular.\"\"\"
    p = y[:N_P].copy()
    for i in range(BLOCKS.shape[0]):
        norm = 0.0
        for j in range(4):
            norm += p[BLOCKS[i, j]] ** 2
        for j in range(4):
            p[BLOCKS[i, j]] /= math.sqrt(norm)
    v = y[N_P:]
    buf = np.zeros({o[-1]})
    _dynamics(t, p, v, params, buf)
    M = buf[{o[0]}:{o[1]}].reshape((N, N))
    d = buf[{o[1]}:{o[2]}]
    f0 = buf[{o[2]}:{o[3]}]
    F = buf[{o[3]}:{o[4]}].reshape((N, C))
    Cm = buf[{o[4]}:{o[5]}].reshape((C, N))
    xi = buf[{o[5]}:{o[6]}]
    A = buf[{o[6]}:{o[7]}].reshape((N_P, N))
    K = np.zeros((N + C, N + C))
    b = np.empty(N + C)
    K[:N, :N] = M
    K[:N, N:] = Cm.T - F
    K[N:, :N] = Cm
    b[:N] = f0 - d
    b[N:] = -xi - 2 * alpha * (Cm @ v)
    if beta != 0.0 and M_H > 0:
        cbuf = np.zeros(M_H + M_H * N_P + C * N)
        _constraints(p, params, cbuf)
        b[N:N + M_H] -= beta**2 * cbuf[:M_H]
    if not np.all(np.isfinite(K)):
        return False
    try:
        sol = np.linalg.solve(K, b)
    except Exception:
        return False
    if not np.all(np.isfinite(sol)):
        return False
    out[:N_P] = A @ v
    out[N_P:] = sol[:N]
    lam[:] = sol[N:]
    return True


@numba.njit(cache=True)
def rhs(t, y, params, alpha, beta, out):
    \"\"\"y' only (the multipliers into scratch space).\"\"\"
    return evaluate(t, y, params, alpha, beta, out, np.empty(C))


@numba.njit(cache=True)
def evaluate_all(ts, ys, params, alpha, beta):
    \"\"\"(y' (N, n_y), lambda (N, c), ok (N,)) at the recorded points, in one compiled pass.\"\"\"
    ydot = np.full(ys.shape, np.nan)
    lam = np.full((ys.shape[0], C), np.nan)
    ok = np.zeros(ys.shape[0], dtype=np.bool_)
    for i in range(ys.shape[0]):
        ok[i] = evaluate(ts[i], ys[i], params, alpha, beta, ydot[i], lam[i])
    return ydot, lam, ok


@numba.njit(cache=True)
def check_all(ts, ps, vs, vdots, ok, params):
    \"\"\"Per recorded point: max |Phi|, max |C v|, max |C v' + xi| (NaN where v' is missing), the
    energy, sigma_min / sigma_max of Phi_p and det(Phi_p(p_k) Phi_p(p_k-1)^T) (1 at k = 0).\"\"\"
    count = ts.size
    out = np.full((count, 6), np.nan)
    buf = np.zeros({o[-1]})
    cbuf = np.zeros(M_H + M_H * N_P + C * N)
    ebuf = np.zeros(1)
    previous = np.zeros((M_H, N_P))
    for i in range(count):
        p, v = ps[i], vs[i]
        _constraints(p, params, cbuf)
        Phi = cbuf[:M_H]
        Phi_p = cbuf[M_H:M_H + M_H * N_P].reshape((M_H, N_P))
        Cm = cbuf[M_H + M_H * N_P:].reshape((C, N))
        out[i, 0] = np.max(np.abs(Phi)) if M_H else 0.0
        out[i, 1] = np.max(np.abs(Cm @ v)) if C else 0.0
        if ok[i]:
            buf[:] = 0.0
            _dynamics(ts[i], p, v, params, buf)
            xi = buf[{o[5]}:{o[6]}]
            out[i, 2] = np.max(np.abs(Cm @ vdots[i] + xi)) if C else 0.0
        ebuf[0] = 0.0
        _energy(p, v, params, ebuf)
        out[i, 3] = ebuf[0]
        if M_H:
            s = np.linalg.svd(Phi_p)[1]
            out[i, 4] = s[-1] / s[0] if s[0] > 0 else 0.0
            out[i, 5] = np.linalg.det(Phi_p @ np.ascontiguousarray(previous.T)) if i > 0 else 1.0
            previous[:, :] = Phi_p
    return out
"""

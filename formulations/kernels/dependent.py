"""Generated source of the dependent formulation's whole evaluation (stabilization none, Baumgarte
or constraint dynamics; extra = (alpha, beta))."""
from __future__ import annotations

from .common import Layout, header, passes


def dependent_source(formulation) -> str:
    sysm, num = formulation.system, formulation.num
    lay = Layout(sysm)
    kernels = {"_dynamics": num.kernel("dynamics"), "_constraints": num.kernel("constraints"),
               "_energy": num.kernel("energy")}
    size = lay.n + lay.c
    return header(sysm, kernels) + f'''
EVAL_WORK = DYN + {size * size} + {size} + CON


@numba.njit(cache=True)
def evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work):
    """y' of the dependent formulation of {sysm.name}: p' = A v, [[M, C^T - F], [C, 0]] [v'; lambda] =
    [f0 - d; -xi - 2 alpha C v - beta^2 [Phi; 0]]; False where the matrix is singular. work: EVAL_WORK
    zeros (workspace()), reused from call to call."""
    alpha, beta = extra[0], extra[1]
    p[:] = y[:N_P]
    unit_blocks(p, BLOCKS)
    v[:] = y[N_P:]
    buf = work[:DYN]
    _dynamics(t, p, v, params, buf)
{lay.dynamics_views()}
    K = work[DYN:DYN + {size * size}].reshape(({size}, {size}))
    b = work[DYN + {size * size}:DYN + {size * size + size}]
    K[:N, :N] = M
    K[N:, :N] = Cm
    K[N:, N:] = 0.0
    for i in range(N):
        b[i] = f0[i] - d[i]
        for j in range(C):
            K[i, N + j] = Cm[j, i] - F[i, j]
    mv_into(Cm, v, b[N:])
    for i in range(C):
        b[N + i] = -xi[i] - 2 * alpha * b[N + i]
    if beta != 0.0 and M_H > 0:
        cbuf = work[DYN + {size * size + size}:DYN + {size * size + size} + CON]
        _constraints(p, params, cbuf)
        for i in range(M_H):
            b[N + i] -= beta**2 * cbuf[i]
    if not (all_finite(K) and finite(b)):
        return False
    if not solve_in_place(K, b):
        return False
    mv_into(Ad, v, out[:N_P])
    out[N_P:] = b[:N]
    vdot[:] = b[:N]
    lam[:] = b[N:]
    return True
''' + passes(sysm)

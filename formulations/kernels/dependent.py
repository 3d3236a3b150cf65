"""Generated source of the dependent formulation's whole evaluation (stabilization none, Baumgarte
or constraint dynamics; extra = (alpha, beta))."""
from __future__ import annotations

from .common import Layout, header, passes


def dependent_source(formulation) -> str:
    sysm, num = formulation.system, formulation.num
    lay = Layout(sysm)
    kernels = {"_dynamics": num.kernel("dynamics"), "_constraints": num.kernel("constraints"),
               "_energy": num.kernel("energy")}
    return header(sysm, kernels) + f'''

@numba.njit(cache=True)
def evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers):
    """y' of the dependent formulation of {sysm.name}: p' = A v, [[M, C^T - F], [C, 0]] [v'; lambda] =
    [f0 - d; -xi - 2 alpha C v - beta^2 [Phi; 0]]; False where the matrix is singular."""
    alpha, beta = extra[0], extra[1]
    p[:] = y[:N_P]
    unit_blocks(p, BLOCKS)
    v[:] = y[N_P:]
    buf = np.zeros(DYN)
    _dynamics(t, p, v, params, buf)
{lay.dynamics_views()}
    K = np.zeros((N + C, N + C))
    b = np.empty(N + C)
    K[:N, :N] = M
    K[:N, N:] = Cm.T - F
    K[N:, :N] = Cm
    b[:N] = f0 - d
    b[N:] = -xi - 2 * alpha * mv(Cm, v)
    if beta != 0.0 and M_H > 0:
        cbuf = np.zeros(CON)
        _constraints(p, params, cbuf)
        b[N:N + M_H] -= beta**2 * cbuf[:M_H]
    if not (np.all(np.isfinite(K)) and np.all(np.isfinite(b))):
        return False
    sol, ok = solve1(K, b)
    if not ok:
        return False
    out[:N_P] = mv(Ad, v)
    out[N_P:] = sol[:N]
    vdot[:] = sol[:N]
    lam[:] = sol[N:]
    return True
''' + passes(sysm)

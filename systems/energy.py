"""Whether a system conserves its energy E = v^T M v / 2 + V at its current parameter values, or
changes it only through the work of its constraints.

E is a first integral where nothing depends on time explicitly (M, d, A, f, Phi, C_nh free of t),
no row has a velocity-free term (c = [Phi_t; c_nh] = 0), the forces do not depend on the
multipliers (F_lambda = 0: ideal constraints) and the applied forces are those of the potential,
f = -A^T dV/dp — checked numerically at random states. Ideal scleronomic constraints do no work.

Rheonomic or affine rows (a driven crank, a turning table) do work: from M v' + d = f - C^T lambda,
with v^T (M' v / 2 - d) = 0 and f = -A^T dV/dp + f_nc,
    dE/dt = v^T f_nc - lambda^T C v = v^T f_nc + lambda^T c      (on C v + c = 0),
so the power of the constraint forces -C^T lambda is lambda^T c: positive where the constraints
feed energy in. Where everything else is conservative (``only_constraints_work``), E(t) - E(t0)
equals the work of the constraint forces, which formulations.results.assessment checks.
"""
from __future__ import annotations

import functools

import numpy as np
import sympy as sp


@functools.lru_cache(maxsize=128)
def is_conservative(system) -> bool:
    """True where E is a first integral of ``system`` (see the module docstring)."""
    return not system.is_rheonomic and only_constraints_work(system)


@functools.lru_cache(maxsize=128)
def only_constraints_work(system) -> bool:
    """True where the applied forces are those of the potential and nothing but the constraint rows
    depends on time, so that dE/dt = lambda^T c (see the module docstring)."""
    t = system.time
    if any(t in getattr(system, name).free_symbols for name in ("M", "d", "A", "f")):
        return False
    p, params = list(system.coordinates), [par.symbol for par in system.parameters]
    grad = sp.lambdify([p, params], sp.Matrix([system.potential]).jacobian(p), modules="numpy")
    num, par = system.numeric, system.params
    p0, _ = system.default_state()
    rng = np.random.default_rng(7)
    for k in range(3):
        p = p0 + (0.1 * rng.standard_normal(p0.shape) if k else 0.0)
        v = rng.standard_normal(system.n)
        with np.errstate(all="ignore"):
            pieces = num.dynamics(0.37, p, v, par)
            f0, F, A = pieces.f0, pieces.F, pieces.A
            residual = f0 + A.T @ np.asarray(grad(p, par), float).ravel()
        if not (np.all(np.isfinite(residual)) and np.all(np.isfinite(F))):
            return False
        if np.max(np.abs(F), initial=0.0) > 0 or np.max(np.abs(residual), initial=0.0) > 1e-9 * (
                1 + np.max(np.abs(f0), initial=0.0)):
            return False
    return True

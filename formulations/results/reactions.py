"""Constraint reactions at a state, in Blajer's resolved form.

The accelerations come from the minimal form written with an orthonormal basis N of ker C as
independent velocities (so no embedding or choice is needed): v' = N a + tau with C tau = -xi,
(N^T M N) a = N^T (f - d - M tau). Then C^T lambda = f - d - M v' is solved for lambda (least
squares on the full-rank C^T). Non-ideal constraints (f affine in lambda) are solved together.
"""
from __future__ import annotations

import numpy as np

from systems.state import renormalize

from ..linear import null_space, resolved_reactions, solve_accelerations


def reactions(system, t, p, v, *, as_dict=True):
    """Multipliers at (t, p, v): {constraint name: value} (or an array with as_dict=False).

    With the catalogue's physical rows these are forces (N) or moments (N m) on the system.
    """
    p = renormalize(system, np.asarray(p, float)) if system.unit_norm_blocks else np.asarray(p, float)
    v = np.asarray(v, float)
    M, d, f0, F, C, xi, _, _ = system.numeric.dynamics(float(t), p, v, system.params)
    lam = _resolved(M, f0 - d, F, C, xi)
    return dict(zip(system.constraint_names, lam.tolist())) if as_dict else lam


def _resolved(M, h, F, C, xi):
    if C.shape[0] == 0:
        return np.zeros(0)
    N = null_space(C)
    tau = -np.linalg.lstsq(C, xi, rcond=None)[0]
    _, vdot, lam = solve_accelerations(M, h, N, tau, np.zeros((0, N.shape[1])), np.zeros(0), F=F, C=C,
                                       quantity="the projected mass matrix N^T M N")
    if F is not None and F.size and np.any(F):
        return lam
    return resolved_reactions(C, h - M @ vdot)

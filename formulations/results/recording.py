"""From a solver's run to a Trajectory: the constraint errors, energy and accelerations of every
output point, computed once after the run from the rows the run recorded."""
from __future__ import annotations

import numpy as np

from .trajectory import ConstraintErrors, Trajectory, frozen


def trajectory(formulation, run, stats, message, settings) -> Trajectory:
    """The Trajectory of ``run`` (a RunRecord whose rows are (y, p, v, v' or None, lambda or None))."""
    system = formulation.system
    num, par = formulation.num, system.params
    N, n, c = len(run.t), system.n, system.m + system.l
    ys = np.array([r[0] for r in run.y]) if N else np.zeros((0, len(formulation.state_names())))
    ps = np.array([r[1] for r in run.y]) if N else np.zeros((0, len(system.coordinates)))
    vs = np.array([r[2] for r in run.y]) if N else np.zeros((0, n))
    vdot, lam = np.full((N, n), np.nan), np.full((N, c), np.nan)
    err_p, err_v, err_a, energy = (np.full(N, np.nan) for _ in range(4))
    checks = getattr(run, "checks", None)
    for i, (t, row) in enumerate(zip(run.t, run.y)):
        _, p, v, a, multipliers = row
        if checks is not None:  # computed in one compiled pass
            err_p[i], err_v[i], err_a[i], energy[i] = checks[i]
            if a is not None:
                vdot[i], lam[i] = a, multipliers
            continue
        Phi, _, C = num.constraints(p, par)
        err_p[i] = np.max(np.abs(Phi), initial=0.0)
        err_v[i] = np.max(np.abs(C @ v), initial=0.0)
        with np.errstate(invalid="ignore", divide="ignore"):  # NaN where V is undefined, e.g. past a singularity
            energy[i] = num.energy(p, v, par)
        if a is None:
            continue
        vdot[i], lam[i] = a, multipliers
        xi = formulation.dynamics(t, p, v)[1][5]
        err_a[i] = np.max(np.abs(C @ a + xi), initial=0.0)
    return Trajectory(system.name, formulation.label(), frozen(run.t), frozen(ps), frozen(vs), frozen(ys),
                      formulation.state_names(), frozen(vdot), frozen(lam), system.constraint_names,
                      ConstraintErrors(frozen(err_p), frozen(err_v), frozen(err_a)), frozen(energy), stats,
                      run.status, message, tuple(run.t_events), settings)

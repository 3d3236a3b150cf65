"""From a solver's run to a Trajectory: the constraint errors, energy and accelerations of every
output point, computed once after the run from the rows the run recorded."""
from __future__ import annotations

import numpy as np

from .trajectory import ConstraintErrors, EventRecord, Trajectory, frozen


def trajectory(formulation, run, stats, message, settings, events=()) -> Trajectory:
    """The Trajectory of ``run`` (a RunRecord whose rows are (y, p, v, v' or None, lambda or None));
    ``events`` the Event objects of the run, whose names label its crossings."""
    system = formulation.system
    if run.columns is not None:  # a compiled run: every column computed in compiled passes
        ys, ps, vs, vdot, lam = run.columns
        err_p, err_v, err_a, energy = np.asarray(run.checks, float).reshape(-1, 4).T
        return Trajectory(system.name, formulation.label(), frozen(run.t), frozen(ps), frozen(vs), frozen(ys),
                          formulation.state_names(), frozen(vdot), frozen(lam), system.constraint_names,
                          ConstraintErrors(frozen(err_p), frozen(err_v), frozen(err_a)), frozen(energy), stats,
                          run.status, message, event_records(run.t_events, events), settings,
                          constraint_power=frozen(constraint_power(system, formulation.num, run.t, ps, vs, lam)),
                          system=system)
    num, par = formulation.num, system.params
    N, n, c = len(run.t), system.n, system.m + system.l
    ys = np.array([r[0] for r in run.y]) if N else np.zeros((0, len(formulation.state_names())))
    ps = np.array([r[1] for r in run.y]) if N else np.zeros((0, len(system.coordinates)))
    vs = np.array([r[2] for r in run.y]) if N else np.zeros((0, n))
    vdot, lam = np.full((N, n), np.nan), np.full((N, c), np.nan)
    err_p, err_v, err_a, energy = (np.full(N, np.nan) for _ in range(4))
    for i, (t, row) in enumerate(zip(run.t, run.y)):
        _, p, v, a, multipliers = row
        with np.errstate(all="ignore"):  # NaN where a piece is undefined, e.g. past a singularity
            Phi, _, C, c_free = num.constraint_terms(p, par, t)
            if a is not None:
                xi = formulation.dynamics(t, p, v)[1].xi
                vdot[i], lam[i] = a, multipliers
                err_a[i] = _max_abs(C @ a + xi)
            err_p[i] = _max_abs(Phi)
            err_v[i] = _max_abs(C @ v + c_free)
            energy[i] = num.energy(p, v, par)
    return Trajectory(system.name, formulation.label(), frozen(run.t), frozen(ps), frozen(vs), frozen(ys),
                      formulation.state_names(), frozen(vdot), frozen(lam), system.constraint_names,
                      ConstraintErrors(frozen(err_p), frozen(err_v), frozen(err_a)), frozen(energy), stats,
                      run.status, message, event_records(run.t_events, events), settings,
                      constraint_power=frozen(constraint_power(system, num, run.t, ps, vs, lam)), system=system)


def constraint_power(system, num, ts, ps, vs, lam):
    """-lambda^T C(p, t) v per point (N,), in W: the power of the constraint forces -C^T lambda
    (systems.energy); zeros for scleronomic homogeneous rows, which do no work."""
    if not system.is_rheonomic or not len(ts):
        return np.zeros(len(ts))
    out = np.full(len(ts), np.nan)
    par = system.params
    with np.errstate(all="ignore"):
        for i, (t, p, v, multipliers) in enumerate(zip(ts, ps, vs, lam)):
            out[i] = -multipliers @ (num.C(p, par, t) @ v)
    return out


def _max_abs(x) -> float:
    """max |x| (0 for an empty x), NaN where x has a NaN."""
    x = np.asarray(x, float)
    return float(np.abs(x).max()) if x.size else 0.0


def event_records(crossings, events) -> tuple:
    """EventRecord per crossing (t, index) or bare t (index 0), named by the events' names."""
    out = []
    for crossing in crossings:
        t, i = crossing if isinstance(crossing, tuple) else (crossing, 0)
        name = getattr(events[i], "name", "") if i < len(events) else ""
        out.append(EventRecord(float(t), name or f"event {i}", int(i)))
    return tuple(out)

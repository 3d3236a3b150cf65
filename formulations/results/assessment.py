"""Checks of a finished run's result, so that a run never reports plain success when its result
is not what its settings promise.

A run with status 0 (finished) or 1 (terminal event) gets status 2 and a message "..., but ..."
where one of these fails; the notes are kept in Trajectory.warnings (a failed run keeps status -1
and gets the notes too):
  - it ended short of t_span (or recorded fewer points than t_eval asked for);
  - its state or energy is not finite at some point;
  - the kinematic matrix A is singular at a point (sigma_min / sigma_max < 1e-8), or between two
    points (det A of a square A changes sign: a step went through it): the coordinates do not
    describe the motion there, whatever the residuals say;
  - |C v' + xi| exceeds 1e-6 (1 + max |v'|): the accelerations do not satisfy the constraints
    (not checked with a feedback stabilization, which sets C v' + xi on purpose);
  - the energy balance of a system whose constraints alone do work (rheonomic or affine rows,
    systems.energy.only_constraints_work; not with a feedback stabilization, whose terms do work
    too) does not close: max |E(t) - E(t0) - W_c(t)| with W_c the work of the constraint forces
    (Trajectory.constraint_work) exceeds the allowance below plus the quadrature error of W_c,
    estimated by |W_c(Simpson) - W_c(trapezoid)|;
  - the position or velocity residual, or the energy drift of a conservative system
    (systems.energy; not with a feedback stabilization), exceeds what the tolerance allows:
    ALLOWANCE x tol x (accepted steps + 1) (local errors of size tol adding up over the steps),
    never more than 1 % of the scale
    (1 + max |p|, 1 + max |v|, 1 + max |E|); fixed-step runs get the 1 % bound only. A run started
    off the constraints on purpose (check_initial=False) is not held to these residual checks;
  - a contact the system declares (systems.contacts) pulls (its normal force is negative) or
    slides (its friction forces leave mu times the normal force) somewhere: the run held it as a
    bilateral, perfectly rough constraint, which the real contact is not there.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from systems.contacts import crossings
from systems.energy import is_conservative, only_constraints_work

from .trajectory import EVENT, SUCCESS, WARNED, Trajectory, cumulative_work

ALLOWANCE = 100.0  # over 50 times the largest ratio met in the test suite's runs
SCALE_SHARE = 1e-2
SINGULAR_A = 1e-8
FEEDBACK = ("baumgarte", "constraint_dynamics", "ggl")  # C v' + xi != 0 by design; they do work on the system
SAMPLES = 2000  # points at which A is checked, evenly spread (all where there are fewer)


def assess(traj: Trajectory, system, *, t_span, t_eval, tol, adaptive, initial_violation=False,
           kinematic_ratio=None) -> Trajectory:
    """``traj`` with status 2 and the notes of the failed checks where a check fails (see module).
    kinematic_ratio: sigma_min / sigma_max of A at every point of traj where a compiled pass made
    it (NaN where A is not finite); otherwise A is evaluated here at up to SAMPLES points."""
    notes = (_ended_short(traj, t_span, t_eval) + _not_finite(traj)
             + _singular_kinematics(traj, system, kinematic_ratio))
    if traj.t.size and not initial_violation:
        notes += _residuals(traj, system, tol, adaptive)
    if traj.t.size and system.contacts and traj.multipliers.shape[-1] == len(system.constraint_names):
        notes += crossings(system, traj.t, traj.multipliers)
    if not notes:
        return traj
    if traj.status in (SUCCESS, EVENT):
        lead = "finished over t_span" if traj.status == SUCCESS else traj.message
        return dataclasses.replace(traj, status=WARNED, message=f"{lead}, but {'; '.join(notes)}",
                                   warnings=tuple(notes))
    return dataclasses.replace(traj, warnings=tuple(notes))


def _ended_short(traj, t_span, t_eval):
    if traj.status != SUCCESS:
        return []
    end = float(t_eval[-1]) if t_eval is not None else float(t_span[1])
    if not traj.t.size or traj.t[-1] < end - 1e-9 * max(1.0, abs(end)):
        last = f"t = {traj.t[-1]:.6g}" if traj.t.size else "no point"
        return [f"the run ended at {last}, short of t = {end:.6g}"]
    if t_eval is not None and traj.t.size != t_eval.size:
        return [f"it recorded {traj.t.size} of the {t_eval.size} points of t_eval"]
    return []


def _not_finite(traj):
    bad = ~(np.all(np.isfinite(traj.p), axis=1) & np.all(np.isfinite(traj.v), axis=1))
    if bad.any():
        return [f"the state is not finite from t = {traj.t[np.argmax(bad)]:.6g} on"]
    return []


def _singular_kinematics(traj, system, kinematic_ratio=None):
    if not system.A.free_symbols or not traj.t.size:
        return []
    if kinematic_ratio is not None:
        rows = np.flatnonzero(np.isfinite(kinematic_ratio))
        signed = np.asarray(kinematic_ratio)[rows]
    else:
        rows = np.unique(np.linspace(0, traj.t.size - 1, min(traj.t.size, SAMPLES)).astype(int))
        rows = np.array([i for i in rows if np.all(np.isfinite(traj.p[i]))], dtype=int)
        num, par = system.numeric, system.params
        with np.errstate(all="ignore"):
            A = np.array([num.A(traj.p[i], par) for i in rows])
        if not A.size or not np.all(np.isfinite(A)):
            return []
        s = np.linalg.svd(A, compute_uv=False)
        signed = s[:, -1] / np.maximum(s[:, 0], 1e-300)
        if system.n == len(system.coordinates):
            signed = np.where(np.linalg.det(A) < 0, -signed, signed)
    if not signed.size:
        return []
    ratio = np.abs(signed)

    def where(i):
        return ", ".join(f"{n}={x:.6g}" for n, x in zip(system.coordinate_names, traj.p[i]))

    k = int(np.argmin(ratio))
    if ratio[k] < SINGULAR_A:
        i = rows[k]
        return [f"the kinematic matrix A is singular at t = {traj.t[i]:.6g} (sigma_min / sigma_max = {ratio[k]:.1e} "
                f"at p = ({where(i)})): the coordinates do not describe the motion there, so the accelerations are "
                f"not reliable"]
    flips = np.flatnonzero(signed[1:] * signed[:-1] < 0)
    if flips.size:  # det A changed sign between two points: the path went through a singular (or unbounded) A
        i, j = rows[flips[0]], rows[flips[0] + 1]
        return [f"the kinematic matrix A is singular between t = {traj.t[i]:.6g} and {traj.t[j]:.6g} (det A changes "
                f"sign from p = ({where(i)}) to p = ({where(j)})): the coordinates do not describe the motion "
                f"there, so the run beyond is not reliable"]
    return []


def _residuals(traj, system, tol, adaptive):
    notes = []
    steps = traj.stats.steps or 0
    share = min(ALLOWANCE * tol * (steps + 1), SCALE_SHARE) if adaptive else SCALE_SHARE
    how = (f"{share:.1e} of the scale (tol = {tol:.1e} over {steps} steps)" if adaptive
           else f"{share:.0%} of the scale (fixed step)")
    errors = traj.constraint_errors
    vdot = traj.vdot[np.all(np.isfinite(traj.vdot), axis=1)]
    acc = errors.acceleration[np.isfinite(errors.acceleration)]
    bound = 1e-6 * (1 + (np.max(np.abs(vdot)) if vdot.size else 0.0))
    feedback = traj.settings.get("stabilization", "none").split("(")[0] in FEEDBACK
    if acc.size and acc.max() > bound and not feedback:
        notes.append(f"|C v' + xi| reaches {acc.max():.2e}, above {bound:.1e}: the accelerations do not satisfy "
                     f"the constraints (a singular or ill-conditioned matrix)")
    for name, values, scale in (("position", errors.position, 1 + np.nanmax(np.abs(traj.p), initial=0.0)),
                                ("velocity", errors.velocity, 1 + np.nanmax(np.abs(traj.v), initial=0.0))):
        finite = values[np.isfinite(values)]
        if not finite.size:
            continue
        if finite.max() > share * scale:
            label = "|Phi|" if name == "position" else "|C v|"
            notes.append(f"the {name} residual {label} reaches {finite.max():.2e}, beyond {how} = {share * scale:.1e}")
    energy = traj.energy[np.isfinite(traj.energy)]
    if energy.size and not feedback and is_conservative(system) and not traj.settings.get("inputs"):
        drift = float(np.max(np.abs(energy - energy[0])))
        scale = 1 + float(np.max(np.abs(energy)))
        if drift > share * scale:
            notes.append(f"the energy moves away from its start by up to {drift:.2e} J in a conservative system, "
                         f"beyond {how} = {share * scale:.1e} J")
    if not feedback and system.is_rheonomic and only_constraints_work(system):
        notes += _energy_balance(traj, share, how)
    return notes


def _energy_balance(traj, share, how):
    """The note where E(t) - E(t0) differs from the work of the constraint forces by more than the
    allowance plus the quadrature error of that work (module docstring)."""
    P = traj.constraint_power
    if P is None or traj.t.size < 2 or not (np.all(np.isfinite(P)) and np.all(np.isfinite(traj.energy))):
        return []
    work = traj.constraint_work
    quadrature = float(np.max(np.abs(work - cumulative_work(traj.t, P, simpson=False))))
    gap = float(np.max(np.abs(traj.energy_balance)))
    scale = 1 + float(np.max(np.abs(traj.energy))) + float(np.max(np.abs(work)))
    if gap > share * scale + quadrature:
        return [f"the energy balance does not close: E(t) - E(t0) differs from the work of the constraint forces "
                f"by {gap:.2e} J, beyond {how} = {share * scale:.1e} J plus the quadrature error {quadrature:.1e} J "
                f"of that work over the recorded points"]
    return []

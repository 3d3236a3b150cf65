"""One ensemble member, run and summarized: the code that runs in a worker process.

A Job holds everything the members share (the system, the configuration, the run's options, the
inputs); ``run_members(job, indices)`` gives one summary row per member. Each worker process keeps
the formulation it built for a job (and parameter values) in a small cache, so the numeric model
is built once per worker, not once per member.
"""
from __future__ import annotations

import hashlib
import pickle
import re
import time
from dataclasses import dataclass, field

import numpy as np

from systems.errors import ArgumentError, InconsistentStateError, SystemDescriptionError

from ...errors import CapabilityError
from ...results.ensemble import SCALAR_COLUMNS as SCALARS, VECTOR_COLUMNS as VECTORS
from ...results.trajectory import FAILED
from ..comparison.compare import Configuration
from .variations import Inputs, Roles

SETUP_ERRORS = (ArgumentError, CapabilityError, TypeError)  # a configuration that cannot run: raised, not a row


@dataclass(frozen=True)
class Job:
    """What the members of an ensemble share. run: simulate's keyword options; base: (p, v) that
    members start from (None: the family's state or the system's default state); states: explicit
    (p, v) per member (None: from the inputs); outcome: a systems.families.Outcome whose first
    crossing time is summarized (None: none)."""

    system: object
    configuration: Configuration  # its options hold the backend
    t_span: tuple
    run: dict
    inputs: Inputs
    roles: Roles
    base: tuple | None = None
    states: tuple | None = None
    outcome: object = None
    keep_trajectories: bool = False
    key: str = field(default="", compare=False)

    def __len__(self):
        return len(self.states) if self.states is not None else max(len(self.inputs), 1)

    def fingerprint(self) -> str:
        """A hash of everything that decides the members' results (for resuming and worker caches)."""
        run = sorted((k, re.sub(" at 0x[0-9a-f]+", "", repr(v))) for k, v in self.run.items())  # no addresses
        parts = (self.system.name, self.system.parameter_values, repr(self.configuration), self.t_span, run,
                 self.inputs.names, self.inputs.values.tobytes(),
                 None if self.base is None else [np.asarray(x).tobytes() for x in self.base],
                 None if self.states is None else [np.asarray(x).tobytes() for s in self.states for x in s],
                 repr(self.outcome), self.keep_trajectories, self.roles)
        return hashlib.sha256(pickle.dumps(parts)).hexdigest()[:16]


_CACHE: dict = {}  # (job key, parameter values) -> (system, formulation), per worker process


def formulation(job, params: dict):
    """(system, formulation) of ``job`` at parameter values ``params``, built once per process."""
    key = (job.key, tuple(sorted(params.items())))
    if key not in _CACHE:
        if len(_CACHE) > 64:
            _CACHE.clear()
        system = job.system.with_parameters(**params) if params else job.system
        _CACHE[key] = (system, job.configuration.build(system))
    return _CACHE[key]


def member_state(job, system, values: dict, i: int):
    """The consistent initial (p, v) of member ``i`` (its input ``values``)."""
    if job.states is not None:
        return job.states[i]
    roles = job.roles
    fix = ()
    if job.base is not None:
        p, v = (np.array(x, float) for x in job.base)
    elif roles.family is not None:
        p, v, fix = system.family(roles.family).guess(system, **{k: values[k] for k in roles.family_variables})
    else:
        p, v = system.default_state()
    if not roles.components and not fix:
        return p, v
    for name in roles.components:
        kind, k = system.index_of(name)
        (p if kind == "p" else v)[k] = values[name]
    return system.consistent_state(p, v, fix=tuple(dict.fromkeys((*fix, *roles.components))))


def run_members(job, indices) -> list:
    """Summary rows (dicts) of members ``indices``: one per member, failures included."""
    return [run_member(job, int(i)) for i in indices]


def run_member(job, i: int, raise_setup: bool = False) -> dict:
    """The summary row of member ``i``. A member that cannot start (a parameter value out of range,
    no consistent state) or whose run raises keeps its message and status -1; with ``raise_setup``
    a configuration error (bad option, a method that does not fit) is raised instead."""
    started = time.perf_counter()
    values = job.inputs.member(i) if len(job.inputs) else {}
    params = {k: values[k] for k in job.roles.parameters}
    try:
        system, form = formulation(job, params)
        state0 = member_state(job, system, values, i)
        traj = form.simulate(job.t_span, state0, **job.run)
    except (InconsistentStateError, SystemDescriptionError) as exc:
        return failed_row(job, i, f"member {i} ({_show(values)}) could not start: {exc}", started)
    except Exception as exc:  # noqa: BLE001  (a member that breaks must not stop the others)
        if raise_setup and isinstance(exc, SETUP_ERRORS):
            raise
        return failed_row(job, i, f"member {i} ({_show(values)}): {type(exc).__name__}: {exc}", started)
    return summary_row(job, i, traj)


def _show(values) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in values.items()) or "no inputs"


def failed_row(job, i, message, started) -> dict:
    n_p, n = len(job.system.coordinates), len(job.system.velocities)
    row = {name: np.nan for name in SCALARS}
    row.update(member=i, status=FAILED, message=message, event_name="", steps=0, rhs_evaluations=0, events=0,
               wall_time=time.perf_counter() - started, trajectory=None)
    row.update({k: np.full(n_p if k[0] == "p" else n, np.nan) for k in VECTORS})
    return row


def summary_row(job, i, traj) -> dict:
    errors = traj.constraint_errors.max()
    empty = traj.t.size == 0
    row = {"member": i, "status": traj.status, "message": traj.message, "t_final": np.nan if empty else traj.t[-1],
           "steps": traj.stats.steps, "rhs_evaluations": traj.stats.rhs_evaluations, "wall_time": traj.stats.wall_time,
           "error_position": errors["position"], "error_velocity": errors["velocity"],
           "error_acceleration": errors["acceleration"], "energy_drift": traj.energy_drift,
           "events": len(traj.events), "first_event_t": traj.events[0].t if traj.events else np.nan,
           "event_name": traj.events[0].name if traj.events else "",
           "outcome_t": outcome_time(job, traj), "trajectory": traj if job.keep_trajectories else None}
    for name, data in (("p", traj.p), ("v", traj.v)):
        width = data.shape[1] if data.ndim == 2 else 0
        for suffix, fn in (("final", lambda a: a[-1]), ("min", lambda a: a.min(axis=0)),
                           ("max", lambda a: a.max(axis=0))):
            row[f"{name}_{suffix}"] = np.full(width, np.nan) if empty else fn(data)
    return row


def outcome_time(job, traj) -> float:
    """The first time abs(coordinate) reaches the outcome's limit, linearly interpolated between the
    two recorded points around the crossing (every accepted step is recorded unless t_eval is
    given); NaN when it never does."""
    if job.outcome is None or traj.t.size == 0:
        return np.nan
    k = job.system.coordinate_names.index(job.outcome.coordinate)
    x = np.abs(traj.p[:, k]) - job.outcome.limit
    hit = np.flatnonzero(x >= 0)
    if hit.size == 0:
        return np.nan
    j = hit[0]
    if j == 0:
        return float(traj.t[0])
    w = -x[j - 1] / (x[j] - x[j - 1])
    return float(traj.t[j - 1] + w * (traj.t[j] - traj.t[j - 1]))

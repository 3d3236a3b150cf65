"""Ensembles: one configuration run over many initial states or parameter values.

    import numpy as np, systems, formulations
    disc = systems.load("rolling_disc")
    ens = formulations.ensemble(disc, "dependent", formulations.grid(spin=np.linspace(0, 6, 60),
                                lean=np.linspace(0, 0.5, 20)), t_span=(0.0, 5.0))
    ens.on_grid(ens.reached)       # which members fell (the family's outcome: abs(theta) >= 1 rad)

Every member is an ordinary ``simulate`` call with the same options, so an ensemble's member equals
the single run with the same inputs; results come in member order whatever the worker count.
"""
from __future__ import annotations

import json
import pathlib
import pickle
import time
import warnings
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from systems.arguments import state_pair, time_span, whole
from systems.catalogue import as_system
from systems.errors import ArgumentError, ArgumentTypeError
from systems.families import Outcome

from ...errors import EnsembleInterrupted
from ...dependent import Dependent
from ...results.ensemble import SCALAR_COLUMNS, VECTOR_COLUMNS, Collected, EnsembleResult
from ..comparison.compare import Configuration
from .execution import available_workers, chunks, run_dask, run_pool, run_serial, start_early
from .variations import as_inputs, roles
from . import members as ensemble_members
from .members import Job

SERIAL_BELOW = 3.0  # s of estimated work under which the members run in this process
EARLY_POOL = 256    # members from which the pool's fork server starts before the job is prepared
MAX_CHUNK = 64
LONG = 600.0  # s of estimated work from which ensemble warns with the estimate


def ensemble(system, configuration=Dependent.name, inputs=None, t_span=(0.0, 10.0), *, states=None, state=None,
             family=None, outcome="default", backend=None, workers=None, client=None, chunk_size=None,
             resume=None, trajectories=False, progress=None, **run) -> EnsembleResult:
    """Run one configuration of ``system`` once per member and summarize each run (an EnsembleResult).

    Parameters
    ----------
    system : System or str
        The system, or a catalogue name.
    configuration, backend : str or Configuration, and str, optional
        As in ``compare`` (``"minimal"``, ``"dependent+projection@dopri5"``, a Configuration; default "dependent"); the
        formulation's backend ("compiled" pays its compile once).
    inputs : Inputs or dict, optional
        :func:`grid`, :func:`sample` or {name: values} of equal-length columns, by name: parameters, variables of a
        state family, coordinates or velocities (set on the base state and held while it is made consistent).
    t_span : tuple of float, optional
        (t0, t1) in s (default (0, 10)).
    states, state : list of tuple, optional
        Explicit initial (p, v) per member instead (or arrays P (N, n_p), V (N, n)); or a base (p, v) for all.
    family : str, optional
        The state family of the inputs' names (default: the family that declares them).
    outcome : tuple, Outcome, str or None, optional
        ("theta", 1.0, "fallen") or a ``systems.Outcome``: the first time abs(theta) reaches 1.0 is summarized per
        member; "default" (default): the family's outcome; None: none.
    workers, client, chunk_size : int, Client or str, and int, optional
        Processes of the local pool (default: the cores; 1 runs here); or a ``dask.distributed`` Client or
        scheduler address (the same call on a cluster); members per task (default: up to 64, at least 8 tasks per
        worker).
    resume : str or Path, optional
        A folder keeping every finished chunk: a later call with the same folder and inputs computes only the rest.
    trajectories, progress : bool and callable, optional
        True keeps each member's Trajectory (memory grows with the members; default False);
        ``progress(i, n, label)`` is called as members finish.
    **run
        The options of ``simulate`` (rtol, atol, method, step, t_eval, events, max_steps ...), the same for all.

    Returns
    -------
    EnsembleResult
        One row per member. A member that fails (no consistent state, a parameter out of range, a failed run)
        keeps status -1 and its message; the others go on.

    Raises
    ------
    EnsembleInterrupted
        On Ctrl-C, holding the members that finished.
    ArgumentError, ArgumentTypeError
        For bad arguments, up front.

    Examples
    --------
    >>> import numpy as np, formulations
    >>> ens = formulations.ensemble("knife_edge", "minimal", formulations.grid(phi_dot=[1.0, 2.0]), (0.0, 0.5),
    ...                             outcome=("phi", 0.8, "turned"))  # phi = phi_dot t reaches 0.8 rad?
    >>> ens.status.tolist(), ens.reached.tolist(), np.round(ens.columns["outcome_t"], 6).tolist()  # t in s
    ([0, 0], [False, True], [nan, 0.4])
    """
    started = time.perf_counter()
    system = as_system(system)
    workers = None if workers is None else whole("workers", workers, minimum=1)
    chunk_size = None if chunk_size is None else whole("chunk_size", chunk_size, minimum=1)
    _pool_ahead(inputs, workers, client)
    job = _job(system, configuration, backend, inputs, t_span, run, family, state, states, outcome, trajectories)
    total = len(job)
    folder = _resume_folder(resume, job, trajectories)
    rows = Collected(total, len(system.coordinates), len(system.velocities))
    for row in _load_rows(folder) if folder else ():
        rows.add(row)
    todo = [i for i in range(total) if i not in rows]
    resumed = len(rows)
    stats = {"members": total, "resumed": resumed}
    deliver = _deliverer(rows, folder, job, progress)
    try:
        _run_members(job, todo, rows, deliver, stats, workers=workers, client=client, chunk_size=chunk_size,
                     folder=folder)
    except KeyboardInterrupt:
        stats.update(wall_time=time.perf_counter() - started, computed=len(rows) - resumed, interrupted=True)
        raise EnsembleInterrupted(_result(rows, job, stats), len(rows), total) from None
    stats.update(wall_time=time.perf_counter() - started, computed=len(rows) - resumed)
    return _result(rows, job, stats)


def _pool_ahead(inputs, workers, client):
    """Start the local pool's fork server (execution.start_early) where EARLY_POOL members or more
    may run on it: it imports on another core while this process prepares the job and runs the
    first members. The members given as ``states`` are not counted (the job checks them)."""
    if client is not None or workers == 1 or available_workers() < 2:
        return
    try:
        members = len(as_inputs(inputs))
    except (TypeError, ValueError):  # the job names what is wrong with them
        return
    if members >= EARLY_POOL:
        start_early()


def _job(system, configuration, backend, inputs, t_span, run, family, state, states, outcome, trajectories) -> Job:
    """The checked Job the members share; a bad configuration raises here, before any member runs."""
    config = Configuration.parse(configuration)
    if backend is not None:
        config = Configuration(config.formulation, config.stabilization, config.method,
                               {**config.options, "backend": backend}, "", config.step)
    run = {"method": config.method, "step": config.step, **run}
    inputs = as_inputs(inputs)
    job = Job(system, config, _span(t_span), run, inputs, roles(system, inputs.names, family),
              _base(system, state), _states(system, states, inputs), None, bool(trajectories))
    _check_state_sources(job)
    job = _with(job, outcome=_outcome(system, job.roles, outcome))
    job = _with(job, key=job.fingerprint())
    ensemble_members.formulation(job, {})
    return job


def _deliverer(rows, folder, job, progress):
    """deliver(new rows): collects them, keeps them in the resume folder and reports progress."""
    label = job.configuration.label

    def deliver(new):
        for row in new:
            rows.add(row)
        if folder:
            _save_rows(folder, new, job.system, label, job.inputs, job)
        if progress is not None:
            progress(len(rows), len(job), label)

    return deliver


def _result(rows, job, stats) -> EnsembleResult:
    return rows.result(job.system, job.configuration.label, job.inputs, _settings(job), stats, job.outcome,
                       job.keep_trajectories)


def _run_members(job, todo, rows, deliver, stats, *, workers, client, chunk_size, folder):
    """Run the members ``todo``: the first two here (configuration errors raise; a compiled backend
    compiles once, before workers start), the rest as planned from their time. ``stats`` gets the
    executor, workers and chunk size."""
    pilots = todo[:2]
    for i in pilots:
        deliver([ensemble_members.run_member(job, i, raise_setup=True)])
    rest = todo[len(pilots):]
    per_member = rows.wall_time(pilots[-1]) if pilots else 0.0
    mode, count, size = _plan(len(rest), per_member, workers, client, chunk_size)
    stats.update(executor=mode, workers=count, chunk_size=size)
    _warn_if_long(len(rest), per_member, count or 1, folder)
    parts = chunks(rest, size)
    if mode == "dask":
        run_dask(job, parts, deliver, client)
    elif mode == "pool":
        _run_on_pool(job, rest, parts, rows, deliver, stats, count, size)
    else:
        run_serial(job, parts, deliver)


def _run_on_pool(job, rest, parts, rows, deliver, stats, count, size):
    """On ``count`` local processes; where the pool breaks, the members left run in this process."""
    _check_picklable(job)
    try:
        run_pool(job, parts, deliver, count)
    except BrokenProcessPool:
        left = [i for i in rest if i not in rows]
        warnings.warn(f"ensemble: a worker process stopped abruptly (killed, out of memory, or a script that "
                      f"calls ensemble outside 'if __name__ == \"__main__\":', which each worker imports); "
                      f"the {len(left)} members left run in this process", stacklevel=4)
        stats.update(executor="pool, then this process")
        run_serial(job, chunks(left, size), deliver)


def _warn_if_long(count, per_member, workers, folder):
    """A warning with the estimated time where the members ahead will take over LONG seconds."""
    seconds = count * per_member / workers
    if seconds > LONG:
        keep = "; with resume= a later call continues" if folder is None else f"; {str(folder)!r} keeps them"
        warnings.warn(f"ensemble: {count} members to run at about {1e3 * per_member:.0f} ms each (the first "
                      f"members' time) on {workers} worker(s): about {seconds / 60:.0f} minutes; Ctrl-C keeps the "
                      f"members that finished{keep}", stacklevel=4)


def _check_state_sources(job):
    """One source per part of the initial state: explicit states, or a base state, or a family."""
    named = job.roles.family_variables + job.roles.components
    if job.states is not None and named:
        raise ArgumentError(f"states and the inputs {', '.join(named)} both set the initial states; expected "
                            f"one of them (the inputs may still vary parameters)", "states")
    if job.base is not None and job.roles.family_variables:
        raise ArgumentError(f"state and the state-family inputs {', '.join(job.roles.family_variables)} both set "
                            f"the initial state; expected one of them", "state")


def _with(job, **changes):
    from dataclasses import replace

    return replace(job, **changes)


def _span(t_span):
    return tuple(float(x) for x in time_span(t_span))


def _base(system, state):
    return None if state is None else tuple(np.asarray(x, float) for x in state_pair(system, state))


def _states(system, states, inputs):
    if states is None:
        return None
    try:
        pairs = list(zip(*states)) if isinstance(states, tuple) and len(states) == 2 and np.ndim(states[0]) == 2 \
            else list(states)
    except TypeError:
        raise ArgumentTypeError(f"states got {type(states).__name__}; expected a sequence of (p, v) pairs or "
                                f"a pair of arrays P (N, n_p), V (N, n)", "states") from None
    checked = tuple(tuple(np.asarray(x, float) for x in state_pair(system, s)) for s in pairs)
    if not checked:
        raise ArgumentError("states got no states; expected at least one (p, v)", "states")
    if len(inputs) and len(inputs) != len(checked):
        raise ArgumentError(f"states got {len(checked)} states but inputs have {len(inputs)} members; expected "
                            f"one state per member", "states")
    return checked


def _outcome(system, member_roles, outcome):
    if isinstance(outcome, str) and outcome == "default":
        fam = system.family(member_roles.family) if member_roles.family else None
        return fam.outcome if fam else None
    if outcome is None or isinstance(outcome, Outcome):
        result = outcome
    else:
        try:
            coordinate, limit, label = outcome
            result = Outcome(str(coordinate), float(limit), str(label))
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"outcome got {outcome!r}; expected (coordinate, limit, label), e.g. "
                                    f"('theta', 1.0, 'fallen'), a systems.Outcome or None", "outcome") from None
    if result is not None and result.coordinate not in system.coordinate_names:
        raise ArgumentError(f"outcome got coordinate {result.coordinate!r}; expected one of: "
                            f"{', '.join(system.coordinate_names)}", "outcome")
    return result


def _plan(count, per_member, workers, client, chunk_size):
    """(executor, workers, chunk size) for ``count`` members of about ``per_member`` s each."""
    if client is not None:
        return "dask", None, chunk_size or max(1, min(MAX_CHUNK, count // 16 or 1))
    workers = workers or available_workers()
    if workers == 1 or count * per_member < SERIAL_BELOW and chunk_size is None:
        return "serial", 1, chunk_size or max(1, min(MAX_CHUNK, count // 8 or 1))
    return "pool", workers, chunk_size or max(1, min(MAX_CHUNK, count // (8 * workers) or 1))


def _check_picklable(job):
    try:
        pickle.dumps(job)
    except Exception as exc:  # noqa: BLE001  (lambdas in events, user objects ...)
        raise ArgumentError(f"the ensemble's options cannot be sent to worker processes ({exc}); use module-level "
                            f"functions for events and forces, or workers=1", "events") from None


def _settings(job) -> dict:
    run = {k: v for k, v in job.run.items() if k not in ("events", "t_eval")}
    return {"configuration": job.configuration.label, "t_span": list(job.t_span), "family": job.roles.family,
            **{k: (v if isinstance(v, (int, float, str, type(None))) else repr(v)) for k, v in run.items()},
            "events": len(job.run.get("events", ()) or ()), "parameters": dict(job.system.parameter_dict)}


# -- resuming -------------------------------------------------------------------------------------
JOB_FILE = "ensemble.json"


def _resume_folder(resume, job, trajectories):
    if resume is None:
        return None
    if trajectories:
        raise ArgumentError("resume keeps the members' summaries only; expected trajectories=False with resume",
                            "resume")
    folder = pathlib.Path(resume)
    if folder.exists() and not folder.is_dir():
        raise ArgumentError(f"resume got {str(folder)!r}, an existing file; expected a folder", "resume")
    marker = folder / JOB_FILE
    if folder.is_dir() and not marker.exists() and any(folder.iterdir()):
        raise ArgumentError(f"resume folder {str(folder)!r} holds other files; expected a new or an empty folder, or "
                            f"one that an ensemble made", "resume")
    folder.mkdir(parents=True, exist_ok=True)
    if marker.exists():
        try:
            known = json.loads(marker.read_text())
        except ValueError:
            raise ArgumentError(f"resume folder {str(folder)!r}: {JOB_FILE} is not readable; expected the file an "
                                f"ensemble wrote (remove the folder to start again)", "resume") from None
        if known.get("fingerprint") != job.key:
            raise ArgumentError(f"resume folder {str(folder)!r} holds members of another ensemble "
                                f"({known.get('what')}); "
                                f"expected the same system, configuration, options and inputs, or a new folder",
                                "resume")
    else:
        what = f"{job.system.name} {job.configuration.label}, {len(job)} members"
        marker.write_text(json.dumps({"fingerprint": job.key, "what": what}))
    return folder


def _save_rows(folder, rows, system, label, inputs, job):
    part = EnsembleResult.from_rows(rows, system, label, inputs, {}, {}, job.outcome, False)
    first = min(r["member"] for r in rows)
    tmp = folder / f".part-{first:08d}.npz.tmp"
    part.save(tmp)
    tmp.replace(folder / f"part-{first:08d}.npz")


def _load_rows(folder) -> list:
    """The rows kept in a resume folder."""
    rows = []
    for path in sorted(folder.glob("part-*.npz")):
        part = EnsembleResult.load(path)
        for j in range(len(part)):
            row = {k: part.columns[k][j] for k in SCALAR_COLUMNS + VECTOR_COLUMNS}
            row.update(member=int(row["member"]), status=int(row["status"]), message=part.messages[j],
                       event_name=part.event_names[j], trajectory=None)
            rows.append(row)
    return rows

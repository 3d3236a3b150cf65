"""Tiered execution (formulations.solvers.tiers, systems.numeric.background): on the backend "auto" a
run whose machine code is not ready goes ahead on numpy and hands the compile to one background
process; a second process then finds the code ready and runs compiled; two first runs at once start
one compile; a compile killed half way is taken over by the next run and leaves a cache that works."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time
from types import SimpleNamespace

import numpy as np
import pytest

import formulations
import systems
from formulations.workbench.comparison.compare import Configuration
from systems.numeric import background

pytest.importorskip("numba")

ROOT = pathlib.Path(__file__).resolve().parents[1]
SESSION_CACHE = pathlib.Path(os.environ["PFAFF_CACHE_DIR"])  # the run's (tests/conftest.py), numba's beside it
RUN = textwrap.dedent("""
    import json, sys
    import formulations, systems
    form = formulations.create(sys.argv[1], systems.load(sys.argv[2]))
    traj = form.simulate((0.0, 0.05), rtol=1e-6, atol=1e-6)
    print(json.dumps({"created": form.backend, "backend": traj.stats.backend, "status": int(traj.status),
                      "note": traj.settings.get("backend"), "compile": traj.stats.compile_time}))
""")


def _environment(cache, compile_in_background=True):
    env = dict(os.environ, PFAFF_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("PFAFF_BACKEND", None)  # the default, "auto"
    env[background.ENVIRONMENT] = "1" if compile_in_background else "0"
    if cache != SESSION_CACHE:  # numba's machine code beside the generated modules of this cache
        env["NUMBA_CACHE_DIR"] = str(cache / "numba")
    return env


def _start(cache, formulation="dependent", system="knife_edge", **options):
    return subprocess.Popen([sys.executable, "-c", RUN, formulation, system], cwd=ROOT, env=_environment(cache, **options),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(process):
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1]) | {"stderr": err}


def _kill(pids):
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)  # the child leads its own session
        except ProcessLookupError:
            pass


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder for this test, its background compiles killed at the end."""
    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path))
    yield tmp_path
    _kill(background.pending())


def _job(system="knife_edge", formulation="dependent", method="DOP853", stabilization=None):
    form = formulations.create(formulation, systems.load(system), stabilization=stabilization, backend="numpy")
    return form.job(method)


def test_a_job_is_ready_once_marked_and_its_key_names_what_is_compiled(cache):
    job = _job()
    assert not background.ready(job)
    background.mark_ready(job)
    assert background.ready(job)
    others = [_job(method="RK45"), _job(formulation="minimal"), _job(system="rolling_disc"),
              _job(stabilization="projection")]
    assert len({job.key()} | {other.key() for other in others}) == 5
    assert not any(background.ready(other) for other in others)
    assert _job(stabilization="baumgarte").key() != job.key()  # gains are run-time constants, the name is not


def test_a_claim_is_exclusive_until_its_process_is_gone(cache):
    job = _job()
    assert background._claim(job)
    assert not background._claim(job)  # a claim without a process id yet: still starting
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    background.write(background.folder() / "pending" / job.key(), str(dead.pid))
    assert background._claim(job)  # its process has ended without marking the job ready: taken over
    background.write(background.folder() / "pending" / job.key(), str(os.getpid()))
    assert not background._claim(job)  # a live process holds it


def test_nothing_is_started_with_background_compiling_off(cache, monkeypatch):
    monkeypatch.setenv(background.ENVIRONMENT, "0")
    assert background.submit([_job()]) == []
    result = _result(_start(cache, compile_in_background=False))
    assert (result["created"], result["backend"], result["status"]) == ("numpy", "numpy", 0)
    assert "background compiling is off" in result["note"]
    assert background.pending() == [] and not (background.folder() / "pending").exists()


def test_a_failed_compile_is_said_and_not_tried_again_until_it_expires(cache, monkeypatch):
    from formulations.solvers import tiers

    monkeypatch.setenv(background.ENVIRONMENT, "1")
    job = _job()
    marker = background.folder() / "ready" / f"{job.key()}.failed"
    marker.parent.mkdir(parents=True)
    background.write(marker, "RuntimeError: the short run failed")
    assert background.submit([job]) == []  # nothing started for it
    assert tiers.note_for([job], []) == "numpy: the machine code could not be prepared (RuntimeError: the short run failed)"
    old = time.time() - background.FAILED_FOR - 1
    os.utime(marker, (old, old))
    assert background.failed(job) is None


def test_a_background_compile_that_cannot_start_is_said(cache, monkeypatch):
    from formulations.solvers import tiers

    def no_process(request):
        raise OSError("no processes left")

    monkeypatch.setenv(background.ENVIRONMENT, "1")
    monkeypatch.setattr(background, "_spawn", no_process)
    job = _job()
    assert background.submit([job]) == []
    assert "no processes left" in (background.folder() / "background.log").read_text()
    assert tiers.note_for([job], []) == tiers.NUMPY_NOT_STARTED
    assert background.pending() == [] and not (background.folder() / "pending" / job.key()).exists()


@pytest.mark.xdist_group("compiled")  # the background compile of the disc's module
def test_two_first_runs_at_once_start_one_compile_and_a_killed_one_is_taken_over(cache):
    first, second = _start(cache), _start(cache)
    results = [_result(first), _result(second)]
    assert [r["backend"] for r in results] == ["numpy", "numpy"]
    assert all("prepared in the background" in r["note"] for r in results)
    running = background.pending()
    assert len(running) == 1, running  # one compile for both runs
    assert len(list((background.folder() / "requests").glob("*.pickle"))) <= 1
    _kill(running)
    deadline = time.monotonic() + 30
    while background.pending() and time.monotonic() < deadline:
        time.sleep(0.1)
    third = _result(_start(cache))  # the claim of the killed compile is stale: this run starts another
    assert third["backend"] == "numpy"
    again = background.pending()
    assert len(again) == 1 and again != running


# the session's cache: the dependent module of the rolling disc's kind (tests/test_backends.py) and the DOP853
# loop (tests/test_compiled_agreement.py) are shared, so the background process mostly loads them
@pytest.mark.xdist_group("compiled")
def test_the_next_process_finds_the_machine_code_ready_and_runs_compiled(monkeypatch):
    shared = SESSION_CACHE  # the same path: numba's cache knows a generated module by its file's path
    monkeypatch.setenv("PFAFF_CACHE_DIR", str(shared))
    job = _job(formulation="dependent", system="rolling_disc")
    if background.ready(job):  # marked by another test of this run: start from "not ready"
        (background.folder() / "ready" / job.key()).unlink()
    try:
        first = _result(_start(shared, system="rolling_disc"))
        assert (first["created"], first["backend"]) == ("numpy", "numpy")
        assert background.wait(timeout=600), "the background compile did not end within 10 minutes"
    finally:
        _kill(background.pending())
    log = (background.folder() / "background.log").read_text()
    assert f"ready {job.key()}" in log, log
    second = _result(_start(shared, system="rolling_disc"))
    assert (second["created"], second["backend"], second["status"]) == ("compiled", "compiled", 0)
    assert second["note"].startswith("compiled")
    assert "pfaff: compiling" not in second["stderr"]  # loaded: none of the modules' functions compiled


@pytest.mark.xdist_group("compiled")
@pytest.mark.slow  # the chart evaluation's module: about 30 s of compiling on a new machine
def test_the_background_compile_of_a_formulation_on_charts_takes_a_new_chart_and_marks_it_ready():
    """The compiling run of a formulation on tangent-space charts also takes a new chart (its restart
    compiles), from a chart at the run's end: the run's own chart belongs to the run's copy, never to
    the formulation (Formulation.for_run)."""
    from formulations.solvers.background import compile_job

    form = formulations.create("manifold", systems.load("rolling_disc"))
    job = form.job()
    traj = compile_job(job)
    assert traj.stats.backend == "compiled" and background.ready(job)
    assert form.geometry.p0 is None  # the formulation took no chart itself


@pytest.mark.slow
def test_a_killed_compile_leaves_a_cache_that_compiles_and_runs(cache):
    _result(_start(cache))
    time.sleep(8)  # well into numba's compile of the dependent module
    _kill(background.pending())
    env = _environment(cache)
    env["PFAFF_BACKEND"] = "compiled"
    run = subprocess.run([sys.executable, "-c", RUN, "dependent", "knife_edge"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert (result["backend"], result["status"]) == ("compiled", 0)


def test_a_comparison_runs_every_row_on_one_backend_and_says_which(cache, monkeypatch):
    from formulations.solvers import tiers
    from formulations.workbench.comparison.compare import REFERENCE, Configuration

    monkeypatch.delenv("PFAFF_BACKEND", raising=False)
    monkeypatch.setenv(background.ENVIRONMENT, "0")
    disc = systems.load("knife_edge")
    configurations = ["dependent", "minimal", "reduced+projection@dopri5"]
    jobs = [Configuration.parse(c).job(disc) for c in configurations] + [REFERENCE.job(disc)]
    background.mark_ready(jobs[0])  # one row ready is not enough: the rows share numpy
    comparison = formulations.compare(disc, configurations, (0.0, 0.2), samples=5)
    assert {row.backend for row in comparison.rows} == {"numpy"}
    assert "background compiling is off" in comparison.backend_note
    assert any(note.startswith("Backend: numpy") for note in comparison.reading())
    for job in jobs:
        background.mark_ready(job)
    assert tiers.choose(jobs) == ("compiled", tiers.COMPILED_READY)
    explicit = formulations.compare(disc, ["dependent"], (0.0, 0.2), samples=5, backend="numpy")
    assert explicit.backend_note is None and explicit.rows[0].backend == "numpy"


def test_a_system_that_evaluated_its_invariants_still_goes_to_a_background_compile():
    """A system keeps the lambdified functions it works out on demand (its invariants); pickled for
    a background compile (or a process pool) it leaves them behind, and the other process works them
    out again."""
    import pickle

    system = systems.load("knife_edge")
    p, v = system.default_state()
    before = system.invariant_values(p[None], v[None])
    copy = pickle.loads(pickle.dumps(_job().system))
    after = copy.invariant_values(p[None], v[None])
    assert before.keys() == after.keys() and all(np.array_equal(before[k], after[k]) for k in before)


def test_warming_ahead_readies_every_configuration_a_comparison_runs(monkeypatch):
    """`pfaff cache warm` hands each configuration of the comparison (stabilizations included; the
    Lie-group ones of a system of bodies with their own method; formulations with no compiled loop
    for the system, whose short run compiles the system's kernels) to the background compile's
    short run, so that compare and advise then run compiled. The compiling itself is tested above:
    here the formulations are built on numpy and the jobs only recorded."""
    from formulations.solvers import warm
    from formulations.workbench.comparison.compare import REFERENCE, default_configurations

    compiled, create = [], warm.create
    monkeypatch.setattr(warm, "create", lambda *a, **options: create(*a, **{**options, "backend": "numpy"}))
    monkeypatch.setattr(warm, "compile_job", lambda job: compiled.append(job) or SimpleNamespace(
        stats=SimpleNamespace(compile_time=0.0)))
    turntable, top = systems.load("ball_on_turntable"), systems.load("heavy_top")  # rheonomic; bodies
    rows = warm.warm([turntable]) + warm.warm([top], default_configurations)
    for system in (turntable, top):
        runs = [c.job(system) for c in map(Configuration.parse, default_configurations(system))]
        assert set(runs + [REFERENCE.job(system)]) <= set(compiled)
    assert len(rows) == len(compiled) and {"udwadia_kalaba", "minimal", "dependent+projection"} <= {r[1] for r in rows}
    assert {(r[1], r[2]) for r in rows if r[0] == "heavy_top" and "@" in r[1]} == {
        ("dependent@RKMK45-SE3", "RKMK45-SE3"), ("dependent@RKMK45-SO3xR3", "RKMK45-SO3xR3")}

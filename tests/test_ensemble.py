"""Ensembles (formulations.ensemble): members equal single runs, the same table whatever runs them
(this process, a process pool, a Dask LocalCluster), failing members keep their messages, an
interrupted sweep resumes without recomputing, and the disc map separates fallers from upright
members along sqrt(g / (3 r)) (Neimark & Fufaev)."""
import json
import math
import pickle

import numpy as np
import pytest
import sympy as sp

import formulations
import systems
from formulations.workbench.ensembles import members as ensemble_members
from formulations.workbench.cli.main import main

DISC = systems.load("rolling_disc")
CRITICAL = math.sqrt(9.81 / (3 * 0.5))  # rad/s: the upright thin disc rolls stably above this spin


def _same_table(a, b):
    ta, tb = a.table(), b.table()
    assert list(ta) == list(tb)
    for name in ta:
        if name == "wall_time":
            continue
        if ta[name].dtype == object:
            assert list(ta[name]) == list(tb[name]), name
        else:
            np.testing.assert_array_equal(ta[name], tb[name], err_msg=name)


def test_members_equal_single_runs():
    inputs = formulations.grid(spin=[1.0, 5.0], lean=[0.05, 0.2])
    ens = formulations.ensemble(DISC, "minimal", inputs, (0.0, 2.0), rtol=1e-9, atol=1e-9, workers=1)
    assert len(ens) == 4 and ens.shape == (2, 2)
    form = formulations.create("minimal", DISC)
    for i in range(4):
        values = inputs.member(i)
        traj = form.simulate((0.0, 2.0), DISC.family().state(DISC, **values), rtol=1e-9, atol=1e-9)
        assert ens.status[i] == traj.status
        np.testing.assert_array_equal(ens.columns["p_final"][i], traj.p[-1])
        np.testing.assert_array_equal(ens.columns["v_final"][i], traj.v[-1])
        assert ens.columns["steps"][i] == traj.stats.steps
        assert ens.columns["energy_drift"][i] == traj.energy_drift
        assert ens.coordinate("theta", "max")[i] == traj.p[:, 4].max()


def test_parameter_members_equal_runs_of_the_changed_system():
    ens = formulations.ensemble(DISC, "dependent", {"r": [0.3, 0.6]}, (0.0, 1.0), workers=1)
    for i, r in enumerate((0.3, 0.6)):
        system = systems.load("rolling_disc", r=r)
        traj = formulations.create("dependent", system).simulate((0.0, 1.0), system.default_state())
        np.testing.assert_array_equal(ens.columns["p_final"][i], traj.p[-1])
    assert ens.settings["parameters"]["r"] == 0.5  # the base system's


def test_state_components_are_held_and_the_rest_made_consistent():
    ens = formulations.ensemble(DISC, "dependent", {"theta": [0.1, 0.4]}, (0.0, 0.5), workers=1,
                                trajectories=True)
    for i, theta in enumerate((0.1, 0.4)):
        traj = ens.trajectories[i]
        assert traj.p[0, 4] == theta
        phi, cv = DISC.residuals(traj.p[0], traj.v[0])
        assert np.max(np.abs(phi)) < 1e-12 and np.max(np.abs(cv)) < 1e-12


def test_process_pool_gives_the_same_table():
    inputs = formulations.grid(spin=[1.0, 4.0, 6.0], lean=[0.05, 0.3])
    serial = formulations.ensemble(DISC, "dependent", inputs, (0.0, 1.0), workers=1)
    pooled = formulations.ensemble(DISC, "dependent", inputs, (0.0, 1.0), workers=2, chunk_size=1)
    assert pooled.stats["executor"] == "pool" and pooled.stats["workers"] == 2
    _same_table(serial, pooled)


@pytest.mark.slow  # docs/ensembles.md runs a LocalCluster by default, with the same check
def test_dask_local_cluster_gives_the_same_table():
    distributed = pytest.importorskip("dask.distributed")
    inputs = formulations.grid(spin=[1.0, 6.0], lean=[0.05, 0.3])
    serial = formulations.ensemble(DISC, "dependent", inputs, (0.0, 1.0), workers=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            on_dask = formulations.ensemble(DISC, "dependent", inputs, (0.0, 1.0), client=client, chunk_size=1)
    assert on_dask.stats["executor"] == "dask"
    _same_table(serial, on_dask)


def _nan_force_system():
    """A damped oscillator whose force -c x' has c = sqrt(a): NaN for a < 0."""
    x, a = sp.Symbol("x", real=True), sp.Symbol("a", real=True)
    xd = sp.Symbol("x_dot", real=True)
    return systems.from_lagrangian("damped", [x], xd**2 / 2, x**2 / 2, velocities=[xd], forces=[-sp.sqrt(a) * xd],
                                   parameters=[systems.Parameter(a, 1.0, "1/s^2", "damping squared")],
                                   default_p=[1.0], default_v=[0.0])


def test_failing_members_keep_their_messages_and_the_rest_complete():
    system = _nan_force_system()
    ens = formulations.ensemble(system, "dependent", {"a": [1.0, -1.0, 4.0]}, (0.0, 2.0), workers=1)
    assert list(ens.status) == [0, -1, 0]
    assert ens.failed == (1,)
    assert "not finite" in ens.messages[1] and "force" in ens.messages[1]
    assert ens.columns["t_final"][1] == 0.0 or np.isnan(ens.columns["t_final"][1])
    out = formulations.ensemble(DISC, "dependent", {"r": [0.5, -2.0]}, (0.0, 0.5), workers=1)
    assert list(out.status) == [0, -1] and "could not start" in out.messages[1] and "r" in out.messages[1]


def test_a_terminal_event_is_reported_with_its_name():
    fallen = formulations.Event(lambda t, p, v: abs(p[4]) - 1.0, name="fallen")
    rough = DISC.with_parameters(mu=1.0)  # friction holds it rolling down to 1 rad (at mu = 0.5 it would slide)
    ens = formulations.ensemble(rough, "dependent", {"spin": [0.5, 6.0], "lean": [0.1, 0.1]}, (0.0, 5.0),
                                events=[fallen], workers=1)
    assert list(ens.status) == [1, 0]
    assert ens.event_names == ("fallen", "")
    # the outcome's crossing time (interpolated between recorded points) brackets the located event
    assert ens.columns["outcome_t"][0] == pytest.approx(ens.columns["first_event_t"][0], abs=2e-2)
    assert np.isnan(ens.columns["outcome_t"][1])


def test_disc_map_separates_fallers_along_the_stability_threshold():
    spins = np.array([0.3, 0.4, 1.5, 2.0]) * CRITICAL  # well inside each side
    ens = formulations.ensemble(DISC, "dependent", formulations.grid(lean=[0.02, 0.05], spin=spins), (0.0, 5.0),
                                workers=1)
    assert ens.outcome == {"coordinate": "theta", "limit": 1.0, "label": "fallen"}
    fell = ens.on_grid(ens.reached)
    np.testing.assert_array_equal(fell, np.tile(spins < CRITICAL, (2, 1)))
    upright = ens.on_grid(ens.peak("theta"))[:, 2:]
    assert np.all(upright < 0.25)


def test_an_interrupted_sweep_resumes_without_recomputing(tmp_path, monkeypatch):
    inputs = formulations.grid(spin=[1.0, 3.0, 5.0], lean=[0.05, 0.2])
    calls = []
    original = ensemble_members.run_member

    def counted(job, i, raise_setup=False):
        calls.append(i)
        return original(job, i, raise_setup)

    monkeypatch.setattr(ensemble_members, "run_member", counted)

    def stop_after_three(done, total, label):
        if done >= 3:
            raise KeyboardInterrupt

    with pytest.raises(formulations.EnsembleInterrupted) as caught:
        formulations.ensemble(DISC, "dependent", inputs, (0.0, 1.0), workers=1, chunk_size=1, resume=tmp_path,
                              progress=stop_after_three)
    first = caught.value
    assert first.finished == 3 and first.total == 6 and len(first.result) == 3
    assert "3 of 6 members" in str(first)
    done = set(first.result.columns["member"].astype(int))
    calls.clear()
    resumed = formulations.ensemble(DISC, "dependent", inputs, (0.0, 1.0), workers=1, chunk_size=1, resume=tmp_path)
    assert set(calls) == set(range(6)) - done  # nothing that finished ran again (the pilot may be any member)
    assert resumed.stats["resumed"] == 3 and resumed.stats["computed"] == 3
    _same_table(resumed, formulations.ensemble(DISC, "dependent", inputs, (0.0, 1.0), workers=1))
    pickle.loads(pickle.dumps(first))  # the interruption can be copied to another process


def test_a_resume_folder_of_another_ensemble_is_refused(tmp_path):
    formulations.ensemble(DISC, "dependent", {"spin": [2.0]}, (0.0, 0.2), workers=1, resume=tmp_path)
    with pytest.raises(systems.ArgumentError, match="another ensemble"):
        formulations.ensemble(DISC, "dependent", {"spin": [3.0]}, (0.0, 0.2), workers=1, resume=tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(systems.ArgumentError, match="holds other files"):
        formulations.ensemble(DISC, "dependent", {"spin": [3.0]}, (0.0, 0.2), workers=1, resume=other)


def test_bad_inputs_are_named():
    with pytest.raises(systems.UnknownNameError, match="spinn.*did you mean 'spin'"):
        formulations.ensemble(DISC, "dependent", {"spinn": [1.0]}, (0.0, 1.0))
    with pytest.raises(systems.ArgumentError, match="equal lengths"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0, 2.0], "lean": [0.1]}, (0.0, 1.0))
    with pytest.raises(systems.ArgumentError, match="outcome"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0]}, (0.0, 1.0), outcome=("omega_9", 1.0, "x"))
    with pytest.raises(systems.ArgumentError, match="2 states but inputs have 1"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0]}, (0.0, 1.0),
                              states=[DISC.default_state(), DISC.default_state()])
    with pytest.raises(systems.ArgumentError, match="worker processes"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0, 2.0, 3.0]}, (0.0, 0.1), workers=2, chunk_size=1,
                              events=[formulations.Event(lambda t, p, v: p[4] - 1.0)])
    with pytest.raises(systems.ArgumentError, match="rtol"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0]}, (0.0, 1.0), rtol=-1.0)
    with pytest.raises(systems.ArgumentError):
        formulations.grid(spin=[])
    with pytest.raises(systems.ArgumentError):
        formulations.sample(5, r=(0.6, 0.3))


def test_samples_are_reproducible_and_explicit_states_run():
    a, b = formulations.sample(5, seed=3, r=(0.3, 0.6)), formulations.sample(5, seed=3, r=(0.3, 0.6))
    np.testing.assert_array_equal(a.values, b.values)
    assert np.all((a.values >= 0.3) & (a.values <= 0.6))
    states = [DISC.family().state(DISC, lean=x, spin=4.0) for x in (0.1, 0.2)]
    ens = formulations.ensemble(DISC, "dependent", None, (0.0, 0.5), states=states, workers=1)
    assert len(ens) == 2 and ens.input_names == () and list(ens.status) == [0, 0]


def test_the_table_saves_and_loads(tmp_path):
    ens = formulations.ensemble(DISC, "dependent", formulations.grid(spin=[1.0, 5.0], lean=[0.1]), (0.0, 1.0),
                                workers=1)
    loaded = formulations.EnsembleResult.load(ens.save(tmp_path / "members.npz"))
    _same_table(ens, loaded)
    assert loaded.shape == (2, 1) and loaded.outcome == ens.outcome and loaded.versions["pfaff"]
    assert len(repr(ens)) < 300 and ens.row(1)["spin"] == 5.0


def test_pfaff_sweep_writes_the_table_summary_and_map(tmp_path, capsys):
    out = tmp_path / "map"
    code = main(["sweep", "rolling_disc", "--grid", "spin=0.5:6:2", "--grid", "lean=0.05:0.1:2", "--t-end", "2",
                 "--out", str(out), "--workers", "1", "--quiet", "--backend", "numpy"])
    assert code == 0
    assert {p.name for p in out.iterdir()} >= {"members.npz", "members.csv", "summary.json", "map.png", "report.md"}
    result = formulations.EnsembleResult.load(out / "members.npz")
    assert result.shape == (2, 2) and result.input_names == ("spin", "lean")
    assert not (tmp_path / ".map.members").exists()
    assert "4 members over spin (2) x lean (2)" in capsys.readouterr().out
    assert main(["sweep", "rolling_disc", "--grid", "spin=0:6"]) == 2
    assert "NAME=START:STOP:N" in capsys.readouterr().err
    assert main(["sweep", "rolling_disc", "--grid", "wobble=0:1:2", "--t-end", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "wobble" in err and "lean" in err and "spin" in err


def test_formulations_side_by_side_over_an_ensemble(tmp_path, capsys):
    inputs = formulations.grid(spin=[3.0, 6.0], lean=[0.05, 0.2])
    cmp = formulations.compare_ensemble(DISC, ["dependent", "minimal"], inputs, (0.0, 1.0), workers=1)
    assert cmp.labels == ("dependent", "minimal")
    # the same members, run by two formulations, end in the same states to the tolerance
    np.testing.assert_allclose(cmp.results[0].columns["p_final"], cmp.results[1].columns["p_final"], atol=1e-5)
    stats = cmp.statistics("minimal")
    assert stats["finished"] == 4 and stats["error_position"][2] == cmp.results[1].columns["error_position"].max()
    assert cmp.to_markdown().count("\n") == 3
    out = tmp_path / "cmp"
    code = main(["sweep", "rolling_disc", "--grid", "spin=3:6:2", "--formulations", "dependent", "reduced",
                 "--t-end", "0.5", "--out", str(out), "--workers", "1", "--quiet", "--backend", "numpy"])
    assert code == 0
    assert {p.name for p in out.iterdir()} >= {"members-dependent.npz", "members-reduced.npz", "comparison.png",
                                               "report.md", "summary.json"}
    assert "| reduced | 2 / 2 |" in capsys.readouterr().out


def test_an_interrupted_pfaff_sweep_continues_where_it_stopped(tmp_path, monkeypatch, capsys):
    from formulations.workbench import progress as progress_module
    from formulations.workbench.cli import sweep

    class StopAtThree(progress_module.Progress):
        def __call__(self, i, n, label=""):
            if i >= 3:
                raise KeyboardInterrupt
            super().__call__(i, n, label)

    out = tmp_path / "map"
    argv = ["sweep", "rolling_disc", "--grid", "spin=1:5:3", "--grid", "lean=0.1:0.2:2", "--t-end", "0.5",
            "--out", str(out), "--workers", "1", "--quiet", "--backend", "numpy"]
    monkeypatch.setattr(sweep, "Progress", StopAtThree)
    assert main(argv) == 130
    assert "continues from" in capsys.readouterr().err
    kept = tmp_path / ".map.members"
    assert not out.exists() and len(list(kept.glob("part-*.npz"))) >= 3
    monkeypatch.setattr(sweep, "Progress", progress_module.Progress)
    assert main(argv + ["--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["stats"]["resumed"] >= 3 and summary["stats"]["computed"] == 6 - summary["stats"]["resumed"]
    assert (out / "members.npz").exists() and not kept.exists()


def test_two_sources_of_the_initial_state_are_refused():
    with pytest.raises(systems.ArgumentError, match="both set the initial states"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0]}, (0.0, 0.1), states=[DISC.default_state()])
    with pytest.raises(systems.ArgumentError, match="both set the initial state"):
        formulations.ensemble(DISC, "dependent", {"lean": [0.1]}, (0.0, 0.1), state=DISC.default_state())
    # a base state with coordinates set on it is fine
    ens = formulations.ensemble(DISC, "dependent", {"theta": [0.2]}, (0.0, 0.1), state=DISC.default_state(),
                                workers=1)
    assert ens.status[0] == 0 and ens.coordinate("theta", "min")[0] <= 0.2 <= ens.coordinate("theta", "max")[0]


def test_a_bad_configuration_raises_before_any_member_runs():
    with pytest.raises(systems.UnknownNameError, match="formulation 'nope'"):
        formulations.ensemble(DISC, "nope", {"spin": [1.0]}, (0.0, 0.1))
    with pytest.raises(formulations.CapabilityError, match="method"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0]}, (0.0, 0.1), method="nope")


def test_progress_counts_members_and_estimates_the_time_left():
    import io

    from formulations.workbench.progress import Progress

    with Progress("sweep x", stream=io.StringIO(), quiet=True, unit="members") as bar:
        bar(2, 100)
        assert bar.line().startswith("pfaff: sweep x: 2 of 100 members done") and "left" not in bar.line()
        bar(50, 100)
        assert "50 of 100 members done" in bar.line() and "left" in bar.line()


def test_a_long_ensemble_warns_with_its_estimate(monkeypatch):
    from formulations.workbench.ensembles import ensemble as ensemble_module

    monkeypatch.setattr(ensemble_module, "LONG", 1e-6)
    with pytest.warns(UserWarning, match=r"ensemble: 2 members to run at about .* ms each .* Ctrl-C keeps"):
        formulations.ensemble(DISC, "dependent", {"spin": [1.0, 2.0, 3.0, 4.0]}, (0.0, 0.1), workers=1)


def _start_that_kills_workers(system, values):
    """A state family whose guess ends any worker process abruptly (as a crash or the OOM killer would)."""
    import multiprocessing
    import os

    if multiprocessing.parent_process() is not None:
        os._exit(3)
    return [values["x0"]], [0.0], ("x",)


def test_a_worker_that_dies_leaves_the_rest_to_this_process():
    x, xd = sp.Symbol("x", real=True), sp.Symbol("x_dot", real=True)
    family = systems.StateFamily("start", (systems.StateVariable("x0", 1.0),), _start_that_kills_workers)
    osc = systems.from_lagrangian("oscillator", [x], xd**2 / 2, x**2 / 2, velocities=[xd], default_p=[1.0],
                                  default_v=[0.0], families=(family,))
    with pytest.warns(UserWarning, match="stopped abruptly"):
        ens = formulations.ensemble(osc, "dependent", {"x0": np.linspace(0.1, 1.0, 6)}, (0.0, 0.5), workers=2,
                                    chunk_size=1)
    assert ens.stats["executor"] == "pool, then this process"
    assert list(ens.status) == [0] * 6
    np.testing.assert_allclose(ens.columns["p_final"][:, 0], np.linspace(0.1, 1.0, 6) * np.cos(0.5), rtol=1e-6)

"""Parameter identification (formulations.identify) against motions simulated with known
parameters: exact data give the parameters back, noisy data give estimates within their standard
errors as often as the normal distribution says, unidentifiable parameters are named."""
import numpy as np
import pytest

import formulations as F
import systems
from systems.errors import ArgumentError, UnknownNameError

TRUE_G = 9.5


def _trials(t_end=2.0, points=21):
    """Two trials of the Cartesian pendulum at g = 9.5 (positions x, y), from two initial states."""
    true = systems.load("pendulum_cartesian", g=TRUE_G)
    t = np.linspace(0.0, t_end, points)
    starts = [true.default_state(), true.state_from_q([1.0], [0.5])]
    runs = [F.create("dependent", true, backend="numpy").simulate((0.0, t_end), s, t_eval=t, rtol=1e-12, atol=1e-12)
            for s in starts]
    return [{"t": t, "x": r.p[:, 0], "y": r.p[:, 1], "state0": (r.p[0], r.v[0])} for r in runs]


def _noisy(trials, sigma, seed):
    rng = np.random.default_rng(seed)
    out = [{**d, "x": d["x"] + sigma * rng.standard_normal(d["t"].size),
            "y": d["y"] + sigma * rng.standard_normal(d["t"].size)} for d in trials]
    out[0]["x"][8:12] = np.nan  # a gap in one trial's measurements
    return out


def test_exact_data_give_the_parameter_back_and_a_mass_the_motion_does_not_see_is_named():
    bounds = {"g": (9.81, 1.0, 20.0), "m": (1.0, 0.1, 10.0)}
    fit = F.identify(systems.load("pendulum_cartesian"), "dependent", _trials(), bounds)
    assert fit.estimates["g"] == pytest.approx(TRUE_G, rel=1e-6)
    assert np.isinf(fit.standard_errors["m"]) and any("do not see m" in note for note in fit.notes)
    assert "| g | 9.5" in fit.to_markdown()


def test_noisy_data_with_a_gap_give_an_estimate_within_three_standard_errors():
    sigma = 1e-3
    fit = F.identify(systems.load("pendulum_cartesian"), "dependent", _noisy(_trials(), sigma, seed=3), ["g"],
                     noise=sigma)
    assert fit.status == 0 and fit.points == 2 * 2 * 21 - 4
    assert abs(fit.estimates["g"] - TRUE_G) < 3 * fit.standard_errors["g"]
    assert 0 < fit.standard_errors["g"] < 1e-2
    residuals = np.concatenate([r[n][np.isfinite(r[n])] for r in fit.residuals for n in r])
    assert 0.5 < np.std(residuals) < 1.5  # the weighted residuals are the unit-variance noise


@pytest.mark.slow
def test_the_standard_errors_cover_the_truth_over_forty_noise_seeds():
    """Within three standard errors in at least 95 % of 40 seeds (99.7 % expected)."""
    sigma, trials = 1e-3, _trials()
    inside = [abs((fit := F.identify(systems.load("pendulum_cartesian"), "dependent", _noisy(trials, sigma, seed),
                                     ["g"], noise=sigma)).estimates["g"] - TRUE_G) < 3 * fit.standard_errors["g"]
              for seed in range(40)]
    assert sum(inside) >= 38


def test_the_fit_plot_shows_each_measured_name(tmp_path):
    import matplotlib

    matplotlib.use("Agg", force=True)
    fit = F.identify(systems.load("pendulum_cartesian"), "dependent", _trials(1.0, 11)[:1], ["g"])
    fig = fit.plot()
    assert [ax.get_ylabel() for ax in fig.axes] == ["x [m]", "y [m]"]
    fig.savefig(tmp_path / "fit.png")


def test_bad_data_and_names_are_refused_with_what_was_expected():
    pendulum = systems.load("pendulum_cartesian")
    trial = _trials(1.0, 5)[0]
    with pytest.raises(UnknownNameError, match="unknown measured quantity"):
        F.identify(pendulum, "minimal", {**trial, "z": trial["x"]}, ["g"])
    with pytest.raises(UnknownNameError, match="unknown parameter"):
        F.identify(pendulum, "minimal", trial, ["gravity"])
    with pytest.raises(ArgumentError, match="not an increasing sequence"):
        F.identify(pendulum, "minimal", {**trial, "t": trial["t"][::-1]}, ["g"])
    with pytest.raises(ArgumentError, match="measures 'x' at 3 points but has 5 times"):
        F.identify(pendulum, "minimal", {**trial, "x": trial["x"][:3]}, ["g"])
    with pytest.raises(ArgumentError, match="noise needs a standard deviation > 0 for every measured name"):
        F.identify(pendulum, "minimal", trial, ["g"], noise={"x": 1e-3})
    with pytest.raises(ArgumentError, match="initial value between them"):
        F.identify(pendulum, "minimal", trial, {"g": (30.0, 1.0, 20.0)})
    with pytest.raises(UnknownNameError, match="unknown coordinate or velocity \\(initial\\) 'theta'"):
        F.identify(pendulum, "minimal", trial, ["g"], initial=["theta"])
    with pytest.raises(ArgumentError, match="with a name twice"):
        F.identify(pendulum, "minimal", trial, ["g"], initial=["x", "x"])
    with pytest.raises(ArgumentError, match="whose values the constraints do not leave free in trial 1"):
        F.identify(pendulum, "minimal", {"t": trial["t"], "x": trial["x"]}, ["g"], initial=["x", "y"])


def test_the_command_line_reads_a_csv_file_of_two_trials(tmp_path, capsys):
    """Positions and velocities in the file: each trial starts from its first row; a gap in y."""
    import csv
    import json

    from formulations.workbench.cli.main import main

    path = tmp_path / "pendulum.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["trial", "t", "x", "y", "x_dot", "y_dot"])
        for k, trial in enumerate(_trials(1.0, 11)):
            p, v = trial["state0"]
            for i, t in enumerate(trial["t"]):
                writer.writerow([k, t, trial["x"][i], "" if i == 5 else trial["y"][i]]
                                + (list(v) if i == 0 else ["", ""]))
    assert main(["identify", "pendulum_cartesian", str(path), "--param", "g", "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    assert fit["points"] == 2 * (2 * 11 - 1 + 2) and fit["estimates"]["g"] == pytest.approx(TRUE_G, rel=1e-6)
    path.write_text("t,x\n0,1\n")
    assert main(["identify", "pendulum_cartesian", str(path), "--param", "g"]) == 2
    assert "expected a header row with 't' and at least two rows" in capsys.readouterr().err


def test_a_length_is_identified_from_trials_that_start_at_the_default_state():
    """Without a state of its own a trial starts from the default state of the parameters tried,
    which for the pendulum moves with L."""
    true = systems.load("pendulum_cartesian", L=1.2)
    t = np.linspace(0.0, 1.0, 11)
    run = F.create("dependent", true, backend="numpy").simulate((0.0, 1.0), t_eval=t, rtol=1e-12, atol=1e-12)
    fit = F.identify(systems.load("pendulum_cartesian"), "dependent", {"t": t, "x": run.p[:, 0]}, ["L"])
    assert fit.estimates["L"] == pytest.approx(1.2, rel=1e-6)


def test_initial_states_unknown_too_are_identified_with_the_parameter():
    """Trials without a state of their own, whose initial x and x_dot are unknowns beside g: the
    first guess is the default state, which the second trial did not start from."""
    trials = [{"t": d["t"], "x": d["x"], "y": d["y"]} for d in _trials(1.0, 11)]
    truth = [d["state0"] for d in _trials(1.0, 11)]
    fit = F.identify(systems.load("pendulum_cartesian"), "dependent", trials, ["g"], initial=["x", "x_dot"])
    assert fit.estimates["g"] == pytest.approx(TRUE_G, rel=1e-6)
    for k, (p, v) in enumerate(truth):
        assert fit.estimates[f"x(t0), trial {k + 1}"] == pytest.approx(p[0], abs=1e-7)
        assert fit.estimates[f"x_dot(t0), trial {k + 1}"] == pytest.approx(v[0], abs=1e-7)
    assert len(fit.parameters) == 5 and "| x_dot(t0), trial 2 |" in fit.to_markdown()


TRUE_DELTA = 0.005  # m, the rolling disc's rolling resistance: a moment delta N about the axle


def _disc_trials(sigma=0.0, seed=0):
    """Two trials of the rolling disc with rolling resistance (a non-ideal row): turning steadily and
    rolling nearly upright, the centre's x and y every 0.05 s over 2 s, with Gaussian noise and a gap."""
    true = systems.load("rolling_disc", rolling_resistance=TRUE_DELTA)
    t = np.linspace(0.0, 2.0, 41)
    rng = np.random.default_rng(seed)
    out = []
    for state in (true.family("turning").state(true), true.family("rolling").state(true, lean=0.05, spin=8.0)):
        run = F.create("dependent", true, backend="numpy").simulate((0.0, 2.0), state, t_eval=t, rtol=1e-12,
                                                                    atol=1e-12)
        out.append({"t": t, "state0": state, **{name: run.p[:, i] + sigma * rng.standard_normal(t.size)
                                                for i, name in enumerate(("x", "y"))}})
    if sigma:
        out[0]["x"][10:15] = np.nan
    return out


def test_the_rolling_resistance_of_a_disc_is_identified_from_exact_data():
    fit = F.identify("rolling_disc", "dependent", _disc_trials(), {"rolling_resistance": (0.001, 0.0, 0.1)})
    assert fit.estimates["rolling_resistance"] == pytest.approx(TRUE_DELTA, rel=1e-6)


@pytest.mark.slow
def test_the_rolling_resistance_standard_error_covers_the_truth_over_forty_noise_seeds():
    """1 mm noise on x and y: within three standard errors in at least 95 % of 40 seeds."""
    sigma, inside, name = 1e-3, [], "rolling_resistance"
    for seed in range(40):
        fit = F.identify("rolling_disc", "dependent", _disc_trials(sigma, seed), {name: (0.001, 0.0, 0.1)},
                         noise=sigma)
        inside.append(abs(fit.estimates[name] - TRUE_DELTA) < 3 * fit.standard_errors[name])
    assert sum(inside) >= 38

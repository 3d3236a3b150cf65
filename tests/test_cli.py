"""The pfaff command line: output, JSON schema and exit codes."""
import json

import pytest

from formulations.workbench.cli.main import main

import systems
from cases import applicable


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in systems.names())


def test_list_shows_whole_first_sentences(capsys):
    """One line a system when the output is not a terminal, each with the whole first sentence of
    its description (not the first line of the docstring)."""
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(systems.names())
    for name, line in zip(systems.names(), lines):
        assert line.split()[0] == name and line.rstrip().endswith(".")
    hoop = next(line for line in lines if line.startswith("bead_on_rotating_hoop"))
    assert hoop.endswith("turned about its vertical diameter at a prescribed constant rate.")


def test_analyze(capsys):
    assert main(["analyze", "rolling_disc"]) == 0
    out = capsys.readouterr().out
    assert "completely nonholonomic" in out and "(3, 4, 5)" in out
    assert main(["analyze", "knife_edge", "--markdown", "--set", "alpha=0.5"]) == 0
    assert capsys.readouterr().out.startswith("### Constraint analysis")


@pytest.mark.parametrize("formulation", applicable("rolling_disc"))
def test_simulate_json(formulation, capsys):
    assert main(["simulate", "rolling_disc", "--formulation", formulation, "--t-end", "10", "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["status"] == 0 and data["t_final"] == 10.0
    assert len(data["p_final"]) == 6 and len(data["v_final"]) == 6
    assert set(data["constraint_errors"]) == {"position", "velocity", "acceleration"}
    assert data["energy_drift"] < 1e-6
    assert {"wall_time", "rhs_evaluations", "steps", "rejected", "projections"} <= set(data["stats"])
    assert set(data["reactions_final"]) == set(systems.load("rolling_disc").constraint_names)


@pytest.mark.parametrize("argv, fragment", [
    (["analyze", "nope"], "unknown system 'nope'"),
    (["analyze", "rolling_disc", "--set", "radius=2"], "unknown parameter"),
    (["analyze", "rolling_disc", "--set", "r"], "--set takes name=value"),
    (["analyze", "rolling_disc", "--set", "r=-1"], "problem"),
    (["simulate", "rolling_disc", "--formulation", "nope"], "unknown formulation"),
    (["simulate", "rolling_disc", "--method", "euler"], "expected one of"),
    (["simulate", "rolling_disc", "--method", "rk4"], "needs a fixed step"),
    (["simulate", "rolling_disc", "--rtol", "-1"], "positive number"),
    (["simulate", "rolling_disc", "--formulation", "minimal", "--stabilization", "projection"], "expected one of"),
], ids=["system", "parameter", "set-syntax", "bad-value", "formulation", "method", "rk4-step", "tolerance",
        "capability"])
def test_bad_input_exits_2_with_one_line(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_compare_creates_each_configuration_once(monkeypatch, capsys):
    """The command line checks, pilots and runs the very formulations it created: one per
    configuration and one for the reference, whatever the pilot and the sweep run."""
    from formulations.base import Formulation
    from formulations.workbench.comparison import estimate

    created = []
    original = Formulation.__init__

    def counting(self, *args, **kwargs):
        created.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Formulation, "__init__", counting)
    monkeypatch.setattr(estimate, "PILOT_ABOVE", 0.05)  # the pilot runs too
    monkeypatch.setattr(estimate, "PILOT_SPAN", 0.05)
    assert main(["compare", "knife_edge", "--t-end", "0.2", "--formulations", "minimal", "dependent+projection",
                 "--sweep", "--quiet"]) == 0
    assert sorted(created) == ["Dependent", "Dependent", "Minimal"]
    assert "minimal" in capsys.readouterr().out

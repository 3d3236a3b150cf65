"""Stability along families of steady motions, against the closed forms of tests/test_linearization.py:
upright rolling of the thin disc is stable for Omega^2 > g / (3 r) (so the critical gravity at spin
Omega is g = 3 r Omega^2); steady turning at lean theta_0 loses stability where w^2 = 0, i.e. where
X = Psi^2 solves 5 r^2 c^2 (1 + 2 c^2) X^2 + 12 g r c (1 - 2 c^2) X + 16 g^2 s^2 = 0."""
import json
import re

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest

import formulations
import systems
from formulations.workbench.cli.main import main
from systems.errors import ArgumentError, UnknownNameError


@pytest.mark.parametrize("r", [0.5, 0.3], ids=["r0.5", "r0.3"])
def test_critical_spin_of_the_upright_disc(r):
    disc = systems.load("rolling_disc", r=r)
    result = formulations.stability(disc, "rolling", "spin", np.linspace(0.5, 6.0, 12))
    assert len(result.critical) == 1
    assert abs(result.critical[0].value - np.sqrt(9.81 / (3 * r))) < 1e-9
    assert result.critical[0].change == "unstable -> marginal"
    assert result.classes[0] == "unstable" and result.classes[-1] == "marginal"


def test_a_system_parameter_as_the_family_parameter():
    disc = systems.load("rolling_disc")
    result = formulations.stability(disc, "rolling", "g", np.linspace(5.0, 60.0, 6), given={"spin": 5.0})
    assert [c.change for c in result.critical] == ["marginal -> unstable"]
    assert abs(result.critical[0].value - 3 * 0.5 * 25.0) < 1e-9


def test_critical_yaw_rates_of_steady_turning():
    lean, r, g = 0.3, 0.5, 9.81
    c, s = np.cos(lean), np.sin(lean)
    X = np.roots([5 * r**2 * c**2 * (1 + 2 * c**2), 12 * g * r * c * (1 - 2 * c**2), 16 * g**2 * s**2])
    expected = sorted(-np.sqrt(X.real))
    disc = systems.load("rolling_disc")
    result = formulations.stability(disc, "turning", "yaw_rate", np.linspace(-6.0, -0.5, 12), given={"lean": lean})
    assert len(result.critical) == 2
    assert np.allclose(result.critical_values, expected, atol=1e-9, rtol=0)


def test_result_table_json_and_plot():
    disc = systems.load("rolling_disc")
    result = formulations.stability(disc, "rolling", "spin", np.linspace(1.0, 4.0, 4))
    assert result.eigenvalues.shape == (4, 2) and result.eigenvalues.flags.writeable is False
    assert result.table().count("\n") == 5 and "| spin |" in result.table()
    data = json.loads(json.dumps(result.to_dict()))
    assert data["critical"][0]["value"] == result.critical[0].value
    ax = formulations.plot_stability(result)
    assert ax.get_xlabel() == "spin [rad/s]" and len(ax.lines) >= 3
    with pytest.raises(AttributeError):
        result.values = None


def test_bad_arguments_are_named():
    disc = systems.load("rolling_disc")
    with pytest.raises(UnknownNameError, match="'spn'"):
        formulations.stability(disc, "rolling", "spn", [1.0, 2.0])
    with pytest.raises(UnknownNameError, match="state family"):
        formulations.stability(disc, "wobbling", "spin", [1.0, 2.0])
    with pytest.raises(ArgumentError, match="strictly increasing"):
        formulations.stability(disc, "rolling", "spin", [2.0, 1.0])
    with pytest.raises(ArgumentError, match="no family"):
        formulations.stability(disc, None, "g", [9.0, 10.0], given={"spin": 1.0})


def test_cli_writes_the_table_json_and_figure(tmp_path, capsys):
    out = tmp_path / "upright"
    assert main(["stability", "rolling_disc", "--param", "spin", "--range", "0.5", "6", "--points", "12",
                 "--family", "rolling", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    value = re.search(r"spin = ([0-9.]+) \(unstable -> marginal", printed).group(1)
    assert len(value.replace(".", "")) >= 11 and abs(float(value) - np.sqrt(9.81 / 1.5)) < 1e-9
    assert {f.name for f in out.iterdir()} >= {"stability.md", "stability.json", "stability.png"}
    assert json.loads((out / "stability.json").read_text())["parameter"] == "spin"
    assert main(["stability", "rolling_disc", "--param", "yaw_rate", "--range", "-6", "-0.5", "--points", "6",
                 "--family", "turning", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["critical"]) == 2


@pytest.mark.parametrize("argv, status", [
    (["--param", "spn", "--range", "0", "1"], 2),
    (["--param", "spin", "--range", "2", "1", "--family", "rolling"], 2),
    (["--param", "spin", "--range", "1", "2", "--points", "1", "--family", "rolling"], 2),
    (["--param", "lean", "--range", "0.1", "0.3", "--family", "rolling"], 1),
], ids=["unknown-parameter", "empty-range", "one-point", "not-steady"])
def test_cli_exit_status(argv, status, capsys):
    assert main(["stability", "rolling_disc", *argv]) == status
    assert "error:" in capsys.readouterr().err


def _coasting(system, values):
    return (0.0, 0.0, 0.0), (values["u"], 0.0, 0.0), ("theta",)


def test_a_transversal_crossing_is_found_by_brent():
    """The Chaplygin sleigh coasting straight at speed u: eigenvalue -m a u / (I + m a^2), stable
    forward and unstable backward; the family is declared here, not by the catalogue."""
    from systems.families import StateFamily, StateVariable

    coasting = StateFamily("coasting", (StateVariable("u", 1.0, "m/s"),), _coasting)
    result = formulations.stability("chaplygin_sleigh", coasting, "u", np.linspace(-1.0, 1.3, 6))
    assert [(c.change, c.method) for c in result.critical] == [("unstable -> stable", "brent")]
    assert abs(result.critical[0].value) < 1e-10
    assert np.allclose(result.eigenvalues[:, 0].real, -0.5 * result.values / 0.35, rtol=1e-10)

"""Comparisons, reports and plots."""
import importlib.util
import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import formulations as F  # noqa: E402
import systems  # noqa: E402
from formulations.workbench.cli.main import main  # noqa: E402
from formulations.workbench import plots
from formulations.workbench.comparison import views  # noqa: E402
from formulations.workbench.comparison.animation import animate  # noqa: E402
from formulations.workbench.comparison.report import write_report  # noqa: E402


@pytest.fixture(scope="module")
def disc_comparison():
    system = systems.load("rolling_disc")
    return system, F.compare(system, ["dependent", "dependent+projection", "reduced", "minimal@dopri5"], (0, 2),
                             samples=101, sweep=[1e-5, 1e-8])


def test_rows_and_reference(disc_comparison):
    system, c = disc_comparison
    assert [r.label for r in c.rows] == ["dependent", "dependent+projection", "reduced", "minimal@dopri5"]
    for row in c.rows:
        assert row.status == 0 and row.deviation < 1e-5 and row.rhs_evaluations > 0
    assert c.row("dependent+projection").position_error < 1e-12
    assert c.row("minimal@dopri5").method == "dopri5"
    data = json.loads(c.to_json())
    assert data["system"] == "rolling_disc" and len(data["rows"]) == 4 and len(data["sweep"]) == 8
    assert "| configuration |" in c.to_markdown() and "<table>" in c._repr_html_()
    notes = c.reading()
    assert any("Most accurate" in note for note in notes)
    assert any("Largest energy drift" in note for note in notes)  # on every backend, compiled or not
    assert any("drift beyond" in note or "Constraint drift" in note for note in notes)
    assert all(row.backend == "numpy" for row in c.rows) and "| backend |" in c.to_markdown()
    assert not any("Compiling machine code" in note for note in notes)  # numpy compiles nothing


def test_deviation_shrinks_as_the_tolerance_tightens(disc_comparison):
    _, c = disc_comparison
    for label in {p.label for p in c.sweep}:
        pts = sorted((p for p in c.sweep if p.label == label), key=lambda p: -p.tol)
        assert pts[-1].deviation < pts[0].deviation / 100


def test_configuration_parsing():
    c = F.Configuration.parse("reduced+baumgarte@RK45")
    assert (c.formulation, c.stabilization, c.method, c.label) == ("reduced", "baumgarte", "RK45",
                                                                    "reduced+baumgarte@RK45")
    with pytest.raises(systems.UnknownNameError):
        F.compare(systems.load("knife_edge"), ["nope"], (0, 1))


def test_formulation_options_in_a_configuration_string():
    """formulation[option=value,...]: the options reach create, round-trip through the label, and
    bad brackets, repeated or conflicting options and unknown ones are named."""
    c = F.Configuration.parse("dependent[singular=pass]+projection@RK45")
    assert dict(c.options) == {"singular": "pass"} and c.label == "dependent[singular=pass]+projection@RK45"
    assert F.Configuration.parse(c.label) == c
    assert dict(F.Configuration.parse("manifold[utol=1e+3]").options) == {"utol": 1000.0}  # a "+" in a value
    assert not F.create("minimal[singular=pass]", "n_four_bar").stop_at_singular
    for bad, words in [("dependent[singular]", "name=value"), ("dependent[]", "one bracket"),
                       ("dependent+projection[singular=pass]", "one bracket"), ("dependent[a=1,a=2]", "twice")]:
        with pytest.raises(systems.ArgumentError, match=words):
            F.Configuration.parse(bad)
    with pytest.raises(systems.ArgumentError, match="one place"):
        F.create("dependent[singular=pass]", "n_four_bar", singular="stop")
    with pytest.raises(ValueError, match="charts come from Phi_p"):
        F.create("manifold[singular=pass]", "n_four_bar")
    with pytest.raises(ValueError, match="no embedding"):
        F.create("reduced[singular=pass]", "triple_slider_crank")
    assert dict(F.Configuration.parse("minimal[rechoose=false]").options) == {"rechoose": False}
    with pytest.raises(systems.ArgumentError, match="its own place"):
        F.Configuration.parse("dependent[stabilization=projection]")
    with pytest.raises(systems.ArgumentError, match="DOP853 at reference_tol"):
        F.compare("n_four_bar", ["dependent"], (0, 0.1), reference="dependent@RK45")
    with pytest.raises(systems.UnknownNameError, match="compare reference"):
        F.compare("n_four_bar", ["dependent"], (0, 0.1), reference="nope")
    with pytest.raises(systems.ArgumentError, match="label 'dependent' of an earlier one"):
        F.compare("n_four_bar", ["dependent", {"formulation": "dependent", "options": {"backend": "numpy"}}], (0, 0.1))


def test_a_chosen_reference_runs_and_is_named():
    """compare(reference=...) runs the reference it names (here one that passes the N-four-bar's
    flat position, where the default stops) and the report says which."""
    chain = systems.load("n_four_bar")
    default = F.compare(chain, ["reduced[singular=pass]"], (0.0, 1.5), rtol=1e-8, samples=31, backend="numpy")
    chosen = F.compare(chain, ["reduced[singular=pass]"], (0.0, 1.5), rtol=1e-8, samples=31, backend="numpy",
                       reference="minimal[singular=pass]")
    assert default.reference.status < 0 and chosen.reference.status == 0
    assert chosen.reference_label == "minimal[singular=pass]" and chosen.rows[0].deviation < 1e-6
    assert json.loads(chosen.to_json())["reference"] == "minimal[singular=pass]"


def test_plots_return_axes_with_data(disc_comparison):
    system, c = disc_comparison
    for fn in (plots.constraint_errors, plots.energy_error, plots.work_precision):
        ax = fn(c)
        assert ax.lines and all(len(line.get_xdata()) for line in ax.lines)
        plt.close(ax.figure)
    ax = plots.reactions(c.reference)
    assert len(ax.lines) == 3
    plt.close(ax.figure)
    for _, view in views.VIEWS["rolling_disc"]:
        ax = view(c.reference, system)
        assert ax.lines
        plt.close(ax.figure)


def test_disc_contact_point_is_on_the_plane_below_the_rim(disc_comparison):
    system, c = disc_comparison
    P = views.disc_contact_point(c.reference, system)
    r = system.parameter_dict["r"]
    horizontal = np.linalg.norm(P - c.reference.p[:, :2], axis=1)
    assert np.allclose(horizontal, r * np.abs(np.sin(c.reference.p[:, 4])), atol=1e-12)


def test_report_folder(disc_comparison, tmp_path):
    system, c = disc_comparison
    report = write_report(c, system, tmp_path / "out", systems.analyze_constraints(system))
    text = report.read_text()
    assert "## Results" in text and "## Reading" in text and "completely nonholonomic" in text
    for png in ("constraint_errors.png", "energy_error.png", "reactions.png", "work_precision.png",
                "rolling_disc_views.png"):
        assert (tmp_path / "out" / png).stat().st_size > 10_000
        assert f"]({png})" in text
    assert json.loads((tmp_path / "out" / "results.json").read_text())["rows"]


def test_sphere_views_and_animation(tmp_path):
    system = systems.load("sphere_in_cylinder")
    traj = F.create("dependent", system, stabilization="projection").simulate((0, 1), t_eval=np.linspace(0, 1, 41))
    for _, view in views.VIEWS["sphere_in_cylinder"]:
        ax = view(traj, system)
        assert ax.lines
        plt.close(ax.figure)
    gif = animate(traj, system, tmp_path / "sphere.gif", fps=10, duration=1)
    assert gif.stat().st_size > 1000


def test_cli_compare_writes_a_report(tmp_path, capsys):
    out = tmp_path / "rep"
    code = main(["compare", "knife_edge", "--formulations", "dependent", "minimal", "--t-end", "2", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "| dependent |" in printed and "report written" in printed
    assert (out / "report.md").exists() and (out / "constraint_errors.png").exists()
    assert main(["compare", "knife_edge", "--t-end", "1", "--formulations", "minimal", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["label"] == "minimal"


def test_cli_derive(capsys):
    # trigsimp for 1 s (--simplify): the steps and their names do not depend on how far it gets
    assert main(["derive", "rolling_disc", "--formulation", "minimal", "--latex", "--simplify", "1"]) == 0
    latex = capsys.readouterr().out
    assert r"\bar{\bar{\mathbf{M}}}" in latex and "Reactions" in latex
    assert main(["derive", "sphere_in_cylinder", "--formulation", "minimal"]) == 2
    assert "Euler parameters" in capsys.readouterr().err


def test_fixed_step_configurations_parse_and_scale_in_a_sweep():
    c = F.Configuration.parse("dependent@augmented_lagrangian:2e-3")
    assert (c.method, c.step, c.label) == ("augmented_lagrangian", 2e-3, "dependent@augmented_lagrangian:0.002")
    assert c.step_for(1e-10, 1e-8) == pytest.approx(2e-4)  # second order: h ~ tol^(1/2)
    assert F.Configuration.parse("dependent@IDA").step_for(1e-10, 1e-8) is None
    with pytest.raises(ValueError, match="expected a number"):
        F.Configuration.parse("dependent@augmented_lagrangian:fast")
    with pytest.raises(ValueError, match="positive step"):
        F.Configuration("dependent", method="augmented_lagrangian", step=-1.0)
    system = systems.load("pendulum_cartesian")
    comp = F.compare(system, ["dependent", "dependent@augmented_lagrangian:1e-2"], (0, 0.5), samples=11,
                     sweep=[1e-6, 1e-8])
    al = sorted((p for p in comp.sweep if p.step is not None), key=lambda p: p.tol)
    assert [p.step for p in al] == pytest.approx([1e-2, 1e-1])
    assert al[0].deviation < al[1].deviation / 10   # the smaller step is the more accurate
    assert all(p.status == 0 and p.position_error < 1e-13 for p in al)


def test_enforcement_configurations_cover_every_method():
    pytest.importorskip("sksundae")
    holonomic = F.enforcement_configurations(systems.load("slider_crank"), step=5e-3)
    assert {"dependent+baumgarte", "dependent+constraint_dynamics", "dependent+projection", "dependent@IDA",
            "dependent+ggl@IDA", "dependent@augmented_lagrangian:0.005", "reduced", "minimal", "manifold"} <= set(holonomic)
    assert "manifold" not in F.enforcement_configurations(systems.load("knife_edge"))


def test_work_precision_plots_every_quantity(disc_comparison):
    _, c = disc_comparison
    for quantity in ("deviation", "constraints", "energy"):
        ax = plots.work_precision(c, quantity=quantity)
        curves = [line for line in ax.lines if not line.get_label().startswith("_")]  # not the exact zeros
        assert len(curves) == 4 and quantity in ax.get_title()
        plt.close(ax.figure)
    with pytest.raises(ValueError, match="expected one of"):
        plots.work_precision(c, quantity="speed")


def test_cli_compare_enforcement(capsys):
    pytest.importorskip("sksundae")
    assert main(["compare", "pendulum_cartesian", "--enforcement", "--step", "1e-2", "--t-end", "0.3"]) == 0
    out = capsys.readouterr().out
    for label in ("dependent+constraint_dynamics", "dependent+ggl@IDA", "dependent@augmented_lagrangian:0.01",
                  "manifold"):
        assert f"| {label} |" in out


@pytest.mark.skipif(not importlib.util.find_spec("numba"), reason="numba is not installed")
@pytest.mark.xdist_group("compiled")  # the module tests/test_compiled_agreement.py compiles for its knife-edge loop
def test_rows_name_the_backend_their_run_used():
    system = systems.load("knife_edge")
    compiled = {"formulation": "minimal", "options": {"backend": "compiled"}, "label": "minimal compiled"}
    c = F.compare(system, ["minimal", compiled], (0, 0.5), samples=11)
    assert [t.stats.backend for t in c.trajectories] == ["numpy", "compiled"]
    assert [r.backend for r in c.rows] == ["numpy", "compiled"]
    assert [r["backend"] for r in json.loads(c.to_json())["rows"]] == ["numpy", "compiled"]

"""Notebook display: every object a notebook shows has a short repr (under 2 KB) and a rich display
(Markdown, LaTeX or HTML) that names what matters."""
import matplotlib
import pytest

import formulations as F
import systems
from formulations.workbench.derivation.derive import derive

matplotlib.use("Agg")
SHORT = 2048


@pytest.fixture(scope="module")
def disc():
    return systems.load("rolling_disc")


@pytest.fixture(scope="module")
def comparison(disc):
    return F.compare(disc, ["dependent", "dependent+projection", "reduced", "minimal"], (0.0, 1.0))


@pytest.mark.parametrize("name", systems.names())
def test_system_display_is_short(name):
    system = systems.load(name)
    card = system._repr_markdown_()
    assert len(repr(system)) < SHORT and len(card) < SHORT
    assert f"**{name}**" in card and f"$l = {system.l}$" in card
    assert "_{dot}" not in card and all(row in card for row in system.constraint_names)


def test_velocities_show_with_dots():
    card = systems.load("knife_edge")._repr_markdown_()
    assert r"(\dot{x}, \dot{y}, \dot{\phi})" in card


@pytest.mark.parametrize("name", ["rolling_disc", "knife_edge", "slider_crank", "pfaffian_integrable"])
def test_constraint_analysis_display(name):
    report = systems.analyze_constraints(systems.load(name))
    assert len(repr(report)) < SHORT and report.classification in repr(report)
    assert report.classification in report._repr_markdown_()


def test_equations_display(disc):
    equations = F.create("minimal", disc).equations()
    assert len(repr(equations)) < SHORT and "minimal" in repr(equations)
    markdown = equations._repr_markdown_()
    assert r"\dot{\psi}" in equations._repr_latex_() and "_{dot}" not in equations._repr_latex_()
    assert "$$" in markdown and r"\mathbf{C}_{nh}" in markdown and "_{dot}" not in markdown


def test_derivation_display(disc):
    derivation = derive(disc, "minimal", seconds=1.0, analysis=False)
    assert len(repr(derivation)) < SHORT and "steps description" in repr(derivation)
    markdown = derivation._repr_markdown_()
    assert r"\dot{\psi}" in markdown and "_{dot}" not in markdown


def test_trajectory_display(disc):
    traj = F.create("minimal", disc).simulate((0.0, 1.0))
    html = traj._repr_html_()
    assert len(repr(traj)) < SHORT and len(html) < SHORT
    assert "t = 0 .. 1 s" in html and "status" in html and f"{traj.energy_drift:.1e} J" in html
    ax = traj.plot()
    curves = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert curves == ["|Φ| in m or rad", "|C v| in m/s or rad/s", "|E - E(0)| in J"]
    ax = traj.plot(["theta", "phi"])
    assert len(ax.get_lines()) == 2
    with pytest.raises(KeyError, match="expected names from"):
        traj.plot(["lean"])


def test_comparison_display(comparison):
    assert len(repr(comparison)) < SHORT
    html, markdown = comparison._repr_html_(), comparison._repr_markdown_()
    assert len(html) < SHORT and len(markdown) < SHORT
    for row in comparison.rows:
        assert row.label in html and row.label in markdown

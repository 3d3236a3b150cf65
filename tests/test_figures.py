"""Figures a reader can trust: a label with a unit on every axis, exact zeros drawn as zeros (on the
lower edge of a log axis, named in the legend) rather than at a made-up small value, and failed runs
of a sweep marked as failures and named in the report."""
import dataclasses
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import formulations as F  # noqa: E402
import systems  # noqa: E402
from formulations.workbench import plots  # noqa: E402
from formulations.workbench.comparison.report import comparison_figures, failed_note, write_report  # noqa: E402

UNIT = re.compile(r"\[[^\]]+\]| in [A-Za-z]")


@pytest.fixture(scope="module")
def disc_comparison():
    system = systems.load("rolling_disc")
    return system, F.compare(system, ["dependent", "minimal"], (0.0, 0.5), samples=26, sweep=[1e-5, 1e-8],
                             backend="numpy")


def _labelled_axes(fig):
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def test_every_axis_of_the_report_and_of_a_trajectory_plot_has_a_unit(disc_comparison):
    system, c = disc_comparison
    figures = [fig for _, _, fig in comparison_figures(c, system)]
    figures += [c.reference.plot().figure, c.reference.plot(["theta"]).figure]
    for fig in figures:
        for ax in _labelled_axes(fig):
            assert UNIT.search(ax.get_ylabel()), f"y label {ax.get_ylabel()!r} of {ax.get_title()!r} names no unit"
            # a stack of panels sharing t labels it once, under the lowest
            shared = ax.get_shared_x_axes().get_siblings(ax)
            assert any(UNIT.search(other.get_xlabel()) for other in shared), f"no x unit for {ax.get_title()!r}"
    plt.close("all")


def test_many_configurations_get_a_row_of_panels_each_one_line_apiece():
    system = systems.load("rolling_disc")
    c = F.compare(system, ["dependent", "dependent+baumgarte", "dependent+projection", "reduced", "minimal"],
                  (0.0, 0.3), samples=11, backend="numpy")
    figures = {name: fig for _, name, fig in comparison_figures(c, system)}
    axes = [ax for ax in figures["constraint_errors.png"].axes]
    assert len(axes) == 5 * 3
    for ax in axes:  # one run per panel: its values and, where it has them, its exact zeros
        assert len({line.get_color() for line in ax.get_lines()}) == 1
    plt.close("all")


def test_exact_zeros_sit_on_the_lower_edge_and_are_named():
    # the rolling disc has no holonomic rows: max |Phi| is exactly 0 at every time
    traj = F.create("minimal", systems.load("rolling_disc"), backend="numpy").simulate((0.0, 0.5))
    assert np.all(traj.constraint_errors.position == 0.0)
    ax = plots.constraint_errors(traj, level="position")
    zeros = [line for line in ax.get_lines() if line.get_gid() == "exact-zero"]
    assert len(zeros) == 1
    assert np.array_equal(zeros[0].get_xdata(), traj.t)
    assert zeros[0].get_transform() == ax.get_xaxis_transform()  # y in axes units: 0 is the lower edge
    assert np.all(np.asarray(zeros[0].get_ydata()) == 0.0)
    for line in ax.get_lines():  # nothing is drawn at a made-up small value
        y = np.asarray(line.get_ydata(), float)
        assert not np.any((y > 0) & (y < 1e-16)) or line.get_gid() == "exact-zero"
    assert plots.ZERO_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")


def test_a_series_without_zeros_gets_no_zero_entry(disc_comparison):
    _, c = disc_comparison
    ax = plots.energy_error(c.reference)
    y = np.abs(c.reference.energy - c.reference.energy[0])
    has_zero = bool(np.any(y == 0.0))
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert (plots.ZERO_LABEL in texts) == has_zero  # E(0) - E(0) is 0: the first point is always exact
    plt.close("all")


def _with_failed_run(c, status):
    """The comparison with its first sweep run turned into a failure of ``status``: the figure and the
    report must show what the data say."""
    first = dataclasses.replace(c.sweep[0], status=status)
    return dataclasses.replace(c, sweep=(first,) + tuple(c.sweep[1:])), first


@pytest.mark.parametrize("status", [-1, 2])
def test_a_failed_sweep_run_is_marked_and_left_out_of_the_lines(disc_comparison, status, tmp_path):
    system, c = disc_comparison
    marked, failed = _with_failed_run(c, status)
    ax = plots.work_precision(marked)
    crosses = [line for line in ax.get_lines() if line.get_gid() == "failed"]
    assert len(crosses) == 1 and crosses[0].get_marker() == "X"
    assert crosses[0].get_xdata()[0] == failed.wall_time
    curve = next(line for line in ax.get_lines() if line.get_label() == failed.label)
    assert failed.wall_time not in list(curve.get_xdata())
    assert plots.FAILED_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")
    report = write_report(marked, system, tmp_path).read_text()
    assert "Failed runs" in report and f"{failed.label} at tolerance {failed.tol:g}" in report
    assert ("stopped" if status < 0 else "failed a check") in report
    assert failed_note(c) == ""  # without failures, no such sentence


def test_the_shared_legend_holds_every_entry_once(disc_comparison):
    system, c = disc_comparison
    marked, _ = _with_failed_run(c, 2)
    figures = {name: fig for _, name, fig in comparison_figures(marked, system)}
    texts = [t.get_text() for t in figures["work_precision.png"].legends[0].get_texts()]
    assert plots.FAILED_LABEL in texts and len(texts) == len(set(texts))
    assert {row.label for row in c.rows} <= set(texts)
    plt.close("all")

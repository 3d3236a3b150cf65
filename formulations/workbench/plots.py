"""Plots of trajectories, comparisons and stability results. Each takes a result and an optional matplotlib Axes and
returns the Axes; none calls show()."""
from __future__ import annotations

import numpy as np

from ..results.plotting import FAILED_LABEL, ZERO_LABEL, legend, log_series  # noqa: F401 (part of this module's names)


def _axes(ax, size=(7, 4)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=size)
    return ax


def _runs(result):
    """[(label, trajectory)] from a Trajectory or a Comparison."""
    if hasattr(result, "trajectories"):
        return [(row.label, tr) for row, tr in zip(result.rows, result.trajectories)]
    return [(result.formulation, result)]


def _log_ticks(ax):
    """Labels on a logarithmic x axis that do not run into each other: a few plain numbers over less
    than a decade and a half, whole decades over more (matplotlib's own choice labels minor ticks,
    which collide on narrow axes)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

    lo, hi = ax.get_xlim()
    if not (lo > 0 and hi > lo):
        return
    if np.log10(hi / lo) < 1.5:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:.3g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


LEVELS = {"position": r"max $|\Phi|$ [m or rad]", "velocity": r"max $|C v|$ [m/s or rad/s]",
          "acceleration": r"max $|C\dot v + \xi|$ [m/s² or rad/s²]"}
OVERLAID = 4  # configurations drawn in one panel at most; more get a row of panels each


def constraint_errors(result, ax=None, level="position"):
    """max |Phi| (level "position"), |C v| ("velocity") or |C v' + xi| ("acceleration") against time;
    in the units of the rows (m or rad; per second; per second squared)."""
    ax = _axes(ax)
    for label, tr in _runs(result):
        log_series(ax, tr.t, getattr(tr.constraint_errors, level), label=label)
    ax.set(xlabel="t [s]", ylabel=LEVELS[level], title=f"{level} constraint error")
    legend(ax)
    ax.grid(True, which="major", alpha=0.3)
    return ax


def constraint_error_grid(result, fig):
    """The three constraint errors of every run of ``result`` on ``fig``: one panel per level
    (constraint_errors) where at most OVERLAID runs share it, else one row of panels per run (lines
    that would lie on each other are drawn apart), with a common y range per level. Returns the axes
    (rows, 3)."""
    runs = _runs(result)
    if len(runs) <= OVERLAID:
        grid = fig.subplots(1, len(LEVELS), squeeze=False, sharex=True)
        for ax, level in zip(grid[0], LEVELS):
            constraint_errors(result, ax=ax, level=level)
        return grid
    grid = fig.subplots(len(runs), len(LEVELS), squeeze=False, sharex=True, sharey="col")
    for r, (axes, (label, tr)) in enumerate(zip(grid, runs)):
        for ax, level in zip(axes, LEVELS):
            log_series(ax, tr.t, getattr(tr.constraint_errors, level), label=label, color=f"C{r}")
            # the quantity is in the column's title, the unit on the axis, the run's name in the panel
            ax.set_ylabel("[" + LEVELS[level].split(" [")[1], fontsize=8)
            ax.text(0.01, 0.96, label, transform=ax.transAxes, va="top", fontsize=8,
                    bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1.5))
            if r == 0:
                ax.set_title(f"{level} constraint error")
            if r == len(runs) - 1:
                ax.set_xlabel("t [s]")
            legend(ax)
            ax.grid(True, which="major", alpha=0.3)
    return grid


def energy_error(result, ax=None):
    """|E(t) - E(0)| against time (J)."""
    ax = _axes(ax)
    for label, tr in _runs(result):
        log_series(ax, tr.t, np.abs(tr.energy - tr.energy[0]), label=label)
    ax.set(xlabel="t [s]", ylabel=r"$|E(t) - E(0)|$ [J]", title="energy error")
    legend(ax)
    ax.grid(True, alpha=0.3)
    return ax


def reactions(traj, ax=None, names=None):
    """The multipliers named by constraint row against time, each in its unit (N on a length, N m
    on an angle: System.unit_of)."""
    ax = _axes(ax)
    units = []
    for name in names or traj.constraint_names:
        unit = traj.unit_of(name)
        units += [unit] if unit not in units else []
        ax.plot(traj.t, traj.reactions[name], label=f"{name} [{unit}]")
    ax.set(xlabel="t [s]", ylabel=f"reaction [{', '.join(units)}]", title=f"constraint reactions ({traj.formulation})")
    legend(ax)
    ax.grid(True, alpha=0.3)
    return ax


WORK_PRECISION = {"deviation": ("max deviation from reference [m, rad, m/s, rad/s]", lambda p: p.deviation),
                  "constraints": ("max constraint error (|Φ|, |C v|) [m, rad, m/s, rad/s]",
                                  lambda p: max(p.position_error, p.velocity_error)),
                  "energy": ("energy drift [J]", lambda p: p.energy_drift)}


def failed_runs(comparison) -> list:
    """The sweep's runs that failed: stopped (status < 0) or finished but failed a check (status 2)."""
    return [p for p in comparison.sweep if p.status < 0 or p.status == 2]


def work_precision(comparison, ax=None, quantity="deviation"):
    """An error against wall time, one line per configuration (needs a sweep). Failed runs
    (failed_runs) are not part of the lines: each is a red cross at its error where it has one,
    else on the upper edge; exact zeros sit on the lower edge.

    quantity: "deviation" (from the reference), "constraints" (position or velocity level) or "energy"."""
    if quantity not in WORK_PRECISION:
        raise ValueError(f"work_precision got quantity={quantity!r} but expected one of: {', '.join(WORK_PRECISION)}")
    ylabel, value = WORK_PRECISION[quantity]
    ax = _axes(ax)
    failed = failed_runs(comparison)
    labels = list(dict.fromkeys(p.label for p in comparison.sweep))
    for label in labels:
        pts = sorted((p for p in comparison.sweep if p.label == label and p not in failed), key=lambda p: p.tol)
        line = log_series(ax, [p.wall_time for p in pts], [value(p) for p in pts], label=label, style="o-")
        for p in (p for p in failed if p.label == label):
            y = value(p)
            shown = np.isfinite(y) and y > 0
            ax.plot([p.wall_time], [y if shown else 1.0], "X", ms=9, mec="C3", color=line.get_color(),
                    transform=ax.transData if shown else ax.get_xaxis_transform(), clip_on=False, gid="failed")
    ax.set_xscale("log")
    ax.set(xlabel="wall time [s]", ylabel=ylabel, title=f"work-precision: {quantity}")
    _log_ticks(ax)
    legend(ax)
    ax.grid(True, which="both", alpha=0.3)
    return ax


def plot_stability(result, ax=None):
    """Real parts (filled) and imaginary parts (open) of the non-trivial eigenvalues of a
    formulations.StabilityResult against its parameter, the critical values as vertical lines.
    Draws on ``ax`` (default: a new figure's axes) and returns it."""
    ax = _axes(ax, (7, 4.5))
    x = np.repeat(result.values[:, None], result.eigenvalues.shape[1], axis=1)
    ax.plot(x.ravel(), result.eigenvalues.real.ravel(), ".", color="C0", label="real part")
    ax.plot(x.ravel(), np.abs(result.eigenvalues.imag).ravel(), "o", mfc="none", ms=3, color="C1",
            label="imaginary part (|.|)")
    ax.axhline(0.0, color="0.5", lw=0.8)
    for c in result.critical:
        ax.axvline(c.value, color="C3", lw=0.8, ls="--")
        ax.annotate(f"{c.value:.6g}", (c.value, 1.0), xycoords=("data", "axes fraction"), rotation=90,
                    va="top", ha="right", fontsize=8, color="C3")
    ax.set_xlabel(f"{result.parameter} [{result.unit}]")
    ax.set_ylabel("eigenvalue [1/s]")
    ax.set_title(f"{result.system_name}: {result.family}")
    ax.legend(loc="best", fontsize=8)
    return ax

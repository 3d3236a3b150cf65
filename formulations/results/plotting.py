"""Drawing on a logarithmic axis without inventing values: exact zeros on the lower edge, values
between zeros as dots, and legend entries for exact zeros and failed runs (the plots of
formulations.workbench.plots and Trajectory.plot use them)."""
from __future__ import annotations

import numpy as np

ZERO_LABEL = "exactly 0 (on the lower edge)"
FAILED_LABEL = "failed run (stopped, or failed a check)"


def log_series(ax, x, y, label=None, style="-", **options):
    """y >= 0 against x on a logarithmic y axis. A log axis has no 0: exact zeros (a formulation that
    keeps a constraint by construction) are drawn as a dotted line with open triangles on the lower
    edge of the axes, in the series' colour, instead of at a made-up small value; legend() names them.
    Returns the line of the non-zero values."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    zero = y == 0.0
    shown = np.where(zero, np.nan, y)
    (line,) = ax.plot(x, shown, style, label=label, **options)
    ax.set_yscale("log")
    alone = np.isfinite(shown) & ~np.isfinite(np.r_[np.nan, shown[:-1]]) & ~np.isfinite(np.r_[shown[1:], np.nan])
    if alone.any() and line.get_marker() in ("None", "", None):  # a line needs two points: a value between zeros
        ax.plot(x[alone], y[alone], ".", ms=3, color=line.get_color())
    if zero.any():
        edge = np.where(zero, 0.0, np.nan)
        ax.plot(x, edge, ":", color=line.get_color(), marker="v", mfc="none", ms=5,
                markevery=max(1, int(zero.sum()) // 12), transform=ax.get_xaxis_transform(), clip_on=False,
                gid="exact-zero")
    return line


def legend(ax, **options):
    """The axes' legend, with one entry for exact zeros and one for failed runs where the axes show any."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    gids = {line.get_gid() for line in ax.get_lines()}
    if "exact-zero" in gids:
        handles.append(Line2D([], [], ls=":", marker="v", mfc="none", color="0.35"))
        labels.append(ZERO_LABEL)
    if "failed" in gids and FAILED_LABEL not in labels:
        handles.append(Line2D([], [], ls="none", marker="X", color="C3", ms=8))
        labels.append(FAILED_LABEL)
    ax.legend(handles, labels, **{"fontsize": "small"} | options)

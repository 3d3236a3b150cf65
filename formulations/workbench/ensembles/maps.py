"""Figures of an ensemble: the stability map of a two-input grid (what each member did, coloured),
a curve for one input, a scatter for samples.

The colour is the peak abs value of the outcome's coordinate over each run (the rolling disc: the
largest lean), with the outcome's limit drawn as a contour; the second panel shows when each
member reached that limit (blank: never). Failed members are marked with a cross, members that
finished with a warning (status 2, e.g. through a singular configuration) with a dot.
"""
from __future__ import annotations

import numpy as np


def _quantity(result):
    """(values (N,), label, limit or None): what the map colours."""
    if result.outcome is not None:
        name, limit = result.outcome["coordinate"], result.outcome["limit"]
        return result.peak(name), f"max abs({name}) over the run [{result.units.get(name, '?')}]", limit
    return result.columns["error_position"], "max position constraint error [m or rad]", None


def grid_axes(result):
    """The 1-D values of each input of a grid result (first name slowest)."""
    values = result.inputs.reshape(*result.shape, len(result.input_names))
    axes = []
    for j in range(len(result.input_names)):
        index = [0] * len(result.shape)
        index[j] = slice(None)
        axes.append(values[tuple(index) + (j,)])
    return axes


def stability_map(result, path=None, title=None, lines=()):
    """A matplotlib Figure of ``result`` (an EnsembleResult); saved to ``path`` where given.
    lines: (input name, value, label) drawn across the map, e.g. ("spin", 2.56, "linear threshold")."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    values, label, limit = _quantity(result)
    reached = result.columns["outcome_t"]
    failed, warned = result.status < 0, result.status == 2
    two_d = len(result.shape) == 2 and len(result.input_names) == 2
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    heading = title or f"{result.system_name}, {result.formulation}: {len(result)} members"
    fig.suptitle(heading)
    if two_d:
        x, y = grid_axes(result)[1], grid_axes(result)[0]  # second input across, first up
        grid = result.on_grid(values)
        top = 1.5 * limit if limit is not None else None  # beyond the limit the shade says little
        mesh = axes[0].pcolormesh(x, y, grid, shading="nearest", cmap="viridis", vmax=top)
        fig.colorbar(mesh, ax=axes[0], label=label, extend="max" if top is not None else "neither")
        if limit is not None and np.nanmin(grid) < limit < np.nanmax(grid):
            axes[0].contour(x, y, grid, levels=[limit], colors="w", linewidths=1.5)
        times = result.on_grid(reached)
        mesh = axes[1].pcolormesh(x, y, np.ma.masked_invalid(times), shading="nearest", cmap="magma_r")
        fig.colorbar(mesh, ax=axes[1], label=_time_label(result))
        for ax in axes:
            ax.set_xlabel(result.label(result.input_names[1]))
            ax.set_ylabel(result.label(result.input_names[0]))
            for name, value, text in lines:
                draw = ax.axhline if name == result.input_names[0] else ax.axvline
                draw(value, color="tab:red", ls="--", lw=1.2, label=text)
            for mask, style, text in ((failed, "rx", "failed"), (warned, "k.", "finished with a warning")):
                if mask.any():
                    ax.plot(result.input(result.input_names[1])[mask], result.input(result.input_names[0])[mask],
                            style, ms=4, label=text)
            if failed.any() or warned.any():
                ax.legend(loc="upper right", fontsize=8)
    elif len(result.input_names) >= 1:
        x = result.input(result.input_names[0])
        order = np.argsort(x, kind="stable")
        if len(result.input_names) == 1:
            axes[0].plot(x[order], values[order], ".-")
            axes[1].plot(x[order], reached[order], ".-")
        else:
            y = result.input(result.input_names[1])
            scatter = axes[0].scatter(x, y, c=values, s=12, cmap="viridis")
            fig.colorbar(scatter, ax=axes[0], label=label)
            scatter = axes[1].scatter(x, y, c=reached, s=12, cmap="magma_r")
            fig.colorbar(scatter, ax=axes[1], label=_time_label(result))
        for ax, ylabel in zip(axes, (label, _time_label(result))):
            ax.set_xlabel(result.label(result.input_names[0]))
            if len(result.input_names) == 1:
                ax.set_ylabel(ylabel)
            elif len(result.input_names) > 1:
                ax.set_ylabel(result.label(result.input_names[1]))
        if limit is not None and len(result.input_names) == 1:
            axes[0].axhline(limit, color="k", lw=0.8, ls="--")
    else:
        axes[0].hist(values[np.isfinite(values)], bins=30)
        axes[0].set_xlabel(label)
        axes[1].hist(reached[np.isfinite(reached)], bins=30)
        axes[1].set_xlabel(_time_label(result))
    axes[0].set_title(label + (f" (contour: {limit:g})" if limit is not None and two_d else ""), fontsize=10)
    axes[1].set_title(_time_label(result) + " (blank: never)", fontsize=10)
    if path is not None:
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return fig


def _time_label(result):
    if result.outcome is None:
        return "time the outcome was reached [s]"
    return f"time {result.outcome['label']} (abs({result.outcome['coordinate']}) >= {result.outcome['limit']:g}) [s]"

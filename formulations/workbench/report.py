"""A report folder for a comparison: report.md, figures (PNG) and results.json."""
from __future__ import annotations

import pathlib

from .plots import constraint_errors, energy_error, reactions, work_precision
from .views import VIEWS


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path.name


def figures(comparison, system, folder) -> list:
    """Write the figures of ``comparison`` into ``folder``; returns [(title, file name)]."""
    from matplotlib.figure import Figure

    folder = pathlib.Path(folder)
    out = []
    fig = Figure(figsize=(12, 3.8))
    axes = fig.subplots(1, 3)
    for ax, level in zip(axes, ("position", "velocity", "acceleration")):
        constraint_errors(comparison, ax=ax, level=level)
    out.append(("Constraint errors", _save(fig, folder / "constraint_errors.png")))
    fig = Figure(figsize=(7, 4))
    energy_error(comparison, ax=fig.add_subplot())
    out.append(("Energy error", _save(fig, folder / "energy_error.png")))
    fig = Figure(figsize=(7, 4))
    reactions(comparison.reference, ax=fig.add_subplot())
    out.append(("Reactions (reference run)", _save(fig, folder / "reactions.png")))
    if comparison.sweep:
        fig = Figure(figsize=(18, 5))
        for ax, quantity in zip(fig.subplots(1, 3), ("deviation", "constraints", "energy")):
            work_precision(comparison, ax=ax, quantity=quantity)
        out.append(("Work-precision", _save(fig, folder / "work_precision.png")))
    views = VIEWS.get(system.name, [])
    if views:
        fig = Figure(figsize=(6 * len(views), 4.5))
        for ax, (_, view) in zip(fig.subplots(1, len(views)) if len(views) > 1 else [fig.add_subplot()], views):
            view(comparison.reference, system, ax=ax)
        out.append(("The motion", _save(fig, folder / f"{system.name}_views.png")))
    return out


def write_report(comparison, system, folder, analysis=None) -> pathlib.Path:
    """report.md, the figures and results.json in ``folder`` (created); returns the report path."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    figs = figures(comparison, system, folder)
    (folder / "results.json").write_text(comparison.to_json(indent=2))
    par = ", ".join(f"{k} = {v:g}" for k, v in comparison.parameters.items())
    lines = [f"# Comparison of formulations: {system.name}", "",
             f"- parameters: {par}",
             f"- time span: {comparison.t_span[0]:g} to {comparison.t_span[1]:g} s; rtol = {comparison.rtol:g}, "
             f"atol = {comparison.atol:g}",
             f"- reference: dependent formulation with projection at rtol = atol = {comparison.reference_tol:g}",
             "- deviations are max-norms over p and v on a common grid of "
             f"{len(comparison.reference.t)} times; energy in J, reactions in N (or N m)", "",
             "## Results", "", comparison.to_markdown(), "## Reading", ""]
    lines += [f"- {note}" for note in comparison.reading()]
    lines += ["", "## Figures", ""]
    lines += [f"### {title}\n\n![{title}]({name})\n" for title, name in figs]
    if analysis is not None:
        lines += ["## Constraint analysis", "", analysis.to_markdown()]
    path = folder / "report.md"
    path.write_text("\n".join(lines))
    return path

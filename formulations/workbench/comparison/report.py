"""A report folder for a comparison: report.md, figures (PNG), results.json and, for a system with
visuals, scene.html (the reference run in 3D)."""
from __future__ import annotations

import json
import pathlib

from ..output import write_atomic
from ..plots import OVERLAID, constraint_error_grid, energy_error, failed_runs, reactions, work_precision
from .views import VIEWS

MAX_EVENTS = 40  # the contact events and modes a report lists


def _save(fig, path):
    fig.savefig(path, dpi=110)
    return path.name


def _shared_legend(fig, axes):
    """One legend for the figure, below the axes (constrained layout keeps it clear of the labels),
    with every entry of any of the axes once."""
    entries = {}
    for ax in axes:
        legend = ax.get_legend()
        if legend is not None:
            entries.update((text.get_text(), handle) for handle, text in zip(legend.legend_handles, legend.get_texts())
                           if text.get_text() not in entries)
            legend.remove()
    if entries:
        fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncols=min(len(entries), 4),
                   fontsize="small", frameon=False)


def failed_note(comparison) -> str:
    """A sentence listing the sweep's failed runs (marked with red crosses in the work-precision figure)."""
    failed = failed_runs(comparison)
    if not failed:
        return ""
    runs = "; ".join(f"{p.label} at tolerance {p.tol:g} ({'stopped' if p.status < 0 else 'failed a check'}, "
                     f"status {p.status})" for p in failed)
    return f"Failed runs, marked with red crosses and left out of the lines: {runs}."


def comparison_figures(comparison, system) -> list:
    """The figures of ``comparison``: [(title, file name, matplotlib Figure)]. Every figure uses
    constrained layout, and the legends sit below the axes, so that no text covers another."""
    from matplotlib.figure import Figure

    out = []
    runs = len(comparison.rows)
    fig = Figure(figsize=(12, 4.6 if runs <= OVERLAID else 1.3 * runs + 1.4), layout="constrained")
    _shared_legend(fig, constraint_error_grid(comparison, fig).ravel())
    out.append(("Constraint errors", "constraint_errors.png", fig))
    fig = Figure(figsize=(7, 5), layout="constrained")
    ax = fig.add_subplot()
    energy_error(comparison, ax=ax)
    _shared_legend(fig, [ax])
    out.append(("Energy error", "energy_error.png", fig))
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.add_subplot()
    reactions(comparison.reference, ax=ax)
    _shared_legend(fig, [ax])
    out.append(("Reactions (reference run)", "reactions.png", fig))
    if comparison.sweep:
        fig = Figure(figsize=(18, 5.6), layout="constrained")
        axes = fig.subplots(1, 3)
        for ax, quantity in zip(axes, ("deviation", "constraints", "energy")):
            work_precision(comparison, ax=ax, quantity=quantity)
        _shared_legend(fig, axes)
        out.append(("Work-precision", "work_precision.png", fig))
    views = VIEWS.get(system.name, [])
    if views:
        fig = Figure(figsize=(6 * len(views), 4.5), layout="constrained")
        for ax, (_, view) in zip(fig.subplots(1, len(views)) if len(views) > 1 else [fig.add_subplot()], views):
            view(comparison.reference, system, ax=ax)
        out.append(("The motion", f"{system.name}_views.png", fig))
    return out


def figures(comparison, system, folder) -> list:
    """Write the figures of ``comparison`` into ``folder``; returns [(title, file name)]."""
    folder = pathlib.Path(folder)
    return [(title, _save(fig, folder / name)) for title, name, fig in comparison_figures(comparison, system)]


def _contacts_let_go(comparison, system, data) -> list:
    """Where a run's contact check fired (a normal force that pulls, friction beyond mu N), the report's
    section on the same motion with the contacts free to open and slide: the run of
    formulations.simulate_contacts from the reference's start over the comparison's span, its events and
    modes (also as "contacts" in ``data``, the results' JSON); nothing elsewhere."""
    if not system.contacts or not any(r.status == 2 and "contact '" in r.message for r in comparison.rows):
        return []
    from ..contacts import simulate_contacts

    start = (comparison.reference.p[0], comparison.reference.v[0])
    run = simulate_contacts(system, comparison.t_span, start, rtol=comparison.rtol, atol=comparison.atol)
    data["contacts"] = {key: run.summary()[key] for key in ("events", "modes")} | {"status": int(run.status),
                                                                                    "message": run.message}
    lines = ["", "## With its contacts free", "",
             f"The formulations above hold every row; their checks say where a contact would let go. "
             f"`formulations.simulate_contacts` runs the same start with the contacts opening, closing and "
             f"sliding (the dependent formulation, phase by phase, rtol = {comparison.rtol:g}): {run.message}.", ""]
    if run.events:
        lines += ["| t in s | event | contact |", "|---|---|---|"]
        lines += [f"| {e.t:.6g} | {e.kind} | {e.constraint} |" for e in run.events[:MAX_EVENTS]]
        lines += [f"| … | {len(run.events) - MAX_EVENTS} more | |"] if len(run.events) > MAX_EVENTS else []
        lines += [""]
    lines += ["| from t in s | to t in s | mode |", "|---|---|---|"]
    lines += [f"| {m.start:.6g} | {m.end:.6g} | {m.label} |" for m in run.modes[:MAX_EVENTS]]
    return lines


def write_report(comparison, system, folder, analysis=None, note=None) -> pathlib.Path:
    """report.md, the figures, results.json and (a system with visuals) scene.html in ``folder``
    (created); returns the report path.

    note: a sentence on how the runs ended (e.g. runs that did not finish), put at the top of
    report.md and as "note" into results.json. Both text files are written atomically."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    figs = figures(comparison, system, folder)
    data = json.loads(comparison.to_json())
    if note:
        data["note"] = note
    par = ", ".join(f"{k} = {v:g}" for k, v in comparison.parameters.items())
    lines = [f"# Comparison of formulations: {system.name}", ""]
    lines += [f"> **Note:** {note}", ""] if note else []
    lines += [f"- parameters: {par}",
              f"- time span: {comparison.t_span[0]:g} to {comparison.t_span[1]:g} s; rtol = {comparison.rtol:g}, "
              f"atol = {comparison.atol:g}",
              f"- reference: {comparison.reference_label} (DOP853) at rtol = atol = {comparison.reference_tol:g}",
              "- deviations are max-norms over p and v on a common grid of "
              f"{len(comparison.reference.t)} times; energy in J, reactions in N (or N m)", "",
              "## Results", "", comparison.to_markdown(), "## Reading", ""]
    lines += [f"- {item}" for item in comparison.reading()]
    lines += _contacts_let_go(comparison, system, data)
    write_atomic(folder / "results.json", json.dumps(data, indent=2))
    if system.visuals:  # the reference run as a 3D scene beside the figures
        from ..scene import show

        show(comparison.reference, system=system, path=folder / "scene.html")
        lines += ["", "## The motion in 3D", "", "[scene.html](scene.html): the reference run, one page to open in a "
                  "browser (drag to turn the view, the slider for the time)."]
    lines += ["", "## Figures", ""]
    for title, name in figs:
        lines += [f"### {title}", "", f"![{title}]({name})", ""]
        if name == "work_precision.png" and failed_note(comparison):
            lines += [failed_note(comparison), ""]
    if analysis is not None:
        lines += ["## Constraint analysis", "", analysis.to_markdown()]
    return write_atomic(folder / "report.md", "\n".join(lines))

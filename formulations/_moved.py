"""Import paths of earlier layouts, kept working for one release with a DeprecationWarning (the
finder is systems._moved).

    formulations.integrators           -> formulations.solvers (driver, base, scipy_ivp, ...)
    formulations.dae, .lie, .groups, .augmented_lagrangian -> formulations.solvers.ida, .lie, ...
    formulations.trajectory            -> formulations.results.trajectory
    formulations.cli, .reports[.X]     -> formulations.workbench.cli, formulations.workbench...
    formulations.linear                -> formulations.linalg
    formulations.geometry, .charts     -> formulations.coordinates.embedding, .charts
    formulations.linear_pieces, .linear_symbolic, .linear_modes
                                       -> formulations.linearization.pieces, .symbolic, .modes
    formulations.solvers.inputs        -> formulations.solvers.options
    formulations.workbench.X           -> formulations.workbench.cli.X, .comparison.X, .derivation.X,
                                          .ensembles.X (see MOVED)
    formulations.compare, .reactions, .stability
                                       -> their new modules; their names in the package are the
                                          functions, so the modules are reachable under the old paths
                                          without a warning
"""
from __future__ import annotations

from systems import _moved

W = "formulations.workbench"
MOVED = {
    "formulations.integrators": ("formulations.errors", "formulations.solvers.base", "formulations.solvers.driver",
                                 "formulations.solvers.scipy_ivp", "formulations.solvers.explicit_rk",
                                 "formulations.solvers.fixed_step"),
    "formulations.dae": "formulations.solvers.ida",
    "formulations.augmented_lagrangian": "formulations.solvers.augmented_lagrangian",
    "formulations.lie": "formulations.solvers.lie",
    "formulations.groups": "formulations.solvers.groups",
    "formulations.trajectory": "formulations.results.trajectory",
    "formulations.cli": f"{W}.cli",
    "formulations.reports": W,
    "formulations.reports.plots": f"{W}.plots",
    "formulations.reports.views": f"{W}.comparison.views",
    "formulations.reports.animation": f"{W}.comparison.animation",
    "formulations.reports.report": f"{W}.comparison.report",
    "formulations.reports.derivation": f"{W}.derivation",
    "formulations.linear": "formulations.linalg",
    "formulations.geometry": "formulations.coordinates.embedding",
    "formulations.charts": "formulations.coordinates.charts",
    "formulations.linear_pieces": "formulations.linearization.pieces",
    "formulations.linear_symbolic": "formulations.linearization.symbolic",
    "formulations.linear_modes": "formulations.linearization.modes",
    "formulations.solvers.inputs": "formulations.solvers.options",
    f"{W}.commands": f"{W}.cli.commands",
    f"{W}.inputs": f"{W}.cli.parsing",
    f"{W}.stability_cli": f"{W}.cli.stability",
    f"{W}.sweep": f"{W}.cli.sweep",
    f"{W}.compare": f"{W}.comparison.compare",
    f"{W}.estimate": f"{W}.comparison.estimate",
    f"{W}.report": f"{W}.comparison.report",
    f"{W}.views": f"{W}.comparison.views",
    f"{W}.animation": f"{W}.comparison.animation",
    f"{W}.derivation_steps": f"{W}.derivation.steps",
    f"{W}.transcript": f"{W}.derivation.transcript",
    f"{W}.export": f"{W}.derivation.export",
    f"{W}.ensemble": f"{W}.ensembles.ensemble",
    f"{W}.ensemble_compare": f"{W}.ensembles.compare",
    f"{W}.ensemble_exec": f"{W}.ensembles.execution",
    f"{W}.ensemble_inputs": f"{W}.ensembles.variations",
    f"{W}.ensemble_members": f"{W}.ensembles.members",
    f"{W}.sweep_map": f"{W}.ensembles.maps",
    f"{W}.stability_plot": f"{W}.plots",
}
# names that are functions of the package: the module is registered at once, so that importing it
# never replaces the function on the package
ALIASED = {"formulations.compare": f"{W}.comparison.compare",
           "formulations.reactions": "formulations.results.reactions",
           "formulations.stability": "formulations.linearization.stability"}


def _integrators_names(module):
    from . import solvers

    module.METHODS = solvers.names()
    module.ORDER = {name: solvers.order(name) for name in solvers.names()}


def install():
    _moved.alias(ALIASED)
    _moved.register(MOVED, {"formulations.integrators": _integrators_names})

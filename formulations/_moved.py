"""Import paths of the previous layout, kept working for one release with a DeprecationWarning.

    formulations.integrators           -> formulations.solvers (driver, base, scipy_ivp, ...)
    formulations.dae                   -> formulations.solvers.ida
    formulations.augmented_lagrangian  -> formulations.solvers.augmented_lagrangian
    formulations.lie, .groups          -> formulations.solvers.lie, .groups
    formulations.trajectory            -> formulations.results.trajectory
    formulations.cli                   -> formulations.workbench.cli
    formulations.reports[.X]           -> formulations.workbench[.X]
    formulations.compare, .reactions   -> formulations.workbench.compare, formulations.results.reactions
                                          (their names in the package are the functions; the modules
                                          are reachable under the old paths without a warning)
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    "formulations.integrators": ("formulations.errors", "formulations.solvers.base", "formulations.solvers.driver",
                                 "formulations.solvers.scipy_ivp", "formulations.solvers.explicit_rk",
                                 "formulations.solvers.fixed_step"),
    "formulations.dae": "formulations.solvers.ida",
    "formulations.augmented_lagrangian": "formulations.solvers.augmented_lagrangian",
    "formulations.lie": "formulations.solvers.lie",
    "formulations.groups": "formulations.solvers.groups",
    "formulations.trajectory": "formulations.results.trajectory",
    "formulations.cli": "formulations.workbench.cli",
    "formulations.reports": "formulations.workbench",
    "formulations.reports.plots": "formulations.workbench.plots",
    "formulations.reports.views": "formulations.workbench.views",
    "formulations.reports.animation": "formulations.workbench.animation",
    "formulations.reports.report": "formulations.workbench.report",
    "formulations.reports.derivation": "formulations.workbench.derivation",
}
# names that are functions of the package: the module is registered at once, so that importing it
# never replaces the function on the package
ALIASED = {"formulations.compare": "formulations.workbench.compare",
           "formulations.reactions": "formulations.results.reactions"}


class _Loader(importlib.abc.Loader):
    """Makes the old module a namespace holding the public names of its new home(s)."""

    def __init__(self, targets):
        self.targets = (targets,) if isinstance(targets, str) else targets

    def create_module(self, spec):
        return None  # a plain new module

    def exec_module(self, module):
        warnings.warn(f"{module.__name__} has moved to {' and '.join(self.targets)}; the old path will be removed "
                      f"in the next release", DeprecationWarning, stacklevel=2)
        for target in self.targets:
            new = importlib.import_module(target)
            module.__dict__.update({k: v for k, v in vars(new).items() if not k.startswith("__")})
        if module.__name__ == "formulations.integrators":
            from . import solvers
            module.METHODS = solvers.names()
            module.ORDER = {name: solvers.order(name) for name in solvers.names()}
        if hasattr(importlib.import_module(self.targets[0]), "__path__"):
            module.__path__ = []  # a package: its old submodules are found by this finder too


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(MOVED[fullname]))


def install():
    for old, new in ALIASED.items():
        sys.modules.setdefault(old, importlib.import_module(new))
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())

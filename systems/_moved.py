"""Import paths of earlier layouts, kept working for one release with a DeprecationWarning.

One finder serves both packages: ``register(table)`` adds {old module: new module(s)} entries, and
importing an old path makes a module holding the public names of its new home(s), with a warning.

    systems.codegen                 -> systems.numeric.codegen
    systems.pfaffian_rows, .distribution, .singular, ._bounded
                                    -> systems.analysis.pfaffian_rows, ... , systems.analysis.bounded
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED: dict = {
    "systems.codegen": "systems.numeric.codegen",
    "systems.pfaffian_rows": "systems.analysis.pfaffian_rows",
    "systems.distribution": "systems.analysis.distribution",
    "systems.singular": "systems.analysis.singular",
    "systems._bounded": "systems.analysis.bounded",
}
_HOOKS: dict = {}  # old module -> function(module) run after its names are filled in


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
        if module.__name__ in _HOOKS:
            _HOOKS[module.__name__](module)
        if hasattr(importlib.import_module(self.targets[0]), "__path__"):
            module.__path__ = []  # a package: its old submodules are found by this finder too


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(MOVED[fullname]))


def register(table: dict, hooks: dict | None = None):
    """Add {old module: new module or tuple of modules} to the finder (installed on first use)."""
    MOVED.update(table)
    _HOOKS.update(hooks or {})
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())


def alias(table: dict):
    """Register {old module: new module} as the same module object, without a warning: for old
    paths whose last name is also a function of the package (formulations.compare)."""
    for old, new in table.items():
        sys.modules.setdefault(old, importlib.import_module(new))

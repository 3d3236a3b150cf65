"""The layout shows the pipeline: systems -> formulations -> solvers -> results -> workbench, and the
import graph keeps to it; old import paths still work, with a warning."""
import ast
import importlib
import pathlib
import sys
import warnings

import pytest

ROOT = pathlib.Path(__file__).parent.parent


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "systems":
        return "systems"
    if parts[0] != "formulations":
        return "outside"
    if len(parts) > 1 and parts[1] in ("solvers", "results", "workbench"):
        return parts[1]
    return "formulations"


def _imports(path: pathlib.Path):
    """Absolute names of every module ``path`` imports, at any depth of the file."""
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    package = package.removesuffix(".__init__")
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)


FORBIDDEN = {
    "systems": {"formulations", "solvers", "results", "workbench"},
    "formulations": {"solvers", "results", "workbench"},
    "solvers": {"workbench"},
    "results": {"solvers", "workbench"},
}
# the package facade formulations/__init__.py re-exports the public names of every layer
FACADES = {ROOT / "formulations" / "__init__.py", ROOT / "formulations" / "_moved.py"}
SOURCES = [p for d in ("systems", "formulations") for p in sorted((ROOT / d).rglob("*.py")) if p not in FACADES]


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_imports_follow_the_pipeline(path):
    layer = _layer(".".join(path.relative_to(ROOT).with_suffix("").parts))
    bad = sorted({name for name in _imports(path) if _layer(name) in FORBIDDEN.get(layer, ())})
    assert not bad, f"{path.relative_to(ROOT)} ({layer}) imports {bad}"


def test_the_import_check_can_fail():
    """The walker sees relative imports inside functions (a formulation importing a solver)."""
    path = ROOT / "formulations" / "solvers" / "simulate.py"
    assert "formulations.results.recording.trajectory" in set(_imports(path))
    assert _layer("formulations.solvers.ida") == "solvers" and "solvers" in FORBIDDEN["formulations"]


def test_no_module_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in SOURCES if (n := len(p.read_text().splitlines())) > 400}
    assert not long, long


@pytest.mark.parametrize("old, name", [
    ("formulations.integrators", "Event"), ("formulations.dae", "require_ida"), ("formulations.lie", "LieStepper"),
    ("formulations.groups", "se3_exp"), ("formulations.trajectory", "Trajectory"),
    ("formulations.reports.plots", "work_precision"), ("formulations.cli", "main"),
    ("formulations.augmented_lagrangian", "AugmentedLagrangian")])
def test_old_import_paths_work_with_a_deprecation_warning(old, name):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match="has moved"):
        module = importlib.import_module(old)
    assert getattr(module, name) is not None


def test_old_module_paths_of_public_functions_keep_the_functions():
    import formulations

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from formulations.compare import default_configurations  # noqa: F401
        import formulations.reactions  # noqa: F401
    assert callable(formulations.compare) and callable(formulations.reactions)
    assert not isinstance(formulations.compare, type(sys))

"""The layout shows the pipeline: systems -> formulations -> solvers -> results -> control -> workbench, and the
import graph keeps to it, without cycles (imports inside functions counted)."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).parent.parent


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "systems":
        return "systems"
    if parts[0] != "formulations":
        return "outside"
    if len(parts) > 1 and parts[1] in ("solvers", "results", "control", "workbench"):
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
    "systems": {"formulations", "solvers", "results", "control", "workbench"},
    "formulations": {"solvers", "results", "control", "workbench"},
    "solvers": {"control", "workbench"},
    "results": {"solvers", "control", "workbench"},
    "control": {"workbench"},
}
# the package facade formulations/__init__.py re-exports the public names of every layer
FACADES = {ROOT / "formulations" / "__init__.py"}
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


MODULES = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
           for d in ("systems", "formulations") for p in sorted((ROOT / d).rglob("*.py"))}


def _dependencies(module: str) -> set:
    """The project modules ``module`` imports at any depth of its file: ``from X import name`` counts
    as X.name where that is a module (a package importing its own submodule is no cycle), else X."""
    found = set()
    names = set(_imports(MODULES[module]))
    for name in names:
        if name.rpartition(".")[0] in names and name not in MODULES:
            continue  # a name imported from a module, not a module
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module and not module.startswith(name + "."):  # a package's parents load first
            found.add(name)
    return found


def _cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root), on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child), on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_no_import_cycle():
    """No cycle among the project's modules, counting imports inside functions and the package
    facades."""
    graph = {m: _dependencies(m) for m in MODULES}
    assert not _cycles(graph), _cycles(graph)


def test_the_cycle_check_can_fail():
    assert "systems.builders.from_sympy" in _dependencies("systems")  # imported inside a function
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


LONGEST = 80  # lines of one function, its docstring included


def _long_functions(path):
    tree = ast.parse(path.read_text())
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > LONGEST]


def test_no_function_over_the_cap():
    long = {f"{p.relative_to(ROOT)}:{name}": n for p in SOURCES for name, n in _long_functions(p)}
    assert not long, long


def _formulation_literals(path, names):
    """(line, text) of every string constant in ``path`` that names a formulation of ``names`` or a
    configuration of one ("dependent+projection", "minimal@Radau", "reduced[singular=pass]"), outside
    docstrings and the text of f-strings (messages and help that mention a name decide nothing)."""
    tree = ast.parse(path.read_text())
    prose = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                prose.add(id(first.value))
        if isinstance(node, ast.JoinedStr):
            prose.update(id(value) for value in node.values)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
            and node.value.split("+")[0].split("@")[0].split("[")[0] in names]


def test_no_module_names_a_formulation_but_its_own():
    """A layer learns the formulations from the registry and refers to one by its class (Dependent.name),
    never by a string: the formulation's own module is the one place that spells its name."""
    from formulations import registry

    own = {registry.formulation_class(name).__module__: name for name in registry.names()}
    found = {}
    for path in SOURCES:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        names = set(registry.names()) - {own.get(module)}
        found.update({f"{path.relative_to(ROOT)}:{line}": text for line, text in _formulation_literals(path, names)})
    assert not found, found


def test_the_literal_check_can_fail(tmp_path):
    source = tmp_path / "layer.py"
    source.write_text('"""About the "minimal" formulation."""\nDEFAULT = "minimal"\nREFERENCE = "dependent+projection"\n'
                      'message = f"use \'dependent\'"\nother = "minimalist"\n')
    assert _formulation_literals(source, {"minimal", "dependent"}) == [(2, "minimal"), (3, "dependent+projection")]

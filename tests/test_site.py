"""The documentation site builds from the checkout with every warning an error: the Markdown pages
(the same that tests/test_docs.py runs), the API reference from the docstrings (nitpicky: every
cross-reference resolves), the gallery executed within its budgets, the notebook executed, and the
command line read from its parser. The public names' docstring examples run too.

The build and the examples are in the ``slow`` set (the build takes minutes; ``.ci/run`` runs them)
and skip only where Sphinx and the ``docs`` extra are absent. That DESIGN's public surface documents
its parameters, returns and an example is checked in the default set.
"""
import doctest
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import formulations
import systems

ROOT = pathlib.Path(__file__).parent.parent
BUDGET = 30.0  # s, each gallery example (said in the example)
EXTENSIONS = ("sphinx", "myst_nb", "numpydoc", "sphinx_gallery", "furo")
# not API pages of their own: the version string, a module, and METHODS (solvers.names(), read when asked)
NOT_PAGES = {"__version__", "solvers", "METHODS", "TIME"}


def _public():
    """Every public name of the two packages, as ``package.name`` (one page for a name both export)."""
    names = [f"systems.{n}" for n in systems.__all__]
    names += [f"formulations.{n}" for n in formulations.__all__
              if getattr(formulations, n) is not getattr(systems, n, None)] + ["formulations.optimal_control"]
    return [name for name in names if name.split(".")[1] not in NOT_PAGES]


# DESIGN's public surface: its functions and methods, and the classes its results are
SURFACE_FUNCTIONS = ["systems.names", "systems.load", "systems.analyze_constraints", "systems.from_lagrangian",
                     "systems.from_sympy", "systems.System.consistent_state", "systems.System.state_from_q",
                     "formulations.names", "formulations.create", "formulations.simulate", "formulations.reactions",
                     "formulations.compare", "formulations.linearize", "formulations.stability",
                     "formulations.ensemble", "formulations.optimal_control", "formulations.advise",
                     "formulations.derive", "formulations.sensitivities", "formulations.identify",
                     "formulations.simulate_contacts", "formulations.Formulation.simulate",
                     "formulations.Formulation.equations", "formulations.Trajectory.show"]
SURFACE_CLASSES = ["systems.System", "formulations.Trajectory", "formulations.Linearization",
                   "formulations.OptimalControlResult", "formulations.Advice", "formulations.Sensitivities",
                   "formulations.Identification", "formulations.Comparison"]


def _resolved(dotted):
    obj = {"systems": systems, "formulations": formulations}[dotted.split(".")[0]]
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", SURFACE_FUNCTIONS + SURFACE_CLASSES)
def test_the_public_surface_documents_its_parameters_returns_and_an_example(name):
    doc = _resolved(name).__doc__ or ""
    sections = {title for title in ("Parameters", "Returns", "Attributes", "Examples")
                if re.search(rf"^\s*{title}\n\s*-{{{len(title)}}}\n", doc, re.M)}
    needed = {"Attributes", "Examples"} if name in SURFACE_CLASSES else {"Returns", "Examples"}
    if name not in SURFACE_CLASSES and name != "formulations.names" and name != "systems.names":
        needed.add("Parameters")
    assert needed <= sections, f"{name} lacks {sorted(needed - sections)}"
    assert ">>>" in doc


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for name in EXTENSIONS:
        pytest.importorskip(name, reason=f"{name} builds the site (extra 'docs')")
    work = tmp_path_factory.mktemp("site")
    source = work / "docs"  # a copy: the build writes its generated pages next to the sources
    shutil.copytree(ROOT / "docs", source, ignore=shutil.ignore_patterns("_build", "auto_gallery", "generated",
                                                                         "jupyter_execute", "__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "PFAFF_BACKGROUND_COMPILE": "0",
           "PFAFF_CACHE_DIR": str(work / "cache"), "NUMBA_CACHE_DIR": str(work / "cache" / "numba")}
    env.pop("PFAFF_BACKEND", None)  # the default backend, as a reader's
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-b", "html", str(source),
                           str(work / "html")], capture_output=True, text=True, env=env, cwd=work, timeout=1500)
    assert done.returncode == 0, done.stderr[-6000:]
    return source, work / "html"


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.xdist_group("site")  # one build for both site tests
def test_the_site_builds_with_warnings_as_errors_and_every_public_name_has_a_page(site):
    source, html = site
    assert (html / "index.html").is_file() and (html / "command-line.html").is_file()
    missing = [name for name in _public() if not (html / "api" / "generated" / f"{name}.html").is_file()]
    assert not missing, missing
    compare = (html / "api" / "generated" / "formulations.compare.html").read_text()
    for section in ("Parameters", "Returns", "Examples"):
        assert section in compare, section
    cli = (html / "command-line.html").read_text()  # every command, from the parser
    assert all(f"pfaff {name}" in cli for name in ("compare", "simulate", "derive", "identify", "cache"))


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.xdist_group("site")
def test_the_gallery_runs_within_its_budgets(site):
    source, html = site
    examples = sorted((source / "gallery").rglob("plot_*.py"))
    assert 10 <= len(examples) <= 15, len(examples)
    times = {}  # s, each example's own footer: "Total running time of the script: (M minutes S seconds)"
    for page in (source / "auto_gallery").rglob("plot_*.rst"):
        found = re.search(r"Total running time of the script:\*\* \((\d+) minutes ([\d.]+) seconds\)", page.read_text())
        times[page.stem] = 60 * float(found[1]) + float(found[2])
    assert sorted(times) == sorted(e.stem for e in examples), times
    for example in examples:
        budget = re.search(r"Time budget: (\d+) s", example.read_text())
        assert budget and float(budget[1]) <= BUDGET, f"{example.name} states no budget within {BUDGET} s"
        assert times[example.stem] <= float(budget[1]), (example.name, times[example.stem])
        assert (html / "auto_gallery" / example.parent.name / f"{example.stem}.html").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("name", _public())
def test_the_docstring_examples_run(name, monkeypatch, tmp_path):
    obj = _resolved(name)
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(obj, name, globs={})
    if isinstance(obj, type):  # a class: its own methods' examples too
        tests += [t for member in vars(obj).values() if callable(member) or isinstance(member, property)
                  for t in finder.find(getattr(member, "fget", member), name, globs={})]
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failed examples in {name} (see the output)"

"""Every docs page runs: its Python blocks, in order.

In the default run each page runs in this process, in a namespace of its own and a new folder,
with the suite's imports and the compiled kernels of its cache folder (the registries of
formulations and solvers, which a page may extend, are restored after it). With ``-m slow`` each
page also runs as a reader runs it: saved as one script and run with python in a new folder with a
new PFAFF_CACHE_DIR (tests/reader.py), on the numpy backend and on the default one.
"""
import pathlib
import re
import sys

import pytest

from reader import environment, outcome, run

# the site's own pages (tests/test_site.py builds them): no code of their own
NAVIGATION = {"index.md", "command-line.md", "site.md"}
DOCS = sorted(page for page in (pathlib.Path(__file__).parent.parent / "docs").glob("*.md")
              if page.name not in NAVIGATION)
# a block after the line "<!-- slow: why -->" runs with -m slow only (one that compiles a module of
# its own kind, say); the default run leaves it out
BLOCK = re.compile(r"^(<!-- slow: [^\n]*-->\n)?```python\n(.*?)^```", re.S | re.M)



def page_param(page, *marks):
    # the compiled backend's page runs in the worker that compiles the modules (tests/test_compiled_agreement.py)
    group = [pytest.mark.xdist_group("compiled")] if page.stem == "compiled-backend" else []
    return pytest.param(page, marks=[*group, *marks], id=page.stem)


def blocks(page, slow=True):
    """The page's Python blocks in order; slow=False leaves out those marked slow."""
    found = BLOCK.findall(page.read_text())
    assert found, f"{page.name} has no code"
    return [code for mark, code in found if slow or not mark]


@pytest.mark.parametrize("page", [page_param(p) for p in DOCS])
def test_page_runs(page, tmp_path, monkeypatch):
    _run_here(page, tmp_path, monkeypatch, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize("page", [page_param(p) for p in DOCS if len(blocks(p)) > len(blocks(p, slow=False))])
def test_page_runs_with_its_slow_blocks(page, tmp_path, monkeypatch):
    _run_here(page, tmp_path, monkeypatch, slow=True)


def _run_here(page, tmp_path, monkeypatch, slow):
    monkeypatch.chdir(tmp_path)
    import matplotlib.pyplot as plt

    from formulations import registry
    from formulations.solvers import base as solver_base

    kept = registry.snapshot(), dict(solver_base._REGISTRY)
    try:
        namespace = {"__name__": "__main__"}
        for i, code in enumerate(blocks(page, slow)):
            exec(compile(code, f"{page.name}[block {i + 1}]", "exec"), namespace)
    finally:
        registry.restore(kept[0])
        solver_base._REGISTRY.clear()
        solver_base._REGISTRY.update(kept[1])
        plt.close("all")


@pytest.mark.slow
@pytest.mark.parametrize("page", [page_param(p) for p in DOCS])
def test_page_runs_as_script(page, tmp_path):
    """On the numpy backend: the compiled one, a reader's default, would compile each formulation's
    module anew in every page's new cache folder (test_page_runs_as_a_reader_runs_it runs them so)."""
    _run_page(page, tmp_path, "numpy")


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("page", [page_param(p) for p in DOCS])
def test_page_runs_as_a_reader_runs_it(page, tmp_path):
    """The default backend (compiled) in a new cache folder: as on a new machine."""
    _run_page(page, tmp_path, None)


def _run_page(page, tmp_path, backend):
    work = tmp_path / "work"
    work.mkdir()
    script = work / f"docs_{page.stem.replace('-', '_')}.py"
    script.write_text("\n\n".join(blocks(page)))
    result = run([sys.executable, script.name], work, environment(tmp_path, backend), timeout=3000)
    assert result.returncode == 0, f"{page.name} as a script\n{outcome(result)}"

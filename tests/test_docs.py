"""Every docs page runs as a script: its Python blocks, in order, saved as one file and run with
python in a new folder with a new PFAFF_CACHE_DIR (tests/reader.py), as a reader who copies the page.

The pages that take long that way (their first compile of machine code in a new cache folder) run
as scripts with ``-m slow``; in the default run their blocks run in this process instead, in one
namespace, with the compiled kernels of the usual cache folder.
"""
import pathlib
import re
import sys

import pytest

from reader import environment, outcome, run

DOCS = sorted((pathlib.Path(__file__).parent.parent / "docs").glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# seconds as a script in a new cache folder: cli about 60 (pfaff sweep compiles its kernels),
# compiled-backend about 60; every other page under 15
SLOW = {"cli", "compiled-backend"}


def page_param(page, *marks):
    # the compiled backend's page runs in the worker that compiles the modules (tests/test_compiled_agreement.py)
    group = [pytest.mark.xdist_group("compiled")] if page.stem == "compiled-backend" else []
    return pytest.param(page, marks=[*group, *marks], id=page.stem)


def blocks(page):
    found = BLOCK.findall(page.read_text())
    assert found, f"{page.name} has no code"
    return found


@pytest.mark.parametrize("page", [page_param(p, *([pytest.mark.slow] if p.stem in SLOW else [])) for p in DOCS])
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


@pytest.mark.parametrize("page", [page_param(p) for p in DOCS if p.stem in SLOW])
def test_slow_page_runs_in_process(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    for i, code in enumerate(blocks(page)):
        exec(compile(code, f"{page.name}[block {i + 1}]", "exec"), namespace)


def test_slow_pages_exist():
    assert SLOW <= {p.stem for p in DOCS}

"""Every Python block of every docs page runs (blocks of one page share a namespace)."""
import pathlib
import re

import pytest

DOCS = sorted((pathlib.Path(__file__).parent.parent / "docs").glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


# the compiled backend's page runs in the worker that compiles the modules (tests/test_fused.py)
PAGES = [pytest.param(p, marks=pytest.mark.xdist_group("compiled")) if p.stem == "compiled-backend" else p
         for p in DOCS]


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in DOCS])
def test_page_runs(page, tmp_path, monkeypatch):
    blocks = BLOCK.findall(page.read_text())
    assert blocks, f"{page.name} has no code"
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{page.stem}"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{page.name}[block {i + 1}]", "exec"), namespace)

"""Every Python block of every docs page runs (blocks of one page share a namespace)."""
import pathlib
import re

import pytest

DOCS = sorted((pathlib.Path(__file__).parent.parent / "docs").glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("page", DOCS, ids=[p.stem for p in DOCS])
def test_page_runs(page, tmp_path, monkeypatch):
    blocks = BLOCK.findall(page.read_text())
    assert blocks, f"{page.name} has no code"
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{page.stem}"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{page.name}[block {i + 1}]", "exec"), namespace)

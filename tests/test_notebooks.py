"""The notebooks in docs/notebooks run from top to bottom in a fresh kernel, without errors, and show
what they promise (the derivation as mathematics, the comparison as a table)."""
import pathlib
import time

import pytest

nbformat = pytest.importorskip("nbformat", reason="pip install '.[test]' for nbformat, nbclient and ipykernel")
nbclient = pytest.importorskip("nbclient", reason="pip install '.[test]' for nbformat, nbclient and ipykernel")
pytest.importorskip("ipykernel", reason="pip install '.[test]' for nbformat, nbclient and ipykernel")

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "docs" / "notebooks").glob("*.ipynb"))


def _outputs(notebook, mime):
    return [out["data"][mime] for cell in notebook.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if mime in out.get("data", {})]


# the notebooks run with -m slow (a kernel each, 10-20 s), which .ci/run runs; the site's build executes
# every notebook too (tests/test_site.py)
SLOW = {"rolling-disc", "one-disc-every-method"}
PARAMS = [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.stem in SLOW else []) for p in NOTEBOOKS]


@pytest.mark.parametrize("path", PARAMS)
def test_notebook_runs(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    seconds = time.perf_counter() - start
    errors = [out for cell in notebook.cells for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors, errors
    assert seconds < 300, f"{path.name} took {seconds:.0f} s to run"  # a runaway, not a benchmark
    if path.stem == "rolling-disc":
        markdown = "\n".join(_outputs(notebook, "text/markdown"))
        assert r"\bar{\bar{\mathbf{M}}}" in markdown and r"\dot{\psi}" in markdown and "_{dot}" not in markdown
        assert "completely nonholonomic" in markdown
        assert any("<table>" in html and "dependent+projection" in html for html in _outputs(notebook, "text/html"))
        assert _outputs(notebook, "image/png"), "the trajectory plot"
    if path.stem == "one-disc-every-method":
        markdown = "\n".join(_outputs(notebook, "text/markdown"))
        assert markdown.count("\n| ") >= 8 and "Kane's equations" in markdown  # a row per method
        assert r"\mathbf{M}_{S}" in markdown and "so every method gives the same motion" in markdown


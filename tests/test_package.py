"""The package people depend on: one version source (the package metadata), the licence, and a built
wheel and sdist that install and run outside the source tree with their package data."""
import importlib.metadata
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

import formulations
from formulations.workbench.cli.main import main

ROOT = pathlib.Path(__file__).parent.parent


def test_the_version_is_the_package_metadata_s(capsys):
    try:
        installed = importlib.metadata.version("pfaff")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("pfaff is not installed (a bare checkout)")
    assert formulations.__version__ == installed
    assert main(["--version"]) == 0 and capsys.readouterr().out.strip() == f"pfaff {installed}"


def test_the_licence_is_declared_where_the_package_says():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'license = "BSD-3-Clause"' in text and (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause License")
    assert (ROOT / "formulations/workbench/scene/vendor/LICENSE-three.js.txt").is_file()  # the vendored file's own


@pytest.mark.slow  # builds in an isolated environment and runs the main job: a minute or two
@pytest.mark.timeout(1800)
def test_the_wheel_and_sdist_build_and_the_wheel_runs_the_main_job_outside_the_tree(tmp_path):
    pytest.importorskip("build", reason="the sdist and the wheel are built by PyPA's build (extra 'test')")
    dist = tmp_path / "dist"
    source = tmp_path / "source"  # a copy without build leftovers, so that the checkout gets none either
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info",
                                                                  "__pycache__", "pfaff-report*"))
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)], capture_output=True,
                          text=True)  # the sdist, then the wheel built from it, each in an isolated environment
    assert done.returncode == 0, done.stderr[-2000:]
    wheel = next(dist.glob("pfaff-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("formulations/workbench/scene/viewer.js", "formulations/workbench/scene/vendor/three.module.min.js",
                   "pfaff_cli.py"):
        assert needed in names, needed
    assert any(n.endswith("licenses/LICENSE") for n in names) and any(n.endswith("LICENSE-three.js.txt") for n in names)
    assert next(dist.glob("pfaff-*.tar.gz")).stat().st_size > 0
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target), "MPLBACKEND": "Agg", "PFAFF_BACKGROUND_COMPILE": "0"}
    script = ("import sys, formulations, pfaff_cli; assert formulations.__file__.startswith(sys.argv[1]), "
              "formulations.__file__; sys.argv = ['pfaff', 'compare', 'rolling_disc', '--out', 'pfaff-report']; "
              "pfaff_cli.main()")
    done = subprocess.run([sys.executable, "-c", script, str(target)], cwd=work, env=env, capture_output=True,
                          text=True, timeout=1500)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    assert (work / "pfaff-report").is_dir() and any((work / "pfaff-report").glob("*.png"))

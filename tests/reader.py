"""Running documented code as a reader runs it: in a fresh folder, as a separate process, with a
fresh cache folder for the compiled kernels, this checkout's packages importable and a ``pfaff``
command on PATH that runs this checkout's pfaff_cli (tests/test_readme.py, tests/test_docs.py)."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def environment(tmp_path, backend=None) -> dict:
    """The environment of a reader's session under ``tmp_path``: PFAFF_CACHE_DIR (and numba's) there, figures
    without a display (MPLBACKEND=Agg), this checkout first on PYTHONPATH and ``pfaff`` on PATH.
    backend: PFAFF_BACKEND for the session; None: unset, as a reader has it (the default backend,
    compiled, whose first use on a machine compiles each formulation's module for a minute: the
    default suite's pages and quick commands run with "numpy", the slow ones as a reader)."""
    tmp_path = pathlib.Path(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    command = bin_dir / "pfaff"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pfaff_cli "$@"\n')
    command.chmod(0o755)
    env = dict(os.environ)
    env.pop("PFAFF_BACKEND", None)  # tests/conftest.py sets it for the runs in the test process
    if backend is not None:
        env["PFAFF_BACKEND"] = backend
    python_path = [str(ROOT)] + [part for part in [env.get("PYTHONPATH")] if part]
    env.update(PFAFF_CACHE_DIR=str(tmp_path / "cache"), NUMBA_CACHE_DIR=str(tmp_path / "cache" / "numba"),
               MPLBACKEND="Agg", PYTHONPATH=os.pathsep.join(python_path),
               PATH=os.pathsep.join([str(bin_dir), env.get("PATH", "")]))
    return env


def run(command, cwd, env, timeout) -> subprocess.CompletedProcess:
    """``command`` (an argument list, or a string for the shell) in ``cwd``; output captured as text."""
    return subprocess.run(command, cwd=cwd, env=env, shell=isinstance(command, str), capture_output=True, text=True,
                          timeout=timeout)


def outcome(run_result) -> str:
    """The end of a run's output, for an assertion message."""
    return (f"exit {run_result.returncode}\n--- stdout (end) ---\n{run_result.stdout[-3000:]}\n"
            f"--- stderr (end) ---\n{run_result.stderr[-3000:]}")

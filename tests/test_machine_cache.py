"""The machine code of pfaff's compiled modules (systems.numeric.machine_cache): kept in pfaff's cache
folder, and made again when a module they call changes, which numba's own cache would not notice."""
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("numba")
pytestmark = pytest.mark.xdist_group("compiled")  # each test compiles machine code of its own

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _package(tmp_path, registered: bool):
    """A folder ``caller`` whose function calls one of the module ``callee`` beside it."""
    _write(tmp_path / "callee.py", """
        import numba

        @numba.njit(cache=True)
        def value(x):
            return x + 1.0
    """)
    register = ("from systems.numeric.machine_cache import register\n"
                f"register(__path__[0], [{str(tmp_path / 'callee.py')!r}])\n") if registered else ""
    _write(tmp_path / "caller" / "__init__.py", register)
    _write(tmp_path / "caller" / "use.py", """
        import numba

        from callee import value

        @numba.njit(cache=True)
        def twice(x):
            return 2.0 * value(x)
    """)


def _run(tmp_path):
    env = dict(os.environ, PFAFF_CACHE_DIR=str(tmp_path / "cache"), NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    code = "from caller.use import twice; print(twice(1.0), sum(twice.stats.cache_hits.values()))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result, loaded = done.stdout.split()
    return float(result), int(loaded)  # (twice(1), 1 where its machine code was loaded, 0 compiled)


def _change_callee(tmp_path):
    text = (tmp_path / "callee.py").read_text()
    (tmp_path / "callee.py").write_text(text.replace("x + 1.0", "x + 5.0"))


def test_a_changed_callee_makes_new_machine_code(tmp_path):
    _package(tmp_path, registered=True)
    assert _run(tmp_path) == (4.0, 0)
    assert _run(tmp_path) == (4.0, 1)  # loaded, not compiled again
    _change_callee(tmp_path)
    assert _run(tmp_path) == (12.0, 0)  # 2 (1 + 5), not the 4 of the machine code cached before
    folders = list((tmp_path / "cache" / "kernels" / "machine").iterdir())
    assert len(folders) == 2 and all(f.name.startswith("caller-") for f in folders)  # one per stamp
    assert not list((tmp_path / "numba").rglob("use.twice*"))


def test_the_check_can_fail_numba_alone_keeps_stale_code(tmp_path):
    """Without the registration numba's cache keeps the caller's machine code, and with it the
    callee's old code, when only the callee changed: what the stamp is there for."""
    _package(tmp_path, registered=False)
    assert _run(tmp_path) == (4.0, 0)
    _change_callee(tmp_path)
    assert _run(tmp_path) == (4.0, 1)


def test_pfaffs_loops_keep_their_machine_code_in_its_cache_folder(tmp_path):
    env = dict(os.environ, PFAFF_CACHE_DIR=str(tmp_path / "cache"), NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               PYTHONPATH=ROOT)
    code = ("import numpy as np; from formulations.solvers.machine.runge_kutta import rms; "
            "print(rms(np.array([3.0, 4.0]) / np.sqrt(12.5)))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(1.0)
    assert list((tmp_path / "cache" / "kernels" / "machine").glob("machine-*/runge_kutta.rms-*.nbi"))
    assert not list((tmp_path / "numba").rglob("runge_kutta.rms-*"))


def test_pruning_removes_the_machine_code_of_other_versions_first(tmp_path, monkeypatch):
    from systems.numeric import cache, machine_cache

    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    machine_cache.register(tmp_path / "pkg")
    current = machine_cache.machine_folder(str((tmp_path / "pkg").resolve()))
    other = current.parent / "pkg-0000000000000000"
    for folder in (other, current):  # the current version's written to last
        folder.mkdir(parents=True)
        (folder / "m.f-1.py311.nbi").write_bytes(b"0" * 1000)
        os.utime(folder / "m.f-1.py311.nbi", (1e9, 1e9) if folder == other else None)
    assert cache.prune_cache(max_bytes=10**6) == 0  # under the bound: nothing goes
    assert cache.prune_cache(max_bytes=0) == 1
    assert current.exists() and not other.exists()


def test_a_compile_notice_names_the_functions_of_the_compiled_modules():
    """The notice on stderr (systems.numeric.compiling) names the functions of pfaff's compiled
    modules (which serve every system) and no others."""
    from types import SimpleNamespace

    from systems.numeric.compiling import _function_name

    def event(module, name):
        function = SimpleNamespace(__module__=module, __name__=name)
        return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=function)})

    assert _function_name(event("formulations.solvers.machine.dop853", "integrate853")) == "integrate853"
    assert _function_name(event("formulations.kernels.compiled.embedded", "evaluate_minimal")) == "evaluate_minimal"
    assert _function_name(event("pfaff_kernel_0123", "evaluate")) is None
    assert _function_name(event("numpy.linalg", "solve")) is None


def test_the_dependent_models_type_pickles_to_itself():
    """numba's cache index keeps a function's signature pickled; a model type that does not come
    back equal (a named tuple whose class is not found under its name) makes every process compile
    the dependent formulation's module again."""
    import pickle

    from formulations.kernels.compiled.dependent import MODEL_TYPE, Model

    assert pickle.loads(pickle.dumps(Model)) is Model
    assert pickle.loads(pickle.dumps(MODEL_TYPE)) == MODEL_TYPE

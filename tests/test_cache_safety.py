"""The cache of compiled code under damage and concurrency (systems.numeric.cache): a truncated or altered
generated module, or numba index (.nbi) or data (.nbc) file, is rebuilt with a warning naming it,
and two processes compiling the same system into one empty cache both succeed."""
import ast
import hashlib
import math
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
import sympy as sp

pytest.importorskip("numba")

from systems.numeric import codegen  # noqa: E402
from systems.numeric.cache import CHECKSUM  # noqa: E402

pytestmark = pytest.mark.xdist_group("compiled")

ROOT = pathlib.Path(__file__).resolve().parents[1]
X, Y = sp.symbols("x y")
POINT = np.array([0.7, -1.3])


def _expected(name):
    """An independent evaluation of the kernels below at POINT."""
    x, y = POINT
    return {"safety_a": math.sin(x) * y + 3 * y**2, "safety_b": math.cos(x) * y + 3 * y**2}[name]


def _kernel(name):
    trig = {"safety_a": sp.sin, "safety_b": sp.cos}[name]
    return codegen.compile_kernel(name, [("p", [X, Y])], [trig(X) * Y + 3 * Y**2])


def _value(kernel):
    out = np.zeros(1)
    kernel(POINT, out)
    return out[0]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder; generated modules loaded from it are forgotten after the test (as a
    new process would not have them)."""
    import numba

    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path))
    if numba.config.CACHE_DIR:  # numba's machine code goes there: a fresh one too
        monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    yield tmp_path
    _forget(tmp_path)
    if str(codegen.cache_dir()) in sys.path:
        sys.path.remove(str(codegen.cache_dir()))


def _forget(folder):
    for name, module in list(sys.modules.items()):
        if name.startswith("pfaff_kernel_") and str(folder) in str(getattr(module, "__file__", "")):
            del sys.modules[name]


def _source(kernel) -> pathlib.Path:
    return codegen.cache_dir() / f"{kernel.__module__}.py"


def _machine_code(kernel, suffix):
    import numba

    folder = pathlib.Path(numba.config.CACHE_DIR or codegen.cache_dir())
    files = sorted(folder.rglob(f"{kernel.__module__}.*{suffix}"))
    assert files, f"numba wrote no {suffix} file for {kernel.__module__} under {folder}"
    return files


def _no_damage_reported(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    assert not [w for w in caught if "damaged" in str(w.message)], [str(w.message) for w in caught]
    return result


def test_truncated_module_is_rebuilt_with_a_warning(cache):
    kernel = _kernel("safety_a")
    assert _value(kernel) == pytest.approx(_expected("safety_a"), rel=1e-14)
    path = _source(kernel)
    whole = path.read_bytes()
    _forget(cache)
    path.write_bytes(whole[:len(whole) // 2])  # what a full disk or a killed writer leaves
    with pytest.warns(UserWarning, match=f"{path.name} was damaged .*; rebuilt it"):
        kernel = _kernel("safety_a")
    assert path.read_bytes() == whole
    assert _value(kernel) == pytest.approx(_expected("safety_a"), rel=1e-14)


def test_altered_module_that_still_runs_is_rebuilt_not_used(cache):
    """A changed character that leaves valid Python (3* -> 5*) would give a wrong value: the
    checksum line catches it before import."""
    kernel = _kernel("safety_b")
    path = _source(kernel)
    text = path.read_text()
    assert text.count("3*p_1**2") == 1
    _forget(cache)
    path.write_text(text.replace("3*p_1**2", "5*p_1**2"))
    with pytest.warns(UserWarning, match=f"{path.name} was damaged .*does not match its checksum"):
        kernel = _kernel("safety_b")
    assert _value(kernel) == pytest.approx(_expected("safety_b"), rel=1e-14)


def test_module_that_fails_to_import_is_rebuilt_once(cache):
    """A file whose checksum holds but which does not run (a SyntaxError) is rebuilt, once."""
    kernel = _kernel("safety_a")
    path = _source(kernel)
    _forget(cache)
    body = b"def (\n"
    path.write_bytes(CHECKSUM.encode() + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    with pytest.warns(UserWarning, match=f"{path.name} was damaged \\(SyntaxError on import"):
        kernel = _kernel("safety_a")
    assert _value(kernel) == pytest.approx(_expected("safety_a"), rel=1e-14)


@pytest.mark.parametrize("suffix", [".nbi", ".nbc"])
@pytest.mark.parametrize("keep", [0.5, 0.0], ids=["truncated", "empty"])
def test_damaged_machine_code_is_compiled_again_with_a_warning(cache, suffix, keep):
    """numba raises on a truncated index or data file (an unpickling error); the cache removes
    it, warns and compiles the function again, which writes it whole."""
    kernel = _kernel("safety_a")
    _value(kernel)  # numba writes its index and data files
    _forget(cache)
    (damaged,) = _machine_code(kernel, suffix)
    whole = damaged.read_bytes()
    damaged.write_bytes(whole[:int(len(whole) * keep)])
    with pytest.warns(UserWarning, match=f"{damaged.name} was damaged .*compiled again"):
        value = _value(_kernel("safety_a"))  # a kernel is compiled (or loaded) when its module is imported
    assert value == pytest.approx(_expected("safety_a"), rel=1e-14)
    _forget(cache)  # the next process loads the rewritten files without complaint
    assert _no_damage_reported(lambda: _value(_kernel("safety_a"))) == pytest.approx(_expected("safety_a"), rel=1e-14)


def test_pruning_leaves_a_file_numba_is_writing(cache):
    """Another process's numba writes a temporary file and moves it into place: pruning that
    module meanwhile removes its whole files but not the one in flight (else the move fails)."""
    import numba

    if numba.config.CACHE_DIR:
        pytest.skip("numba writes under NUMBA_CACHE_DIR here, a folder prune_cache does not bound")
    kernel = _kernel("safety_a")
    _value(kernel)
    (index,) = _machine_code(kernel, ".nbi")
    in_flight = index.with_name(index.name + ".tmp.0123456789abcdef")
    in_flight.write_bytes(index.read_bytes())
    _forget(cache)  # loaded by the other process, not by this one
    assert codegen.prune_cache(0) >= 3
    assert not _source(kernel).exists() and not index.exists() and in_flight.exists()


_COMPILE_AND_RUN = """
import sys
import formulations, systems
run = formulations.create(sys.argv[1], systems.load("knife_edge"), backend="compiled").simulate(
    (0.0, 0.1), method=sys.argv[2])
assert run.status == 0 and run.stats.backend == "compiled", (run.status, run.stats.backend)
print(repr(run.p[-1].tolist()))
"""


# minimal with RK45: scipy's loop on the compiled kernels of the system (a few s; the dependent
# formulation's Python loops call its generated module); dependent with dopri5: also the generated
# module of the formulation and the compiled loops (about 30 s of compiling on one core)
@pytest.mark.parametrize("formulation, method", [("minimal", "RK45"),
                                                 pytest.param("dependent", "dopri5", marks=pytest.mark.slow)])
def test_two_processes_compile_the_same_system_into_one_empty_cache(tmp_path, formulation, method):
    """Both write the same modules and numba's files at once; both finish with the same state."""
    env = dict(os.environ, PFAFF_CACHE_DIR=str(tmp_path / "pfaff"), NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    runs = [subprocess.Popen([sys.executable, "-c", _COMPILE_AND_RUN, formulation, method], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=500) for run in runs]
    for run, (out, err) in zip(runs, outputs):
        assert run.returncode == 0, err[-3000:]
        assert "damaged" not in err, err[-3000:]  # a file another process is writing is not taken for damage
    finals = [np.array(ast.literal_eval(out.strip().splitlines()[-1])) for out, _ in outputs]
    assert finals[0].shape == (3,) and np.all(np.isfinite(finals[0]))
    assert np.array_equal(finals[0], finals[1])
    assert list((tmp_path / "pfaff" / "kernels").glob("pfaff_kernel_*.py"))
    assert list((tmp_path / "numba").rglob("*.nbc"))

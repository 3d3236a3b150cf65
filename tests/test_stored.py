"""Catalogue systems and their numpy functions kept between processes (systems.numeric.stored): read back
equal to what was built, made again (with a warning) where a file is damaged, never read across
versions of the sources."""
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import formulations
import systems
from systems import catalogue
from systems.numeric import model, stored


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """A cache folder of its own, and this process's memory of built systems and models forgotten."""
    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(catalogue, "_BUILT", {})
    monkeypatch.setattr(model, "_CACHE", {})
    return tmp_path


def _forget(monkeypatch):
    """As a new process: nothing built in memory."""
    monkeypatch.setattr(catalogue, "_BUILT", {})
    monkeypatch.setattr(model, "_CACHE", {})


def _refuse_builds(monkeypatch, name):
    def refuse(**options):
        raise AssertionError(f"{name} was built, not read back")

    monkeypatch.setattr(catalogue._REGISTRY[name], "build", refuse)


def test_a_later_process_reads_the_build_back_equal(empty_cache, monkeypatch):
    built = systems.load("rolling_disc", thickness=0.1)
    _forget(monkeypatch)
    _refuse_builds(monkeypatch, "rolling_disc")
    read = systems.load("rolling_disc", thickness=0.1)
    assert read is not built and read.stored_as == built.stored_as
    for field in ("coordinates", "velocities", "parameters", "constraint_names", "unit_norm_blocks"):
        assert getattr(read, field) == getattr(built, field), field
    for field in ("A", "M", "d", "f", "Phi", "C_nh", "c_nh"):
        assert sp.simplify(getattr(read, field) - getattr(built, field)) == sp.zeros(*getattr(built, field).shape)
    p, v = built.default_state()
    runs = [formulations.create("minimal", s, backend="numpy").simulate((0.0, 0.5), (p, v)) for s in (built, read)]
    assert np.array_equal(runs[0].p, runs[1].p) and np.array_equal(runs[0].reactions["contact normal force"],
                                                                    runs[1].reactions["contact normal force"])


def test_other_options_are_other_builds_and_parameters_the_same(empty_cache):
    two, three = systems.load("n_pendulum", n=2), systems.load("n_pendulum", n=3)
    assert two.stored_as != three.stored_as and (two.n, three.n) == (6, 9)  # Cartesian coordinates of each link
    assert len(list(stored.folder().glob("n_pendulum-*.pickle"))) == 2
    assert systems.load("n_pendulum", n=2, g=1.62).stored_as == two.stored_as


def test_the_numpy_functions_are_stored_with_the_build_and_give_the_same_numbers(empty_cache, monkeypatch):
    system = systems.load("heavy_top")  # built here: the functions its validation made are stored
    first = system.numeric
    p, v = system.default_state()
    params = np.asarray(system.parameter_values, float)
    sources = sorted((stored.folder() / "numpy").glob("*.py"))
    assert {path.stem.rsplit("-", 1)[1] for path in sources} >= {"dynamics", "constraints", "kinematics", "energy"}
    assert all(path.name.startswith(system.stored_as) for path in sources)
    _forget(monkeypatch)
    model._numpy_namespace()  # made once per process
    monkeypatch.setattr(sp, "lambdify", lambda *a, **k: pytest.fail("lambdified again, not read back"))
    again = systems.load("heavy_top").numeric
    for a, b in zip(first.dynamics(0.3, p, v, params), again.dynamics(0.3, p, v, params)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("damage", ["truncated", "altered"])
def test_a_damaged_file_is_built_again_with_a_warning(empty_cache, monkeypatch, damage):
    systems.load("knife_edge")
    path, = stored.folder().glob("knife_edge-*.pickle")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else data[:-1] + bytes([data[-1] ^ 1]))
    _forget(monkeypatch)
    with pytest.warns(RuntimeWarning, match=r"stored file .*knife_edge.* was damaged \(its checksum does not match\)"):
        again = systems.load("knife_edge")
    assert again.coordinate_names == ("x", "y", "phi")
    assert path.read_bytes() != data[: len(data) // 2] and stored._read(path) is not None  # written whole again


def test_a_file_that_does_not_unpickle_is_built_again_with_a_warning(empty_cache, monkeypatch):
    systems.load("knife_edge")
    path, = stored.folder().glob("knife_edge-*.pickle")
    stored._write(path, b"not a pickle")
    _forget(monkeypatch)
    with pytest.warns(RuntimeWarning, match="was damaged .*UnpicklingError"):
        assert systems.load("knife_edge").n == 3


def test_another_version_of_the_sources_reads_nothing_back(empty_cache, monkeypatch):
    systems.load("knife_edge")
    _forget(monkeypatch)
    monkeypatch.setattr(stored, "stamp", lambda: "another-version")
    built = []
    original = catalogue._REGISTRY["knife_edge"].build
    monkeypatch.setattr(catalogue._REGISTRY["knife_edge"], "build", lambda **o: built.append(1) or original(**o))
    systems.load("knife_edge")
    assert built == [1] and stored.folder().name == "catalogue-another-version" and stored.folder().is_dir()


def test_a_folder_that_cannot_be_written_still_gives_the_system(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")  # the cache folder would be under a file: nothing can be written
    monkeypatch.setenv("PFAFF_CACHE_DIR", str(blocked / "cache"))
    monkeypatch.setattr(catalogue, "_BUILT", {})
    assert systems.load("knife_edge").n == 3


def test_a_new_process_reads_what_this_one_stored(empty_cache):
    systems.load("slider_crank")
    code = ("import systems; from systems import catalogue\n"
            "catalogue._REGISTRY['slider_crank'].build = lambda: 1 / 0\n"  # a build would fail: it must be read back
            "print(systems.load('slider_crank').n)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "PFAFF_CACHE_DIR": str(empty_cache)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["9"]


def test_functions_read_back_are_stored_again_by_a_build_in_another_cache(empty_cache, tmp_path, monkeypatch):
    """A process whose model of a structure came from stored sources, building the system again for
    another cache folder, stores those same sources there."""
    systems.load("heavy_top")
    _forget(monkeypatch)
    systems.load("heavy_top").numeric  # read back: its functions run the stored sources
    first = sorted(path.read_bytes() for path in (stored.folder() / "numpy").glob("*.py"))
    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path / "another"))
    monkeypatch.setattr(catalogue, "_BUILT", {})  # the model of the structure stays in memory
    systems.load("heavy_top")
    assert sorted(path.read_bytes() for path in (stored.folder() / "numpy").glob("*.py")) == first

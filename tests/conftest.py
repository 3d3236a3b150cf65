import os
import shutil
import tempfile
import time

# The suite owns its environment, whatever the shell that started it holds: compiled code goes to a
# temporary cache (never the user's ~/.cache/pfaff, whose contents would change what later commands
# compute), shared by the xdist workers, which inherit these variables from the controller, and
# removed when the run ends; runs whose backend is not named use numpy, and nothing compiles in the
# background; plots go to Agg.
if "PYTEST_XDIST_WORKER" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="pfaff-test-cache-")
    os.environ["PFAFF_CACHE_DIR"] = _CACHE
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(_CACHE, "numba")
    os.environ["PFAFF_BACKEND"] = "numpy"
    os.environ["PFAFF_BACKGROUND_COMPILE"] = "0"  # tests that compile in the background start their own
    os.environ["MPLBACKEND"] = "Agg"
    # machine code at LLVM's -O1: the suite checks what the code computes, not how fast (benchmarks/
    # measure that at numba's default, -O3); the first compile of a module takes about a fifth less
    os.environ["NUMBA_OPT"] = "1"
    # each run of a comparison once: the suite checks what the runs compute; the tests of repeated
    # timing name their measuring time (formulations.workbench.comparison.timing)
    os.environ["PFAFF_MEASURE_SECONDS"] = "0"
    for _name in ("PFAFF_CACHE_MAX_MB", "PFAFF_TRACEBACK"):
        os.environ.pop(_name, None)
else:
    _CACHE = None

import numpy as np  # noqa: E402  (after the environment is set)
import pytest  # noqa: E402

import systems  # noqa: E402


def pytest_unconfigure(config):
    if _CACHE is not None:
        shutil.rmtree(_CACHE, ignore_errors=True)


# $PFAFF_TEST_RUNNING names a folder where each process of the run keeps the test it is running (a
# file per worker): the whole-run time limit of .ci/run prints them when it ends a run
_RUNNING = os.environ.get("PFAFF_TEST_RUNNING")


def _running_file():
    return os.path.join(_RUNNING, os.environ.get("PYTEST_XDIST_WORKER", "main"))


def pytest_runtest_logstart(nodeid, location):
    if _RUNNING:
        with open(_running_file(), "w") as stream:
            stream.write(f"{nodeid} (since {time.strftime('%H:%M:%S')})\n")


def pytest_runtest_logfinish(nodeid, location):
    if _RUNNING and os.path.exists(_running_file()):
        os.remove(_running_file())

@pytest.hookimpl(tryfirst=True)  # before -m selects and pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """The tests that take the disc's derivations run in one worker (one derivation per process).
    Every test of the xdist group "compiled" (the worker that compiles the formulations' machine code
    once for all of them) carries the marker ``compiled``: the default run leaves them out, ``pytest
    -m compiled`` runs them (.ci/run does, after the default run). Compiling the modules costs
    minutes of CPU on a new machine; what they compute is checked against numpy there."""
    for item in items:
        if "disc_derivations" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("disc_derivations"))
        if any(mark.args[:1] == ("compiled",) for mark in item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.compiled)


CATALOGUE = systems.names()


@pytest.fixture(params=CATALOGUE)
def catalogue_system(request):
    return systems.load(request.param)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def disc_derivations():
    """The rolling disc derived in every formulation that has a derivation (some seconds each): one
    derivation per process, and the tests that take it run in one process (see below). trigsimp gets
    1 s per formulation: what the tests read (the steps, their rendering and layout) does not depend
    on how far it simplifies."""
    from formulations import registry
    from formulations.workbench.derivation.derive import derive

    return {f: derive(systems.load("rolling_disc"), f, seconds=1.0) for f in registry.having("derivation")}

"""Time spent compiling is reported apart from a run's wall time, wherever in the run it happens.

A compile is stood in for by a pause that is counted as compiling (systems.numeric.compiling
.note_compile), once while the run is prepared and once inside the integration: the wall time must
leave both out, and compile_time must hold both."""
import importlib
import time

import formulations
import systems
from systems.numeric.compiling import note_compile

PAUSE = 0.4


def compiling_pause():
    time.sleep(PAUSE)
    note_compile(PAUSE)


def test_compiling_while_preparing_or_integrating_stays_out_of_the_wall_time(monkeypatch):
    f = formulations.create("dependent", systems.load("slider_crank"), backend="numpy")
    prepare = f.prepare

    def preparing(*args, **kwargs):
        compiling_pause()
        return prepare(*args, **kwargs)

    monkeypatch.setattr(f, "prepare", preparing)
    simulate_module = importlib.import_module("formulations.solvers.simulate")
    guarded = simulate_module.guarded_rhs

    def guarded_with_pause(*args, **kwargs):
        rhs = guarded(*args, **kwargs)
        done = []

        def fun(t, y):
            if not done:
                done.append(True)
                compiling_pause()
            return rhs(t, y)

        return fun

    monkeypatch.setattr(simulate_module, "guarded_rhs", guarded_with_pause)
    started = time.perf_counter()
    traj = f.simulate((0.0, 0.05), rtol=1e-6, atol=1e-6)
    elapsed = time.perf_counter() - started
    assert traj.status == 0
    assert traj.stats.compile_time >= 2 * PAUSE - 1e-9
    assert traj.stats.wall_time <= elapsed - 2 * PAUSE + 0.05
    assert traj.stats.setup_time <= traj.stats.wall_time

"""Munthe-Kaas Runge-Kutta in machine code (formulations.solvers.compiled_lie) takes the steps of the
Python LieStepper (formulations.solvers.lie): the same step ends, rejections and evaluations, the
states to round-off (fixed step) or to the tolerance where round-off in the step-size controller
moves the steps (adaptive)."""
import numpy as np
import pytest

import formulations as F
import systems
from systems.numeric import codegen

# slow: the Lie-group loops are modules of their own kind (about 40 s of compiling on a new machine);
# the Python steppers they follow are tested by default (tests/test_lie.py)
pytestmark = [pytest.mark.skipif(not codegen.available(), reason="numba is not installed"),
              pytest.mark.xdist_group("compiled"), pytest.mark.slow]


def _both(name, method, **options):
    system = systems.load(name)
    return {b: F.create("dependent", system, backend=b).simulate((0.0, 1.0), method=method, **options)
            for b in ("numpy", "compiled")}


@pytest.mark.parametrize("name, method", [("heavy_top", "RKMK4-SE3"),
                                          pytest.param("heavy_top", "RKMK4-SO3xR3", marks=pytest.mark.slow),
                                          pytest.param("floating_pair", "RKMK4-SE3", marks=pytest.mark.slow)])
def test_compiled_fixed_step_lie_run_takes_the_python_steps(name, method):
    runs = _both(name, method, step=1e-3)
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0 and b.stats.backend == "compiled"
    assert np.array_equal(a.t, b.t) and a.stats.steps == b.stats.steps == 1000
    assert a.stats.rhs_evaluations == b.stats.rhs_evaluations
    assert np.max(np.abs(a.p - b.p)) < 1e-12 and np.max(np.abs(a.v - b.v)) < 1e-10
    assert np.max(np.abs(a.multipliers - b.multipliers)) < 1e-9 * (1 + np.max(np.abs(a.multipliers)))


@pytest.mark.parametrize("name, method", [("heavy_top", "RKMK45-SO3xR3"),
                                          pytest.param("spherical_three_bar", "RKMK45-SE3", marks=pytest.mark.slow)])
def test_compiled_adaptive_lie_run_lands_on_the_grid_with_the_python_steps(name, method):
    t_eval = np.linspace(0.0, 1.0, 11)
    runs = _both(name, method, rtol=1e-8, atol=1e-8, t_eval=t_eval)
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0
    assert np.array_equal(b.t, t_eval) and np.array_equal(a.t, b.t)
    # the same controller: the same steps up to a round-off flip of an acceptance (here none)
    assert abs(a.stats.steps - b.stats.steps) <= 2 and abs(a.stats.rejected - b.stats.rejected) <= 2
    assert np.max(np.abs(a.p - b.p)) < 1e-6  # both within their tolerance of the motion (rtol 1e-8)


def test_compiled_lie_run_stops_at_max_steps_and_leaves_events_to_python():
    from formulations.solvers import compiled_lie

    system = systems.load("heavy_top")
    form = F.create("dependent", system, backend="compiled")
    run = form.simulate((0.0, 1.0), method="RKMK45-SE3", max_steps=5)  # a fixed step's count is checked up front
    assert run.status == -1 and "max_steps = 5" in run.message and len(run.t) == 6
    with_event = form.simulate((0.0, 0.01), method="RKMK4-SE3", step=1e-3, events=[lambda t, p, v: t - 0.005])
    assert with_event.status == 1 and abs(with_event.t[-1] - 0.005) < 1e-12  # the Python loop locates events
    assert not compiled_lie.applies(type("P", (), dict(formulation=form, events=(lambda t, p, v: t,), post_step=None)))

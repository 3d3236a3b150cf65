"""A formulation is never written to by a run (Formulation.for_run): one formulation object simulated
from two threads at once gives the results of two runs one after the other, for every registered
formulation, on charts (the manifold formulation's current chart), with a choice of velocities that
changes along the run (minimal) and with inputs that vary (set on the run's copy)."""
import threading

import numpy as np
import pytest

import formulations as F
import systems
from formulations import registry

CASES = [("rolling_disc", name, {}) for name in registry.names() if name != "manifold"]
CASES += [("slider_crank", "manifold", {}), ("knife_edge", "minimal", {}), ("spinning_top", "manifold", {})]


def _both_ways(form, runs):
    """(sequential results, results of the same runs in two threads at once)."""
    sequential = [form.simulate(*args, **options) for args, options in runs]
    found, errors = [None] * len(runs), []

    def go(i):
        try:
            found[i] = form.simulate(*runs[i][0], **runs[i][1])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors and all(not thread.is_alive() for thread in threads), errors
    return sequential, found


@pytest.mark.parametrize("name, formulation, options", CASES, ids=[f"{n}-{f}" for n, f, _ in CASES])
def test_one_formulation_in_two_threads_gives_the_sequential_results(name, formulation, options):
    system = systems.load(name)
    form = F.create(formulation, system, backend="numpy", **options)
    p, v = system.default_state()
    other = system.consistent_state(p, 1.3 * v)
    runs = [(((0.0, 1.0),), dict(rtol=1e-9, atol=1e-9)), (((0.0, 0.75), other), dict(rtol=1e-8, atol=1e-8))]
    before = dict(vars(form))
    sequential, threaded = _both_ways(form, runs)
    for a, b in zip(sequential, threaded):
        assert a.status == b.status == 0, (a.message, b.message)
        assert np.array_equal(a.t, b.t) and np.array_equal(a.p, b.p) and np.array_equal(a.v, b.v)
    assert vars(form).keys() - {"_twins"} == before.keys() - {"_twins"}
    assert all(vars(form)[key] is value for key, value in before.items() if key != "_twins")


def test_inputs_belong_to_their_run():
    """Two runs of one formulation with different input schedules, at once: each follows its own."""
    disc = systems.load("rolling_disc")
    form = F.create("minimal", disc, backend="numpy")
    t = np.array([0.0, 3.0])
    runs = [(((0.0, 3.0),), dict(inputs={"g": (t, np.array([9.81, 9.81]))})),
            (((0.0, 3.0),), dict(inputs={"g": (t, np.array([9.81, 3.0]))}))]
    sequential, threaded = _both_ways(form, runs)
    assert not np.array_equal(sequential[0].p, sequential[1].p)
    for a, b in zip(sequential, threaded):
        assert np.array_equal(a.p, b.p)
    assert form.inputs is None

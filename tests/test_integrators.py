"""Integrators: empirical orders against the declared ones, our Dormand-Prince against scipy's."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations.solvers import order

from cases import applicable

FORMULATIONS = applicable("knife_edge")


@pytest.fixture(scope="module")
def knife_reference():
    system = systems.load("knife_edge")
    ref = F.create("dependent", system).simulate((0, 3), rtol=1e-13, atol=1e-13)
    return system, ref.p[-1]


def slope(x, err):
    return np.polyfit(np.log(x), np.log(err), 1)[0]


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_rk4_converges_at_order_four(formulation):
    """Over 0.6 s the heading stays below 1.2 rad: the minimal form keeps one choice of u."""
    system = systems.load("knife_edge")
    p_ref = F.create("dependent", system).simulate((0, 0.6), rtol=1e-13, atol=1e-13).p[-1]
    steps = np.array([0.1, 0.05, 0.025, 0.0125])
    runs = [F.create(formulation, system).simulate((0, 0.6), method="rk4", step=h) for h in steps]
    assert all(tr.stats.rechoices == 0 for tr in runs)
    err = [np.max(np.abs(tr.p[-1] - p_ref)) for tr in runs]
    assert abs(slope(steps, err) - order("rk4")) < 0.2


def test_rk4_converges_through_rechoices(knife_reference):
    system, p_ref = knife_reference
    steps = np.array([0.02, 0.01, 0.005, 0.0025])
    runs = [F.create("minimal", system).simulate((0, 3), method="rk4", step=h) for h in steps]
    assert all(tr.stats.rechoices >= 1 for tr in runs)
    err = [np.max(np.abs(tr.p[-1] - p_ref)) for tr in runs]
    assert err[-1] < 1e-8 and slope(steps[1:], err[1:]) > 3.7


@pytest.mark.parametrize("method", ["dopri5", "RK45", "DOP853"])
def test_adaptive_methods_reach_at_least_their_order(method, knife_reference):
    """Error against work: slope of log(error) over log(evaluations) is at least -(order - 0.5)."""
    system, p_ref = knife_reference
    errs, work = [], []
    for tol in (1e-6, 1e-8, 1e-10):
        tr = F.create("dependent", system).simulate((0, 3), method=method, rtol=tol, atol=tol)
        errs.append(np.max(np.abs(tr.p[-1] - p_ref)))
        work.append(tr.stats.rhs_evaluations)
        assert errs[-1] < 100 * tol
    assert slope(work, errs) < -(order(method) - 0.5)


def test_our_dormand_prince_is_scipys_method(knife_reference):
    system, _ = knife_reference
    ours = F.create("dependent", system).simulate((0, 3), method="dopri5", rtol=1e-8, atol=1e-8)
    scipy = F.create("dependent", system).simulate((0, 3), method="RK45", rtol=1e-8, atol=1e-8)
    assert ours.stats.steps == scipy.stats.steps
    assert np.max(np.abs(ours.p[-1] - scipy.p[-1])) < 1e-12


@pytest.mark.parametrize("method", ["Radau", "BDF", "LSODA", "RK23"])
def test_other_scipy_methods_run(method):
    system = systems.load("vertical_disc")
    tr = F.create("minimal", system).simulate((0, 2), method=method, rtol=1e-8, atol=1e-8)
    ref = F.create("minimal", system).simulate((0, 2), rtol=1e-12, atol=1e-12)
    assert tr.status == 0 and np.max(np.abs(tr.p[-1] - ref.p[-1])) < 1e-5


def test_t_eval_outputs_and_rejected_steps_are_reported():
    system = systems.load("rolling_disc")
    t_eval = np.linspace(0, 2, 5)
    tr = F.create("dependent", system).simulate((0, 2), t_eval=t_eval, method="dopri5")
    assert np.array_equal(tr.t, t_eval)
    assert tr.stats.rejected is not None and tr.stats.rhs_evaluations > 6 * tr.stats.steps
    lsoda = F.create("dependent", system).simulate((0, 2), method="LSODA")
    assert lsoda.stats.rejected is None  # not reported by that solver

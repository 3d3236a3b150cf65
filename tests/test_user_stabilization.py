"""A stabilization strategy of one's own (formulations.stabilization.Strategy): taken by every
formulation that takes the built-in strategies of its kind, on both backends, checked where it
declares itself wrongly, and refused with the kinds a formulation takes."""
from dataclasses import dataclass

import numpy as np
import pytest

import formulations as F
import systems
from formulations.errors import CapabilityError
from formulations.stabilization import Baumgarte, Projection, Strategy
from systems.numeric import codegen


@dataclass(frozen=True)
class CriticalDamping(Strategy):
    """Constraint violations decay critically damped with time constant tau (s): alpha = beta = 1/tau."""

    tau: float = 0.1
    name = "critical"
    kind = "feedback"

    def gains(self):
        return 1.0 / self.tau, 1.0 / self.tau

    def label(self):
        return f"critical(tau={self.tau:g} s)"


def _stretched_pendulum():
    pendulum = systems.load("pendulum_cartesian")
    p, v = pendulum.default_state()
    return pendulum, (1.01 * p, v)


def test_a_feedback_of_ones_own_gives_the_closed_form_decay_of_the_violation():
    """Phi'' + 2 alpha Phi' + beta^2 Phi = 0 with alpha = beta = 1/tau and Phi'(0) = 0 (the bob at rest
    on a stretched rod): Phi = Phi_0 (1 + t/tau) exp(-t/tau)."""
    pendulum, state = _stretched_pendulum()
    t = np.linspace(0.0, 1.0, 101)
    run = F.create("dependent", pendulum, stabilization=CriticalDamping(0.1)).simulate(
        (0.0, 1.0), state, rtol=1e-11, atol=1e-11, t_eval=t, check_initial=False)
    assert run.status == 0 and "critical(tau=0.1 s)" in run.settings["stabilization"]
    Phi = np.array([pendulum.residuals(p, v)[0][0] for p, v in zip(run.p, run.v)])
    assert abs(Phi[0]) > 1e-3
    assert np.max(np.abs(Phi - Phi[0] * (1 + t / 0.1) * np.exp(-t / 0.1))) < 1e-8


@pytest.mark.parametrize("name", ["dependent", "reduced", "udwadia_kalaba"])
def test_it_runs_as_the_built_in_strategy_with_the_same_gains(name):
    system = systems.load("rolling_disc")
    mine = F.create(name, system, stabilization=CriticalDamping(0.05)).simulate((0.0, 1.0), rtol=1e-9, atol=1e-9)
    built_in = F.create(name, system, stabilization=Baumgarte(20.0, 20.0)).simulate((0.0, 1.0), rtol=1e-9, atol=1e-9)
    assert mine.status == built_in.status == 0
    assert np.array_equal(mine.t, built_in.t) and np.array_equal(mine.state, built_in.state)  # the same arithmetic


@pytest.mark.xdist_group("compiled")  # the dependent module, compiled once with the other compiled tests
@pytest.mark.skipif(not codegen.available(), reason="numba is not installed")
def test_it_runs_in_machine_code_and_matches_numpy():
    system = systems.load("rolling_disc")
    runs = [F.create("dependent", system, stabilization=CriticalDamping(0.05), backend=backend).simulate(
        (0.0, 1.0), rtol=1e-9, atol=1e-9, method="DOP853") for backend in ("compiled", "numpy")]
    assert [r.stats.backend for r in runs] == ["compiled", "numpy"]
    assert np.allclose(runs[0].p[-1], runs[1].p[-1], rtol=0, atol=1e-9)
    job = F.create("dependent", system, stabilization=CriticalDamping(0.05)).job()
    assert isinstance(job.stabilization, Baumgarte)  # a background compile rebuilds a built-in of its kind


def test_a_projection_of_ones_own_subclasses_projection():
    @dataclass(frozen=True)
    class Positions(Projection):
        velocities: bool = False
        name = "positions"

    system = systems.load("slider_crank")
    run = F.create("dependent", system, stabilization=Positions()).simulate((0.0, 1.0), rtol=1e-8, atol=1e-8)
    assert run.status == 0 and run.stats.projections > 0
    assert np.max(np.abs([system.residuals(p, v)[0] for p, v in zip(run.p, run.v)])) < 1e-10


@pytest.mark.parametrize("declared, match", [
    (dict(kind="push"), "declares kind='push' but expected one of: none, feedback, projection, dae"),
    (dict(kind="feedback"), "is of kind 'feedback' but has no gains"),
    (dict(kind="projection"), "which is Projection's: subclass Projection"),
    (dict(kind="dae"), "which is GGL's: subclass GGL"),
    (dict(name=""), "declares name='' but expected a non-empty string"),
])
def test_wrong_declarations_are_named(declared, match):
    wrong = type("Wrong", (Strategy,), declared)()
    with pytest.raises(ValueError, match=match):
        F.create("dependent", systems.load("slider_crank"), stabilization=wrong)


def test_gains_that_are_not_rates_stop_the_run_before_it_starts():
    @dataclass(frozen=True)
    class Negative(CriticalDamping):
        def gains(self):
            return -1.0, float("nan")

    form = F.create("dependent", systems.load("slider_crank"), stabilization=Negative())
    with pytest.raises(ValueError, match="gave gains .* but expected \\(alpha, beta\\), both finite and >= 0"):
        form.simulate((0.0, 0.1))


def test_a_formulation_without_feedback_refuses_it_with_the_kinds_it_takes():
    with pytest.raises(CapabilityError, match="or a strategy of one's own of kind none"):
        F.create("minimal", systems.load("rolling_disc"), stabilization=CriticalDamping())

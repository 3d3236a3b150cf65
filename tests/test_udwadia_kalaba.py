"""The Udwadia-Kalaba formulation (formulations.udwadia_kalaba): the fundamental equation gives the
dependent formulation's accelerations and reactions on every catalogue system (dependent rows and
rows whose forces hold the reactions included), runs on both backends, and is refused, with the
reason, where its form does not reach. sympy's KanesMethod checks it in tests/test_accelerations.py."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations import registry

SLOW_SYSTEMS = {"bicycle", "four_point_body", "floating_pair", "spherical_double_pendulum", "spherical_three_bar"}


def _states(system, rng, count=3):
    p0, v0 = system.default_state()
    if system.is_rheonomic:
        p0, v0 = system.consistent_state(p0, v0, t=0.3)
    states = [(p0, v0)]
    while len(states) < count:
        try:
            states.append(system.consistent_state(p0 + rng.normal(0, 0.05, p0.shape),
                                                  v0 + rng.normal(0, 0.3 * (1 + np.abs(v0)), v0.shape), t=0.3))
        except systems.InconsistentStateError:
            continue
    return states


@pytest.mark.parametrize("name", [n if n not in SLOW_SYSTEMS else pytest.param(n, marks=pytest.mark.slow)
                                  for n in systems.names()])
def test_accelerations_and_reactions_equal_the_dependent_formulations(name, rng):
    """At random consistent states: v' and the reactions lambda agree to 1e-10 (relative to their
    scale) with the saddle-point solve of the dependent formulation (minimum-norm lambda where
    rows are dependent: Bricard's mechanism; solved together with the friction they cause: the
    rolling disc with rolling resistance)."""
    system = systems.load(name, **({"rolling_resistance": 0.02} if name == "rolling_disc" else {}))
    uk = F.create("udwadia_kalaba", system, backend="numpy")
    dependent = F.create("dependent", system, backend="numpy")
    for p, v in _states(system, rng):
        y = np.concatenate([p, v])
        a, b = uk.evaluate(0.3, y), dependent.evaluate(0.3, y)
        for got, want in ((a.vdot, b.vdot), (a.lam, b.lam), (a.ydot, b.ydot)):
            scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
            assert np.max(np.abs(got - want), initial=0.0) <= 1e-10 * scale, (got, want)


def test_the_rows_with_forces_that_hold_the_reactions_are_solved_together():
    """Rolling resistance on the disc: the applied torque is proportional to the normal reaction, so
    the fundamental equation alone (reactions left out of f) gives other accelerations; solved
    together they are the dependent formulation's."""
    disc = systems.load("rolling_disc", rolling_resistance=0.05)
    assert disc.is_nonideal
    y = np.concatenate(disc.default_state())
    uk = F.create("udwadia_kalaba", disc, backend="numpy").evaluate(0.0, y)
    assert np.allclose(uk.vdot, F.create("dependent", disc, backend="numpy").evaluate(0.0, y).vdot, atol=1e-12)
    ideal = F.create("udwadia_kalaba", systems.load("rolling_disc", rolling_resistance=0.0), backend="numpy")
    assert np.max(np.abs(ideal.evaluate(0.0, y).vdot - uk.vdot)) > 1e-4


def test_runs_on_both_backends_and_gives_the_reactions_of_the_dependent_run():
    """On the compiled backend its evaluation in Python calls the compiled primitives: the steps of
    the numpy run (to a round-off flip) and its states to the tolerance's order; the reactions along
    the run are the dependent run's to the tolerance."""
    disc = systems.load("rolling_disc")
    t_eval = np.linspace(0.0, 2.0, 21)
    runs = {b: F.create("udwadia_kalaba", disc, backend=b).simulate((0.0, 2.0), rtol=1e-10, atol=1e-10,
                                                                     t_eval=t_eval)
            for b in ("numpy", "compiled")}
    reference = F.create("dependent", disc, backend="numpy").simulate((0.0, 2.0), rtol=1e-10, atol=1e-10,
                                                                      t_eval=t_eval)
    assert runs["compiled"].stats.backend == "compiled" and runs["numpy"].stats.backend == "numpy"
    # the primitives differ by round-off between the backends, which may flip a borderline step
    assert abs(runs["numpy"].stats.steps - runs["compiled"].stats.steps) <= 2
    assert np.max(np.abs(runs["numpy"].p - runs["compiled"].p)) < 1e-8
    for key, force in reference.reactions.items():
        assert np.max(np.abs(runs["numpy"].reactions[key] - force)) < 1e-6 * (1 + np.max(np.abs(force)))


def test_bricards_mechanism_runs_on_its_dependent_rows():
    """One of Bricard's 24 rows depends on the others: the Moore-Penrose inverse takes them as they
    come, and the run keeps the constraints as the dependent formulation's does."""
    bricard = systems.load("bricard")
    run = F.create("udwadia_kalaba", bricard, backend="numpy").simulate((0.0, 1.0), rtol=1e-10, atol=1e-10)
    assert run.status == 0 and run.constraint_errors.max()["position"] < 1e-8


def test_stabilization_and_projection_as_in_the_dependent_formulation():
    disc = systems.load("rolling_disc")
    runs = {s: F.create("udwadia_kalaba", disc, stabilization=s, backend="numpy").simulate(
        (0.0, 5.0), rtol=1e-6, atol=1e-6) for s in ("none", "baumgarte", "projection")}
    drift = {s: run.constraint_errors.max()["velocity"] for s, run in runs.items()}
    assert drift["projection"] < 1e-12 < drift["none"] and drift["baumgarte"] < drift["none"]
    assert runs["projection"].stats.projections == runs["projection"].stats.steps


def test_what_its_form_does_not_reach_is_refused_with_the_reason():
    disc = systems.load("rolling_disc")
    form = F.create("udwadia_kalaba", disc, backend="numpy")
    for method in ("IDA", "augmented_lagrangian", "NH-RATTLE"):
        with pytest.raises(F.CapabilityError):
            form.simulate((0.0, 0.1), method=method, step=0.01) if method != "IDA" else form.simulate(
                (0.0, 0.1), method=method)
    with pytest.raises(F.CapabilityError, match="stabilization"):
        F.create("udwadia_kalaba", disc, stabilization="ggl")
    assert "udwadia_kalaba" not in registry.having("optimal control")
    assert "Moore-Penrose" in registry.why_not("optimal control", "udwadia_kalaba")
    assert "udwadia_kalaba" in F.compare.__globals__["default_configurations"](disc)


def test_a_mass_matrix_that_is_not_positive_definite_stops_the_run_at_its_time():
    """A massless coordinate (a slider of no mass tied to a mass on a spring): M is singular, which
    the dependent formulation's saddle-point solve takes but M^(-1/2) cannot; the run stops at once,
    naming the matrix, the system and the time, and keeps the initial point."""
    import sympy as sp

    x, y, xd, yd = sp.symbols("x y x_dot y_dot")
    tied = systems.from_lagrangian("massless_slider", (x, y), xd**2 / 2, (y - 1) ** 2 / 2, velocities=(xd, yd),
                                   holonomic=[("tie", y - x)], default_p=(0.5, 0.5), default_v=(0.0, 0.0))
    dependent = F.create("dependent", tied, backend="numpy").simulate((0.0, 1.0))
    assert dependent.status == 0
    run = F.create("udwadia_kalaba", tied, backend="numpy").simulate((0.0, 1.0))
    assert run.status == -1 and run.t.size >= 1
    assert "mass matrix M" in run.message and "massless_slider" in run.message and "t = 0" in run.message

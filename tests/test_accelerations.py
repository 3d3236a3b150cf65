"""At random consistent states, every formulation gives the accelerations of KanesMethod."""
import functools

import numpy as np
import pytest

import formulations
import systems

from cases import FORMULATIONS, applicable
from kane_models import MODELS

CASES = [("rolling_disc", {}), ("rolling_disc", {"thickness": 0.1}), ("sphere_in_cylinder", {}),
         ("knife_edge", {}), ("chaplygin_sleigh", {}), ("vertical_disc", {}), ("heavy_top", {}),
         ("heavy_top", {"velocity": "hybrid"}), ("spherical_double_pendulum", {}), ("suslov", {})]
IDS = ["disc-thin", "disc-coin", "sphere", "knife_edge", "sleigh", "vertical_disc", "heavy_top", "heavy_top-hybrid",
       "double_pendulum", "suslov"]


@functools.lru_cache(maxsize=None)
def kane(name):
    return MODELS[name]()


def kane_params(system, model):
    by_symbol = {p.symbol.name: val for p, val in zip(system.parameters, system.parameter_values)}
    return [by_symbol[s.name] for s in model.params]


def random_states(system, rng, count=4):
    p0, v0 = system.default_state()
    for _ in range(count):
        p_guess = p0 + 0.3 * rng.standard_normal(p0.shape)
        v_guess = v0 + rng.standard_normal(v0.shape)
        yield system.consistent_state(p_guess, v_guess)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_accelerations_match_kane(name, params, formulation, rng):
    system = systems.load(name, **params)
    if formulation not in applicable(system, [formulation]):
        pytest.skip(f"{formulation} does not apply to {name}")
    model = kane(name + ("_hybrid" if params.get("velocity") == "hybrid" else ""))
    form = formulations.create(formulation, system)
    form.prepare(*system.default_state())  # fixes the choice of u (pivoting where there is no default)
    for p, v in random_states(system, rng):
        expected = model.accelerations(p, v, kane_params(system, model))
        got = form.evaluate(0.0, form.initial_state(p, v)).vdot
        scale = 1.0 + np.max(np.abs(expected))
        assert np.max(np.abs(got - expected)) < 1e-10 * scale, (got, expected)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_resolved_reactions_equal_dependent_multipliers(name, params, rng):
    system = systems.load(name, **params)
    form = formulations.create("dependent", system)
    for p, v in random_states(system, rng):
        lam_dep = form.evaluate(0.0, form.initial_state(p, v)).lam
        lam = formulations.reactions(system, 0.0, p, v, as_dict=False)
        assert np.allclose(lam, lam_dep, rtol=1e-10, atol=1e-10)
        named = formulations.reactions(system, 0.0, p, v)
        assert list(named) == list(system.constraint_names)


def test_disc_normal_force_balances_weight_when_rolling_straight_upright():
    system = systems.load("rolling_disc")
    r = system.parameter_dict["r"]
    p = np.array([0, 0, r, 0, 0, 0.0])
    v = np.array([r * 5.0, 0, 0, 0, 5.0, 0])
    forces = formulations.reactions(system, 0.0, p, v)
    assert forces["contact normal force"] == pytest.approx(9.81, rel=1e-12)
    assert forces["lateral friction force"] == pytest.approx(0.0, abs=1e-12)
    assert forces["longitudinal friction force"] == pytest.approx(0.0, abs=1e-12)

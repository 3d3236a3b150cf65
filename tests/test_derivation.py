"""Classroom derivations are complete and correct: the derived minimal equations reproduce the
numeric minimal formulation's accelerations."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations.workbench.derivation.derive import derive, minimal_accelerations
from formulations import registry


@pytest.mark.parametrize("name, params", [("rolling_disc", {}), pytest.param("rolling_disc", {"thickness": 0.1}, marks=pytest.mark.slow),
                                          ("knife_edge", {}), ("vertical_disc", {}), ("chaplygin_sleigh", {}),
                                          ("pendulum_cartesian", {})],
                         ids=["disc", "coin", "knife_edge", "vertical_disc", "sleigh", "pendulum"])
def test_derived_minimal_equations_match_the_numeric_formulation(name, params, rng):
    system = systems.load(name, **params)
    derivation = derive(system, "minimal", seconds=5.0, analysis=False)
    chosen = derivation.pieces["independent"]
    form = F.create("minimal", system, independent=chosen)
    form.prepare(*system.default_state())
    p0, v0 = system.default_state()
    for _ in range(3):
        p, v = system.consistent_state(p0 + 0.1 * rng.standard_normal(p0.shape), v0 + rng.standard_normal(v0.shape))
        y = form.initial_state(p, v)
        k_q = len(form.geometry.q_names)
        expected = form.evaluate(0.0, y).ydot[k_q:]
        got = minimal_accelerations(derivation, system, y[:k_q], y[k_q:])
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("formulation", registry.having("derivation"))
def test_derivation_renders(formulation, disc_derivations):
    d = disc_derivations[formulation]
    latex, md, text = d.to_latex(), d.to_markdown(), d.text()
    assert r"\begin{align*}" in latex and "$$" in md and "Reactions" in text
    assert "completely nonholonomic" in md  # the constraint analysis is part of it
    if formulation == "minimal":
        assert r"\bar{\bar{\mathbf{M}}}" in latex and r"\bar{\mathbf{D}}" in latex
    if registry.piece("derivation", formulation).on_embedding:  # reduced coordinates: the rows in them
        assert r"\bar{\mathbf{C}}_{nh}" in latex
    if formulation == "udwadia_kalaba":
        assert r"(\mathbf{C}\mathbf{M}^{-1/2})^{+}" in latex and r"\begin{bmatrix}\mathbf{M}" not in latex


def test_derivation_refuses_what_has_no_symbolic_form():
    with pytest.raises(ValueError, match="Euler parameters"):
        derive(systems.load("sphere_in_cylinder"), "minimal")
    with pytest.raises(ValueError, match="expected one of"):
        derive(systems.load("rolling_disc"), "lagrange")


def test_dependent_xi_of_moving_rows_is_the_one_the_equations_use():
    """The sphere on the turntable (rows that depend on time): the derivation's xi, with the rows'
    time terms, is the xi the numeric model integrates with, at a random state and time."""
    import numpy as np
    import sympy as sp

    import formulations
    import systems

    system = systems.load("ball_on_turntable")
    step = next(s for s in formulations.derive(system, "dependent", simplify=False, seconds=30).steps
                if s.key == "acceleration")
    xi = dict(step.results)["xi"]
    rng = np.random.default_rng(3)
    p, v, t = rng.normal(size=len(system.coordinates)), rng.normal(size=system.n), 0.7
    at = dict(zip(system.coordinates, p)) | dict(zip(system.velocities, v)) | {system.time: t} | dict(
        zip([par.symbol for par in system.parameters], system.parameter_values))
    derived = np.array(sp.Matrix(xi).xreplace(at).evalf(), dtype=float).ravel()
    expected = system.numeric.dynamics(t, p, v, np.asarray(system.params, float))[5]
    assert np.allclose(derived, expected, rtol=1e-12, atol=1e-12)

"""The builders against sympy.physics.mechanics on the same coordinates and speeds, unconstrained."""
import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import systems
from kane_models import rolling_disc as kane_disc
from kane_models import sphere_in_cylinder as kane_sphere


def _evaluate(expr_matrix, symbols, values):
    fn = sp.lambdify([symbols], expr_matrix, modules="numpy")
    return np.array(fn(values), dtype=float)


def _check_free_equations(model, system, rng, states):
    """KanesMethod's mass matrix and forcing (no constraints) against M and f - d at random states."""
    plain = [sp.Symbol(s.name, real=True) for s in system.coordinates + system.velocities]
    dyn = model.q + model.u
    by_name = {p.symbol.name: val for p, val in zip(system.parameters, system.parameter_values)}
    values = {s: by_name[s.name] for s in model.params}
    MM = me.msubs(model.kane.mass_matrix, dict(zip(dyn, plain)), values)
    FF = me.msubs(model.kane.forcing, dict(zip(dyn, plain)), values)
    n_p = len(system.coordinates)
    for state in states:
        M_ours, d, f0, *_ = system.numeric.dynamics(0.0, state[:n_p], state[n_p:], system.params)
        assert np.allclose(_evaluate(MM, plain, state), M_ours, atol=1e-12, rtol=0)
        assert np.allclose(_evaluate(FF, plain, state).ravel(), f0 - d, atol=1e-12, rtol=0)


@pytest.mark.parametrize("thickness", [0.0, 0.1], ids=["thin", "coin"])
def test_rigid_body_builder_matches_kane_for_the_disc(thickness, rng):
    system = systems.load("rolling_disc", thickness=thickness)
    _check_free_equations(kane_disc(constrained=False), system, rng, [rng.uniform(-1.2, 1.2, 12) for _ in range(5)])


def test_rigid_body_builder_matches_kane_for_the_sphere(rng):
    states = []
    for _ in range(3):
        state = rng.uniform(-1, 1, 13)
        state[3:7] /= np.linalg.norm(state[3:7])
        states.append(state)
    _check_free_equations(kane_sphere(constrained=False), systems.load("sphere_in_cylinder"), rng, states)


def test_lagrangian_builder_matches_lagranges_method(rng):
    """Chaplygin sleigh kinetic energy: M and the Christoffel terms against LagrangesMethod."""
    q = me.dynamicsymbols("x y theta")
    qd = [qi.diff() for qi in q]
    m, I, a = sp.symbols("m I a", positive=True)
    x, y, th = q
    vG = sp.Matrix([qd[0] - a * sp.sin(th) * qd[2], qd[1] + a * sp.cos(th) * qd[2]])
    L = m / 2 * (vG.T * vG)[0, 0] + I / 2 * qd[2] ** 2
    lm = me.LagrangesMethod(L, q)
    lm.form_lagranges_equations()
    s = systems.load("chaplygin_sleigh")
    plain = sp.symbols("x y theta x_dot y_dot theta_dot", real=True)
    subs = {m: s.parameter_dict["m"], I: s.parameter_dict["I"], a: s.parameter_dict["a"]}
    MM = me.msubs(lm.mass_matrix, dict(zip(list(q) + qd, plain)), subs)
    FF = me.msubs(lm.forcing, dict(zip(list(q) + qd, plain)), subs)
    for _ in range(5):
        state = rng.uniform(-1, 1, 6)
        M_ours, d, f0, *_ = s.numeric.dynamics(0.0, state[:3], state[3:], s.params)
        assert np.allclose(_evaluate(MM, plain, state), M_ours, atol=1e-12, rtol=0)
        assert np.allclose(_evaluate(FF, plain, state).ravel(), f0 - d, atol=1e-12, rtol=0)


def test_rigid_body_requires_rotation_or_angular_velocity():
    with pytest.raises(ValueError, match="rotation or its angular velocity"):
        systems.RigidBody("b", 1, sp.eye(3), sp.Matrix([0, 0, 0]))
    with pytest.raises(ValueError, match="expected 'body' or 'world'"):
        systems.RigidBody("b", 1, sp.eye(3), sp.Matrix([0, 0, 0]), angular_velocity=sp.Matrix([0, 0, 0]), axes="lab")


def test_angular_velocity_derived_from_the_rotation(rng):
    """The disc's body-axes angular velocity from R(p) = Rz Rx Ry equals the catalogue's explicit one."""
    from systems.catalogue._rotations import Rx, Ry, Rz

    disc = systems.load("rolling_disc")
    x, y, z, psi, th, ph = disc.coordinates
    kin = systems.Kinematics(disc.coordinates, disc.velocities, disc.A)
    for axes in ("body", "world"):
        body = systems.RigidBody("disc", 1, sp.eye(3), sp.Matrix([x, y, z]), rotation=Rz(psi) * Rx(th) * Ry(ph),
                                 axes=axes)
        derived = kin.angular_velocity(body)
        w_lean = sp.Matrix(disc.velocities[3:])
        expected = Ry(ph).T * w_lean if axes == "body" else Rz(psi) * Rx(th) * w_lean
        fn = sp.lambdify([disc.coordinates + disc.velocities], derived - expected)
        for _ in range(3):
            assert np.allclose(np.array(fn(rng.uniform(-1, 1, 12)), float), 0, atol=1e-12)

"""The builders against sympy.physics.mechanics on the same coordinates and speeds, unconstrained."""
import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import systems


def _evaluate(expr_matrix, symbols, values):
    fn = sp.lambdify([symbols], expr_matrix, modules="numpy")
    return np.array(fn(values), dtype=float)


def _kane_disc(h_value):
    """KanesMethod model of the free disc with the speeds of the catalogue (no constraints)."""
    q = me.dynamicsymbols("x y z psi theta phi")
    u = me.dynamicsymbols("v_x v_y v_z omega_1 omega_2 omega_3")
    x, y, z, psi, th, ph = q
    m, r, g = sp.symbols("m r g", positive=True)
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [psi, N.z])
    C = Y.orientnew("C", "Axis", [th, Y.x])
    B = C.orientnew("B", "Axis", [ph, C.y])
    G = me.Point("G")
    G.set_vel(N, u[0] * N.x + u[1] * N.y + u[2] * N.z)
    kd = [x.diff() - u[0], y.diff() - u[1], z.diff() - u[2], psi.diff() - u[5] / sp.cos(th),
          th.diff() - u[3], ph.diff() - (u[4] - u[5] * sp.tan(th))]
    Id = m * (r**2 / 4 + sp.Rational(h_value) ** 2 / 12)
    body = me.RigidBody("disc", G, B, m, (me.inertia(B, Id, m * r**2 / 2, Id), G))
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations([body], [(G, -m * g * N.z)])
    return kane, q, u, (m, r, g)


@pytest.mark.parametrize("h_value", ["0", "1/10"], ids=["thin", "coin"])
def test_rigid_body_builder_matches_kane_for_the_disc(h_value, rng):
    kane, q, u, (m, r, g) = _kane_disc(h_value)
    s = systems.load("rolling_disc", thickness=float(sp.Rational(h_value)))
    par = s.params
    dyn_syms = list(q) + list(u)
    plain = sp.symbols("x y z psi theta phi v_x v_y v_z omega_1 omega_2 omega_3", real=True)
    to_plain = dict(zip(dyn_syms, plain))
    values = {m: par[0], r: par[1], g: par[2]}
    MM = me.msubs(kane.mass_matrix, to_plain, values)
    FF = me.msubs(kane.forcing, to_plain, values)
    for _ in range(5):
        state = rng.uniform(-1.2, 1.2, 12)
        M_ours, d, f0, *_ = s.numeric.dynamics(0.0, state[:6], state[6:], par)
        assert np.allclose(_evaluate(MM, plain, state), M_ours, atol=1e-12, rtol=0)
        assert np.allclose(_evaluate(FF, plain, state).ravel(), f0 - d, atol=1e-12, rtol=0)


def test_rigid_body_builder_matches_kane_for_the_sphere(rng):
    q = me.dynamicsymbols("x y z e0 e1 e2 e3")
    u = me.dynamicsymbols("v_x v_y v_z omega_x omega_y omega_z")
    m, a, k, g = sp.symbols("m a k g", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Quaternion", q[3:])
    B.set_ang_vel(N, u[3] * N.x + u[4] * N.y + u[5] * N.z)
    G = me.Point("G")
    G.set_vel(N, u[0] * N.x + u[1] * N.y + u[2] * N.z)
    e0, e1, e2, e3 = q[3:]
    G4 = sp.Matrix([[-e1, -e2, -e3], [e0, e3, -e2], [-e3, e0, e1], [e2, -e1, e0]]) / 2
    edot = G4 * sp.Matrix(u[3:])
    kd = [q[i].diff() - u[i] for i in range(3)] + [q[3 + i].diff() - edot[i] for i in range(4)]
    I = k * m * a**2
    body = me.RigidBody("sphere", G, B, m, (me.inertia(N, I, I, I), G))
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations([body], [(G, -m * g * N.z)])
    s = systems.load("sphere_in_cylinder")
    par = dict(zip(s.parameter_names, s.params))
    plain = sp.symbols("x y z e0 e1 e2 e3 v_x v_y v_z omega_x omega_y omega_z", real=True)
    subs = {m: par["m"], a: par["a"], k: par["k"], g: par["g"]}
    MM = me.msubs(kane.mass_matrix, dict(zip(list(q) + list(u), plain)), subs)
    FF = me.msubs(kane.forcing, dict(zip(list(q) + list(u), plain)), subs)
    for _ in range(3):
        state = rng.uniform(-1, 1, 13)
        state[3:7] /= np.linalg.norm(state[3:7])
        M_ours, d, f0, *_ = s.numeric.dynamics(0.0, state[:7], state[7:], s.params)
        assert np.allclose(_evaluate(MM, plain, state), M_ours, atol=1e-12, rtol=0)
        assert np.allclose(_evaluate(FF, plain, state).ravel(), f0 - d, atol=1e-12, rtol=0)


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

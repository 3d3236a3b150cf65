"""systems.from_sympy: models written in sympy.physics.mechanics give the accelerations sympy gives.

Truths: sympy's own solution of the model (KanesMethod.mass_matrix_full / forcing_full, the
LagrangesMethod right-hand side with its multipliers, System.rhs), the numbers sympy's test suite
records for its rolling disc (test_kane5.py), and the catalogue's rolling disc, derived independently.
"""
import functools

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import formulations
import systems
from systems.errors import SystemDescriptionError

import sympy_models
from cases import FORMULATIONS, applicable

DISC = {"g": 9.81, "r": 0.26, "m": 3.43}  # the values of sympy's test_kane5.py
PENDULUM = {"m": 2.0, "L": 1.5, "g": 9.81}
SLEIGH = {"m": 1.5, "I": 0.3, "a": 0.4, "c": 0.2}


@functools.lru_cache(maxsize=None)
def disc_kane():
    return sympy_models.rolling_disc_kane()


@functools.lru_cache(maxsize=None)
def disc():
    return systems.from_sympy(disc_kane(), DISC, name="sympy_disc")


def sympy_kane_rhs(kane, values):
    """(q, u) -> d/dt (q, u) in the order q, u of the KanesMethod, from sympy's full mass matrix and forcing."""
    params = sorted((kane.mass_matrix_full.free_symbols | kane.forcing_full.free_symbols) - {me.dynamicsymbols._t},
                    key=str)
    fn = sp.lambdify([list(kane.q) + list(kane.u), params], [kane.mass_matrix_full, kane.forcing_full], cse=True)
    numbers = [values[str(s)] for s in params]

    def rhs(q, u):
        MM, FF = fn(np.concatenate([q, u]), numbers)
        return np.linalg.solve(np.array(MM, float), np.array(FF, float).ravel())

    return rhs


def random_states(system, rng, count=4, spread=0.5):
    p0, v0 = system.default_state()
    for _ in range(count):
        yield system.consistent_state(p0 + spread * rng.standard_normal(p0.shape), rng.standard_normal(v0.shape))


def accelerations(system, formulation, p, v):
    form = formulations.create(formulation, system)
    form.prepare(p, v)
    return form.evaluate(0.0, form.initial_state(p, v)).vdot


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_kane_rolling_disc_accelerations_match_sympy(formulation, rng):
    system = disc()
    if formulation not in applicable(system):
        pytest.skip(f"{formulation} refuses sympy's disc (create says why)")
    rhs = sympy_kane_rhs(disc_kane(), DISC)
    n = len(system.coordinates)
    for p, v in random_states(system, rng):
        expected = rhs(p, v)
        got = accelerations(system, formulation, p, v)
        assert np.max(np.abs(system.numeric.A(p, system.params) @ v - expected[:n])) < 1e-12
        assert np.max(np.abs(got - expected[n:])) < 1e-10 * (1 + np.max(np.abs(expected))), (got, expected[n:])


@pytest.mark.parametrize("q, u_ind, expected", [
    ((0.3, 0.1, 1.97, -0.35, 2.27), (-0.2, 1.3, 0.15),
     (0.126603940595934, 0.215942571601660, 1.28736069604936, 0.319764288376543, 0.0989146857254898,
      -0.925848952664489, -0.0181350656532944, 2.91695398184589, -0.00992793421754526, 0.0412861634829171)),
    ((3.97, -0.28, 8.2, -0.35, 2.27), (-0.25, -2.2, 0.62),
     (0.0259159090798597, 0.668041660387416, -2.19283799213811, 0.385441810852219, 0.420109283790573,
      1.45030568179066, -0.0110924422400793, -8.35617840186040, -0.154098542632173, -0.146102664410010)),
], ids=["state-1", "state-2"])
def test_kane_rolling_disc_gives_the_numbers_of_sympys_test_suite(q, u_ind, expected):
    """sympy's test_kane5.py records (q', u') of this disc at two states (15 digits)."""
    system = disc()
    p, v = system.consistent_state(np.array(q), np.array(u_ind + (0.0, 0.0)),
                                   fix=system.coordinate_names + ("u1", "u2", "u3"))
    got = np.concatenate([system.numeric.A(p, system.params) @ v, accelerations(system, "minimal", p, v)])
    assert np.max(np.abs(got - np.array(expected))) < 1e-12


def test_kane_rolling_disc_runs_like_the_catalogue_disc():
    """The same mechanism as the catalogue's rolling_disc (yaw, lean, spin in the same z-x-y sequence),
    derived independently: from the same initial state, lean and yaw agree over two seconds."""
    system = disc()
    catalogue = systems.load("rolling_disc", m=DISC["m"], r=DISC["r"], g=DISC["g"])
    psi, theta, phi, spin, lean_rate, yaw_rate = 0.2, 0.3, 0.1, 6.0, 0.4, 0.5
    # catalogue: omega in the lean frame (1 rolling direction, 2 axle, 3 towards the centre)
    omega_lean = np.array([lean_rate, spin, yaw_rate * np.cos(theta)])
    p_c, v_c = catalogue.consistent_state(
        np.array([0, 0, 0, psi, theta, phi]), np.r_[0, 0, 0, omega_lean], fix=("psi", "theta", "phi", "omega_1",
                                                                             "omega_2", "omega_3"))
    # sympy's disc: u1..u3 the same angular velocity in the disc frame (spun by phi about the axle)
    c, s = np.cos(phi), np.sin(phi)
    omega_disc = np.array([[c, 0, -s], [0, 1, 0], [s, 0, c]]) @ omega_lean
    p_s, v_s = system.consistent_state(np.array([psi, theta, phi, 0, 0]), np.r_[omega_disc, 0, 0],
                                       fix=("q1", "q2", "q3", "q4", "q5", "u1", "u2", "u3"))
    t_eval = np.linspace(0, 2, 21)
    tol = dict(rtol=1e-11, atol=1e-11, t_eval=t_eval)
    ref = formulations.create("minimal", catalogue).simulate((0, 2), (p_c, v_c), **tol)
    for name in applicable(system):
        run = formulations.create(name, system).simulate((0, 2), (p_s, v_s), **tol)
        assert run.status == 0
        assert np.max(np.abs(run.p[:, 1] - ref.p[:, 4])) < 1e-8, name  # lean
        assert np.max(np.abs(run.p[:, 0] - ref.p[:, 3])) < 1e-8, name  # yaw


def test_kane_rolling_disc_reactions_are_the_horizontal_contact_forces(rng):
    """The rows are the slip velocity along N.x and N.y, so the contact force on the disc is
    (-lambda_1, -lambda_2) horizontally: Newton's law for the mass centre, m a_G = F + m g, checked
    with a_G from sympy's kinematics of G at pfaff's accelerations."""
    kane, system = disc_kane(), disc()
    G = kane.bodies[0].masscenter
    N = kane._inertial
    t = me.dynamicsymbols._t
    kinematics = kane.kindiffdict()
    v_G = me.msubs(G.vel(N).to_matrix(N), kinematics)
    udot = sp.symbols(f"udot1:{len(kane.u) + 1}")
    a_G = me.msubs(v_G.diff(t), kinematics).xreplace({x.diff(t): s for x, s in zip(kane.u, udot)})
    params = [sp.Symbol(k, positive=True) for k in DISC]
    acceleration = sp.lambdify([list(kane.q), list(kane.u), udot, params], a_G, cse=True)
    for p, v in random_states(system, rng, count=3):
        vdot = accelerations(system, "dependent", p, v)
        lam = formulations.reactions(system, 0.0, p, v)
        assert list(lam) == ["velocity constraint 1", "velocity constraint 2"]
        a = np.array(acceleration(p, v, vdot, list(DISC.values())), float).ravel()
        force = -np.array(list(lam.values()))
        assert np.allclose(DISC["m"] * a[:2], force, rtol=1e-10, atol=1e-10), (DISC["m"] * a[:2], force)


@functools.lru_cache(maxsize=None)
def pendulum():
    lagranges = sympy_models.pendulum_lagrange()
    L = PENDULUM["L"]
    system = systems.from_sympy(lagranges, PENDULUM, name="sympy_pendulum", constraint_names=["rod"],
                                state=((L * np.sin(0.5), -L * np.cos(0.5)), (0.0, 0.0)))
    return lagranges, system


@pytest.mark.parametrize("formulation", ["dependent", "manifold"])
def test_lagrange_pendulum_matches_sympy_and_the_catalogue(formulation, rng):
    lagranges, system = pendulum()
    assert system.coordinate_names == ("x", "y") and system.velocity_names == ("x_dot", "y_dot")
    x, y = lagranges.q
    params = [sp.Symbol(k, positive=True) for k in PENDULUM]
    rhs = sp.lambdify([[x, y, x.diff(), y.diff()], params], lagranges.rhs(), cse=True)
    catalogue = systems.load("pendulum_cartesian", m=PENDULUM["m"], L=PENDULUM["L"], g=PENDULUM["g"])
    for p, v in random_states(system, rng, spread=0.3):
        expected = np.array(rhs(np.concatenate([p, v]), list(PENDULUM.values())), float).ravel()
        got = accelerations(system, formulation, p, v)
        assert np.max(np.abs(got - expected[2:4])) < 1e-10 * (1 + np.max(np.abs(expected)))
        assert np.max(np.abs(got - accelerations(catalogue, formulation, p, v))) < 1e-10 * (1 + np.max(np.abs(got)))
    assert system.energy(p, v) == pytest.approx(catalogue.energy(p, v), rel=1e-12)  # V = -L0 = m g y


def test_lagrange_pendulum_rod_reaction_is_sympys_multiplier(rng):
    """sympy's multiplier of x^2 + y^2 - L^2 and pfaff's of the same row: the same force; sympy's
    Lagrange equations add C^T lambda where pfaff subtracts it, so the signs are opposite."""
    lagranges, system = pendulum()
    x, y = lagranges.q
    params = [sp.Symbol(k, positive=True) for k in PENDULUM]
    rhs = sp.lambdify([[x, y, x.diff(), y.diff()], params], lagranges.rhs(), cse=True)
    for p, v in random_states(system, rng, count=2, spread=0.3):
        lam_sympy = np.array(rhs(np.concatenate([p, v]), list(PENDULUM.values())), float).ravel()[4]
        assert formulations.reactions(system, 0.0, p, v)["rod"] == pytest.approx(-lam_sympy, rel=1e-10)


def test_lagrange_loads_become_generalized_forces(rng):
    """A pendulum with viscous drag c v at the bob, given as a load: sympy's rhs with its multiplier."""
    x, y = me.dynamicsymbols("x y")
    m, L, g, c = sp.symbols("m L g c", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff() * N.x + y.diff() * N.y)
    bob = me.Particle("bob", P, m)
    bob.potential_energy = m * g * y
    lagranges = me.LagrangesMethod(me.Lagrangian(N, bob), [x, y], hol_coneqs=[x**2 + y**2 - L**2],
                                   forcelist=[(P, -c * P.vel(N))], frame=N)
    lagranges.form_lagranges_equations()
    values = {**PENDULUM, "c": 0.7}
    system = systems.from_sympy(lagranges, values, state=pendulum()[1].default_state())
    rhs = sp.lambdify([[x, y, x.diff(), y.diff()], [m, L, g, c]], lagranges.rhs(), cse=True)
    for p, v in random_states(system, rng, count=2, spread=0.3):
        expected = np.array(rhs(np.concatenate([p, v]), list(values.values())), float).ravel()
        assert np.max(np.abs(accelerations(system, "dependent", p, v) - expected[2:4])) < 1e-10 * (
            1 + np.max(np.abs(expected)))


def test_system_sleigh_matches_sympy_system_rhs(rng):
    model = sympy_models.sleigh_system()
    system = systems.from_sympy(model, SLEIGH, name="sympy_sleigh")
    assert system.velocity_names == ("u1", "u3", "u2") and system.constraint_names == ("nonholonomic constraint 1",)
    model.form_eoms()
    params = [sp.Symbol(k, positive=True) for k in SLEIGH]
    rhs = sp.lambdify([list(model.q) + list(model.u), params], model.rhs(), cse=True)
    for p, v in random_states(system, rng):
        expected = np.array(rhs(np.concatenate([p, v]), list(SLEIGH.values())), float).ravel()
        for formulation in ("dependent", "minimal"):
            got = accelerations(system, formulation, p, v)
            assert np.max(np.abs(got - expected[3:])) < 1e-10 * (1 + np.max(np.abs(expected)))


def test_system_without_speeds_is_read_by_lagrange_as_the_lagrangesmethod_is(rng):
    """The pendulum as a sympy System with coordinates only: its Lagrangian from the bodies."""
    lagranges, expected = pendulum()
    x, y = lagranges.q
    m, L, g = sp.symbols("m L g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    bob = me.Particle("bob", O.locatenew("P", x * N.x + y * N.y), m)
    bob.point.set_vel(N, x.diff() * N.x + y.diff() * N.y)
    bob.potential_energy = m * g * y
    model = me.System(N, O)
    model.add_coordinates(x, y)
    model.add_bodies(bob)
    model.add_holonomic_constraints(x**2 + y**2 - L**2)
    system = systems.from_sympy(model, PENDULUM, state=expected.default_state())
    assert system.velocity_names == ("x_dot", "y_dot") and system.holonomic_names == ("configuration constraint 1",)
    for p, v in random_states(system, rng, count=2, spread=0.3):
        assert np.allclose(accelerations(system, "dependent", p, v), accelerations(expected, "dependent", p, v),
                           rtol=1e-12, atol=1e-12)


# -- models it cannot take, and bad values -------------------------------------------------------

def test_kinematics_not_linear_in_the_speeds_are_refused():
    q, u = me.dynamicsymbols("q u")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, u * N.x)
    model = me.System(N, O)
    model.add_coordinates(q)
    model.add_speeds(u)
    model.add_kdes(q.diff() - u**2)
    model.add_bodies(me.Particle("pa", P, m))
    with pytest.raises(SystemDescriptionError, match="not linear in the speeds"):
        systems.from_sympy(model, {"m": 1.0})


def test_affine_velocity_constraint_is_refused():
    x, y, u1, u2 = me.dynamicsymbols("x y u1 u2")
    m, w = sp.symbols("m w", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u1 * N.x + u2 * N.y)
    kane = me.KanesMethod(N, [x, y], [u1], [x.diff() - u1, y.diff() - u2], u_dependent=[u2],
                          velocity_constraints=[u2 - w])  # a moving guide: y' = w
    kane.kanes_equations([me.Particle("pa", P, m)], [(P, m * N.x)])
    with pytest.raises(SystemDescriptionError, match="velocity constraint 1 has a speed-free term -w"):
        systems.from_sympy(kane, {"m": 1.0, "w": 1.0})


def test_wrong_number_of_constraint_names_lists_the_rows():
    with pytest.raises(SystemDescriptionError, match="expected 2 names, one per row in this order: velocity "
                                                     "constraint 1, velocity constraint 2"):
        systems.from_sympy(disc_kane(), DISC, constraint_names=["contact"])


def test_missing_parameter_value_is_named():
    with pytest.raises(SystemDescriptionError, match=r"no value for parameter r: pass parameters=\{'r': \.\.\.\}"):
        systems.from_sympy(disc_kane(), {"g": 9.81, "m": 1.0})


def test_unknown_parameter_name_is_named():
    with pytest.raises(SystemDescriptionError, match="values for radius, which the model does not contain"):
        systems.from_sympy(disc_kane(), {**DISC, "radius": 0.3})


def test_auxiliary_speeds_are_refused_with_the_reason():
    q, u, ua = me.dynamicsymbols("q"), me.dynamicsymbols("u"), me.dynamicsymbols("ua")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x + ua * N.y)
    kane = me.KanesMethod(N, [q], [u], [q.diff() - u], u_auxiliary=[ua])
    kane.kanes_equations([me.Particle("pa", P, m)], [(P, m * N.x)])
    with pytest.raises(SystemDescriptionError, match="auxiliary speeds ua are not supported"):
        systems.from_sympy(kane, {"m": 1.0})


def test_speed_without_a_coordinate_is_refused():
    q, u1, u2 = me.dynamicsymbols("q u1 u2")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [q, N.z])
    B.set_ang_vel(N, u1 * N.z)
    W = me.ReferenceFrame("W")
    W.set_ang_vel(B, u2 * B.x)  # a wheel whose angle is not a coordinate
    O = me.Point("O")
    O.set_vel(N, 0)
    kane = me.KanesMethod(N, [q], [u1, u2], [q.diff() - u1])
    kane.kanes_equations([me.RigidBody("b", O, B, m, (me.inertia(B, 1, 1, 1), O)),
                          me.RigidBody("w", O, W, m, (me.inertia(B, 1, 1, 1), O))], None)
    with pytest.raises(SystemDescriptionError, match="2 speeds but 1 coordinates: give every speed a coordinate"):
        systems.from_sympy(kane, {"m": 1.0})


def test_kinematics_with_a_speed_free_term_are_refused():
    q, u = me.dynamicsymbols("q u")
    m, w = sp.symbols("m w", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)
    kane = me.KanesMethod(N, [q], [u], [q.diff() - u - w])  # q' = u + w
    kane.kanes_equations([me.Particle("pa", P, m)], [(P, m * N.x)])
    with pytest.raises(SystemDescriptionError, match=r"speed-free term q' = A u \+ b with b = \[w\]"):
        systems.from_sympy(kane, {"m": 1.0, "w": 1.0})


def test_specified_inputs_are_refused():
    q, u, F = me.dynamicsymbols("q u F")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)
    kane = me.KanesMethod(N, [q], [u], [q.diff() - u])
    kane.kanes_equations([me.Particle("pa", P, m)], [(P, F * N.x)])
    with pytest.raises(SystemDescriptionError, match=r"neither coordinates nor speeds: F\(t\)"):
        systems.from_sympy(kane, {"m": 1.0})


def test_not_a_model_is_refused():
    with pytest.raises(SystemDescriptionError, match="model got dict but expected a sympy.physics.mechanics"):
        systems.from_sympy({}, {})


# -- the Whipple bicycle -------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("formulation", ["dependent", "minimal"])
def test_whipple_bicycle_accelerations_match_sympy(formulation, rng):
    """A holonomic row (the front contact on the ground) and two no-slip rows; the third velocity
    constraint of the model is the derivative of the holonomic one and is recognised as such."""
    kane, system = bicycle()
    assert (system.m, system.l) == (1, 2) and system.nonholonomic_names == ("velocity constraint 1",
                                                                               "velocity constraint 2")
    rhs = sympy_kane_rhs(kane, sympy_models.bicycle_parameters())
    n = len(system.coordinates)
    for p, v in random_states(system, rng, count=3, spread=0.2):
        expected = rhs(p, v)
        got = accelerations(system, formulation, p, v)
        assert np.max(np.abs(got - expected[n:])) < 1e-10 * (1 + np.max(np.abs(expected))), (got, expected[n:])


@functools.lru_cache(maxsize=None)
def bicycle():
    kane = sympy_models.whipple_bicycle()
    return kane, systems.from_sympy(kane, sympy_models.bicycle_parameters(), name="whipple", simplify=False)



def test_velocities_written_with_the_constraints_applied_are_named_in_a_warning():
    """sympy's test_kane5 disc gives the centre the rolling velocity, so the contact speeds u4, u5
    carry no inertia off the constraints: a warning names them; the accelerations are still sympy's."""
    kane = sympy_models.rolling_disc_kane(rolling_velocity=True)
    with pytest.warns(UserWarning, match=r"M is singular at the default state .* speeds u4, u5"):
        system = systems.from_sympy(kane, DISC)
    rhs = sympy_kane_rhs(kane, DISC)
    p = np.array([0.3, 0.1, 1.97, -0.35, 2.27])
    C = system.numeric.C(p, system.params)
    v = np.r_[-0.2, 1.3, 0.15, np.linalg.solve(C[:, 3:], -C[:, :3] @ [-0.2, 1.3, 0.15])]
    assert np.max(np.abs(accelerations(system, "minimal", p, v) - rhs(p, v)[5:])) < 1e-10

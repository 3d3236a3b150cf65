"""The system description: validation collects every problem; states and the embedding."""
import numpy as np
import pytest
import sympy as sp

import systems
from systems.contacts import free_rows
from systems import Embedding, Parameter, System, SystemDescriptionError

x, y, z = sp.symbols("x y z", real=True)
vx, vy, vz = sp.symbols("v_x v_y v_z", real=True)
m, g = sp.symbols("m g", positive=True)


def particle(**changes):
    """A particle on the unit circle (holonomic) in the plane; fields overridable per test."""
    fields = dict(name="particle", coordinates=(x, y), velocities=(vx, vy), A=sp.eye(2), M=m * sp.eye(2),
                  d=sp.zeros(2, 1), f=sp.Matrix([0, -m * g]), Phi=sp.Matrix([sp.sqrt(x**2 + y**2) - 1]),
                  C_nh=sp.zeros(0, 2), constraint_names=("rod tension",),
                  parameters=(Parameter(m, 1.0, "kg"), Parameter(g, 9.81, "m/s^2")),
                  default_p=(1, 0), default_v=(0, 1))
    fields.update(changes)
    return System(**fields)


def test_valid_particle_builds():
    s = particle()
    assert (s.n, s.m, s.l, s.k, s.r) == (2, 1, 0, 1, 1)


@pytest.mark.parametrize("changes, fragment", [
    (dict(M=sp.Matrix([[m, 1], [0, m]])), "M is not symmetric"),
    (dict(A=sp.Matrix([[1, 1], [1, 1]])), "A does not have full column rank"),
    (dict(M=sp.eye(3)), "M has shape (3, 3) but expected (2, 2)"),
    (dict(Phi=sp.Matrix([x * vx])), "Phi contains undeclared or disallowed symbols: v_x"),
    (dict(C_nh=sp.Matrix([[vx, 0]]), constraint_names=("a", "b")), "C_nh contains undeclared or disallowed symbols"),
    (dict(f=sp.Matrix([0, -m * g * z])), "f contains undeclared or disallowed symbols: z"),
    (dict(default_p=(2, 0)), "default state violates Phi = 0"),
    (dict(default_v=(1, 0)), "default state violates C v = 0"),
    (dict(constraint_names=()), "expected 1 constraint names"),
    (dict(f=sp.Matrix([0, sp.Symbol("lambda_1", real=True) ** 2])), "f must be affine in the multipliers"),
    (dict(M=sp.Matrix([[m, 0], [0, -m]]), Phi=None, constraint_names=()), "not positive definite"),
    (dict(embedding=Embedding(coordinates=(z,), g=sp.Matrix([2 * sp.cos(z), 2 * sp.sin(z)]),
                              inverse=sp.Matrix([sp.atan2(y, x)]))), "embedding does not satisfy Phi(g(q)) = 0"),
], ids=["asymmetric-M", "rank-deficient-A", "shape", "velocity-in-Phi", "velocity-in-C_nh", "undeclared-symbol",
        "inconsistent-p", "inconsistent-v", "names", "nonaffine-lambda", "indefinite-M",
        "bad-embedding"])
def test_invalid_descriptions_are_rejected(changes, fragment):
    with pytest.raises(SystemDescriptionError) as info:
        particle(**changes)
    assert fragment in str(info.value)


def test_dependent_rows_are_accepted_and_named():
    s = particle(Phi=sp.Matrix([x**2 + y**2 - 1, 2 * x**2 + 2 * y**2 - 2]), constraint_names=("a", "b"))
    assert s.redundant_constraints == ("b",) or s.redundant_constraints == ("a",)
    assert "dependent row" in s.summary()


def test_all_problems_reported_at_once():
    with pytest.raises(SystemDescriptionError) as info:
        particle(Phi=sp.Matrix([x * vx]), f=sp.Matrix([0, z]))
    assert len(info.value.problems) == 2
    assert "2 problems" in str(info.value)


def test_nonlinear_pfaffian_row_is_rejected():
    with pytest.raises(SystemDescriptionError, match="not linear in the velocities"):
        systems.pfaffian_matrix([vx**2 + vy], (vx, vy))
    with pytest.raises(SystemDescriptionError, match="velocity-free term"):
        systems.pfaffian_matrix([vx + x], (vx, vy))


def test_unknown_names_list_valid_ones():
    with pytest.raises(systems.UnknownNameError, match="rolling_disc"):
        systems.load("rolling_dsic")
    with pytest.raises(systems.UnknownNameError, match="thickness"):
        systems.load("rolling_disc", radius=1.0)


def test_parameters_override_defaults_and_revalidate():
    s = systems.load("rolling_disc", r=0.3)
    p, v = s.default_state()
    assert s.parameter_dict["r"] == 0.3
    assert p[2] == pytest.approx(0.3 * np.cos(0.3))
    with pytest.raises(SystemDescriptionError, match="parameter m got -1 but expected a positive value"):
        systems.load("rolling_disc", m=-1.0)
    with pytest.raises(SystemDescriptionError, match="thickness got -0.1 but expected a value >= 0"):
        systems.load("rolling_disc", thickness=-0.1)


def test_catalogue_default_states_are_consistent(catalogue_system):
    """Every row holds at the default state but a contact's rows where it starts open (its gap > 0) or
    sliding (its friction rows), as for the bouncing ball, dropped, and the sliding ball, launched."""
    p, v = catalogue_system.default_state()
    Phi, Cv = free_rows(catalogue_system, *catalogue_system.residuals(p, v), 1e-9)
    assert np.max(np.abs(Phi), initial=0) < 1e-12
    assert np.max(np.abs(Cv), initial=0) < 1e-12


def test_catalogue_entries_are_documented(catalogue_system):
    doc = catalogue_system.description
    assert len(doc) > 200 and catalogue_system.reference
    assert len(catalogue_system.constraint_names) == catalogue_system.m + catalogue_system.l


def test_consistent_state_holds_named_components(catalogue_system, rng):
    s = catalogue_system
    p0, v0 = s.default_state()
    p_guess = p0 + 0.05 * rng.standard_normal(p0.shape)
    v_guess = v0 + 0.05 * rng.standard_normal(v0.shape)
    fix = s.independent_velocities if all(n in s.velocity_names for n in s.independent_velocities) else ()
    p, v = s.consistent_state(p_guess, v_guess, fix=fix)
    Phi, Cv = s.residuals(p, v)
    assert np.max(np.abs(Phi), initial=0) < 1e-12
    assert np.max(np.abs(Cv), initial=0) < 1e-12
    for name in fix:
        i = s.velocity_names.index(name)
        assert v[i] == v_guess[i]


def test_consistent_state_moves_least_in_kinetic_metric():
    s = systems.load("rolling_disc")
    p0, v0 = s.default_state()
    v_guess = v0 + np.array([0.3, -0.2, 0.1, 0.0, 0.0, 0.0])
    p, v = s.consistent_state(p0, v_guess)
    M = s.numeric.dynamics(0.0, p, v, s.params)[0]
    C = s.numeric.C(p, s.params)
    # optimality: the correction is M^-1 C^T mu for some mu
    dv = v - v_guess
    mu = np.linalg.lstsq(C.T, M @ dv, rcond=None)[0]
    assert np.allclose(C.T @ mu, M @ dv, atol=1e-12)


def test_consistent_state_refuses_impossible_requests():
    s = systems.load("pendulum_cartesian")
    with pytest.raises(systems.InconsistentStateError, match=r"\|Phi\|"):
        s.consistent_state([0.3, -0.3], [0, 0], fix=("x", "y"))
    d = systems.load("vertical_disc")
    with pytest.raises(systems.InconsistentStateError, match=r"\|C v\|"):
        d.consistent_state([0, 0, 0, 0], [1, 1, 0, 0], fix=("x_dot", "y_dot", "phi_dot"))


def test_state_from_q_through_embedding():
    s = systems.load("rolling_disc")
    q = np.array([0.1, -0.2, 0.4, 0.2, 1.0])
    qdot = np.array([0.0, 0.0, 0.5, -0.1, 3.0])
    p, v = s.state_from_q(q, qdot)
    Phi, Cv = s.residuals(p, v)
    assert abs(Phi[0]) < 1e-14
    # holonomic velocity row holds automatically; theta' = omega_1
    assert abs(Cv[0]) < 1e-14 and v[3] == pytest.approx(-0.1)
    assert p[4] == pytest.approx(0.2) and p[5] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no embedding"):
        systems.load("knife_edge").state_from_q([0, 0, 0], [0, 0, 0])


def _plane(T, **fields):
    """A particle in the plane (x, y) with kinetic energy T and mass parameter m, from a Lagrangian."""
    xd, yd = sp.symbols("x_dot y_dot", real=True)
    fields = dict(dict(parameters=[Parameter(m, 1.0, "kg", "mass")], default_p=(0, 0), default_v=(0, 0)), **fields)
    return systems.from_lagrangian("plane", (x, y), T(xd, yd), 0, velocities=(xd, yd), **fields)


def test_a_mass_matrix_indefinite_near_the_default_state_is_refused():
    """M = diag(m, m (1 - 100 x^2)) is positive definite at x = 0 but not for |x| > 0.1, where the
    validation's sample configurations lie: the build names M, the eigenvalue and the place."""
    with pytest.raises(SystemDescriptionError) as info:
        _plane(lambda xd, yd: m / 2 * (xd**2 + (1 - 100 * x**2) * yd**2))
    text = str(info.value)
    assert "'plane'" in text and "M is not positive definite" in text and "indefinite" in text
    assert "smallest eigenvalue -" in text and "near the default state (p = (x=" in text


def test_a_parameter_without_a_value_is_named():
    with pytest.raises(SystemDescriptionError) as info:
        _plane(lambda xd, yd: m / 2 * (xd**2 + yd**2), parameters=[Parameter(m, None, "kg", "mass")])
    text = str(info.value)
    assert "parameter m got default None" in text and "expected a number in kg" in text
    assert "systems.Parameter(m, <value>, 'kg', ...)" in text


def test_a_default_state_at_a_singular_configuration_is_named():
    """x y = 0: two lines that cross at the origin, where Phi_p = (y, x) vanishes."""
    with pytest.raises(SystemDescriptionError) as info:
        _plane(lambda xd, yd: m / 2 * (xd**2 + yd**2), holonomic=[("cross force", x * y)])
    text = str(info.value)
    assert "default_p got (x=0, y=0), a singular configuration" in text and "rank 0 there but 1" in text
    assert "choose default_p where Phi_p has full rank" in text
    assert _plane(lambda xd, yd: m / 2 * (xd**2 + yd**2), holonomic=[("cross force", x * y)],
                  default_p=(1, 0)).m == 1  # on one line, away from the crossing


def test_a_mass_matrix_with_a_negative_eigenvalue_is_refused_even_where_the_rows_hide_it():
    """T = (x'^2 - y'^2)/2 with y' = 0: M is positive on the rows' tangent but not positive semi-definite."""
    x, y, xd, yd = sp.symbols("x y x_dot y_dot", real=True)
    with pytest.raises(SystemDescriptionError, match=r"M is not positive definite at the default state .*: it is "
                                                     r"indefinite \(smallest eigenvalue -1\)"):
        systems.from_lagrangian("negative", (x, y), (xd**2 - yd**2) / 2, 0, velocities=(xd, yd),
                                nonholonomic=[("no_y", yd)], default_p=(0.0, 0.0), default_v=(1.0, 0.0))
    massless = systems.from_lagrangian("massless", (x, y), xd**2 / 2, 0, velocities=(xd, yd),
                                       nonholonomic=[("no_y", yd)], default_p=(0.0, 0.0), default_v=(1.0, 0.0))
    assert massless.n == 2  # a zero eigenvalue is a massless coordinate, allowed


def test_a_default_state_where_a_row_has_no_direction_names_the_row_and_default_p():
    x, y, xd, yd = sp.symbols("x y x_dot y_dot", real=True)
    with pytest.raises(SystemDescriptionError, match=r"constraint rows not finite at the default state "
                                                     r"\(default_p = \(x=0, y=0\)\): 'circle'"):
        systems.from_lagrangian("circle", (x, y), (xd**2 + yd**2) / 2, 0, velocities=(xd, yd),
                                holonomic=[("circle", sp.sqrt(x**2 + y**2) - 1)], default_p=(0.0, 0.0),
                                default_v=(0.0, 0.0))

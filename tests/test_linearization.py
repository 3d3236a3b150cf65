"""Linearization about equilibria and steady motions, against closed forms and sympy.

The rolling disc (thin, h = 0; I_1 = m r^2 / 4 about a diameter, I_3 = m r^2 / 2 about the axle).
Balance of angular momentum about the centre G in the lean frame (e_1 rolling direction, e_2 axle,
e_3 towards the centre), with the contact force m a_G + m g Z acting at r_GP = -r e_3, linearized
about upright rolling at spin Omega (theta = 0, omega = (0, Omega, 0)):

    (I_1 + m r^2) theta'' = (I_3 + m r^2) Omega omega_3 + m g r theta,
    I_1 omega_3' = -I_3 Omega theta',      omega_2' = 0,

so omega_3 + (I_3 / I_1) Omega theta and omega_2 are conserved and the characteristic polynomial of
the rest is s^2 + k with

    k = (I_3 + m r^2) I_3 Omega^2 / ((I_1 + m r^2) I_1) - m g r / (I_1 + m r^2) = (4/5) (3 Omega^2 - g / r),

stable for Omega^2 > g / (3 r) (the classical threshold; Neimark & Fufaev, Dynamics of Nonholonomic
Systems). The same balance about steady turning at lean theta_0 and yaw rate Psi (omega_3 = Psi cos
theta_0, omega_2 from the e_1 component) linearizes to s^2 (s^2 + w^2) in (theta, omega_1, omega_2,
omega_3) with, for the thin disc,

    w^2 = [5 Psi^4 r^2 c^2 (1 + 2 c^2) + 12 Psi^2 g r c (1 - 2 c^2) + 16 g^2 s^2] / (15 Psi^2 r^2 c^2),

c = cos theta_0, s = sin theta_0 (derived by hand with sympy's help on those three equations; it
reduces to Psi^2 - 4 g / (5 r) for the disc spinning upright about the vertical).
"""
import sys
import pathlib

import numpy as np
import pytest
import sympy as sp

import formulations
import systems
from formulations.errors import CapabilityError, NotSteadyError
from systems.errors import ArgumentError, InconsistentStateError, UnknownNameError
from formulations import registry

FORMULATIONS = registry.having("linearization")


def upright_k(Omega, r, g=9.81):
    return 0.8 * (3 * Omega**2 - g / r)


def turning_w2(lean, Psi, r, g=9.81):
    c, s = np.cos(lean), np.sin(lean)
    return (5 * Psi**4 * r**2 * c**2 * (1 + 2 * c**2) + 12 * Psi**2 * g * r * c * (1 - 2 * c**2)
            + 16 * g**2 * s**2) / (15 * Psi**2 * r**2 * c**2)


def _pair(lin):
    e = lin.nontrivial
    assert e.shape == (2,)
    return e


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("Omega, r", [(5.0, 0.5), (1.5, 0.5), (3.0, 0.3)], ids=["fast", "slow", "small"])
def test_upright_disc_matches_the_characteristic_polynomial(formulation, Omega, r):
    disc = systems.load("rolling_disc", r=r)
    p, v = disc.family("rolling").state(disc, lean=0.0, spin=Omega)
    lin = formulations.linearize(disc, p, v, formulation=formulation)
    k = upright_k(Omega, r)
    expected = np.sort_complex(np.array([np.sqrt(complex(-k)), -np.sqrt(complex(-k))]))
    assert np.allclose(np.sort_complex(_pair(lin)), expected, atol=1e-9 * (1 + abs(k)))
    assert lin.ignorable[:2] == (lin.state_names[0], lin.state_names[1])  # x and y (or chart axes along them)
    assert len(lin.ignorable) == 4 and len(lin.conserved) == 2
    assert len(lin.eigenvalues) == len(lin.state_names) == 8
    assert np.isclose(lin.drift[lin.state_names[0]], r * Omega)  # the centre moves on at r Omega


def test_upright_disc_labels_name_the_zero_modes():
    disc = systems.load("rolling_disc")
    p, v = disc.family("rolling").state(disc, spin=5.0)
    lin = formulations.linearize(disc, p, v)
    assert lin.ignorable == ("x", "y", "psi", "phi")
    assert "phi_dot" in lin.conserved
    # omega_3 + (I_3 / I_1) Omega theta conserved: theta + I_1 / (I_3 Omega) psi_dot, I_1 / (I_3 Omega) = 0.1
    assert "theta + 0.1 psi_dot" in lin.conserved
    assert lin.select("x drifts").tolist() == [0j]
    assert np.array_equal(lin.select("dynamic"), lin.nontrivial)
    named = formulations.linearize(disc, p, v, ignorable=("x", "y", "psi", "phi"))
    assert np.allclose(named.A, lin.A) and named.ignorable == lin.ignorable
    with pytest.raises(UnknownNameError, match="mode kind or label"):
        lin.select("wobble")


@pytest.mark.slow
def test_upright_disc_formula_agrees_with_sympys_linearizer():
    """sympy.physics.mechanics's KanesMethod model of tests/kane_models.py, linearized by its
    Linearizer at the same steady motion (the rates left in A by the Linearizer set to the motion's)."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import kane_models

    Omega, r = 5.0, 0.5
    model = kane_models.rolling_disc()
    q, u = model.q, model.u
    op = dict(zip(q, [0, 0, r, 0, 0, 0])) | dict(zip(u, [r * Omega, 0, 0, 0, Omega, 0]))
    A = model.kane.to_linearizer().linearize(op_point=[op], A_and_B=True)[0]
    A = A.subs(dict(zip(model.params, [1.0, r, 9.81, 0.0])))
    A = A.subs({d: 0 for d in A.atoms(sp.Derivative)})
    eig = np.linalg.eigvals(np.array(A.evalf(), float))
    assert np.isclose(np.max(eig.imag), np.sqrt(upright_k(Omega, r)), rtol=1e-10)


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("lean, Psi", [(0.2, -1.0), (0.4, 2.0), (0.6, -4.0)], ids=["slow", "backward", "fast"])
def test_steady_turning_oscillates_at_the_closed_form_frequency(formulation, lean, Psi):
    disc = systems.load("rolling_disc")
    p, v = disc.family("turning").state(disc, lean=lean, yaw_rate=Psi)
    lin = formulations.linearize(disc, p, v, formulation=formulation)
    w2 = turning_w2(lean, Psi, 0.5)
    assert w2 > 0
    assert np.allclose(np.sort(_pair(lin).imag), [-np.sqrt(w2), np.sqrt(w2)], rtol=1e-9)
    assert np.max(np.abs(_pair(lin).real)) < 1e-9


@pytest.mark.parametrize("formulation", ["minimal", pytest.param("dependent", marks=pytest.mark.slow)])
def test_symbolic_and_numeric_agree(formulation):
    disc = systems.load("rolling_disc")
    p, v = disc.family("rolling").state(disc, spin=5.0)
    numeric = formulations.linearize(disc, p, v, formulation=formulation)
    r = sp.Symbol("r", positive=True)
    exact = formulations.linearize(disc, (0, 0, r, 0, 0, 0), (5 * r, 0, 0, 0, 5, 0), formulation=formulation,
                                   method="symbolic")
    assert exact.state_names == numeric.state_names
    assert np.max(np.abs(exact.A - numeric.A)) < 1e-10
    eq = exact.equations()
    g, h, delta = sp.symbols("g h delta", positive=True)
    thin = eq.A.subs({sp.Symbol("h", nonnegative=True): 0, sp.Symbol("delta", nonnegative=True): 0})
    s = sp.Symbol("s")
    k = sp.Rational(4, 5) * (3 * 25 - sp.Symbol("g", positive=True) / r)
    assert sp.simplify(thin.charpoly(s).as_expr() - s**6 * (s**2 + k)) == 0
    assert r"\frac{d}{dt}" in eq.latex()


def test_a_point_that_is_not_steady_is_named():
    disc = systems.load("rolling_disc")
    p, v = disc.family("rolling").state(disc, lean=0.3, spin=5.0)
    with pytest.raises(NotSteadyError, match=r"dtheta_dot/dt = ") as info:
        formulations.linearize(disc, p, v)
    assert set(info.value.residuals) == {"theta_dot"}
    assert "rolling_disc" in str(info.value)


def test_velocities_that_turn_with_yaw_are_not_steady():
    """In world axes the centre's velocity turns with the heading: steady turning is not steady there."""
    disc = systems.load("rolling_disc")
    p, v = disc.family("turning").state(disc, lean=0.3, yaw_rate=-2.0)
    with pytest.raises(NotSteadyError, match="dv_x/dt|dv_y/dt") as info:
        formulations.linearize(disc, p, v, formulation="dependent",
                               independent=("x", "y", "psi", "theta", "phi", "v_x", "v_y", "omega_3"))
    assert set(info.value.residuals) & {"v_x", "v_y"}


def test_bad_arguments_are_named():
    disc = systems.load("rolling_disc")
    p, v = disc.family("rolling").state(disc, spin=5.0)
    with pytest.raises(UnknownNameError, match="method"):
        formulations.linearize(disc, p, v, method="finite differences")
    with pytest.raises(UnknownNameError, match="'torque'"):
        formulations.linearize(disc, p, v, inputs=("torque",))
    with pytest.raises(ArgumentError, match="enters the kinematics or the constraints"):
        formulations.linearize(disc, p, v, inputs=("r",))
    with pytest.raises(ArgumentError, match="not ignorable"):
        formulations.linearize(disc, p, v, ignorable=("theta",))
    with pytest.raises(ArgumentError, match="velocity"):
        formulations.linearize(disc, p, v, ignorable=("phi_dot",))
    with pytest.raises(InconsistentStateError, match="violates the constraints"):
        formulations.linearize(disc, p + 0.1, v)
    with pytest.raises(CapabilityError, match="Euler parameters"):
        top = systems.load("heavy_top")
        formulations.linearize(top, *top.default_state(), formulation="dependent")


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_hanging_pendulum_in_cartesian_coordinates(formulation):
    """m x'' = -2 x lambda, m y'' = -m g - 2 y lambda on x^2 + y^2 = L^2: s^2 + g / L at the bottom."""
    pendulum = systems.load("pendulum_cartesian", L=2.0)
    p, v = np.array([0.0, -2.0]), np.zeros(2)
    lin = formulations.linearize(pendulum, p, v, formulation=formulation)
    assert len(lin.state_names) == 2 and lin.ignorable == ()
    assert np.allclose(np.sort(lin.nontrivial.imag), [-np.sqrt(9.81 / 2), np.sqrt(9.81 / 2)], rtol=1e-10)
    mode = lin.mode("mode 1")
    assert abs(mode["y"]) < 1e-12 and abs(mode["x"]) > 0.1  # the tangent at the bottom is horizontal


def test_inputs_give_B_for_a_torque_parameter():
    """theta'' = -(g / L) sin(theta) + tau / (m L^2): B = (0, 1 / (m L^2)) about the bottom."""
    th = sp.Symbol("theta", real=True)
    m, L, g, tau = sp.symbols("m L g tau", real=True)
    w = sp.Symbol("theta_dot", real=True)
    pendulum = systems.from_lagrangian(
        "torqued", (th,), m * L**2 * w**2 / 2, -m * g * L * sp.cos(th), velocities=(w,),
        forces=(tau,), parameters=(systems.Parameter(m, 2.0, "kg"), systems.Parameter(L, 0.5, "m"),
                                   systems.Parameter(g, 9.81, "m/s^2"), systems.Parameter(tau, 0.0, "N m")),
        default_p=(0,), default_v=(0,))
    lin = formulations.linearize(pendulum, [0.0], [0.0], inputs=("tau",))
    assert np.allclose(lin.B, [[0.0], [1 / (2.0 * 0.25)]], atol=1e-14)
    assert np.allclose(lin.A, [[0, 1], [-9.81 / 0.5, 0]], atol=1e-12)
    exact = formulations.linearize(pendulum, [0], [0], inputs=("tau",), method="symbolic").equations()
    assert sp.simplify(exact.B[1, 0] - 1 / (m * L**2)) == 0


def test_eigenvectors_stay_tangent_to_the_constraints():
    disc = systems.load("rolling_disc")
    p, v = disc.family("turning").state(disc, lean=0.3, yaw_rate=-4.0)
    lin = formulations.linearize(disc, p, v, formulation="dependent")
    for j, kind in enumerate(lin.kinds):
        if kind == "dynamic":
            y = lin.modes.vectors[:, j]
            assert np.allclose(lin.A @ y, lin.eigenvalues[j] * y, atol=1e-9)
    dz = lin.eigenvectors[:, 0]
    Phi_p = disc.numeric.constraints(p, disc.params)[1]
    assert np.allclose(Phi_p @ dz[:6], 0, atol=1e-12)
    assert lin.A.flags.writeable is False


@pytest.mark.parametrize("formulation", ("minimal", "dependent", "reduced"))
@pytest.mark.parametrize("u", [1.0, -2.0], ids=["forward", "backward"])
def test_chaplygin_sleigh_straight_motion(formulation, u):
    """m u' = m a w^2, (I + m a^2) w' = -m a u w (Bloch, Nonholonomic Mechanics and Control, 1.7):
    straight motion at speed u has the eigenvalue -m a u / (I + m a^2), u itself is conserved."""
    sleigh = systems.load("chaplygin_sleigh")
    lin = formulations.linearize(sleigh, [0.0, 0.0, 0.0], [u, 0.0, 0.0], formulation=formulation)
    assert np.allclose(lin.nontrivial, [-1.0 * 0.5 * u / (0.1 + 1.0 * 0.25)], rtol=1e-12)
    assert lin.ignorable == ("x", "y", "theta") and len(lin.conserved) == 1


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_system_without_embedding_on_charts(formulation):
    """The triple slider-crank has redundant constraint rows and no embedding: every formulation
    (the reduced and minimal ones on a tangent-space chart) gives the dependent one's eigenvalues,
    symbolic and numeric alike."""
    crank = systems.load("triple_slider_crank")
    p, v = crank.default_state()
    reference = formulations.linearize(crank, p, 0 * v, formulation="dependent").nontrivial
    lin = formulations.linearize(crank, p, 0 * v, formulation=formulation)
    assert np.allclose(np.sort_complex(lin.nontrivial), np.sort_complex(reference), atol=1e-10)
    assert abs(reference[0].imag) > 1.0
    exact = formulations.linearize(crank, p, 0 * v, formulation=formulation, method="symbolic")
    assert np.max(np.abs(exact.A - lin.A)) < 1e-10


def test_a_created_formulation_linearizes_with_its_own_choice():
    disc = systems.load("rolling_disc")
    p, v = disc.family("rolling").state(disc, spin=5.0)
    form = formulations.create("minimal", disc, independent=("omega_1", "omega_2", "omega_3"))
    lin = formulations.linearize(disc, p, v, formulation=form)
    assert lin.state_names[-3:] == ("omega_1", "omega_2", "omega_3")
    k = upright_k(5.0, 0.5)
    assert np.allclose(np.sort(lin.nontrivial.imag), [-np.sqrt(k), np.sqrt(k)], rtol=1e-10)
    dependent = formulations.linearize(disc, p, v, formulation="dependent",
                                       independent=("x", "y", "psi", "theta", "phi", "v_x", "omega_1", "omega_3"))
    assert np.allclose(np.sort(dependent.nontrivial.imag), [-np.sqrt(k), np.sqrt(k)], rtol=1e-10)
    with pytest.raises(ArgumentError, match="independent got 2 names"):
        formulations.linearize(disc, p, v, formulation="reduced", independent=("psi_dot", "phi_dot"))


def test_bead_on_the_turning_hoop_oscillates_at_omega_sin_theta_star():
    """A rheonomic system: the bead at its relative equilibrium cos(theta*) = g / (omega^2 R) on the
    hoop turned at omega; its height z is the independent coordinate of the dependent state, and
    small oscillations about theta* have frequency omega sin(theta*) (the closed form of
    systems/catalogue/bead_on_rotating_hoop.py, also checked there by simulation)."""
    hoop = systems.load("bead_on_rotating_hoop")
    g, omega, R = (hoop.parameter_dict[k] for k in ("g", "omega", "R"))
    theta = np.arccos(g / (omega**2 * R))
    p, v = hoop.state_from_q([theta], [0.0])
    lin = formulations.linearize(hoop, p, v, formulation="dependent")
    assert np.allclose(np.sort(lin.nontrivial.imag), [-omega * np.sin(theta), omega * np.sin(theta)], rtol=1e-10)
    assert np.max(np.abs(lin.nontrivial.real)) < 1e-9
    with pytest.raises(CapabilityError, match="state map .* moves"):
        formulations.linearize(hoop, p, v, formulation="minimal")


def test_derivatives_by_symengine_equal_sympys():
    """The Jacobian of the disc's residuals R (p, v) through symengine equals sympy's at a random point."""
    pytest.importorskip("symengine")
    from formulations.linearization.pieces import _symengine_jacobian, pieces

    disc = systems.load("rolling_disc")
    made = pieces(disc)
    fast = _symengine_jacobian(made.R, made.z)
    slow = made.R.jacobian(made.z)
    rng = np.random.default_rng(3)
    point = {s: rng.uniform(0.2, 1.0) for s in sorted(fast.free_symbols | slow.free_symbols, key=str)}
    a = np.array(fast.evalf(subs=point), dtype=float)
    b = np.array(slow.evalf(subs=point), dtype=float)
    assert a.shape == b.shape and np.max(np.abs(a - b)) < 1e-10 * (1 + np.max(np.abs(b)))

"""Rheonomic and affine constraints against closed forms: the sphere on a turntable circles at
(2/7) omega, the bead on a turning hoop rests at cos(theta*) = g / (omega^2 R) and oscillates about
it at omega sin(theta*), the driven slider-crank follows its prescribed kinematics; the energy
changes by the work of the constraint forces; xi holds every term in t."""
import dataclasses

import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from formulations.forms import COMPILED_ODE
from formulations.results.assessment import assess
from systems.builders import velocity_symbols
from systems.catalogue.driven_slider_crank import prescribed

from cases import applicable

slow = pytest.mark.slow

# (formulation, options, simulate options) for "every formulation"; the costly ones run with -m slow
EVERY = [pytest.param("dependent", {}, {}, id="dependent"),
         pytest.param("reduced", {}, {}, id="reduced"),
         pytest.param("minimal", {}, {}, id="minimal"),
         pytest.param("dependent", {}, {"method": "IDA"}, id="dependent-IDA"),
         pytest.param("dependent", {"stabilization": "baumgarte"}, {}, id="baumgarte", marks=slow),
         pytest.param("dependent", {"stabilization": "constraint_dynamics"}, {}, id="constraint_dynamics", marks=slow),
         pytest.param("dependent", {"stabilization": "projection"}, {}, id="projection", marks=slow),
         pytest.param("dependent", {"stabilization": "ggl"}, {"method": "IDA"}, id="ggl-IDA", marks=slow),
         pytest.param("reduced", {"stabilization": "ggl"}, {"method": "IDA"}, id="reduced-ggl-IDA", marks=slow),
         pytest.param("reduced", {"stabilization": "projection"}, {}, id="reduced-projection", marks=slow),
         pytest.param("manifold", {}, {}, id="manifold", marks=slow)]


def _ida_installed(sim):
    if sim.get("method") == "IDA":
        pytest.importorskip("sksundae", reason="IDA needs the extra 'dae'")


# -- the sphere on the turntable ------------------------------------------------------------------
def _orbit(system, traj):
    """(radius (N,), angle swept (N,)) of the centre about the fixed point of the closed form,
    r_G + e_z x v_G / ((2/7) omega) at the start."""
    rate = 2 / 7 * system.parameter_dict["omega"]
    r0, v0 = traj.p[0, :2], traj.v[0, :2]
    centre = r0 + np.array([-v0[1], v0[0]]) / rate
    R = traj.p[:, :2] - centre
    angle = np.unwrap(np.arctan2(R[:, 1], R[:, 0]))
    return np.hypot(R[:, 0], R[:, 1]), angle - angle[0]


@pytest.mark.parametrize("formulation, options, sim", EVERY)
def test_turntable_centre_circles_at_two_sevenths_of_the_table_rate(formulation, options, sim):
    _ida_installed(sim)
    system = systems.load("ball_on_turntable")
    traj = F.create(formulation, system, **options).simulate((0.0, 20.0), rtol=1e-11, atol=1e-11,
                                                             t_eval=np.linspace(0.0, 20.0, 81), **sim)
    assert traj.status == 0, traj.message
    radius, angle = _orbit(system, traj)
    assert np.max(np.abs(radius - radius[0])) < 1e-9
    rate = 2 / 7 * system.parameter_dict["omega"]
    assert abs(angle[-1] / 20.0 - rate) < 1e-8 * rate
    assert np.max(np.abs(traj.p[:, 2] - system.parameter_dict["a"])) < 1e-9  # still on the table


def test_turntable_augmented_lagrangian_converges_to_the_orbit_at_second_order():
    """The trapezoidal index-3 integration is second order: halving the step quarters the error of
    the orbit angle against (2/7) omega t."""
    system = systems.load("ball_on_turntable")
    rate = 2 / 7 * system.parameter_dict["omega"]
    errors = []
    for step in (4e-3, 2e-3):  # over 1 s, 250 and 500 steps: the error ratio is 4 to 1e-6
        traj = F.create("dependent", system).simulate((0.0, 1.0), method="augmented_lagrangian", step=step,
                                                      t_eval=np.array([0.0, 1.0]))
        assert traj.status == 0, traj.message
        errors.append(abs(_orbit(system, traj)[1][-1] - 1.0 * rate))
    assert errors[1] < 1e-6 and 3.5 < errors[0] / errors[1] < 4.5


def test_turntable_reactions_push_the_centre_round_its_circle():
    """Normal force m g; friction m v_G' = m (2/7) omega e_z x v_G (the table drives the sphere)."""
    system = systems.load("ball_on_turntable")
    pars = system.parameter_dict
    p, v = system.default_state()
    lam = F.reactions(system, 0.0, p, v)
    push = pars["m"] * 2 / 7 * pars["omega"] * np.array([-v[1], v[0]])
    assert lam["normal force"] == pytest.approx(pars["m"] * pars["g"], rel=1e-12)
    assert [lam["friction force x"], lam["friction force y"]] == pytest.approx(push, rel=1e-12, abs=1e-14)


# -- the bead on the turning hoop -----------------------------------------------------------------
def _hoop_equilibrium(system):
    pars = system.parameter_dict
    return np.arccos(pars["g"] / (pars["omega"] ** 2 * pars["R"]))


def _hoop_angle(system, traj):
    """theta = h(p, t) at every point (the embedding's inverse)."""
    return np.array([system.numeric.inverse(p, system.params, t)[0] for t, p in zip(traj.t, traj.p)])


@pytest.mark.parametrize("formulation", ["dependent", "reduced", "manifold"])
def test_hoop_relative_equilibrium_holds(formulation):
    system = systems.load("bead_on_rotating_hoop")
    theta = _hoop_equilibrium(system)
    p, v = system.state_from_q([theta], [0.0])
    traj = F.create(formulation, system).simulate((0.0, 5.0), (p, v), rtol=1e-11, atol=1e-11,
                                                  t_eval=np.linspace(0.0, 5.0, 51))
    assert traj.status == 0, traj.message
    assert np.max(np.abs(_hoop_angle(system, traj) - theta)) < 1e-8
    pars = system.parameter_dict  # at rest on the hoop: pressed by m omega^2 R, no side force
    lam = traj.reactions
    assert np.max(np.abs(lam["hoop normal force"] - pars["m"] * pars["omega"] ** 2 * pars["R"])) < 1e-8
    assert np.max(np.abs(lam["hoop side force"])) < 1e-8


@pytest.mark.parametrize("formulation", ["dependent", "reduced", pytest.param("manifold", marks=slow)])
def test_hoop_small_oscillation_frequency_is_omega_sin_theta_star(formulation):
    """Released 1e-4 rad off theta*, the bead oscillates at Omega = omega sin(theta*); measured from
    the upward zero crossings of theta - theta* over five periods (the amplitude shifts Omega by ~1e-8;
    the quadratic term of the motion offsets its mean by ~1e-8 rad, which shifts downward and upward
    crossings oppositely: only crossings in one direction are a period apart)."""
    system = systems.load("bead_on_rotating_hoop")
    theta = _hoop_equilibrium(system)
    Omega = system.parameter_dict["omega"] * np.sin(theta)
    periods = 5
    t_end = (periods + 0.125) * 2 * np.pi / Omega  # released at a turning point
    p, v = system.state_from_q([theta + 1e-4], [0.0])
    t_eval = np.linspace(0.0, t_end, 4001)
    traj = F.create(formulation, system).simulate((0.0, t_end), (p, v), rtol=1e-12, atol=1e-13, t_eval=t_eval)
    assert traj.status == 0, traj.message
    eta = _hoop_angle(system, traj) - theta
    k = np.flatnonzero((eta[:-1] < 0) & (eta[1:] >= 0))  # upward crossings: a whole period apart, whatever
    crossings = traj.t[k] - eta[k] * (traj.t[k + 1] - traj.t[k]) / (eta[k + 1] - eta[k])  # the mean offset
    assert len(crossings) == periods
    measured = 2 * np.pi * (len(crossings) - 1) / (crossings[-1] - crossings[0])
    assert abs(measured - Omega) < 1e-6 * Omega


def test_hoop_runs_started_late_agree_across_formulations():
    """From a guess projected at t0 = 0.4 s (Phi(p, t0) = 0, C v + c = 0), every formulation that
    applies reaches the same state: the start time reaches the projections, the moving embedding's
    maps and the charts."""
    system = systems.load("bead_on_rotating_hoop")
    t0 = 0.4
    p0, v0 = system.default_state()
    p, v = system.consistent_state(p0 + 0.01, v0, t=t0)
    Phi, Cv = system.residuals(p, v, t0)
    assert np.max(np.abs(Phi)) < 1e-12 and np.max(np.abs(Cv)) < 1e-12
    assert np.max(np.abs(system.residuals(p, v, 0.0)[0])) > 1e-3  # not consistent at another time
    ends = [F.create(name, system).simulate((t0, 1.4), (p, v), rtol=1e-11, atol=1e-11).final_state()
            for name in applicable(system)]
    for q, w in ends[1:]:
        assert np.max(np.abs(q - ends[0][0])) < 1e-8 and np.max(np.abs(w - ends[0][1])) < 1e-8


def test_the_manifold_formulation_takes_a_new_chart_where_the_hoop_carries_the_manifold_away():
    """Started off the default state, the rotating hoop moves its circle away from a chart's origin
    while |w| stays small: the chart's offset h decides the new charts, and the run is as accurate
    as the others (before: 2.4e-8 off at rtol 1e-11, and a stop at rtol 1e-8)."""
    system = systems.load("bead_on_rotating_hoop")
    t0 = 0.4
    p0, v0 = system.default_state()
    p, v = system.consistent_state(p0 + 0.01, v0, t=t0)
    reference = F.create("reduced", system).simulate((t0, 1.4), (p, v), rtol=1e-13, atol=1e-13)
    for tol, close in ((1e-8, 1e-7), (1e-11, 1e-9)):  # before the fix: a stop, and 2.4e-8
        run = F.create("manifold", system).simulate((t0, 1.4), (p, v), rtol=tol, atol=tol)
        assert run.status == 0 and run.stats.charts > 3
        assert np.max(np.abs(run.p[-1] - reference.p[-1])) < close


# -- the driven slider-crank ----------------------------------------------------------------------
@pytest.mark.parametrize("formulation, options, sim", [
    pytest.param("dependent", {"stabilization": "projection"}, {}, id="projection"),
    pytest.param("reduced", {}, {}, id="reduced"),
    pytest.param("minimal", {}, {}, id="minimal"),
    pytest.param("manifold", {}, {}, id="manifold"),
    pytest.param("dependent", {"stabilization": "ggl"}, {"method": "IDA"}, id="ggl-IDA", marks=slow)])
def test_driven_crank_follows_its_prescribed_kinematics(formulation, options, sim):
    _ida_installed(sim)
    system = systems.load("driven_slider_crank")
    pars = system.parameter_dict
    traj = F.create(formulation, system, **options).simulate((0.0, 3.0), rtol=1e-10, atol=1e-10,
                                                             t_eval=np.linspace(0.0, 3.0, 61), **sim)
    assert traj.status == 0, traj.message
    exact = np.array(prescribed(pars["a"], pars["b"], pars["omega"], traj.t, np.sin, np.cos, np.arcsin, np.sqrt)).T
    assert np.max(np.abs(traj.p[:, :3] - exact)) < 1e-9
    t = systems.TIME  # the rates of the closed form, differentiated here
    rates = sp.lambdify(t, sp.Matrix(prescribed(*(sp.Float(pars[k]) for k in ("a", "b", "omega")), t)).diff(t))
    exact_rates = np.array([np.ravel(rates(tk)) for tk in traj.t], float)
    assert np.max(np.abs(traj.v[:, :3] - exact_rates)) < 1e-8


# -- energy, work and the acceleration terms ------------------------------------------------------
@pytest.mark.parametrize("name", ["ball_on_turntable", "bead_on_rotating_hoop", "driven_slider_crank"])
@pytest.mark.parametrize("formulation", ["dependent", "reduced"])
def test_energy_changes_by_the_work_of_the_constraint_forces(name, formulation):
    """E(t) - E(0) = integral of lambda^T c: the balance closes to the tolerance (on a grid dense
    enough for the Simpson rule), and the assessment flags a run whose constraint power is wrong."""
    system = systems.load(name)
    traj = F.create(formulation, system).simulate((0.0, 3.0), rtol=1e-11, atol=1e-11,
                                                  t_eval=np.linspace(0.0, 3.0, 1201))
    assert traj.status == 0, traj.message
    change = np.max(np.abs(traj.energy - traj.energy[0]))
    assert change > 1e-3  # the constraints do work
    assert np.max(np.abs(traj.energy_balance)) < 1e-8 * (1 + change)
    wrong = dataclasses.replace(traj, constraint_power=np.zeros_like(traj.constraint_power))
    judged = assess(wrong, system, t_span=(0.0, 3.0), t_eval=traj.t, tol=1e-11, adaptive=True)
    assert judged.status == 2 and "energy balance" in judged.message


@pytest.mark.parametrize("name", ["ball_on_turntable", "bead_on_rotating_hoop", "driven_slider_crank"])
def test_xi_is_the_time_derivative_of_the_velocity_rows(name, rng):
    """C v' + xi = d/dt (C v + c) along any motion (p' = A v, v' arbitrary): xi against a central
    difference in t, with Phi_tt and the mixed terms in t."""
    system = systems.load(name)
    num, par = system.numeric, system.params
    p, v = system.default_state()
    t, vdot = 0.7, rng.standard_normal(system.n)
    _, _, _, _, C, xi, A, _ = num.dynamics(t, p, v, par)

    def rows(h):
        Cs, cs = num.constraint_terms(p + h * A @ v, par, t + h)[2:]
        return Cs @ (v + h * vdot) + cs

    h = 1e-5
    derivative = (rows(h) - rows(-h)) / (2 * h)
    assert np.max(np.abs(C @ vdot + xi - derivative)) < 1e-6 * (1 + np.max(np.abs(derivative)))


def test_builders_take_affine_and_time_dependent_rows():
    """A particle dragged by a belt whose speed grows as b t along x: the row x' - b t = 0 is affine
    and rheonomic; from_lagrangian splits it into C_nh = [1, 0] and c_nh = -b t, and the belt's force
    on the particle, -C^T lambda = -lambda, is m x'' = m b."""
    x, y = sp.symbols("x y", real=True)
    x_dot, y_dot = velocity_symbols((x, y))
    b = sp.Symbol("b", positive=True)
    belt = systems.from_lagrangian("belt", (x, y), (x_dot**2 + y_dot**2) / 2,
                                   nonholonomic=[("belt force", x_dot - b * systems.TIME)],
                                   parameters=[systems.Parameter(b, 2.0, "m/s^2", "belt acceleration")],
                                   default_p=(0, 0), default_v=(0, 1))
    assert belt.C_nh == sp.Matrix([[1, 0]]) and belt.c_nh == sp.Matrix([-b * systems.TIME])
    for name in ("dependent", "minimal"):
        traj = F.create(name, belt).simulate((0.0, 2.0), rtol=1e-10, atol=1e-10, t_eval=[0.0, 1.0, 2.0])
        assert traj.status == 0, traj.message
        assert traj.p[:, 0] == pytest.approx(traj.t**2, abs=1e-9)  # x = b t^2 / 2
        assert traj.reactions["belt force"] == pytest.approx(-2.0 * np.ones(3), abs=1e-9)


@slow
@pytest.mark.parametrize("name", ["ball_on_turntable", "bead_on_rotating_hoop", "driven_slider_crank"])
@pytest.mark.parametrize("formulation, stabilization", [("dependent", "baumgarte"), ("dependent", "projection"),
                                                        ("reduced", "baumgarte"), ("minimal", "none")])
def test_compiled_loop_agrees_with_numpy(name, formulation, stabilization):
    """The fused modules (dependent: c in the Baumgarte term, Phi(p, t) and C v + c = 0 in its
    projection; reduced: the moving embedding's d_0 and c_nh in its feedback; minimal: w = D_bar u +
    d_bar_0) land where the numpy run lands."""
    pytest.importorskip("numba", reason="the compiled backend needs numba")
    system = systems.load(name)
    options = {"stabilization": stabilization}
    if formulation == "minimal":  # the compiled loop keeps one choice of u: the one pivoting makes at the start
        first = F.create(formulation, system)
        first.prepare(*system.default_state())
        options = {"independent": first.choice, "rechoose": False}
    assert F.create(formulation, system, backend="compiled", **options).gives(COMPILED_ODE) is None
    runs = {b: F.create(formulation, system, backend=b, **options).simulate(
        (0.0, 1.0), method="dopri5", rtol=1e-10, atol=1e-10, t_eval=np.linspace(0.0, 1.0, 11))
        for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0 and b.stats.backend == "compiled"
    assert np.max(np.abs(a.p - b.p)) < 1e-8 and np.max(np.abs(a.v - b.v)) < 1e-8
    assert np.max(np.abs(a.multipliers - b.multipliers)) < 1e-6 * (1 + np.max(np.abs(a.multipliers)))
    assert np.max(np.abs(a.energy_balance - b.energy_balance)) < 1e-8

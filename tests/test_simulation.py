"""Simulation properties: agreement, drift control, energy, closed forms, failures, events."""
import numpy as np
import pytest

import formulations as F
import systems

# the three formulations of the source papers, over 10 s each; the manifold and Udwadia-Kalaba formulations
# are held to them by tests/test_manifold.py and tests/test_udwadia_kalaba.py
FORMULATIONS = ("dependent", "reduced", "minimal")


def run(name, formulation, t_end, tol=1e-10, state=None, params=None, **options):
    system = systems.load(name, **(params or {}))
    sim = {k: options.pop(k) for k in list(options) if k in ("method", "t_eval", "events", "step", "max_step")}
    form = F.create(formulation, system, **options)
    return system, form.simulate((0.0, t_end), state or system.default_state(), rtol=tol, atol=tol, **sim)


# The sphere spins at 40 rad/s: its Euler parameters turn through ~400 rad in 10 s and collect a
# phase error proportional to that angle, so it is run one decade tighter.
# By default a rolling body, a nonholonomic sled and a holonomic pendulum; the others with -m slow
# (the sphere's motion is checked against its closed form by default, test_sphere_in_cylinder_closed_form).
SLOW = pytest.mark.slow


@pytest.mark.parametrize("name, params, tol", [
    pytest.param("rolling_disc", {}, 1e-10, id="disc"),
    pytest.param("rolling_disc", {"thickness": 0.05}, 1e-10, id="coin", marks=SLOW),
    pytest.param("sphere_in_cylinder", {}, 1e-11, id="sphere", marks=SLOW),
    pytest.param("vertical_disc", {}, 1e-10, id="vertical_disc", marks=SLOW),
    pytest.param("chaplygin_sleigh", {}, 1e-10, id="sleigh"),
    pytest.param("pendulum_cartesian", {}, 1e-10, id="pendulum")])
def test_formulations_agree_over_ten_seconds(name, params, tol):
    t_eval = np.linspace(0, 10, 21)
    trajs = [run(name, f, 10.0, tol=tol, params=params, t_eval=t_eval)[1] for f in FORMULATIONS]
    for tr in trajs:
        assert tr.status == 0, tr.message
    for tr in trajs[1:]:
        assert np.max(np.abs(tr.p - trajs[0].p)) < 1e-7
        assert np.max(np.abs(tr.v - trajs[0].v)) < 1e-7
        for key in tr.reactions:
            assert np.max(np.abs(tr.reactions[key] - trajs[0].reactions[key])) < 1e-6


@pytest.mark.slow  # over 20 s, docs/choosing-a-formulation.md checks the same ordering in the default suite
def test_projection_keeps_constraints_over_100_seconds():
    errs = {}
    for label, stab in [("none", "none"), ("baumgarte", F.Baumgarte()), ("projection", F.Projection())]:
        _, tr = run("rolling_disc", "dependent", 100.0, tol=1e-8, stabilization=stab)
        assert tr.status == 0
        errs[label] = tr.constraint_errors.max()
    assert errs["projection"]["position"] < 1e-10 and errs["projection"]["velocity"] < 1e-10
    assert errs["none"]["position"] > 1e-8  # the drift is measurable
    assert errs["baumgarte"]["position"] < errs["none"]["position"] / 100
    assert errs["baumgarte"]["velocity"] < errs["none"]["velocity"]


def test_reduced_velocity_projection():
    _, plain = run("rolling_disc", "reduced", 10.0, tol=1e-8)  # the velocity rows drift to 7e-9 by t = 10 s
    _, proj = run("rolling_disc", "reduced", 10.0, tol=1e-8, stabilization="projection")
    assert plain.constraint_errors.max()["position"] == 0.0  # the embedding holds Phi exactly
    assert proj.constraint_errors.max()["velocity"] < 1e-12 < plain.constraint_errors.max()["velocity"]
    assert proj.stats.projections == proj.stats.steps


@pytest.mark.parametrize("name", ["rolling_disc", pytest.param("sphere_in_cylinder", marks=SLOW), "knife_edge",
                                  "chaplygin_sleigh", "vertical_disc", "pendulum_cartesian", "pfaffian_exact"])
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_energy_is_conserved(name, formulation):
    system, tr = run(name, formulation, 10.0, tol=1e-10)
    scale = 1.0 + np.max(np.abs(tr.energy))
    assert tr.energy_drift < 1e-7 * scale


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_rolling_resistance_dissipates_at_the_resisting_power(formulation):
    delta = 0.01
    t_eval = np.linspace(0.0, 5.0, 2001)
    system, tr = run("rolling_disc", formulation, 5.0, params={"rolling_resistance": delta}, t_eval=t_eval)
    assert tr.status == 0, tr.message
    power = -delta * tr.reactions["contact normal force"] * np.abs(tr.v[:, 4])
    lost = np.concatenate([[0.0], np.cumsum((power[1:] + power[:-1]) / 2 * np.diff(tr.t))])
    assert np.all(np.diff(tr.energy) < 1e-12)  # it only decreases
    assert tr.energy[-1] < tr.energy[0] - 1.0
    assert np.max(np.abs((tr.energy - tr.energy[0]) - lost)) < 1e-5 * abs(lost[-1])


def test_rolling_resistance_formulations_agree():
    t_eval = np.linspace(0, 3, 7)
    trajs = [run("rolling_disc", f, 3.0, params={"rolling_resistance": 0.02, "thickness": 0.05}, t_eval=t_eval)[1]
             for f in FORMULATIONS]
    for tr in trajs[1:]:
        assert np.max(np.abs(tr.p - trajs[0].p)) < 1e-7
        assert np.max(np.abs(tr.multipliers - trajs[0].multipliers)) < 1e-6


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_knife_edge_closed_form(formulation):
    """Bloch, Nonholonomic Mechanics and Control, section 1.6."""
    t = np.linspace(0, 6, 61)
    system, tr = run("knife_edge", formulation, 6.0, t_eval=t)
    par = system.parameter_dict
    w = 2.0
    c = par["g"] * np.sin(par["alpha"]) / (2 * w**2)
    assert np.allclose(tr.p[:, 0], c * np.sin(w * t) ** 2, atol=1e-8)
    assert np.allclose(tr.p[:, 1], c * (w * t - np.sin(2 * w * t) / 2), atol=1e-8)
    assert np.allclose(tr.p[:, 2], w * t, atol=1e-8)


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_sphere_in_cylinder_closed_form(formulation):
    """Constant azimuth rate Omega; z(t) = z_e (1 - cos(Omega sqrt(k/(1+k)) t)), z_e = -g/(k Omega^2)."""
    t = np.linspace(0, 5, 101)
    system, tr = run("sphere_in_cylinder", formulation, 5.0, t_eval=t)
    par = system.parameter_dict
    Omega = 10.0
    azimuth = np.unwrap(np.arctan2(tr.p[:, 1], tr.p[:, 0]))
    assert np.allclose(azimuth, Omega * t, atol=1e-8)
    z_e = -par["g"] / (par["k"] * Omega**2)
    assert np.allclose(tr.p[:, 2], z_e * (1 - np.cos(Omega * np.sqrt(par["k"] / (1 + par["k"])) * t)), atol=1e-8)
    assert np.allclose(np.linalg.norm(tr.p[:, 3:7], axis=1), 1.0, atol=1e-12)


def _upright(system, spin, lean=0.01):
    r = system.parameter_dict["r"]
    p = np.array([0, 0, r * np.cos(lean), 0, lean, 0])
    v = np.array([r * spin, 0, 0, 0, spin, 0])
    return system.consistent_state(p, v, fix=("x", "y", "psi", "theta", "phi", "omega_1", "omega_2", "omega_3"))


@pytest.mark.parametrize("factor, stable", [(2.0, True), (1.3, True), (0.7, False), (0.3, False)])
def test_upright_disc_stability_threshold(factor, stable):
    """The thin upright disc rolling straight is stable for spin rates above sqrt(g / (3 r))."""
    system = systems.load("rolling_disc")
    threshold = np.sqrt(system.parameter_dict["g"] / (3 * system.parameter_dict["r"]))
    flat = F.Event(lambda t, p, v: 1.3 - abs(p[4]), terminal=True)
    tr = F.create("minimal", system).simulate((0, 30), _upright(system, factor * threshold), rtol=1e-9, atol=1e-9,
                                              events=[flat])
    max_lean = np.max(np.abs(tr.p[:, 4]))
    if stable:
        assert tr.status == 0 and max_lean < 0.1
    else:
        assert max_lean > 0.5


def test_event_stops_at_the_crossing():
    system = systems.load("rolling_disc")
    tr = F.create("dependent", system).simulate(
        (0, 30), _upright(system, 0.3), rtol=1e-9, atol=1e-9,
        events=[F.Event(lambda t, p, v: 0.8 - abs(p[4]))])
    assert tr.status == 1 and "event" in tr.message
    assert abs(abs(tr.p[-1, 4]) - 0.8) < 1e-7 and tr.t[-1] == pytest.approx(tr.t_events[0])


def test_singular_choice_of_independent_velocities_stops_with_a_message():
    system = systems.load("rolling_disc")
    form = F.create("minimal", system, independent=("x_dot", "psi_dot", "theta_dot"))
    tr = form.simulate((0, 5), system.default_state(), rtol=1e-9, atol=1e-9)
    assert tr.status == -1
    assert "rolling_disc" in tr.message and "t = " in tr.message and "[C_bar_nh; E]" in tr.message
    assert tr.t.size > 10 and tr.t[-1] > 0.5  # the trajectory so far is kept
    psi = tr.p[-1, 3]
    assert abs(np.cos(psi)) < 0.05  # it failed where y' and phi' cannot be solved for: cos(psi) = 0


def test_rechoosing_independent_velocities_goes_through():
    system = systems.load("rolling_disc")
    t_eval = np.linspace(0, 5, 11)
    tr = F.create("minimal", system, independent=("x_dot", "psi_dot", "theta_dot"), rechoose=True).simulate(
        (0, 5), system.default_state(), rtol=1e-10, atol=1e-10, t_eval=t_eval)
    ref = F.create("dependent", system).simulate((0, 5), system.default_state(), rtol=1e-10, atol=1e-10,
                                                 t_eval=t_eval)
    assert tr.status == 0 and tr.stats.rechoices >= 1
    assert np.max(np.abs(tr.p - ref.p)) < 1e-7


def test_inconsistent_initial_state_is_rejected_or_projected():
    system = systems.load("rolling_disc")
    p, v = system.default_state()
    v_bad = v + np.array([0.5, 0, 0, 0, 0, 0])
    form = F.create("dependent", system)
    with pytest.raises(systems.InconsistentStateError, match="longitudinal friction force"):
        form.simulate((0, 1), (p, v_bad))
    tr = form.simulate((0, 1), (p, v_bad), project_initial=True)
    assert tr.status == 0 and tr.constraint_errors.velocity[0] < 1e-12


def test_bad_options_are_rejected():
    system = systems.load("rolling_disc")
    with pytest.raises(F.CapabilityError, match="expected one of: none"):
        F.create("minimal", system, stabilization="projection")
    with pytest.raises(F.CapabilityError, match="post-step"):
        F.create("dependent", system, stabilization="projection").simulate((0, 1), method="LSODA")
    with pytest.raises(ValueError, match="tolerances"):
        F.create("dependent", system).simulate((0, 1), rtol=-1)
    with pytest.raises(F.CapabilityError, match="rk4"):
        F.create("dependent", system).simulate((0, 1), method="rk4")
    with pytest.raises(systems.UnknownNameError, match="dependent"):
        F.create("nope", system)
    with pytest.raises(ValueError, match="expected r = n - m - l = 3"):
        F.create("minimal", system, independent=("psi_dot",))


def test_holonomic_system_without_embedding_runs_on_charts():
    import sympy as sp
    x, y = sp.symbols("x y", real=True)
    s = systems.from_lagrangian("ring", (x, y), (sp.Symbol("x_dot", real=True) ** 2
                                                 + sp.Symbol("y_dot", real=True) ** 2) / 2,
                                holonomic=[("ring force", x**2 + y**2 - 1)], default_p=(1, 0), default_v=(0, 1))
    t_eval = np.linspace(0, 3, 7)
    ref = F.create("dependent", s, stabilization="projection").simulate((0, 3.0), rtol=1e-11, atol=1e-11,
                                                                        t_eval=t_eval)
    assert ref.status == 0 and ref.constraint_errors.max()["position"] < 1e-11
    for name in ("reduced", "minimal"):  # on tangent-space charts
        tr = F.create(name, s).simulate((0, 3.0), rtol=1e-11, atol=1e-11, t_eval=t_eval)
        assert tr.status == 0 and tr.stats.charts >= 1
        assert np.max(np.abs(tr.p - ref.p)) < 1e-8 and tr.constraint_errors.max()["position"] < 1e-11


@pytest.mark.parametrize("method", ["DOP853", "RK45", "dopri5"])
@pytest.mark.parametrize("tol", [1e-6, 1e-8])
def test_automatic_choice_follows_the_skate_round_its_circle(method, tol):
    """Heading passes every multiple of pi/2: each fixed choice of u fails somewhere on the way."""
    system = systems.load("knife_edge", alpha=1e-9)
    tr = F.create("minimal", system).simulate((0, 2 * np.pi), (np.zeros(3), np.array([1.0, 0, 1.0])),
                                              method=method, rtol=tol, atol=tol)
    assert tr.success, tr.message
    assert tr.stats.rechoices >= 3
    assert np.allclose(tr.p[-1], [0, 0, 2 * np.pi], atol=1e3 * tol)


# every method that offers events, on the Cartesian pendulum: where x first crosses zero downwards
ADAPTIVE_EVENT_METHODS = ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA", "dopri5", "IDA")
FIXED_STEP_EVENT_METHODS = (("rk4", 4), ("augmented_lagrangian", 2), ("DLA", 2), ("NH-RATTLE", 2))


def _crossing(method, **options):
    pendulum = systems.load("pendulum_cartesian")
    downward = F.Event(lambda t, p, v: p[0], terminal=True, direction=-1)
    tr = F.create("dependent", pendulum, backend="numpy").simulate((0, 3), method=method, events=[downward], **options)
    assert tr.status == 1 and len(tr.t_events) == 1 and tr.t[-1] == pytest.approx(tr.t_events[0], abs=1e-12)
    return tr.t_events[0]


def test_every_method_that_offers_events_locates_them_to_its_tolerance():
    """Against DOP853 at rtol 1e-13: the adaptive methods within 1e-7 at rtol 1e-10; the fixed-step
    ones at their order, the error falling by 2^order when the step halves. (The Lie-group
    methods: tests/test_lie.py.)"""
    from formulations.forms import EVENTS
    from formulations.solvers import base

    offering = {name for name in base.names() if EVENTS in base.solver_class(name).offers and "RKMK" not in name}
    assert offering == set(ADAPTIVE_EVENT_METHODS) | {name for name, _ in FIXED_STEP_EVENT_METHODS}
    truth = _crossing("DOP853", rtol=1e-13, atol=1e-13)
    for method in ADAPTIVE_EVENT_METHODS:
        assert abs(_crossing(method, rtol=1e-10, atol=1e-10) - truth) < 1e-7, method
    for method, order in FIXED_STEP_EVENT_METHODS:
        coarse, fine = (abs(_crossing(method, step=h) - truth) for h in (4e-3, 2e-3))
        if order == 4:
            assert coarse < 1e-9 and fine < coarse, method
        else:
            assert coarse < 1e-5 and 2 ** order * 0.85 < coarse / fine < 2 ** order * 1.15, (method, coarse, fine)


@pytest.mark.parametrize("method, options, tol", [
    ("IDA", dict(rtol=1e-10, atol=1e-10), 1e-7), ("augmented_lagrangian", dict(step=2e-3), 4e-5),
    ("DLA", dict(step=2e-3), 4e-5), ("NH-RATTLE", dict(step=2e-3), 4e-5)])
def test_events_that_do_not_stop_the_run_are_all_located_with_an_output_grid(method, options, tol):
    """x crossing zero either way, not terminal, with 161 output times: every crossing DOP853 finds
    at rtol 1e-13, once each, and the output states unchanged by the events."""
    pendulum = systems.load("pendulum_cartesian")
    crossing = F.Event(lambda t, p, v: p[0], terminal=False, direction=0)
    grid = np.linspace(0.0, 1.6, 161)

    def run(method, **options):
        return F.create("dependent", pendulum, backend="numpy").simulate((0, 1.6), method=method, t_eval=grid,
                                                                         events=[crossing], **options)
    truth, ours = run("DOP853", rtol=1e-13, atol=1e-13), run(method, **options)
    assert ours.status == 0 and np.array_equal(ours.t, grid)
    assert len(truth.t_events) == len(ours.t_events) == 2
    assert np.max(np.abs(np.array(ours.t_events) - np.array(truth.t_events))) < tol
    assert np.max(np.abs(ours.p - truth.p)) < 100 * tol

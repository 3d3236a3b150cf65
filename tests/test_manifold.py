"""The manifold (tangent-chart) formulation, charts for systems without an embedding, singular
configurations, and the holonomic catalogue (Haug & Pavesic)."""
import re

import numpy as np
import pytest

import formulations as F
import systems

# the top's charts are tested by default by the energy tests below; it and the pendulum agree with
# -m slow
CASES = [pytest.param("triple_slider_crank", {}, id="slider_crank_C3"),
         pytest.param("triple_slider_crank", {"domain": 1}, id="slider_crank_C1"),
         pytest.param("spinning_top", {}, id="top", marks=pytest.mark.slow),
         pytest.param("rolling_disc", {}, id="disc"),
         pytest.param("pendulum_cartesian", {}, id="pendulum", marks=pytest.mark.slow)]


@pytest.mark.parametrize("name, options", CASES)
def test_manifold_agrees_with_the_other_formulations(name, options):
    system = systems.load(name, **options)
    t_eval = np.linspace(0, 1.5, 7)
    runs = {f: F.create(f, system, **({"stabilization": "projection"} if f == "dependent" else {})).simulate(
        (0, 1.5), rtol=1e-11, atol=1e-11, t_eval=t_eval) for f in ("dependent", "manifold", "reduced")}
    for label, tr in runs.items():
        assert tr.status == 0, (label, tr.message)
    man = runs["manifold"]
    assert man.stats.charts >= 1 and 0 <= man.stats.chart_time_share < 0.5
    errs = man.constraint_errors.max()
    assert errs["position"] < 1e-11 and errs["acceleration"] < 1e-9
    for label in ("dependent", "reduced"):
        assert np.max(np.abs(man.p - runs[label].p)) < 1e-6
        assert np.max(np.abs(man.multipliers - runs[label].multipliers)) < 1e-4


def test_chart_tolerances_control_the_constraint_errors():
    """Haug & Pavesic, Table 2 in shape: the errors fall with Tol = utol, Tol also the
    integrator's tolerance as in the paper (a chart map accurate to 1e-6 under an integrator asked
    for 1e-10 only makes the steps small: 8676 against 35)."""
    system = systems.load("triple_slider_crank")
    errors = []
    for tol in (1e-6, 1e-9, 1e-12):
        tr = F.create("manifold", system, utol=tol).simulate((0, 2), rtol=tol, atol=tol)
        assert tr.status == 0
        errors.append(tr.constraint_errors.max())
    for level in ("position", "velocity"):
        assert errors[0][level] > errors[1][level] > errors[2][level] or errors[2][level] < 1e-13
        assert errors[0][level] < 1e-5


@pytest.mark.parametrize("domain", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_triple_slider_crank_stays_in_its_domain(domain):
    system = systems.load("triple_slider_crank", domain=domain)
    tr = F.create("manifold", system).simulate((0, 10), rtol=1e-9, atol=1e-9, t_eval=np.linspace(0, 10, 401))
    assert tr.status == 0, tr.message
    q1, q2, q3 = tr.p[:, 0], tr.p[:, 1], tr.p[:, 2]
    assert np.max(np.abs(q2)) < np.pi / 2
    branch = q3 - q1 - (2 * np.cos(q2) if domain == 3 else 0.0)
    assert np.max(np.abs(branch)) < 1e-8
    assert tr.energy_drift < 1e-6 * (1 + abs(tr.energy[0]))


def _named_configuration(message, label):
    """{name: value} of the configuration ``label`` = (...) in a run's message."""
    text = re.search(re.escape(label) + r" = \(([^)]*)\)", message).group(1)
    return {name: float(value) for name, value in (item.split("=") for item in text.split(", "))}


@pytest.mark.parametrize("formulation", ["dependent", "manifold", "minimal"])
def test_singular_configuration_stops_the_run_with_a_message(formulation):
    """Without the restoring torque the crank turns through q2 = pi/2, where Phi_p loses rank. Every
    formulation stops there and names the singular configuration it solved for (the bordered system
    Phi = 0, Phi_p^T mu = 0, |mu| = 1 from the step's end); the dependent formulation, whose
    interpolant runs in p, also ends its trajectory at the located crossing (brentq to 1e-12 of the step)."""
    system = systems.load("triple_slider_crank", domain=1, K=1e-9)
    tr = F.create(formulation, system).simulate((0, 3), rtol=1e-9, atol=1e-9)
    assert tr.status == -1 and tr.t.size > 5 and tr.t[-1] < 3
    assert "singular configuration" in tr.message and "triple_slider_crank" in tr.message
    singular = _named_configuration(tr.message, "p*")
    assert abs(abs(singular["q2"]) - np.pi / 2) < 1e-5 and abs(singular["q1"] - singular["q3"]) < 1e-5
    if formulation == "dependent":
        assert "located at t" in tr.message
        assert abs(abs(tr.p[-1, 1]) - np.pi / 2) < 1e-6  # the interpolant's error at rtol 1e-9
    # nothing past the crossing's step is kept: the last point lies within one step of the singular set
    assert abs(abs(tr.p[-1, 1]) - np.pi / 2) < np.max(np.abs(np.diff(tr.p[:, 1])))


def test_top_conserves_energy_on_charts():
    system = systems.load("spinning_top")
    tr = F.create("manifold", system).simulate((0, 5), rtol=1e-10, atol=1e-10)
    assert tr.status == 0 and tr.stats.charts > 10
    assert tr.energy_drift < 1e-6 * abs(tr.energy[0])
    assert np.allclose(np.linalg.norm(tr.p[:, 3:7], axis=1), 1, atol=1e-11)


@pytest.mark.parametrize("spin, stays_up", [(20.0, True), (5.0, False)])
def test_fast_top_stays_up_and_slow_top_falls(spin, stays_up):
    system = systems.load("spinning_top", spin=spin, perturbation=1e-3)
    tr = F.create("dependent", system, stabilization="projection").simulate((0, 20), rtol=1e-9, atol=1e-9)
    tilt = np.hypot(tr.p[:, 0], tr.p[:, 1])  # horizontal offset of the centroid
    if stays_up:
        assert tr.status == 0 and np.max(tilt) < 0.05
    else:
        assert np.max(tilt) > 0.5


def test_top_energy_drift_on_charts_is_the_truncation_of_rk4():
    """Halving h divides the drift by about 2^4: it is the fourth-order truncation in chart coordinates."""
    system = systems.load("spinning_top", spin=20.0)
    # h = 4e-3 is already in the asymptotic range (drift 2e-2 J, ratio to h = 2e-3 about 18; 17 from 2e-3 to 1e-3)
    drift = [F.create("manifold", system).simulate((0, 1), method="rk4", step=h).energy_drift for h in (4e-3, 2e-3)]
    assert 8 < drift[0] / drift[1] < 32


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 100,000 steps in Python: some 5-10 minutes
def test_top_energy_over_100_seconds_with_rk4():
    """Haug & Pavesic section 7.1: a fourth-order method at h = 1e-3 s over 100 s. The paper reports a
    total energy variation of 2e-4 %; measured here (RK4, utol = 1e-12): 1.13e-6 relative."""
    system = systems.load("spinning_top", spin=20.0)
    tr = F.create("manifold", system).simulate((0, 100), method="rk4", step=1e-3)
    assert tr.status == 0 and tr.energy_drift < 2e-6 * abs(tr.energy[0])


def test_manifold_needs_holonomic_constraints_and_a_restartable_integrator():
    with pytest.raises(F.CapabilityError, match="without holonomic constraints"):
        F.create("manifold", systems.load("knife_edge"))
    with pytest.raises(F.CapabilityError, match="post-step"):
        F.create("manifold", systems.load("triple_slider_crank")).simulate((0, 1), method="LSODA")


def test_domain_option_is_checked():
    with pytest.raises(ValueError, match="expected 1 or 3"):
        systems.load("triple_slider_crank", domain=2)


def test_four_point_body_keeps_its_distances():
    system = systems.load("four_point_body")
    tr = F.create("manifold", system).simulate((0, 3), rtol=1e-10, atol=1e-10)
    assert tr.status == 0 and system.m == 6 and system.k == 6
    r = tr.p.reshape(len(tr.t), 4, 3)
    for i in range(4):
        for j in range(i + 1, 4):
            assert np.allclose(np.linalg.norm(r[:, i] - r[:, j], axis=1), 1.0, atol=1e-11)
    # the centre of mass falls freely
    com = r.mean(axis=1)
    t = tr.t
    assert np.allclose(com[:, 2], 2 * t - 9.81 * t**2 / 2, atol=1e-8)


@pytest.mark.parametrize("n", [1, 4])
def test_n_pendulum_formulations_agree(n):
    system = systems.load("n_pendulum", n=n)
    assert (system.n, system.m, system.k) == (3 * n, 2 * n, n)
    t_eval = np.linspace(0, 2, 5)
    runs = [F.create(f, system).simulate((0, 2), rtol=1e-11, atol=1e-11, t_eval=t_eval)
            for f in ("dependent", "manifold", "minimal")]
    for tr in runs[1:]:
        assert tr.status == 0 and np.max(np.abs(tr.p - runs[0].p)) < 1e-7
    with pytest.raises(ValueError, match="whole number"):
        systems.load("n_pendulum", n=0)


@pytest.mark.parametrize("domain", [pytest.param(1, marks=pytest.mark.slow), 3])
def test_four_body_slider_crank_model_moves_like_the_four_coordinate_one(domain):
    """Haug & Pavesic section 7.2: 12 coordinates and 10 constraints, the same two degrees of freedom."""
    small = systems.load("triple_slider_crank", domain=domain)
    big = systems.load("triple_slider_crank", domain=domain, bodies=True)
    assert (big.n, big.m, big.k) == (12, 10, 2)
    t_eval = np.linspace(0, 2, 9)
    ref = F.create("manifold", small).simulate((0, 2), rtol=1e-10, atol=1e-10, t_eval=t_eval)
    tr = F.create("manifold", big).simulate((0, 2), rtol=1e-10, atol=1e-10, t_eval=t_eval)
    assert tr.status == 0, tr.message
    q = np.stack([tr.p[:, 0], tr.p[:, 5] - tr.p[:, 2], tr.p[:, 6], tr.p[:, 10]], axis=1)
    assert np.max(np.abs(q - ref.p)) < 1e-6
    assert tr.constraint_errors.max()["position"] < 1e-11 and np.max(np.abs(q[:, 1])) < np.pi / 2


def test_slider_crank_benchmark():
    system = systems.load("slider_crank")
    assert (system.n, system.m, system.k) == (9, 8, 1)
    t_eval = np.linspace(0, 3, 31)
    runs = {f: F.create(f, system).simulate((0, 3), rtol=1e-10, atol=1e-10, t_eval=t_eval)
            for f in ("dependent", "reduced", "minimal", "manifold")}
    a = system.parameter_dict["a"]
    for label, tr in runs.items():
        assert tr.status == 0, (label, tr.message)
        assert np.max(np.abs(tr.p - runs["reduced"].p)) < 1e-7
        assert tr.energy_drift < 1e-8 * (1 + abs(tr.energy[0]))
        crank_pin = 2 * tr.p[:, 0:2]  # the crank's end P2, twice its centre
        assert np.allclose(np.linalg.norm(crank_pin, axis=1), a, atol=1e-8)
    assert np.ptp(runs["reduced"].p[:, 6]) == pytest.approx(2 * a, rel=1e-3)  # the piston's stroke


def test_a_chart_iteration_that_fails_from_a_far_trial_stage_starts_again_from_the_origin():
    """The three-bar linkage at rtol 1e-9: a rejected trial stage leaves h far from the next state
    (an iteration with B held fixed ran from there into a singular Phi_p U, and the run stopped at
    t = 1.38). Where Newton's method fails from there, it starts again from h = 0 and reaches the
    state; the run agrees with the dependent formulation."""
    system = systems.load("spherical_three_bar")
    tr = F.create("manifold", system).simulate((0.0, 2.0), rtol=1e-9, atol=1e-9)
    reference = F.create("dependent", system).simulate((0.0, 2.0), rtol=1e-11, atol=1e-11)
    assert tr.status == 0 and tr.stats.charts > 10
    assert np.max(np.abs(tr.p[-1] - reference.p[-1])) < 1e-6

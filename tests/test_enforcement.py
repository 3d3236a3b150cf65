"""Constraint enforcement: IDA (index 1 and GGL), constraint dynamics, the augmented Lagrangian."""
import re
import sys

import numpy as np
import pytest

import formulations as F
import systems
from formulations.solvers.augmented_lagrangian import AugmentedLagrangian
from formulations.solvers.ida import MissingDependencyError, require_ida
from formulations import CapabilityError
from formulations.stabilization import ConstraintDynamics

try:
    import sksundae  # noqa: F401
    HAVE_IDA = True
except ImportError:  # the optional extra "dae" is not installed
    HAVE_IDA = False
needs_ida = pytest.mark.skipif(not HAVE_IDA, reason="scikit-sundae (extra 'dae') is not installed")


def reference(system, t_end, t_eval):
    return F.create("dependent", system, stabilization="projection").simulate(
        (0.0, t_end), rtol=1e-12, atol=1e-12, t_eval=t_eval)


@needs_ida
@pytest.mark.parametrize("name", [pytest.param("pendulum_cartesian", marks=pytest.mark.slow), "rolling_disc",
                                  "slider_crank", pytest.param("sphere_in_cylinder", marks=pytest.mark.slow)])
@pytest.mark.parametrize("formulation, stabilization", [("dependent", "none"), ("dependent", "ggl"),
                                                        ("dependent", "baumgarte"), ("reduced", "none"),
                                                        ("reduced", "ggl")],
                         ids=["dependent-index1", "dependent-ggl", "dependent-baumgarte", "reduced-index1",
                              "reduced-ggl"])
def test_ida_agrees_with_the_ode_formulations(name, formulation, stabilization):
    system = systems.load(name)
    t_eval = np.linspace(0.0, 1.0, 11)
    ref = reference(system, 1.0, t_eval)
    tr = F.create(formulation, system, stabilization=stabilization).simulate(
        (0.0, 1.0), rtol=1e-10, atol=1e-10, method="IDA", t_eval=t_eval)
    assert tr.status == 0, tr.message
    assert np.allclose(tr.t, t_eval)
    assert np.max(np.abs(tr.p - ref.p)) < 1e-6
    assert np.max(np.abs(tr.v - ref.v)) < 1e-5
    for key in ref.reactions:  # the same reactions as every other path
        scale = 1.0 + np.max(np.abs(ref.reactions[key]))
        assert np.max(np.abs(tr.reactions[key] - ref.reactions[key])) < 1e-4 * scale, key


@needs_ida
@pytest.mark.parametrize("name", ["pendulum_cartesian", "slider_crank", "rolling_disc"])
def test_ggl_keeps_position_and_velocity_constraints(name):
    system = systems.load(name)
    tol = 1e-8
    errors = {}
    for stab in ("none", "ggl"):
        tr = F.create("dependent", system, stabilization=stab).simulate((0.0, 2.0), rtol=tol, atol=tol, method="IDA")
        assert tr.status == 0, tr.message
        errors[stab] = tr.constraint_errors.max()
    assert errors["ggl"]["position"] < 10 * tol
    assert errors["ggl"]["velocity"] < 100 * tol
    # index 1 without stabilization lets Phi drift; GGL holds it
    assert errors["ggl"]["position"] < errors["none"]["position"]


@needs_ida
def test_ida_every_step_is_an_output_point_without_t_eval():
    system = systems.load("pendulum_cartesian")
    tr = F.create("dependent", system).simulate((0.0, 1.0), rtol=1e-8, atol=1e-8, method="IDA")
    assert tr.status == 0
    assert len(tr.t) == tr.stats.steps + 1
    assert tr.t[0] == 0.0 and tr.t[-1] == pytest.approx(1.0)
    assert tr.stats.rhs_evaluations > tr.stats.steps


def test_missing_scikit_sundae_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sksundae", None)
    monkeypatch.setitem(sys.modules, "sksundae.ida", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "pfaff\[dae\]"'):
        require_ida()
    system = systems.load("pendulum_cartesian")
    with pytest.raises(MissingDependencyError, match="scikit-sundae"):
        F.create("dependent", system).simulate((0.0, 1.0), method="IDA")


@pytest.mark.parametrize("formulation, stabilization, method, events, match", [
    ("dependent", "projection", "IDA", (), "got stabilization 'projection'"),
    ("dependent", "ggl", "DOP853", (), "expected method 'IDA'"),
    ("minimal", "none", "IDA", (), "cannot be solved as a DAE"),
], ids=["ida-projection", "ggl-explicit", "minimal-ida"])
def test_unsupported_combinations_are_refused(formulation, stabilization, method, events, match):
    system = systems.load("pendulum_cartesian")
    if formulation == "minimal":
        pytest.importorskip("sksundae")
    form = F.create(formulation, system, **({} if formulation == "minimal" else {"stabilization": stabilization}))
    with pytest.raises(CapabilityError, match=match):
        form.simulate((0.0, 1.0), method=method, events=events)


def test_ida_refuses_charts():
    pytest.importorskip("sksundae")
    system = systems.load("spinning_top")
    form = F.create("reduced", system)
    if not form.on_charts:
        pytest.skip("the top has an embedding here")
    with pytest.raises(CapabilityError, match="charts"):
        form.simulate((0.0, 0.1), method="IDA")


# -- constraint dynamics ------------------------------------------------------------------------

def damped_oscillator(t, x0, xd0, omega, zeta):
    """x'' + 2 zeta omega x' + omega^2 x = 0, zeta < 1."""
    wd = omega * np.sqrt(1 - zeta**2)
    return np.exp(-zeta * omega * t) * (x0 * np.cos(wd * t) + (xd0 + zeta * omega * x0) / wd * np.sin(wd * t))


@pytest.mark.parametrize("frequency, damping", [(2.0, 0.2), (5.0, 0.5)])
def test_constraint_dynamics_pulls_a_violated_rod_back_at_its_frequency(frequency, damping):
    system = systems.load("pendulum_cartesian")
    p, v = system.default_state()
    p = p * 1.01                                  # the rod 1 % too long
    v = v + np.array([0.0, 0.05])                 # and stretching
    t_eval = np.linspace(0.0, 2.0, 201)
    stab = ConstraintDynamics(frequency=frequency, damping=damping)
    tr = F.create("dependent", system, stabilization=stab).simulate(
        (0.0, 2.0), (p, v), rtol=1e-11, atol=1e-11, t_eval=t_eval, check_initial=False)
    assert tr.status == 0, tr.message
    Phi = np.array([system.residuals(pk, vk)[0][0] for pk, vk in zip(tr.p, tr.v)])
    Phi0, Phid0 = system.residuals(p, v)
    expected = damped_oscillator(t_eval, Phi0[0], Phid0[0], 2 * np.pi * frequency, damping)
    assert abs(Phi0[0]) > 1e-3
    assert np.max(np.abs(Phi - expected)) < 1e-7


def test_constraint_dynamics_damps_a_sliding_blade_exponentially():
    system = systems.load("knife_edge")
    p, v = system.default_state()
    v = v + np.array([0.0, -0.1, 0.0])            # sliding sideways at 0.1 m/s
    stab = ConstraintDynamics(frequency=1.5, damping=0.7)
    t_eval = np.linspace(0.0, 1.0, 51)
    tr = F.create("dependent", system, stabilization=stab).simulate(
        (0.0, 1.0), (p, v), rtol=1e-11, atol=1e-11, t_eval=t_eval, check_initial=False)
    psi = np.array([system.residuals(pk, vk)[1][0] for pk, vk in zip(tr.p, tr.v)])
    rate = 2 * 0.7 * 2 * np.pi * 1.5
    assert np.max(np.abs(psi - psi[0] * np.exp(-rate * t_eval))) < 1e-8
    assert abs(psi[0]) == pytest.approx(0.1)


def test_constraint_dynamics_coefficients_have_the_equivalent_mass():
    system = systems.load("slider_crank")
    p, v = system.default_state()
    form = F.create("dependent", system)
    M, _, _, _, C = form.dynamics(0.0, p, v)[1][:5]
    stab = ConstraintDynamics(frequency=2.0, damping=0.5)
    m_bar, c_bar, k_bar = stab.coefficients(M, C)
    # a row that moves one body's coordinate alone has that body's mass as its equivalent mass
    piston_normal = list(system.constraint_names).index("piston normal force")
    assert m_bar[piston_normal] == pytest.approx(1.0)   # the piston's mass, kg
    omega = 2 * np.pi * 2.0
    assert np.allclose(k_bar, m_bar * omega**2) and np.allclose(c_bar, 2 * 0.5 * omega * m_bar)


def test_constraint_dynamics_chooses_its_frequency_from_the_motion():
    system = systems.load("slider_crank")
    form = F.create("dependent", system, stabilization="constraint_dynamics")
    tr = form.simulate((0.0, 1.0), rtol=1e-8, atol=1e-8)
    assert tr.status == 0
    frequency = float(re.search(r"([0-9.eE+-]+) ?Hz", tr.settings["stabilization"]).group(1))
    assert frequency >= 10.0  # at least ten cycles over 1 s
    assert form.stabilization.frequency is None  # chosen for the run: the formulation keeps what was asked
    with pytest.raises(ValueError, match="positive"):
        ConstraintDynamics(frequency=-1.0)
    with pytest.raises(ValueError, match="positive"):
        ConstraintDynamics(damping=0.0)


# -- augmented Lagrangian -----------------------------------------------------------------------

# a closed loop, a blade and a rolling disc by default; a pendulum and a sphere with Euler parameters
# with -m slow
@pytest.mark.parametrize("name", [pytest.param("pendulum_cartesian", marks=pytest.mark.slow), "slider_crank",
                                  "knife_edge", "rolling_disc",
                                  pytest.param("sphere_in_cylinder", marks=pytest.mark.slow)])
def test_augmented_lagrangian_converges_at_second_order(name):
    system = systems.load(name)
    ref = reference(system, 0.5, [0.5])
    steps = [4e-3, 2e-3, 1e-3]
    errors = []
    for h in steps:
        tr = F.create("dependent", system).simulate((0.0, 0.5), method="augmented_lagrangian", step=h)
        assert tr.status == 0, tr.message
        errors.append(max(np.max(np.abs(tr.p[-1] - ref.p[-1])), np.max(np.abs(tr.v[-1] - ref.v[-1]))))
        errs = tr.constraint_errors.max()
        # positions held by the penalty iteration, velocities and accelerations by the projections
        assert errs["position"] < 1e-13 and errs["velocity"] < 1e-13 and errs["acceleration"] < 1e-12
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert slope == pytest.approx(2.0, abs=0.15)


def test_augmented_lagrangian_reactions_are_the_multipliers_of_the_dependent_form():
    system = systems.load("slider_crank")
    t_eval = np.linspace(0.0, 0.5, 6)
    ref = reference(system, 0.5, t_eval)
    tr = F.create("dependent", system).simulate((0.0, 0.5), method="augmented_lagrangian", step=2.5e-4,
                                                 t_eval=t_eval)
    assert np.allclose(tr.t, t_eval)
    for key in ref.reactions:
        scale = 1.0 + np.max(np.abs(ref.reactions[key]))
        assert np.max(np.abs(tr.reactions[key] - ref.reactions[key])) < 1e-3 * scale, key


def test_augmented_lagrangian_with_rolling_resistance_loses_energy_as_the_others():
    system = systems.load("rolling_disc", rolling_resistance=0.002)
    ode = F.create("dependent", system).simulate((0.0, 1.0), rtol=1e-11, atol=1e-11, t_eval=[0.0, 1.0])
    # the trapezoidal rule at h = 2e-3 already gives the energy lost to 1e-5 of it
    al = F.create("dependent", system).simulate((0.0, 1.0), method="augmented_lagrangian", step=2e-3)
    assert al.status == 0, al.message
    assert ode.energy[-1] < ode.energy[0]
    assert al.energy[-1] - al.energy[0] == pytest.approx(ode.energy[-1] - ode.energy[0], rel=1e-3)


@pytest.mark.parametrize("kwargs, match", [
    (dict(formulation="reduced"), "expected 'dependent'"),
    (dict(step=None), "expected a fixed step size"),
    (dict(stabilization="baumgarte"), "expected 'none'"),
], ids=["reduced", "no-step", "baumgarte"])
def test_augmented_lagrangian_refuses_what_it_cannot_do(kwargs, match):
    system = systems.load("pendulum_cartesian")
    form = F.create(kwargs.get("formulation", "dependent"), system,
                    **({"stabilization": kwargs["stabilization"]} if "stabilization" in kwargs else {}))
    with pytest.raises(CapabilityError, match=match):
        form.simulate((0.0, 0.1), method="augmented_lagrangian", step=kwargs.get("step", 1e-3),
                      events=kwargs.get("events", ()))


def test_augmented_lagrangian_settings_are_checked():
    with pytest.raises(ValueError, match="penalty"):
        AugmentedLagrangian(penalty=0.0)
    with pytest.raises(ValueError, match="max_iter"):
        AugmentedLagrangian(max_iter=0)


def test_augmented_lagrangian_that_cannot_converge_stops_with_a_message():
    system = systems.load("slider_crank")
    tr = F.create("dependent", system).simulate((0.0, 1.0), method=AugmentedLagrangian(max_iter=1), step=1e-2)
    assert tr.status == -1
    assert "did not converge" in tr.message and "slider_crank" in tr.message
    assert len(tr.t) >= 1 and tr.t[0] == 0.0   # what was computed is kept

"""The IFToMM multibody benchmark problems in the catalogue, against their published references:
A01 the closed-form pendulum, A02 the N-four-bar through its singular positions, A03 Andrews'
squeezer against the Hairer-Wanner test-set solution at t = 0.03 s, A04 Bricard's mechanism
(overconstrained, one degree of freedom)."""
import numpy as np
import pytest

import formulations as F
import systems
from systems.catalogue import andrews_squeezer, iftomm_pendulum, n_four_bar


@pytest.mark.parametrize("formulation", ["dependent+projection", "reduced", "minimal", "manifold"])
def test_pendulum_follows_the_elliptic_function_solution(formulation):
    system = systems.load("iftomm_pendulum")
    t = np.linspace(0.0, 10.0, 101)
    tr = F.create(formulation, system).simulate((0.0, 10.0), rtol=1e-11, atol=1e-11, t_eval=t)
    x, y = iftomm_pendulum.closed_form(t)
    assert tr.status == 0
    assert np.max(np.hypot(tr.p[:, 0] - x, tr.p[:, 1] - y)) < 1e-6  # the benchmark's high precision: 1e-3 m


def test_andrews_squeezer_matches_the_test_set_reference():
    """PSIDE at 1e-14 (test set for IVP solvers): p, p' and lambda at t = 0.03 s."""
    system = systems.load("andrews_squeezer")
    tr = F.create("dependent", system, stabilization="projection").simulate(
        (0.0, andrews_squeezer.REFERENCE_TIME), rtol=1e-11, atol=1e-11)
    assert tr.status == 0
    assert np.max(np.abs(tr.p[-1] - andrews_squeezer.REFERENCE_P)) < 1e-8
    assert np.max(np.abs(tr.v[-1] - andrews_squeezer.REFERENCE_V) / (1 + np.abs(andrews_squeezer.REFERENCE_V))) < 1e-6
    assert np.max(np.abs(tr.multipliers[-1] - andrews_squeezer.REFERENCE_LAMBDA)) < 1e-3


def test_andrews_squeezer_initial_accelerations_are_the_test_sets():
    system = systems.load("andrews_squeezer")
    p, v = system.default_state()
    ev = F.create("dependent", system).evaluate(0.0, np.concatenate([p, v]))
    assert ev.vdot[:2] == pytest.approx([14222.4439199541138705911625887, -10666.8329399655854029433719415], rel=1e-11)
    assert ev.lam[:2] == pytest.approx([98.5668703962410896057654982170, -6.12268834425566265503114393122], rel=1e-10)


def test_bricard_has_one_degree_of_freedom_despite_the_count():
    system = systems.load("bricard")
    report = systems.redundancy(system)
    assert (system.n, system.m, report.gruebler) == (24, 24, 0)
    assert report.rank == 23 and report.mobility == 1 and len(report.dependent) == 1


def test_bricard_runs_ten_seconds_on_its_constraints():
    """Projection holds the constraints below 1e-9; energy is conserved; P3 = B swings across
    (x from +1 to about -1 m and back, the published reference's behaviour), and a tighter run agrees."""
    system = systems.load("bricard")
    t = np.linspace(0.0, 10.0, 201)
    runs = [F.create("dependent", system, stabilization="projection").simulate((0.0, 10.0), rtol=tol, atol=tol, t_eval=t)
            for tol in (1e-9, 1e-11)]
    for tr in runs:
        assert tr.status == 0
        assert np.max(np.abs(tr.constraint_errors.position)) < 1e-9
        assert tr.energy_drift < 1e-6
    B = runs[1].p[:, 3:6]
    assert B[:, 0].max() > 0.99 and B[:, 0].min() < -0.9
    assert np.max(np.abs(runs[0].p - runs[1].p)) < 1e-6


@pytest.mark.parametrize("n", [4, pytest.param(40, marks=pytest.mark.slow)])
def test_n_four_bar_passes_its_singular_positions(n):
    """The cranks turn through the horizontal (every bar on the x axis, rank C drops by N) and the
    dependent formulation with projection stays on the parallelogram branch: B0 follows the branch's
    one-degree-of-freedom pendulum (n_four_bar.branch_motion)."""
    system = systems.load("n_four_bar", n=n)
    t = np.linspace(0.0, 10.0, 101)
    dep = F.create("dependent", system, stabilization="projection", singular="pass").simulate(
        (0.0, 10.0), rtol=1e-10, atol=1e-10, t_eval=t)
    x, y = n_four_bar.branch_motion(t, n)
    assert dep.status == 0
    assert dep.p[:, 1].min() < -0.99  # B0 has gone round below the pivots: through y = 0 twice
    assert np.max(np.hypot(dep.p[:, 0] - x, dep.p[:, 1] - y)) < 1e-5
    assert np.max(np.abs(dep.constraint_errors.position)) < 1e-9


def test_flyball_governor_stiff_solvers_agree_and_without_damping_keep_the_energy():
    """A05: the implicit methods on two formulations give the same slider height s(t); with the
    damping set to zero the stiff couplers store energy without losing it."""
    system = systems.load("flyball_governor")
    t = np.linspace(0.0, 0.5, 11)
    radau = F.create("minimal", system).simulate((0.0, 0.5), rtol=1e-8, atol=1e-8, t_eval=t, method="Radau")
    ida = F.create("dependent", system).simulate((0.0, 0.5), rtol=1e-8, atol=1e-8, t_eval=t, method="IDA")
    assert radau.status == ida.status == 0
    assert np.max(np.abs(radau.p[:, 1] - ida.p[:, 1])) < 1e-5
    undamped = F.create("minimal", system.with_parameters(C=0.0)).simulate((0.0, 0.05), rtol=1e-8, atol=1e-8,
                                                                           method="Radau")
    assert undamped.energy_drift < 1e-6 * abs(undamped.energy[0])

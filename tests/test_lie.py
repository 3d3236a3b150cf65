"""Lie-group integration: the group maps, the RKMK methods on SE(3) and SO(3) x R^3, and the
rigid-body examples of Mueller's comparison."""
import numpy as np
import pytest
import scipy.linalg as sl

import systems
from formulations import CapabilityError, create
from formulations.workbench.comparison.compare import default_configurations
from formulations.solvers.groups import (hat, quaternion_from_rotation, rotation_from_quaternion, se3_dexpinv, se3_exp,
                                         so3_dexpinv, so3_exp)
from formulations.solvers.lie import LieStepper

RNG = np.random.default_rng(7)
ANGLES = (0.0, 1e-9, 1e-4, 0.05, 0.0999, 0.1001, 0.7, 2.0, 3.0, np.pi - 1e-6)


def _twist(angle):
    """A twist whose rotation part has norm ``angle``: the same for every order the tests run in."""
    X = np.random.default_rng([7, hash(float(angle)) % 2**32]).standard_normal(6)
    n = np.linalg.norm(X[:3])
    X[:3] *= angle / n
    return X


def _se3_matrix(X):
    return np.block([[hat(X[:3]), X[3:, None]], [np.zeros((1, 4))]])


def _se3_ad(X):
    """ad_X on se(3) for X = (w, v): [[hat(w), 0], [hat(v), hat(w)]]."""
    return np.block([[hat(X[:3]), np.zeros((3, 3))], [hat(X[3:]), hat(X[:3])]])


def _vee(X):
    """The vector of a skew matrix (the inverse of hat)."""
    return np.array([X[2, 1], X[0, 2], X[1, 0]])


@pytest.mark.parametrize("angle", ANGLES)
def test_exponentials_match_the_matrix_exponential_and_invert_by_log(angle):
    X = _twist(angle)
    E = sl.expm(_se3_matrix(X))
    R, t = se3_exp(X)
    assert np.allclose(R, E[:3, :3], atol=1e-14, rtol=0) and np.allclose(t, E[:3, 3], atol=1e-14, rtol=0)
    assert np.allclose(so3_exp(X[:3]), sl.expm(hat(X[:3])), atol=1e-14, rtol=0)
    assert np.allclose(R.T @ R, np.eye(3), atol=4e-15, rtol=0)   # 1.6e-15 at most over 20000 twists of angle 3


@pytest.mark.parametrize("angle", ANGLES)
def test_dexpinv_inverts_the_series_of_ad(angle):
    """dexp_X = sum ad_X^k / (k+1)! = int_0^1 exp(s ad_X) ds, from the matrix exponential of a block
    matrix; the closed-form dexp_X^-1 inverts it."""
    X = _twist(angle)
    for ad, dexpinv, size in ((_se3_ad(X), se3_dexpinv(X), 6), (hat(X[:3]), so3_dexpinv(X[:3]), 3)):
        block = np.zeros((2 * size, 2 * size))
        block[:size, :size], block[:size, size:] = ad, np.eye(size)
        dexp = sl.expm(block)[:size, size:]
        assert np.allclose(dexpinv @ dexp, np.eye(size), atol=1e-11, rtol=0)


@pytest.mark.parametrize("angle", (1e-3, 0.3, 2.5))
def test_dexpinv_against_finite_differences_of_exp(angle):
    """d/ds exp(X + s Y) at s = 0 equals hat(dexp_X Y) exp(X): dexp^-1_X recovers Y from central differences."""
    X, Y = _twist(angle), RNG.standard_normal(6)
    eps = 1e-6
    dE = (sl.expm(_se3_matrix(X + eps * Y)) - sl.expm(_se3_matrix(X - eps * Y))) / (2 * eps)
    Z = dE @ np.linalg.inv(sl.expm(_se3_matrix(X)))
    twist = np.concatenate([_vee(Z[:3, :3]), Z[:3, 3]])
    assert np.allclose(se3_dexpinv(X) @ twist, Y, atol=1e-8, rtol=0)
    assert np.allclose(so3_dexpinv(X[:3]) @ twist[:3], Y[:3], atol=1e-8, rtol=0)


def test_quaternions_of_rotations_round_trip_including_half_turns():
    for angle in (0.0, 0.3, 2.0, np.pi - 1e-12, np.pi):
        for axis in (np.array([1.0, 0, 0]), np.array([0, 0, 1.0]), RNG.standard_normal(3)):
            R = so3_exp(angle * axis / np.linalg.norm(axis))
            q = quaternion_from_rotation(R)
            assert abs(np.linalg.norm(q) - 1) < 1e-15
            assert np.allclose(rotation_from_quaternion(q), R, atol=1e-14, rtol=0)
            assert np.dot(quaternion_from_rotation(R, like=-q), q) < 0  # the sign follows ``like``


# -- the rigid-body examples ---------------------------------------------------------------------
def _reference(system, t_end, grid):
    return create("dependent", system, stabilization="projection").simulate((0, t_end), rtol=1e-12, atol=1e-12,
                                                                            t_eval=grid)


@pytest.mark.parametrize("name", ["spherical_double_pendulum", "spherical_three_bar"])
def test_twist_and_hybrid_descriptions_move_alike(name):
    """The two velocity choices of one mechanism (different M, d, f, A and C), through the ordinary
    dependent formulation: same positions and joint forces."""
    grid = np.linspace(0, 0.5, 11)
    twist = _reference(systems.load(name), 0.5, grid)
    hybrid = _reference(systems.load(name, velocity="hybrid"), 0.5, grid)
    assert np.max(np.abs(hybrid.p - twist.p)) < 1e-9
    assert np.max(np.abs(hybrid.multipliers - twist.multipliers)) < 1e-6 * (1 + np.max(np.abs(twist.multipliers)))


def test_floating_pair_conserves_momenta():
    """No ground, no gravity: linear momentum, angular momentum about the origin and energy are constant."""
    system = systems.load("floating_pair")
    traj = _reference(system, 1.0, np.linspace(0, 1, 21))
    m = float(system.M[3, 3])
    inertia = np.array(system.M[:3, :3], dtype=float)

    def momenta(p, v):
        L, P = np.zeros(3), np.zeros(3)
        for body in system.bodies:
            R = rotation_from_quaternion(p[list(body.rotation)])
            r, omega, u = p[list(body.position)], v[list(body.angular)], v[list(body.linear)]
            velocity = R @ u  # twists: body axes
            P += m * velocity
            L += np.cross(r, m * velocity) + R @ (inertia @ omega)
        return np.concatenate([P, L])

    start = momenta(traj.p[0], traj.v[0])
    assert np.max(np.abs(start)) > 0.1
    for p, v in zip(traj.p, traj.v):
        assert np.allclose(momenta(p, v), start, atol=1e-9, rtol=0)
    assert traj.energy_drift < 1e-10


@pytest.mark.parametrize("group", ["SE3", "SO3xR3"])
def test_rkmk4_is_of_fourth_order_on_both_groups(group):
    system = systems.load("heavy_top")
    t_end = 0.2
    grid = np.array([0.0, t_end])
    ref = _reference(system, t_end, grid)
    errors = []
    for h in (4e-3, 2e-3, 1e-3):
        traj = create("dependent", system).simulate((0, t_end), method=f"RKMK4-{group}", step=h, t_eval=grid)
        assert traj.success and traj.stats.steps == round(t_end / h)
        errors.append(max(np.max(np.abs(traj.p[-1] - ref.p[-1])), np.max(np.abs(traj.v[-1] - ref.v[-1]))))
    slopes = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(slopes - 4) < 0.3), (errors, slopes)


@pytest.mark.parametrize("name, group", [("heavy_top", "SE3"), ("spherical_double_pendulum", "SO3xR3"),
                                         ("floating_pair", "SE3"), ("spherical_three_bar", "SO3xR3")]
                         + [pytest.param(n, g, marks=pytest.mark.slow) for n, g in (
                             ("heavy_top", "SO3xR3"), ("spherical_double_pendulum", "SE3"),
                             ("floating_pair", "SO3xR3"), ("spherical_three_bar", "SE3"))])
def test_adaptive_rkmk_agrees_with_the_dependent_formulation(name, group):
    system = systems.load(name)
    grid = np.linspace(0, 0.3, 7)
    ref = _reference(system, 0.3, grid)
    traj = create("dependent", system).simulate((0, 0.3), method=f"RKMK45-{group}", rtol=1e-11, atol=1e-11, t_eval=grid)
    assert traj.success
    assert np.allclose(traj.t, grid)
    assert np.max(np.abs(traj.p - ref.p)) < 1e-8
    assert np.max(np.abs(traj.v - ref.v)) < 1e-6
    scale = 1 + np.max(np.abs(ref.multipliers))
    assert np.max(np.abs(traj.multipliers - ref.multipliers)) < 1e-6 * scale


def test_adaptive_rkmk_converges_as_the_tolerance_tightens():
    system = systems.load("spherical_double_pendulum")
    grid = np.array([0.0, 0.5])
    ref = _reference(system, 0.5, grid)
    errors = []
    for tol in (1e-5, 1e-7, 1e-9):
        traj = create("dependent", system).simulate((0, 0.5), method="RKMK45-SE3", rtol=tol, atol=tol, t_eval=grid)
        errors.append(np.max(np.abs(traj.p[-1] - ref.p[-1])))
    assert errors[0] > 10 * errors[1] > 100 * errors[2], errors


@pytest.mark.parametrize("velocity", ["twist", "hybrid"])
def test_heavy_top_pivot_stays_at_round_off_on_se3_only(velocity):
    """Mueller's finding: the pivot's velocity constraint is linear with constant coefficients in the
    body-fixed twist, so the SE(3) update moves the box by screw motions about the pivot."""
    system = systems.load("heavy_top", velocity=velocity, g=0.0)
    errors = {}
    for group in ("SE3", "SO3xR3"):
        traj = create("dependent", system).simulate((0, 1.0), method=f"RKMK4-{group}", step=2e-3)
        assert traj.success
        errors[group] = traj.constraint_errors.max()
    assert errors["SE3"]["position"] < 1e-13 and errors["SE3"]["velocity"] < 1e-12
    assert errors["SO3xR3"]["position"] > 1e-4 and errors["SO3xR3"]["velocity"] > 1e-4


def test_the_group_keeps_rotations_orthogonal_without_renormalization():
    system = systems.load("spherical_double_pendulum")
    formulation = create("dependent", system)
    p0, v0 = system.default_state()
    for method in ("RKMK4-SE3", "RKMK4-SO3xR3"):
        stepper = LieStepper(system, method, step=5e-3)
        stepper.start(formulation.rhs, 0.0, np.concatenate([p0, v0]), 2.0, 1e-8, 1e-8, np.inf, None)
        for _ in range(400):
            stepper.step()
        for R in stepper.R:
            assert np.max(np.abs(R.T @ R - np.eye(3))) < 1e-13


def test_projection_with_the_direct_product_group_removes_its_drift():
    system = systems.load("heavy_top", g=0.0)
    traj = create("dependent", system, stabilization="projection").simulate((0, 0.5), method="RKMK4-SO3xR3",
                                                                             step=2e-3)
    assert traj.success and traj.stats.projections == 250
    assert traj.constraint_errors.max()["position"] < 1e-12


def test_capabilities_are_refused_with_what_was_expected():
    top = systems.load("heavy_top")
    with pytest.raises(CapabilityError, match="expected 'dependent'"):
        create("minimal", top).simulate((0, 0.1), method="RKMK4-SE3", step=1e-3)
    with pytest.raises(CapabilityError, match="not all rigid-body blocks"):
        create("dependent", systems.load("spinning_top")).simulate((0, 0.1), method="RKMK45-SE3")
    with pytest.raises(CapabilityError, match="needs a fixed step"):
        create("dependent", top).simulate((0, 0.1), method="RKMK4-SO3xR3")
    with pytest.raises(CapabilityError, match="chooses its own steps"):
        create("dependent", top).simulate((0, 0.1), method="RKMK45-SE3", step=1e-3)
    with pytest.raises(ValueError, match="'twist' or 'hybrid'"):
        systems.load("heavy_top", velocity="screw")


def test_a_wrong_body_block_is_reported():
    system = systems.load("heavy_top")
    from dataclasses import replace

    from systems.description import BodyBlock

    with pytest.raises(systems.SystemDescriptionError, match="A on its rows"):
        replace(system, bodies=(BodyBlock("top", (0, 1, 2, 3), (4, 5, 6), (0, 1, 2), (3, 4, 5), "hybrid"),))
    with pytest.raises(systems.SystemDescriptionError, match="not among the unit-norm blocks"):
        replace(system, unit_norm_blocks=(), bodies=system.bodies)


def test_compare_offers_both_lie_groups_for_rigid_body_systems():
    assert {"dependent@RKMK45-SE3", "dependent@RKMK45-SO3xR3"} <= set(default_configurations(systems.load("heavy_top")))
    assert not any("RKMK" in c for c in default_configurations(systems.load("rolling_disc")))


def test_events_are_located_between_lie_steps():
    """The centre of the heavy top first drops below 0.1999 m: the same time from RKMK45 and DOP853."""
    system = systems.load("heavy_top")
    z = system.coordinate_names.index("z_top")

    def below(t, p, v):
        return p[z] - 0.1999

    times = []
    for method, options in (("DOP853", dict(rtol=1e-12, atol=1e-12)), ("RKMK45-SE3", dict(rtol=1e-10, atol=1e-10)),
                            ("RKMK4-SO3xR3", dict(step=1e-4))):
        traj = create("dependent", system).simulate((0, 1.0), method=method, events=[below], **options)
        assert traj.status == 1 and len(traj.t_events) == 1
        times.append(traj.t_events[0])
    assert 0 < times[0] < 1.0
    assert abs(times[1] - times[0]) < 1e-8 and abs(times[2] - times[0]) < 1e-6, times


def test_a_ball_rolling_on_a_plane_keeps_its_velocity():
    """Nonholonomic rows in a body-frame system: a homogeneous ball rolling without slipping on a
    horizontal plane keeps its centre velocity and its spin about the vertical (a classical result)."""
    import sympy as sp

    a, m = 0.1, 2.0
    ball = systems.BodyFrame("ball", m, sp.eye(3) * 2 * m * a**2 / 5)
    contact = (0, 0, -a)  # world axes, from the centre
    R = ball.R
    rho = R.T * sp.Matrix(contact)  # the contact point in body axes
    v_contact = ball.point_velocity(rho)
    system = systems.from_body_frames(
        "rolling_ball", [ball], gravity=(0, 0, -9.81), holonomic=[("normal force", a - ball.r[2])],
        nonholonomic_rows=[("friction x", -v_contact[0]), ("friction y", -v_contact[1])],
        default_p=(1, 0, 0, 0, 0, 0, a), default_v=(3.0, -2.0, 4.0, -2.0 * a, -3.0 * a, 0))
    assert (system.m, system.l) == (1, 2)
    for method, options in (("DOP853", dict(rtol=1e-10, atol=1e-10)), ("RKMK45-SE3", dict(rtol=1e-10, atol=1e-10))):
        traj = create("dependent", system).simulate((0, 2.0), method=method, **options)
        assert traj.success
        for p, v in zip(traj.p, traj.v):
            Rk = rotation_from_quaternion(p[:4])
            assert np.allclose(Rk @ v[3:], [-2.0 * a, -3.0 * a, 0], atol=1e-8)  # centre velocity, world axes
            assert abs((Rk @ v[:3])[2] - 4.0) < 1e-8                           # spin about the vertical
        assert np.allclose(traj.multipliers[:, 0], m * 9.81, atol=1e-8)         # the normal force: the weight

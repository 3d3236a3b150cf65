"""The frame, joint and rolling-contact helpers (systems.builders.frames, .contact) against
sympy.physics.mechanics, Lagrange's equations written independently, and closed forms."""
import warnings

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import systems
from systems.builders.common import BuildClock, SlowBuildWarning
from systems.builders.contact import rolling_contact
from systems.builders.frames import Frame, Point


def _close(expr_a, expr_b, symbols, rng, count=4, scale=1.0):
    fn = sp.lambdify([symbols], sp.Matrix(expr_a) - sp.Matrix(expr_b), modules="numpy")
    for _ in range(count):
        assert np.max(np.abs(np.array(fn(rng.uniform(-scale, scale, len(symbols))), float))) < 1e-12


@pytest.mark.parametrize("kind", ["body_fixed", "space_fixed"])
@pytest.mark.parametrize("sequence", ["zxy", "zxz", "xyz"])
def test_rotation_sequences_match_reference_frame(kind, sequence, rng):
    """R and the angular velocity in the frame's axes equal sympy's orient_body_fixed /
    orient_space_fixed (its N.dcm(B) and B.ang_vel_in(N) in B's axes)."""
    q = sp.symbols("q1:4", real=True)
    qd = sp.symbols("q1_dot q2_dot q3_dot", real=True)
    frame = getattr(Frame.ground(systems.Kinematics(q, qd, sp.eye(3))), kind)(q, sequence, "B")
    t = me.dynamicsymbols._t
    qt = me.dynamicsymbols("q1:4")
    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    getattr(B, f"orient_{kind}")(N, qt, sequence)
    plain = {**dict(zip([x.diff(t) for x in qt], qd)), **dict(zip(qt, q))}
    _close(frame.R, N.dcm(B).subs(plain), q + qd, rng)
    _close(frame.omega, B.ang_vel_in(N).to_matrix(B).subs(plain), q + qd, rng)


def _lagrangian_twin(name, q, positions, rates, masses, inertias, g):
    """from_lagrangian on T = sum m |r'|^2 / 2 + I w^2 / 2 and V = sum m g z, with explicit positions."""
    qd = [sp.Symbol(f"{s.name}_dot", real=True) for s in q]
    T = sum((m * sum(((sp.Matrix(r).jacobian(q) * sp.Matrix(qd))[k]) ** 2 for k in range(3)) / 2
             for m, r in zip(masses, positions)), sp.S.Zero)
    T += sum((I * rate(qd) ** 2 / 2 for I, rate in zip(inertias, rates)), sp.S.Zero)
    V = sum((m * g * r[2] for m, r in zip(masses, positions)), sp.S.Zero)
    return systems.from_lagrangian(name, q, T, V, velocities=qd, default_p=[0] * len(q), default_v=[0] * len(q))


def _compare_dynamics(a, b, rng):
    for _ in range(4):
        p, v = rng.uniform(-1.5, 1.5, a.n), rng.uniform(-2, 2, a.n)
        Ma, da, fa = a.numeric.dynamics(0.0, p, v, a.params)[:3]
        Mb, db, fb = b.numeric.dynamics(0.0, p, v, b.params)[:3]
        assert np.allclose(Ma, Mb, atol=1e-12, rtol=0) and np.allclose(fa - da, fb - db, atol=1e-11, rtol=0)


def test_double_pendulum_of_revolute_joints_matches_lagrange(rng):
    """Two uniform rods (1 kg, 1 m; 0.5 kg, 0.8 m) hinged about y, the second at the end of the first,
    relative angle: M and f - d against Lagrange's equations with the positions written out."""
    th1, th2 = q = sp.symbols("theta_1 theta_2", real=True)
    v = sp.symbols("theta_1_dot theta_2_dot", real=True)
    (m1, l1), (m2, l2), g = (1.0, 1.0), (0.5, 0.8), 9.81
    kin = systems.Kinematics(q, v, sp.eye(2))
    ground = Frame.ground(kin)
    link1 = ground.rotated(th1, "y", "link 1")
    link2 = link1.rotated(th2, "y", "link 2")
    pivot = Point.at(ground, (0, 0, 0), "pivot")
    elbow = pivot.located(link1, (0, 0, -l1), "elbow")
    rods = [link1.body("rod 1", m1, sp.eye(3) * m1 * l1**2 / 12, pivot.located(link1, (0, 0, -l1 / 2), "centre 1")),
            link2.body("rod 2", m2, sp.eye(3) * m2 * l2**2 / 12, elbow.located(link2, (0, 0, -l2 / 2), "centre 2"))]
    built = systems.from_rigid_bodies("double pendulum", q, v, sp.eye(2), rods, gravity=(0, 0, -g),
                                      default_p=(0, 0), default_v=(0, 0))
    a = th1 + th2
    centres = [(-l1 / 2 * sp.sin(th1), 0, -l1 / 2 * sp.cos(th1)),
               (-l1 * sp.sin(th1) - l2 / 2 * sp.sin(a), 0, -l1 * sp.cos(th1) - l2 / 2 * sp.cos(a))]
    twin = _lagrangian_twin("double pendulum twin", q, centres, [lambda w: w[0], lambda w: w[0] + w[1]],
                            [m1, m2], [m1 * l1**2 / 12, m2 * l2**2 / 12], g)
    _compare_dynamics(built, twin, rng)


def test_pendulum_on_a_prismatic_slider_matches_lagrange(rng):
    """A 2 kg cart sliding along x (prismatic joint) carrying a 0.3 kg, 0.6 m rod hinged about y."""
    s, th = q = sp.symbols("s theta", real=True)
    v = sp.symbols("s_dot theta_dot", real=True)
    (mc, m, l), g = (2.0, 0.3, 0.6), 9.81
    kin = systems.Kinematics(q, v, sp.eye(2))
    ground = Frame.ground(kin)
    cart = Point.at(ground, (0, 0, 0), "origin").slid(ground, "x", s, "cart")
    rod = ground.rotated(th, "y", "rod")
    bodies = [ground.body("cart", mc, sp.eye(3), cart),
              rod.body("rod", m, sp.eye(3) * m * l**2 / 12, cart.located(rod, (0, 0, -l / 2), "rod centre"))]
    built = systems.from_rigid_bodies("cart pendulum", q, v, sp.eye(2), bodies, gravity=(0, 0, -g),
                                      default_p=(0, 0), default_v=(0, 0))
    twin = _lagrangian_twin("cart pendulum twin", q, [(s, 0, 0), (s - l / 2 * sp.sin(th), 0, -l / 2 * sp.cos(th))],
                            [lambda w: 0, lambda w: w[1]], [mc, m], [0, m * l**2 / 12], g)
    _compare_dynamics(built, twin, rng)


def test_torus_rolling_rows_against_the_contact_point(rng):
    """A torus (circle radius r, tube rho) on yaw psi, lean theta and spin phi: the holonomic row is
    minus the height of the lowest point, and the rolling rows are minus the velocity of the
    material point there (found by brute force on the tube's lowest circle) along the rolling and
    lateral directions."""
    x, y, z, psi, th, ph = p = sp.symbols("x y z psi theta phi", real=True)
    v = sp.symbols("x_dot y_dot z_dot psi_dot theta_dot phi_dot", real=True)
    r, rho = 0.5, 0.1
    ground = Frame.ground(systems.Kinematics(p, v, sp.eye(6)))
    lean = ground.body_fixed((psi, th), "zx", "lean")
    wheel = lean.spinning(ph, "y", "torus")
    holonomic, rows = rolling_contact("torus", wheel, Point.at(ground, (x, y, z), "centre"), r, tube_radius=rho)
    Phi = sp.lambdify([p], holonomic[0][1])
    C = sp.lambdify([p + v], [e for _, e in rows])
    R = sp.lambdify([p], lean.R)
    omega = sp.lambdify([p + v], wheel.omega_world)
    for _ in range(4):
        state = rng.uniform(-1, 1, 12)
        state[4] *= 0.8  # lean within +-0.8 rad
        Rn = np.array(R(state[:6]), float)
        angles = np.linspace(0, 2 * np.pi, 200001)
        circle = r * (np.outer(np.cos(angles), Rn[:, 0]) + np.outer(np.sin(angles), Rn[:, 2]))  # in the wheel plane
        k = np.argmin(circle[:, 2])
        r_CP = circle[k] - np.array([0, 0, rho])
        assert abs(Phi(state[:6]) - (-(state[2] + r_CP[2]))) < 1e-9
        v_P = state[6:9] + np.cross(np.array(omega(state), float).ravel(), r_CP)
        e_long = np.cross(Rn[:, 1], [0, 0, 1])
        e_long /= np.linalg.norm(e_long)
        e_lat = np.cross([0, 0, 1], e_long)
        assert np.allclose(C(state), [-e_long @ v_P, -e_lat @ v_P], atol=1e-9)


def test_slow_build_warns_naming_the_slowest_step(monkeypatch):
    clock = BuildClock("demo", warn_after=0.0)
    with pytest.warns(SlowBuildWarning, match=r"building system 'demo'.*slowest steps: angular velocity.*R\^T R'"):
        with clock.step("angular velocity of body 'b'", "derived from R^T R'"):
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with clock.step("second step"):  # one warning per build
            pass


def test_spinning_frame_refuses_children():
    ground = Frame.ground(systems.Kinematics(sp.symbols("a b", real=True), sp.symbols("a_dot b_dot", real=True),
                                             sp.eye(2)))
    wheel = ground.spinning(sp.Symbol("a", real=True), "y", "wheel")
    with pytest.raises(ValueError, match="spinning frame 'wheel'"):
        wheel.rotated(sp.Symbol("b", real=True), "x", "child")

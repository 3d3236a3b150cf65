"""Bodies know their shape: the visuals of the catalogue sit where the description's kinematics put
the bodies (contact points on the ground or the wall, rod ends at the joints) along simulated
motions, the default shape of a rigid body carries its inertia, and bad visuals are refused."""
import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from systems import Poses, Visual
from systems.builders.rigid_body import RigidBody, from_rigid_bodies

TIGHT = 1e-10  # rtol = atol of the runs; the poses must agree with the constraints to 1e-9


def _run(name, t_end, **options):
    """A projected dependent run recorded at its start, middle and end."""
    system = systems.load(name, **options)
    traj = F.create("dependent", system, stabilization="projection", backend="numpy").simulate(
        (0.0, t_end), rtol=TIGHT, atol=TIGHT, t_eval=np.linspace(0.0, t_end, 3))
    assert traj.status == 0
    return system, traj


def _states(name, t_end, **options):
    """Three states (start, middle, end) of a projected dependent run."""
    system, traj = _run(name, t_end, **options)
    return system, list(zip(traj.t, traj.p))


def _lowest_rim_height(pose, radius):
    """The height of the lowest point of a circle of ``radius`` about the pose's centre in the plane
    normal to its y axis (a disc's rim, a wheel's ring)."""
    axis = pose.rotation[:, 1]
    return pose.position[2] - radius * np.sqrt(max(0.0, 1.0 - axis[2] ** 2))


def test_the_rolling_disc_touches_the_ground_and_its_marking_turns_with_it():
    system, states = _states("rolling_disc", 0.4)
    poses, r = Poses(system), system.parameter_dict["r"]
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        disc, marking, ground = at["disc"], at["spin marking"], at["ground"]
        assert abs(_lowest_rim_height(disc, r) - ground.position[2]) < 1e-9
        assert abs(at["contact point"].position[2]) < 1e-9  # the marked contact point is on the ground
        assert np.allclose(marking.rotation, disc.rotation, atol=1e-12)  # fixed in the disc: spins with it
        assert np.allclose(disc.rotation.T @ disc.rotation, np.eye(3), atol=1e-12)


def test_the_disc_contact_force_arrow_is_the_sum_of_its_reactions():
    system, traj = _run("rolling_disc", 0.4)
    poses = Poses(system)
    scale = system.parameter_dict["r"] / (system.parameter_dict["m"] * system.parameter_dict["g"])
    reactions = traj.reactions
    for i, (t, p, lam) in enumerate(zip(traj.t, traj.p, traj.multipliers)):
        arrow = next(pose for pose in poses.at(p, t, lam) if pose.name == "contact force")
        psi = p[3]  # the heading: rolling direction (cos psi, sin psi, 0), lateral (-sin psi, cos psi, 0)
        N, along, across = (reactions[name][i] for name in ("contact normal force", "longitudinal friction force",
                                                            "lateral friction force"))
        force = np.array([along * np.cos(psi) - across * np.sin(psi), along * np.sin(psi) + across * np.cos(psi), N])
        assert np.allclose((arrow.end - arrow.position) / scale, force, atol=1e-9)
    without = next(pose for pose in poses.at(traj.p[0]) if pose.name == "contact force")
    assert np.all(np.isnan(without.end))  # no multipliers given: no arrow


def test_the_bicycle_wheels_touch_the_ground():
    system, states = _states("bicycle", 0.3)
    poses = Poses(system)
    radii = {"rear wheel": system.parameter_dict["r_R"], "front wheel": system.parameter_dict["r_F"]}
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        for wheel, radius in radii.items():
            assert abs(_lowest_rim_height(at[wheel], radius)) < 1e-9
            contact = at[wheel.replace("wheel", "contact")].position  # the marked contact point: on the ground,
            assert abs(contact[2]) < 1e-9                               # on the wheel's rim
            assert abs(np.linalg.norm(contact - at[wheel].position) - radius) < 1e-9
        # the fork and the rear frame meet at the head tube, and the fork rod starts at the front hub
        assert np.allclose(at["fork"].end, at["rear frame"].end, atol=1e-12)
        assert np.allclose(at["fork"].position, at["front wheel"].position, atol=1e-12)


def test_the_pendulum_rods_end_at_the_joints():
    system, states = _states("n_pendulum", 0.4, n=4)
    poses, L = Poses(system), system.parameter_dict["L"]
    for t, p in states:
        links = [pose for pose in poses.at(p, t) if pose.kind == "link"]
        assert len(links) == 4
        assert np.allclose(links[0].position, 0.0, atol=1e-9)  # pinned at the origin
        for upper, lower in zip(links, links[1:]):
            assert np.linalg.norm(upper.end - lower.position) < 1e-9
        for link in links:
            assert abs(np.linalg.norm(link.end - link.position) - L) < 1e-9
        centres = p.reshape(4, 3)[:, :2]  # (x, y) of each link's centre: the rod's midpoint in the x-z plane
        mid = np.array([(link.position + link.end)[[0, 2]] / 2 for link in links])
        assert np.allclose(mid, centres, atol=1e-12)


def test_the_sphere_touches_the_wall():
    system, states = _states("sphere_in_cylinder", 0.4)
    poses = Poses(system)
    a, R = system.parameter_dict["a"], system.parameter_dict["R"]
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        sphere, wall = at["sphere"], at["wall"]
        assert abs(np.hypot(*sphere.position[:2]) + a - R) < 1e-9
        assert abs(np.hypot(*at["contact point"].position[:2]) - R) < 1e-9  # the marked contact is on the wall
        assert np.allclose(sphere.rotation.T @ sphere.rotation, np.eye(3), atol=1e-9)
        assert wall.sizes[0] == R


def _arrow_forces(system, p, v, t=0.0):
    """{arrow name: the force it draws (N, world axes)} at (p, v), with the multipliers of the
    dependent formulation, and v' there."""
    formulation = F.create("dependent", system, backend="numpy")
    _, v_dot, lam = formulation.accelerations(t, np.concatenate([p, v]))
    return {pose.name: (pose.end - pose.position) / pose.sizes[0]
            for pose in Poses(system).at(p, t, lam) if pose.kind == "arrow"}, v_dot


def test_the_contact_force_arrows_obey_newtons_second_law():
    """The force an arrow draws is the only force besides gravity on a body whose centre is the
    contact (knife edge) or whose motion its centre's acceleration shows (sphere, sleigh): m a_G =
    m g + F, with a_G from the formulation's v' along a run."""
    for name, t_end in (("sphere_in_cylinder", 0.3), ("knife_edge", 1.0), ("chaplygin_sleigh", 1.0)):
        system, traj = _run(name, t_end)
        values = system.parameter_dict
        m = values["m"]
        for t, p, v in zip(traj.t, traj.p, traj.v):
            arrows, v_dot = _arrow_forces(system, p, v, t)
            if name == "sphere_in_cylinder":  # v = (centre velocity, omega), world axes
                expected = m * v_dot[:3] - m * np.array([0.0, 0.0, -values["g"]])
                force = arrows["contact force"]
            elif name == "knife_edge":  # plane axes (x down the slope); the slope's normal force is not modelled
                expected = m * np.array([v_dot[0], v_dot[1], 0.0]) - m * values["g"] * np.sin(values["alpha"]) * np.eye(3)[0]
                tilt = np.array([[np.cos(values["alpha"]), 0, np.sin(values["alpha"])], [0, 1, 0],
                                 [-np.sin(values["alpha"]), 0, np.cos(values["alpha"])]])
                force = tilt.T @ arrows["blade force"]
            else:  # G = P + a (cos theta, sin theta)
                theta, w, w_dot, a = p[2], v[2], v_dot[2], values["a"]
                a_G = v_dot[:2] + a * w_dot * np.array([-np.sin(theta), np.cos(theta)]) - a * w**2 * np.array(
                    [np.cos(theta), np.sin(theta)])
                expected, force = m * np.append(a_G, 0.0), arrows["blade force"]
            assert np.allclose(force, expected, atol=1e-9 * max(1.0, np.abs(expected).max())), name


def test_the_rolling_contact_force_of_the_builders_obeys_newtons_second_law():
    """A rolling disc built from frames (systems.builders.contact): the force rolling_contact_force
    draws, normal and both frictions, is m a_G - m g along a leaning, turning run."""
    from systems.builders.contact import rolling_contact, rolling_contact_force
    from systems.builders.frames import Frame, Point

    ref = systems.load("rolling_disc")
    x, y, z, psi, theta, phi = ref.coordinates
    m, r, g = (p.symbol for p in ref.parameters[:3])
    ground = Frame.ground(systems.Kinematics(ref.coordinates, ref.velocities, ref.A))
    wheel = ground.body_fixed((psi, theta), "zx", "lean").spinning(phi, "y", "disc")
    centre = Point.at(ground, (x, y, z), "centre")
    body = wheel.body("disc", m, sp.diag(m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), centre)
    holonomic, rolling = rolling_contact("contact", wheel, centre, r)
    lam = sp.symbols("N_c F_long F_lat", real=True)
    point, force = rolling_contact_force(wheel, centre, r, lam)
    disc = from_rigid_bodies("disc_from_frames", ref.coordinates, ref.velocities, ref.A, [body], gravity=(0, 0, -g),
                             holonomic=holonomic, nonholonomic=rolling, parameters=ref.parameters, multipliers=lam,
                             default_p=ref.default_p, default_v=ref.default_v,
                             visuals=[Visual("contact force", "arrow", (1.0,), point, end=force)])
    values = disc.parameter_dict
    traj = F.create("dependent", disc, backend="numpy").simulate((0.0, 1.0), rtol=1e-10, atol=1e-10,
                                                                 t_eval=np.linspace(0.0, 1.0, 4))
    friction = []
    for t, p, v in zip(traj.t, traj.p, traj.v):
        arrows, v_dot = _arrow_forces(disc, p, v, t)
        expected = values["m"] * (v_dot[:3] - np.array([0.0, 0.0, -values["g"]]))
        assert np.allclose(arrows["contact force"], expected, atol=1e-9), (t, arrows, expected)
        friction.append(np.hypot(*arrows["contact force"][:2]))
    assert max(friction) > 0.1  # the friction directions are exercised, not only the normal force


def test_the_bicycle_contact_forces_carry_its_weight_by_the_lever_rule():
    """Upright and straight at constant speed nothing accelerates: the ground pushes up on the wheels
    with N_F = g sum(m_i x_i) / w and N_R = M g - N_F (x_i the centres of mass ahead of the rear
    contact, Meijaard et al. 2007, Table 1), and no friction acts."""
    system = systems.load("bicycle")
    values = system.parameter_dict
    arrows, v_dot = _arrow_forces(system, *system.default_state())
    masses = [values[k] for k in ("m_R", "m_B", "m_H", "m_F")]
    ahead = [0.0, values["x_B"], values["x_H"], values["w"]]
    front = values["g"] * np.dot(masses, ahead) / values["w"]
    assert np.allclose(v_dot, 0.0, atol=1e-9)
    assert np.allclose(arrows["front contact force"], [0, 0, front], atol=1e-9)
    assert np.allclose(arrows["rear contact force"], [0, 0, values["g"] * sum(masses) - front], atol=1e-9)


def _body(inertia, rotation=True):
    x, y, z, th = sp.symbols("x y z theta", real=True)
    return RigidBody("block", 2.0, inertia, sp.Matrix([x, y, z]), rotation=sp.eye(3) if rotation else None,
                     angular_velocity=None if rotation else sp.Matrix([0, 0, th]))


def test_the_default_shape_has_the_mass_and_inertia_of_the_body():
    m, (a, b, c) = 2.0, (0.3, 0.2, 0.05)  # a solid ellipsoid: I_1 = m (b^2 + c^2) / 5, ...
    inertia = sp.diag(m * (b**2 + c**2) / 5, m * (a**2 + c**2) / 5, m * (a**2 + b**2) / 5)
    shape = Visual.of_inertia(_body(inertia))
    assert shape.kind == "ellipsoid"
    assert np.allclose([float(s) for s in shape.sizes], [a, b, c], rtol=1e-12)
    tilted = sp.Matrix([[1.0, 0.2, 0], [0.2, 2.0, 0], [0, 0, 1.5]])
    sphere = Visual.of_inertia(_body(tilted))  # principal axes not those of the body: the sphere of the trace
    r = float(sphere.sizes[0])
    assert sphere.kind == "sphere" and np.isclose(3 * 2 * m * r**2 / 5, 4.5)


def test_a_system_built_from_rigid_bodies_is_drawn_without_being_told_how():
    x, y, z, th = sp.symbols("x y z theta", real=True)
    vs = sp.symbols("v_x v_y v_z omega", real=True)
    R = sp.Matrix([[sp.cos(th), -sp.sin(th), 0], [sp.sin(th), sp.cos(th), 0], [0, 0, 1]])
    block = RigidBody("block", 1.0, sp.diag(0.1, 0.2, 0.25), sp.Matrix([x, y, z]), rotation=R,
                      angular_velocity=sp.Matrix([0, 0, vs[3]]))
    system = from_rigid_bodies("spinning block", (x, y, z, th), vs, sp.eye(4), [block], gravity=(0, 0, -9.81),
                               default_p=(0, 0, 1, 0), default_v=(0, 0, 0, 1))
    (pose,) = Poses(system).at((0.5, 0.0, 1.0, np.pi / 2))
    assert pose.kind == "ellipsoid" and pose.opacity < 1
    assert np.allclose(pose.position, [0.5, 0.0, 1.0])
    assert np.allclose(pose.rotation, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)


@pytest.mark.parametrize("arguments, message", [
    (("x", "cone", (1,), (0, 0, 0)), "expected one of"),
    (("x", "box", (1, 2), (0, 0, 0)), "takes 3 sizes"),
    (("x", "link", (0.1,), (0, 0, 0)), "needs its end point"),
    (("x", "arrow", (0.1,), (0, 0, 0)), "an arrow its vector"),
    (("x", "sphere", (0.1,), (0, 0)), "shape"),
])
def test_bad_visuals_are_refused_with_the_reason(arguments, message):
    with pytest.raises(ValueError, match=message):
        Visual(*arguments)
    with pytest.raises(ValueError, match="colour"):
        Visual("x", "sphere", (0.1,), (0, 0, 0), colour="red")


def test_a_system_refuses_visuals_posed_by_velocities_or_named_twice():
    disc = systems.load("rolling_disc")
    v_x = disc.velocities[0]
    moving = Visual("arrow", "sphere", (0.1,), (v_x, 0, 0))
    twice = Visual("disc", "sphere", (0.1,), (0, 0, 0))
    fields = {name: getattr(disc, name) for name in disc.__dataclass_fields__}
    with pytest.raises(systems.SystemDescriptionError) as info:
        systems.System(**(fields | {"visuals": disc.visuals + (moving, twice)}))
    assert "may depend on p, the parameters and t only" in str(info.value) and "two are named 'disc'" in str(info.value)


def test_poses_need_visuals():
    with pytest.raises(ValueError, match="has no visuals"):
        Poses(systems.load("pfaffian_exact"))


def test_the_slider_crank_rods_meet_at_the_pins_and_the_piston_stays_on_its_guide():
    system, states = _states("slider_crank", 0.3)
    poses = Poses(system)
    a, b = system.parameter_dict["a"], system.parameter_dict["b"]
    for t, p in states:
        crank, rod, piston, guide = poses.at(p, t)
        assert np.linalg.norm(crank.position) < 1e-9  # the pivot
        assert np.linalg.norm(crank.end - rod.position) < 1e-9 and np.linalg.norm(rod.end - piston.position) < 1e-9
        assert abs(np.linalg.norm(crank.end - crank.position) - a) < 1e-9
        assert abs(np.linalg.norm(rod.end - rod.position) - b) < 1e-9
        assert abs(piston.position[2]) < 1e-9 and np.allclose(piston.rotation, np.eye(3), atol=1e-9)


def test_systems_of_body_frames_draw_each_body_as_its_inertia_ellipsoid():
    # the heavy top is a solid box of sides (0.1, 0.2, 0.4) m: I_1 = m (b^2 + c^2) / 12, and the solid
    # ellipsoid of semi-axes (A, B, C) has I_1 = m (B^2 + C^2) / 5, so A = a sqrt(5 / 12), ...
    top = systems.load("heavy_top")
    body = top.bodies[0]
    system, states = _states("heavy_top", 0.3)
    for t, p in states:
        (pose,) = Poses(top).at(p, t)
        assert pose.kind == "ellipsoid" and pose.name == body.name
        assert np.allclose(pose.sizes, np.array([0.1, 0.2, 0.4]) * np.sqrt(5 / 12), rtol=1e-12)
        assert np.allclose(pose.position, p[list(body.position)], atol=1e-12)
        e = p[list(body.rotation)]
        e0, e1, e2, e3 = e / np.linalg.norm(e)
        R = np.array([[e0**2 + e1**2 - e2**2 - e3**2, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                      [2 * (e1 * e2 + e0 * e3), e0**2 - e1**2 + e2**2 - e3**2, 2 * (e2 * e3 - e0 * e1)],
                      [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0**2 - e1**2 - e2**2 + e3**2]])
        assert np.allclose(pose.rotation, R, atol=1e-9)


def test_the_upright_disc_touches_the_ground_and_the_pendulum_rod_holds_the_bob():
    system, states = _states("vertical_disc", 0.4)
    poses, r = Poses(system), system.parameter_dict["r"]
    for t, p in states:
        disc = poses.at(p, t)[0]
        assert abs(_lowest_rim_height(disc, r)) < 1e-9
        assert np.allclose(disc.position[:2], p[:2], atol=1e-12)  # above the contact point
    system, states = _states("pendulum_cartesian", 0.4)
    poses, L = Poses(system), system.parameter_dict["L"]
    for t, p in states:
        rod, bob, pivot = poses.at(p, t)
        assert np.allclose(rod.end, bob.position) and abs(np.linalg.norm(rod.end - pivot.position) - L) < 1e-9


def test_the_skate_stays_on_the_slope():
    system, states = _states("knife_edge", 0.4)
    poses = Poses(system)
    alpha = system.parameter_dict["alpha"]
    normal = np.array([np.sin(alpha), 0.0, np.cos(alpha)])  # of the slope through the origin
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        blade = at["blade"]
        assert abs(at["contact point"].position @ normal) < 1e-12  # the marked contact point is on the slope
        height = blade.sizes[2] / 2
        assert abs(blade.position @ normal - height) < 1e-12  # standing on the slope
        assert np.allclose(blade.rotation[:, 2], normal, atol=1e-12)


def test_the_bead_rides_its_turning_hoop_and_the_ball_rests_on_its_table():
    system, states = _states("bead_on_rotating_hoop", 0.4)
    poses = Poses(system)
    R, omega = system.parameter_dict["R"], system.parameter_dict["omega"]
    for t, p in states:
        hoop, axle, bead = poses.at(p, t)
        assert abs(np.linalg.norm(bead.position) - R) < 1e-9  # on the ring
        assert abs(bead.position @ hoop.rotation[:, 1]) < 1e-9  # in the hoop's plane at this time
        assert np.allclose(hoop.rotation[:, 1], [-np.sin(omega * t), np.cos(omega * t), 0.0], atol=1e-12)
    system, states = _states("ball_on_turntable", 0.4)
    poses, a = Poses(system), system.parameter_dict["a"]
    for t, p in states:
        sphere, band, table, marking = poses.at(p, t)
        top = table.position[2] + table.sizes[1] / 2
        assert abs(sphere.position[2] - a - top) < 1e-9  # touching the table's top
        assert np.allclose(table.rotation[:, 1], [0.0, 0.0, 1.0], atol=1e-12)  # the table's axis stands up


def test_the_four_bar_chain_hangs_from_its_pivots():
    system, states = _states("n_four_bar", 0.4)
    poses, L = Poses(system), system.parameter_dict["L"]
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        for i in range(5):
            crank = at[f"crank {i}"]
            assert np.allclose(crank.position, [i * L, 0, 0]) and abs(np.linalg.norm(crank.end - crank.position) - L) < 1e-9
        for i in range(1, 5):
            coupler = at[f"coupler {i}"]
            assert np.allclose(coupler.position, at[f"crank {i - 1}"].end) and np.allclose(coupler.end, at[f"crank {i}"].end)
            assert abs(np.linalg.norm(coupler.end - coupler.position) - L) < 1e-9


def test_rods_of_the_point_body_and_the_slider_cranks_keep_their_lengths():
    system, states = _states("four_point_body", 0.3)
    poses, edge = Poses(system), system.parameter_dict["edge"]
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        rods = [pose for pose in at.values() if pose.kind == "link"]
        assert len(rods) == 6 and all(abs(np.linalg.norm(r.end - r.position) - edge) < 1e-9 for r in rods)
        assert np.allclose(at["rod 1-2"].position, at["point 1"].position) and np.allclose(at["rod 1-2"].end,
                                                                                             at["point 2"].position)
    system, states = _states("triple_slider_crank", 0.3)
    poses = Poses(system)
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        assert abs(np.linalg.norm(at["crank rod"].end - at["crank rod"].position) - 1) < 1e-9
        assert abs(np.linalg.norm(at["slider rod"].end - at["slider rod"].position) - 2) < 1e-9
        assert np.allclose(at["crank rod"].end, at["slider 3"].position) and abs(at["slider 4"].position[0]) < 1e-12
    system, states = _states("driven_slider_crank", 0.3)
    poses, L = Poses(system), system.parameter_dict["L"]
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        assert np.linalg.norm(at["rod"].end - at["slider"].position) < 1e-9  # the rod's end on the slider
        assert abs(np.linalg.norm(at["bob"].position - at["slider"].position) - L) < 1e-12


def test_the_bricard_bars_close_their_loop():
    system, states = _states("bricard", 0.3)
    poses, L = Poses(system), system.parameter_dict["L"]
    for t, p in states:
        bars = [pose for pose in poses.at(p, t) if pose.kind == "link"]
        assert len(bars) == 5 and all(abs(np.linalg.norm(b.end - b.position) - L) < 1e-9 for b in bars)
        assert np.allclose(bars[0].position, 0.0) and np.allclose(bars[-1].end, [0.0, 0.0, L])
        assert all(np.allclose(a.end, b.position) for a, b in zip(bars, bars[1:]))


def test_the_governor_rods_hang_from_their_hinges_and_turn_with_the_shaft():
    system, states = _states("flyball_governor", 0.02)  # stiff: a short run
    poses, L, h = Poses(system), system.parameter_dict["L"], system.parameter_dict["h"]
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        psi = p[0]
        for i, side in ((1, 1), (2, -1)):
            rod = at[f"rod {i}"]
            assert abs(np.linalg.norm(rod.end - rod.position) - L) < 1e-9 and np.allclose(rod.end, at[f"ball {i}"].position)
            assert np.allclose(rod.position, [side * h * np.cos(psi), side * h * np.sin(psi), L], atol=1e-12)
            assert np.allclose(at[f"spring-damper {i}"].position, (rod.position + rod.end) / 2)


def test_andrews_bodies_meet_at_the_pinned_point():
    system, states = _states("andrews_squeezer", 0.003)
    poses = Poses(system)
    for t, p in states:
        at = {pose.name: pose for pose in poses.at(p, t)}
        E = at["rod"].end  # from the crank's side
        for name in ("body 3 (from B)", "body 4 (Phi)", "body 6 (Omega)"):
            assert np.linalg.norm(at[name].end - E) < 1e-9, name
        assert np.allclose(at["body 4 (Phi)"].position, at["body 5 (delta)"].end)

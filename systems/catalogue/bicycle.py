"""The Whipple-Carvallo bicycle: rear frame with rider, front fork with handlebar, two thin wheels
rolling without slip on level ground, no steer torque, no rider control.

Four rigid bodies built with the frame helpers (systems.builders.frames, systems.builders.contact).
World axes x forward, y left, z up (Meijaard's are x forward, y right, z down: their heights z_B,
z_H are negative and their products of inertia I_Bxz, I_Hxz change sign here). Coordinates
p = (x, y, z, psi, phi, theta, delta, theta_R, theta_F): the rear wheel centre, yaw, roll (lean to
the left positive), pitch of the rear frame (0 in the reference configuration), steer, and the
wheels' rotations relative to the rear frame and the fork. v = (v_1, v_2, v_3, psi', phi',
theta', delta', theta_R', theta_F'): the rear wheel centre's velocity in the rear frame's axes,
then the angle rates, so that no velocity is expressed through the whole chain of rotations.

The frames compose link by link: yaw psi about z, roll phi about the new x, pitch theta about the
new y (the rear frame), the steer axis tilted back by lambda from the rear frame's z, steer delta
about it; each wheel spins about its carrier's y axis, and being symmetric keeps its carrier's
axes.

Constraints (the multipliers are forces of the ground on each wheel at its contact point):
  rear normal force, front normal force            (holonomic: minus the contact heights)
  rear / front longitudinal friction force          (no slip along the wheel's rolling direction)
  rear / front lateral friction force               (no slip across it)
so n = 9, m = 2, l = 4 and r = 3 (roll, steer and forward speed). The upright straight motion at
forward speed v (all angles 0, rear wheel centre at height r_R, wheel spin rates v / r_R and
v / r_F) is a steady motion for every v: the default state, whose speed is the parameter v
(``systems.load("bicycle", v=4.0)``; ``formulations.stability("bicycle", None, "v", ...)`` sweeps it).

Parameters and their defaults: the benchmark of J. P. Meijaard, J. M. Papadopoulos, A. Ruina and
A. L. Schwab, "Linearized dynamics equations for the balance and steer of a bicycle: a benchmark
and review", Proc. R. Soc. A 463 (2007) 1955-1982, Table 1. Its linearized motion is stable
between the weave speed 4.292382536 m/s and the capsize speed 6.024262015 m/s (Table 2).
"""
import sympy as sp

from ..builders.contact import rolling_contact, rolling_contact_force
from ..builders.frames import Frame, Point, axis_rotation
from ..builders.rigid_body import Kinematics, from_rigid_bodies
from ..contacts import Contact
from ..description import Parameter
from ..visuals import Visual

NAME = "bicycle"

# Meijaard et al. (2007), Table 1: symbol, value, unit, meaning (their axes: z down)
BENCHMARK = (
    ("w", 1.02, "m", "wheel base", "positive"),
    ("c", 0.08, "m", "trail", "real"),
    ("lam", float(sp.pi / 10), "rad", "steer axis tilt (pi/2 - head angle)", "real"),
    ("g", 9.81, "m/s^2", "gravitational acceleration", "positive"),
    ("v", 5.0, "m/s", "forward speed of the default state (the upright straight motion)", "real"),
    ("r_R", 0.3, "m", "rear wheel radius", "positive"),
    ("m_R", 2.0, "kg", "rear wheel mass", "positive"),
    ("I_Rxx", 0.0603, "kg m^2", "rear wheel diametral moment of inertia", "positive"),
    ("I_Ryy", 0.12, "kg m^2", "rear wheel axial moment of inertia", "positive"),
    ("x_B", 0.3, "m", "rear body centre of mass, ahead of the rear contact", "real"),
    ("z_B", -0.9, "m", "rear body centre of mass, below the ground (Meijaard's z down: minus its height)", "real"),
    ("m_B", 85.0, "kg", "rear body (frame and rider) mass", "positive"),
    ("I_Bxx", 9.2, "kg m^2", "rear body inertia xx about its centre", "positive"),
    ("I_Byy", 11.0, "kg m^2", "rear body inertia yy", "positive"),
    ("I_Bzz", 2.8, "kg m^2", "rear body inertia zz", "positive"),
    ("I_Bxz", 2.4, "kg m^2", "rear body inertia xz (Meijaard's axes)", "real"),
    ("x_H", 0.9, "m", "front assembly centre of mass, ahead of the rear contact", "real"),
    ("z_H", -0.7, "m", "front assembly centre of mass, below the ground (minus its height)", "real"),
    ("m_H", 4.0, "kg", "front assembly (fork and handlebar) mass", "positive"),
    ("I_Hxx", 0.05892, "kg m^2", "front assembly inertia xx about its centre", "positive"),
    ("I_Hyy", 0.06, "kg m^2", "front assembly inertia yy", "positive"),
    ("I_Hzz", 0.00708, "kg m^2", "front assembly inertia zz", "positive"),
    ("I_Hxz", -0.00756, "kg m^2", "front assembly inertia xz (Meijaard's axes)", "real"),
    ("r_F", 0.35, "m", "front wheel radius", "positive"),
    ("m_F", 3.0, "kg", "front wheel mass", "positive"),
    ("I_Fxx", 0.1405, "kg m^2", "front wheel diametral moment of inertia", "positive"),
    ("I_Fyy", 0.28, "kg m^2", "front wheel axial moment of inertia", "positive"),
)


def _symbols():
    return {name: sp.Symbol(name, **{kind: True}) for name, _, _, _, kind in BENCHMARK}


def _inertia(xx, yy, zz, xz_meijaard):
    """Inertia matrix in x forward, y left, z up axes from Meijaard's (z down) components."""
    return sp.Matrix([[xx, 0, -xz_meijaard], [0, yy, 0], [-xz_meijaard, 0, zz]])


def build():
    s = _symbols()
    x, y, z, psi, phi, theta, delta, th_R, th_F = p = sp.symbols(
        "x y z psi phi theta delta theta_R theta_F", real=True)
    v_centre = sp.symbols("v_1 v_2 v_3", real=True)
    v = v_centre + tuple(sp.Symbol(f"{q.name}_dot", real=True) for q in p[3:])
    R_B = axis_rotation("z", psi) * axis_rotation("x", phi) * axis_rotation("y", theta)
    A = sp.diag(R_B, sp.eye(6))  # (x, y, z)' = R_B (v_1, v_2, v_3)
    kin = Kinematics(p, v, A)
    ground = Frame.ground(kin)
    rear_frame = ground.body_fixed((psi, phi, theta), "zxy", "rear frame")
    steer_axis = rear_frame.rotated(-s["lam"], "y", "steer axis")  # z along the steer axis, tilted back
    fork = steer_axis.rotated(delta, "z", "fork")
    rear_wheel = rear_frame.spinning(th_R, "y", "rear wheel")
    front_wheel = fork.spinning(th_F, "y", "front wheel")

    rear_centre = Point.moving(rear_frame, (x, y, z), v_centre, "rear wheel centre")
    r_R, r_F, w, c = s["r_R"], s["r_F"], s["w"], s["c"]
    # offsets from the rear wheel centre in the reference configuration (rear contact at the origin)
    rear_body_centre = rear_centre.located(rear_frame, (s["x_B"], 0, -s["z_B"] - r_R), "rear body centre")
    steer_point = rear_centre.located(rear_frame, (w + c, 0, -r_R), "steer axis on the ground")
    to_fork = axis_rotation("y", -s["lam"]).T  # rear frame -> fork components at zero steer
    front_body_centre = steer_point.located(fork, to_fork * sp.Matrix([s["x_H"] - w - c, 0, -s["z_H"]]),
                                            "front assembly centre")
    front_centre = steer_point.located(fork, to_fork * sp.Matrix([-c, 0, r_F]), "front wheel centre")

    I_H = to_fork * _inertia(s["I_Hxx"], s["I_Hyy"], s["I_Hzz"], s["I_Hxz"]) * to_fork.T
    bodies = [
        rear_wheel.body("rear wheel", s["m_R"], sp.diag(s["I_Rxx"], s["I_Ryy"], s["I_Rxx"]), rear_centre),
        rear_frame.body("rear body", s["m_B"], _inertia(s["I_Bxx"], s["I_Byy"], s["I_Bzz"], s["I_Bxz"]),
                        rear_body_centre),
        fork.body("front assembly", s["m_H"], I_H, front_body_centre),
        front_wheel.body("front wheel", s["m_F"], sp.diag(s["I_Fxx"], s["I_Fyy"], s["I_Fxx"]), front_centre),
    ]
    rear_h, rear_nh = rolling_contact("rear", rear_wheel, rear_centre, r_R)
    front_h, front_nh = rolling_contact("front", front_wheel, front_centre, r_F)
    speed = s["v"]
    lam = sp.symbols("lambda_1:7", real=True)  # rear N, front N, rear long, rear lat, front long, front lat
    contacts = [rolling_contact_force(rear_wheel, rear_centre, r_R, (lam[0], lam[2], lam[3])),
                rolling_contact_force(front_wheel, front_centre, r_F, (lam[1], lam[4], lam[5]))]
    weight = s["g"] * sum(body.mass for body in bodies)
    return from_rigid_bodies(
        NAME, p, v, A, bodies, gravity=(0, 0, -s["g"]), holonomic=rear_h + front_h,
        nonholonomic=rear_nh + front_nh, multipliers=lam,
        contacts=[Contact(f"{wheel} normal force", (f"{wheel} longitudinal friction force",
                                                    f"{wheel} lateral friction force"), name=f"{wheel} wheel")
                  for wheel in ("rear", "front")],  # perfectly rough: the benchmark gives no friction coefficient
        parameters=[Parameter(s[name], value, unit, meaning) for name, value, unit, meaning, _ in BENCHMARK],
        default_p=(0, 0, r_R, 0, 0, 0, 0, 0, 0), default_v=(speed, 0, 0, 0, 0, 0, 0, speed / r_R, speed / r_F),
        independent_velocities=("phi_dot", "delta_dot", "theta_R_dot"), description=__doc__,
        reference="Meijaard, Papadopoulos, Ruina & Schwab (2007), Proc. R. Soc. A 463, 1955-1982", simplify=False,
        visuals=_visuals(s, bodies, (th_R, th_F), (rear_centre, front_centre), steer_point, steer_axis, fork)
        + _contact_visuals(contacts, 1 / weight))


def _visuals(s, bodies, spins, centres, steer_point, steer_axis, fork):
    """Wheels as rings with a bar that turns with their spin angle, the rear frame and the fork as
    rods to the top of the head tube (on the steer axis, 0.9 m above its ground point), a handlebar,
    the two bodies' inertia ellipsoids and the ground."""
    rear, rear_body, front_body, front = bodies
    head = steer_point.located(steer_axis, (0, 0, 0.9), "head tube top")
    bar = [head.located(fork, (0, side * 0.3, 0), f"handlebar end {i}") for i, side in enumerate((-1, 1))]
    visuals = []
    for wheel, spin, radius, colour in ((rear, spins[0], s["r_R"], "#2c3e50"), (front, spins[1], s["r_F"], "#2c3e50")):
        visuals += [Visual.on_body(wheel, "torus", (radius, radius / 18), colour=colour),
                    Visual.on_body(wheel, "box", (1.9 * radius, radius / 25, radius / 10), rotation=axis_rotation("y", spin),
                                   colour="#d68910", name=f"{wheel.name} spoke")]
    rod = s["r_R"] / 20
    visuals += [Visual("rear frame", "link", (rod,), centres[0].position, end=head.position, colour="#c0392b"),
                Visual("fork", "link", (rod,), centres[1].position, end=head.position, colour="#7d3c98"),
                Visual("handlebar", "link", (rod,), bar[0].position, end=bar[1].position, colour="#7d3c98"),
                Visual.of_inertia(rear_body, colour="#e6b0aa"), Visual.of_inertia(front_body, colour="#d2b4de"),
                Visual("ground", "plane", (4.0,), (0, 0, 0), colour="#bfc9ca")]
    return tuple(visuals)


def _contact_visuals(contacts, scale):
    """Each wheel's contact point (to trail: its track on the ground) and the ground's force on it,
    the bicycle's whole weight drawn 1 m long (``scale`` in m per N)."""
    visuals = []
    for wheel, (point, force) in zip(("rear", "front"), contacts):
        visuals += [Visual(f"{wheel} contact", "point", (0.02,), point, colour="#2c3e50"),
                    Visual(f"{wheel} contact force", "arrow", (scale,), point, end=force, colour="#c0392b")]
    return tuple(visuals)

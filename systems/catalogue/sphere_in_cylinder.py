"""A homogeneous sphere rolling without slipping inside a fixed, rough, vertical cylinder.

p = (x, y, z, e0, e1, e2, e3): centre G and orientation as Euler parameters (a unit quaternion,
so no orientation is singular: the sphere spins through all of them); v = (v_x, v_y, v_z,
omega_x, omega_y, omega_z): centre velocity and angular velocity, both in world axes. p has one
more entry than v; A is tall, and the unit norm is kept by the kinematics and renormalization.

Sphere radius a, inertia k m a^2 about any diameter (k = 2/5 solid, 2/3 thin shell), cylinder
radius R > a, z vertical. Constraints (multipliers are forces on the sphere at the contact point):
  wall normal force      Phi = sqrt(x^2 + y^2) - (R - a)   (the reaction points at the axis)
  azimuthal friction force  (no slip along e_phi)
  vertical friction force   (no slip along e_z)
The wall is a declared contact (systems.Contact, friction coefficient mu): every run says where
the wall would have to pull or friction would not suffice.

Seen from above the centre circles at a constant rate Omega; seen from the side it rises and falls
as a sinusoid of angular frequency Omega sqrt(k / (1 + k)), independent of a and R (the paradox of
the basketball that rolls on the rim, sinks and comes back out). The default state starts at
z = 0 with Omega = 10 rad/s and no spin about the radial axis: the centre sinks by 2 g / (k
Omega^2) and returns.

Reference: W. Blajer, "A geometrical framework for modeling and simulation of nonholonomic
mechanical systems"; Neimark & Fufaev, Dynamics of Nonholonomic Systems.
"""
import sympy as sp

from ..builders.rigid_body import Kinematics, RigidBody, from_rigid_bodies
from ..contacts import Contact
from ..description import Embedding, Parameter
from ..visuals import Visual
from ._rotations import quaternion_rates_world, rotation_from_quaternion

NAME = "sphere_in_cylinder"
AZIMUTH_RATE = 10.0  # rad/s, default state


def build():
    x, y, z = sp.symbols("x y z", real=True)
    e = sp.symbols("e0:4", real=True)
    vx, vy, vz, wx, wy, wz = sp.symbols("v_x v_y v_z omega_x omega_y omega_z", real=True)
    m, a, R, k, g = sp.symbols("m a R k g", positive=True)
    p, v = (x, y, z, *e), (vx, vy, vz, wx, wy, wz)
    A = sp.diag(sp.eye(3), quaternion_rates_world(e))
    sphere = RigidBody("sphere", m, k * m * a**2 * sp.eye(3), sp.Matrix([x, y, z]),
                       angular_velocity=sp.Matrix([wx, wy, wz]), axes="world")
    kin = Kinematics(p, v, A)
    rho = sp.sqrt(x**2 + y**2)
    e_rho = sp.Matrix([x, y, 0]) / rho
    e_phi = sp.Matrix([-y, x, 0]) / rho
    r_GP = a * e_rho
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(a, 0.1, "m", "sphere radius"),
              Parameter(R, 0.5, "m", "cylinder radius"),
              Parameter(k, 0.4, "1", "inertia factor, I = k m a^2"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(sp.Symbol("mu", nonnegative=True), 0.6, "", "friction coefficient at the wall (checked after "
                        "each run, not enforced)"))
    alpha, zq = sp.symbols("alpha z_q", real=True)
    eq = sp.symbols("e0:4", real=True)
    w = sp.symbols("alpha_dot z_dot omega_x omega_y omega_z", real=True)
    embedding = Embedding(coordinates=(alpha, zq, *eq),
                          g=sp.Matrix([(R - a) * sp.cos(alpha), (R - a) * sp.sin(alpha), zq, *eq]),
                          inverse=sp.Matrix([sp.atan2(y, x), z, *e]), velocities=w,
                          A_q=sp.diag(sp.eye(2), quaternion_rates_world(eq)), unit_norm_blocks=((2, 3, 4, 5),))
    Omega = AZIMUTH_RATE
    lam = sp.symbols("lambda_N lambda_phi lambda_z", real=True)
    contact = sp.Matrix([x, y, z]) + r_GP
    force = -lam[0] * e_rho + lam[1] * e_phi + lam[2] * sp.Matrix([0, 0, 1])  # the wall's, on the sphere
    return from_rigid_bodies(
        NAME, p, v, A, [sphere], gravity=(0, 0, -g),
        holonomic=[("wall normal force", rho - (R - a))],
        nonholonomic=[("azimuthal friction force", kin.reaction_row(sphere, r_GP, e_phi)),
                      ("vertical friction force", kin.reaction_row(sphere, r_GP, sp.Matrix([0, 0, 1])))],
        parameters=params, multipliers=lam,
        contacts=[Contact("wall normal force", ("azimuthal friction force", "vertical friction force"), "mu",
                          name="wall")],
        default_p=(R - a, 0, 0, 1, 0, 0, 0),
        default_v=(0, (R - a) * Omega, 0, 0, 0, -(R - a) * Omega / a),
        embedding=embedding,
        unit_norm_blocks=((3, 4, 5, 6),), description=__doc__,
        reference="Blajer (sphere in a cylinder); Neimark & Fufaev",
        visuals=_visuals((x, y, z), rotation_from_quaternion(e), a, R, contact, force, a / (2 * m * g)))


def _visuals(centre, rotation, a, R, contact, force, scale):
    """The sphere, a band on it that turns with it (R(e) of the Euler parameters), the contact point
    (to trail: its path on the wall), the wall's force on the sphere (``scale`` m per N: the weight
    drawn a / 2 long) and the wall: a cylinder of radius R from 10 a below the start to 10 a above."""
    return (Visual("sphere", "sphere", (a,), centre, rotation, colour="#2471a3"),
            Visual("band", "torus", (a, a / 12), centre, rotation, colour="#d68910"),
            Visual("contact point", "point", (a / 20,), contact, colour="#2c3e50"),
            Visual("contact force", "arrow", (scale,), contact, end=force, colour="#c0392b"),
            Visual("wall", "wall", (R, 20 * a), (0, 0, -10 * a), colour="#bfc9ca", opacity=0.35))

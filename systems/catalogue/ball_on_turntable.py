"""A homogeneous sphere rolling without slipping on a horizontal table that turns at a constant rate.

p = (x, y, z, e0, e1, e2, e3): centre G and orientation as Euler parameters; v = (v_x, v_y, v_z,
omega_x, omega_y, omega_z): centre velocity and angular velocity, both in world axes. The table
turns about the vertical axis through the origin at the rate ``omega`` (parameter, rad/s), so its
surface moves with velocity omega e_z x r under the contact point P = G - a e_z. Constraints
(multipliers are forces on the sphere at P):
  normal force            Phi = a - z                        (minus the height of P above the table)
  friction force x, y     (v_P - omega e_z x r_P) . e_x, e_y = 0   (no slip on the moving surface)
The two rolling rows are affine in v: C_nh v + c_nh = 0 with c_nh = omega (y, -x), the velocity of
the table under P (a time-free but affine constraint: it does work on the sphere).
The contact is declared (systems.Contact, friction coefficient mu): every run says where friction
would not suffice to keep the sphere rolling.

Closed form (e.g. Weltner, Am. J. Phys. 47, 1979; Neimark & Fufaev): with inertia k m a^2 about a
diameter, the centre velocity obeys v_G' = (k / (1 + k)) omega e_z x v_G, so the centre circles
about a fixed point at the rate (k / (1 + k)) omega = (2/7) omega for the solid sphere (k = 2/5),
whatever a and m; the centre of that circle is r_G + e_z x v_G / ((2/7) omega). The default state
puts the sphere at (0.3, 0) moving at 0.2 m/s along y.

Reference: Neimark & Fufaev, Dynamics of Nonholonomic Systems; W. Weltner, "Stable circular orbits
of freely moving balls on rotating discs", Am. J. Phys. 47 (1979) 984.
"""
import sympy as sp

from ..builders.rigid_body import Kinematics, RigidBody, from_rigid_bodies
from ..contacts import Contact
from ..description import TIME, Embedding, Parameter
from ..visuals import Visual
from ._rotations import Rx, Rz, quaternion_rates_world, rotation_from_quaternion

NAME = "ball_on_turntable"
START = (0.3, 0.0, 0.0, 0.2)  # x, y (m), v_x, v_y (m/s) of the default state


def build():
    x, y, z = sp.symbols("x y z", real=True)
    e = sp.symbols("e0:4", real=True)
    vx, vy, vz, wx, wy, wz = sp.symbols("v_x v_y v_z omega_x omega_y omega_z", real=True)
    m, a, g = sp.symbols("m a g", positive=True)
    omega = sp.Symbol("omega", real=True)
    p, v = (x, y, z, *e), (vx, vy, vz, wx, wy, wz)
    A = sp.diag(sp.eye(3), quaternion_rates_world(e))
    sphere = RigidBody("sphere", m, sp.Rational(2, 5) * m * a**2 * sp.eye(3), sp.Matrix([x, y, z]),
                       angular_velocity=sp.Matrix([wx, wy, wz]), axes="world")
    kin = Kinematics(p, v, A)
    r_GP = sp.Matrix([0, 0, -a])
    table = omega * sp.Matrix([-y, x, 0])  # the table's velocity under P
    e_x, e_y = sp.Matrix([1, 0, 0]), sp.Matrix([0, 1, 0])
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(a, 0.1, "m", "sphere radius"),
              Parameter(omega, 2.0, "rad/s", "turning rate of the table"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(sp.Symbol("mu", nonnegative=True), 0.5, "", "friction coefficient on the table (checked after "
                        "each run, not enforced)"))
    xq, yq = sp.symbols("x_q y_q", real=True)
    eq = sp.symbols("e0:4", real=True)
    w = sp.symbols("x_q_dot y_q_dot omega_x omega_y omega_z", real=True)
    embedding = Embedding(coordinates=(xq, yq, *eq), g=sp.Matrix([xq, yq, a, *eq]),
                          inverse=sp.Matrix([x, y, *e]), velocities=w,
                          A_q=sp.diag(sp.eye(2), quaternion_rates_world(eq)), unit_norm_blocks=((2, 3, 4, 5),))
    x0, y0, vx0, vy0 = START
    return from_rigid_bodies(
        NAME, p, v, A, [sphere], gravity=(0, 0, -g),
        holonomic=[("normal force", a - z)],
        nonholonomic=[("friction force x", kin.reaction_row(sphere, r_GP, e_x) + table[0]),
                      ("friction force y", kin.reaction_row(sphere, r_GP, e_y) + table[1])],
        parameters=params, multipliers=sp.symbols("lambda_N lambda_x lambda_y", real=True),
        contacts=[Contact("normal force", ("friction force x", "friction force y"), "mu", name="table")],
        default_p=(x0, y0, a, 1, 0, 0, 0),
        # rolling on the table: v_x - a omega_y = -omega y, v_y + a omega_x = omega x
        default_v=(vx0, vy0, 0, (omega * x0 - vy0) / a, (vx0 + omega * y0) / a, 0),
        embedding=embedding, unit_norm_blocks=((3, 4, 5, 6),), description=__doc__,
        reference="Neimark & Fufaev; Weltner, Am. J. Phys. 47 (1979)",
        visuals=_visuals((x, y, z), rotation_from_quaternion(e), a, omega * TIME))


def _visuals(centre, rotation, a, turned):
    """The sphere with a band that turns with it, and the table (radius 12 a, its top at z = 0) with a
    bar across it that turns with it by ``turned`` (omega t)."""
    size = 12 * a
    table = Rz(turned)
    return (Visual("sphere", "sphere", (a,), centre, rotation, colour="#2471a3"),
            Visual("band", "torus", (a, a / 12), centre, rotation, colour="#d68910"),
            Visual("table", "cylinder", (size, a / 5), (0, 0, -a / 10), table * Rx(sp.pi / 2), colour="#bfc9ca"),
            Visual("table marking", "box", (2 * size, a / 2, a / 4), (0, 0, -a / 10), table, colour="#7d3c98"))

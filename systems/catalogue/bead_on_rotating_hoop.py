"""A bead sliding without friction on a circular hoop that is turned about its vertical diameter at a
prescribed constant rate.

p = (x, y, z): the bead's position (origin at the hoop's centre, z up); v = p'. The hoop (radius R)
lies at time t in the vertical plane through the z axis with normal n(t) = (-sin(omega t),
cos(omega t), 0), turned at the rate ``omega`` (parameter, rad/s) by a motor that does whatever
work it takes. Rheonomic holonomic constraints (multipliers are forces on the bead):
  hoop side force      Phi = x sin(omega t) - y cos(omega t)   (the force is lambda n(t))
  hoop normal force    Phi = (x^2 + y^2 + z^2 - R^2) / (2 R)  (the force points at the centre)
Embedding p = g(theta, t) = (R sin(theta) cos(omega t), R sin(theta) sin(omega t), -R cos(theta)),
theta measured from the lowest point, so v = g_theta theta' + g_t moves with the hoop.

Closed form: in the hoop's frame R theta'' = (omega^2 R cos(theta) - g) sin(theta). For
omega^2 R > g the bead has a relative equilibrium off the bottom at cos(theta*) = g / (omega^2 R);
linearized about it, R eta'' = R omega^2 (cos(2 theta*) - cos(theta*)^2) eta = -R omega^2
sin(theta*)^2 eta, so it oscillates at the angular frequency Omega = omega sin(theta*). The energy
E = m |v|^2 / 2 + m g z is not conserved: the hoop's side force does the work lambda_1 Phi_t. The
default state releases the bead at theta = 1 rad at rest relative to the hoop.

Reference: the bead on a rotating hoop, e.g. Goldstein, Poole & Safko, Classical Mechanics, 3rd ed.,
section 2.6; J. R. Taylor, Classical Mechanics, section 7.8.
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import TIME, Embedding, Parameter
from ..visuals import Visual
from ._rotations import Rz

NAME = "bead_on_rotating_hoop"
THETA0 = 1.0  # rad, default state (released at rest relative to the hoop)


def build():
    x, y, z = sp.symbols("x y z", real=True)
    m, R, g = sp.symbols("m R g", positive=True)
    omega = sp.Symbol("omega", real=True)
    t = TIME
    T = m * sum(s**2 for s in sp.symbols("x_dot y_dot z_dot", real=True)) / 2
    th = sp.Symbol("theta", real=True)
    g_of_q = sp.Matrix([R * sp.sin(th) * sp.cos(omega * t), R * sp.sin(th) * sp.sin(omega * t), -R * sp.cos(th)])
    params = (Parameter(m, 0.1, "kg", "bead mass"), Parameter(R, 0.5, "m", "hoop radius"),
              Parameter(omega, 6.0, "rad/s", "turning rate of the hoop"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    at0 = {th: THETA0, t: 0}
    default_v = tuple(sp.diff(e, t).subs(at0) for e in g_of_q)  # theta' = 0: the hoop carries the bead
    return from_lagrangian(
        NAME, (x, y, z), T, m * g * z,
        holonomic=[("hoop side force", x * sp.sin(omega * t) - y * sp.cos(omega * t)),
                   ("hoop normal force", (x**2 + y**2 + z**2 - R**2) / (2 * R))],
        parameters=params, default_p=tuple(e.subs(at0) for e in g_of_q), default_v=default_v,
        embedding=Embedding(coordinates=(th,), g=g_of_q,
                            inverse=sp.Matrix([sp.atan2(x * sp.cos(omega * t) + y * sp.sin(omega * t), -z)])),
        description=__doc__, reference="Goldstein, Poole & Safko, Classical Mechanics, sec. 2.6",
        visuals=(Visual("hoop", "torus", (R, R / 60), (0, 0, 0), Rz(omega * t), colour="#5d6d7e"),
                 Visual("axle", "link", (R / 80,), (0, 0, -sp.Rational(13, 10) * R), end=(0, 0, sp.Rational(13, 10) * R),
                        colour="#2c3e50"),
                 Visual("bead", "sphere", (R / 15,), (x, y, z), colour="#c0392b")))

"""A knife edge (skate) on an inclined plane.

p = (x, y, phi): contact point in plane coordinates, x pointing down the slope, and the heading
phi of the blade measured from the x axis; v = p'. The plane is inclined at angle alpha; gravity
pulls down the slope with g sin(alpha). The blade cannot move sideways:
  lateral blade force   sin(phi) x' - cos(phi) y' = 0  (multiplier: force along the blade normal)

Closed form (Bloch, Nonholonomic Mechanics and Control, section 1.6): released at rest with
phi(0) = 0 and phi'(0) = w, phi = w t and
  x = g sin(alpha) / (2 w^2) sin^2(w t),   y = g sin(alpha) / (2 w^2) (w t - sin(2 w t) / 2):
the skate does not slide down the slope on average but drifts across it. The turning rate phi' is
conserved (the blade force has no moment about the normal), and so is the energy.

Named speeds (quasi-velocities for the minimal formulation): forward_speed = cos(phi) x' +
sin(phi) y' along the blade and turning_rate = phi', regular at every heading, where each
partition of (x', y', phi') is singular at some heading.

Inputs (zero by default): a forward force F along the blade and a steering torque tau about the
normal, the controls of a cart or a unicycle in motion planning.
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual
from ._rotations import Ry, Rz
from ._shapes import blade_force

NAME = "knife_edge"
SPIN = 2.0  # rad/s, default phi'


def build():
    x, y, phi = sp.symbols("x y phi", real=True)
    xd, yd, phid = sp.symbols("x_dot y_dot phi_dot", real=True)
    m, J, g, alpha = sp.symbols("m J g alpha", positive=True)
    F, tau = sp.symbols("F tau", real=True)
    T = m / 2 * (xd**2 + yd**2) + J / 2 * phid**2
    V = -m * g * sp.sin(alpha) * x
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(J, 0.1, "kg m^2", "moment of inertia about the normal"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(alpha, 0.3, "rad", "inclination of the plane"),
              Parameter(F, 0.0, "N", "forward force along the blade (an input)"),
              Parameter(tau, 0.0, "N m", "steering torque about the normal (an input)"))
    lam = sp.Symbol("lambda_1", real=True)
    return from_lagrangian(
        NAME, (x, y, phi), T, V, velocities=(xd, yd, phid), multipliers=(lam,),
        forces=(F * sp.cos(phi), F * sp.sin(phi), tau),
        nonholonomic=[("lateral blade force", sp.sin(phi) * xd - sp.cos(phi) * yd)],
        parameters=params, default_p=(0, 0, 0), default_v=(0, 0, SPIN),
        invariants=[("turning rate", phid)],  # the blade force has no moment about the normal
        speeds={"forward_speed": sp.cos(phi) * xd + sp.sin(phi) * yd, "turning_rate": phid},
        description=__doc__,
        reference="Bloch, Nonholonomic Mechanics and Control, 2003, section 1.6",
        visuals=_visuals(x, y, phi, alpha, m * g, lam))


def _visuals(x, y, phi, alpha, weight, lam):
    """The blade on the slope: plane coordinates turned by the inclination about the y axis (x down
    the slope); the contact point (to trail: the skate's track) and the slope's sideways force on
    the blade (-lambda (sin phi, -cos phi) in plane axes, the weight drawn one blade length long);
    and the slope itself as a thin board."""
    tilt = Ry(alpha)
    length = sp.Rational(3, 10)
    on_slope = tilt * sp.Matrix([x, y, length / 12])
    contact, force = tilt * sp.Matrix([x, y, 0]), blade_force(phi, lam)
    return (Visual("blade", "box", (length, length / 20, length / 6), on_slope, tilt * Rz(phi), colour="#2471a3"),
            Visual("contact point", "point", (length / 40,), contact, colour="#2c3e50"),
            Visual("blade force", "arrow", (length / weight,), contact, end=tilt * force, colour="#c0392b"),
            Visual("slope", "box", (4, 4, sp.Rational(1, 100)), tilt * sp.Matrix([1, 0, -sp.Rational(1, 200)]), tilt,
                   colour="#bfc9ca"))

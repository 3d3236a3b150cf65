"""A disc held upright, rolling without slipping on a horizontal plane.

p = (x, y, theta, phi): contact point, heading and spin angle; v = p'. Radius r, mass m; moments
of inertia m r^2 / 4 about the vertical diameter and m r^2 / 2 about the axle. Rolling without
slipping (multipliers are friction forces at the contact, along and across the heading):
  longitudinal friction force   cos(theta) x' + sin(theta) y' - r phi' = 0
  lateral friction force       -sin(theta) x' + cos(theta) y' = 0
Heading rate and spin rate are constant; the contact point runs on a circle of radius
r phi' / theta' (Bloch, Nonholonomic Mechanics and Control, section 1.4).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ._shapes import ground, upright_disc

NAME = "vertical_disc"


def build():
    x, y, th, ph = sp.symbols("x y theta phi", real=True)
    xd, yd, thd, phd = sp.symbols("x_dot y_dot theta_dot phi_dot", real=True)
    m, r = sp.symbols("m r", positive=True)
    T = m / 2 * (xd**2 + yd**2) + m * r**2 / 8 * thd**2 + m * r**2 / 4 * phd**2
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(r, 0.5, "m", "radius"))
    c, s = sp.cos(th), sp.sin(th)
    return from_lagrangian(
        NAME, (x, y, th, ph), T, 0, velocities=(xd, yd, thd, phd),
        nonholonomic=[("longitudinal friction force", -(c * xd + s * yd - r * phd)),
                      ("lateral friction force", -(-s * xd + c * yd))],
        parameters=params, default_p=(0, 0, 0, 0), default_v=(2 * r, 0, 1, 2),
        invariants=[("heading rate", thd), ("spin rate", phd)],
        independent_velocities=("theta_dot", "phi_dot"), description=__doc__,
        reference="Bloch, Nonholonomic Mechanics and Control, 2003, section 1.4",
        visuals=upright_disc(x, y, th, ph, r) + (ground(4 * r),))

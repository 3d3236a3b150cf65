"""A spherical pendulum whose rod is written as a Pfaffian (velocity) constraint.

p = (x, y, z): bob position, z up; v = p'. The rod is given only at velocity level,
  rod reaction   x x' + y y' + z z' = 0,
a form that is exact: it is d(phi) with phi = (x^2 + y^2 + z^2) / 2, so the constraint is
holonomic (the bob keeps its initial distance from the pivot). The constraint analysis recovers
phi. The multiplier is the rod force divided by the distance to the pivot (N/m).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter

NAME = "pfaffian_exact"


def build():
    x, y, z = sp.symbols("x y z", real=True)
    xd, yd, zd = sp.symbols("x_dot y_dot z_dot", real=True)
    m, g = sp.symbols("m g", positive=True)
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    s, c = sp.sin(sp.Rational(1, 2)), sp.cos(sp.Rational(1, 2))
    return from_lagrangian(
        NAME, (x, y, z), m / 2 * (xd**2 + yd**2 + zd**2), m * g * z, velocities=(xd, yd, zd),
        nonholonomic=[("rod reaction", x * xd + y * yd + z * zd)], parameters=params,
        default_p=(s, 0, -c), default_v=(0, 1, 0), independent_velocities=("x_dot", "y_dot"),
        description=__doc__, reference="Bona, Generalized coordinates and constraints (exact forms)")

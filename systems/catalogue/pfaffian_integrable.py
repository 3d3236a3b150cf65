"""A particle held in a vertical half-plane through the z axis by a Pfaffian constraint.

p = (x, y, z), z up; v = p'. The constraint
  guide normal reaction   y x' - x y' = 0
is not exact (d(y dx - x dy) = -2 dx ^ dy), but it has an integrating factor: divided by
x^2 + y^2 it becomes -d(atan2(y, x)), so the azimuth stays constant and the constraint is
holonomic. The analysis finds the factor and the integral. The multiplier is the force normal to
the half-plane divided by the distance to the axis (N/m).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter

NAME = "pfaffian_integrable"


def build():
    x, y, z = sp.symbols("x y z", real=True)
    xd, yd, zd = sp.symbols("x_dot y_dot z_dot", real=True)
    m, g = sp.symbols("m g", positive=True)
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    return from_lagrangian(
        NAME, (x, y, z), m / 2 * (xd**2 + yd**2 + zd**2), m * g * z, velocities=(xd, yd, zd),
        nonholonomic=[("guide normal reaction", y * xd - x * yd)], parameters=params,
        default_p=(1, 1, 0), default_v=(1, 1, 2), independent_velocities=("x_dot", "z_dot"),
        description=__doc__, reference="Bona, Generalized coordinates and constraints (integrating factors)")

"""A planar pendulum in Cartesian coordinates (holonomic; for teaching).

p = (x, y): bob position, y up; v = p'. A massless rod of length L holds the bob:
  rod tension   Phi = sqrt(x^2 + y^2) - L   (the reaction points at the pivot)
Embedding q = (angle,) measured from the downward vertical: x = L sin(angle), y = -L cos(angle).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Embedding, Parameter
from ._shapes import point_pendulum

NAME = "pendulum_cartesian"


def build():
    x, y = sp.symbols("x y", real=True)
    m, L, g = sp.symbols("m L g", positive=True)
    xd, yd = sp.symbols("x_dot y_dot", real=True)
    th = sp.Symbol("angle", real=True)
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(L, 1.0, "m", "rod length"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    theta0 = sp.Rational(1, 2)
    return from_lagrangian(
        NAME, (x, y), m / 2 * (xd**2 + yd**2), m * g * y, velocities=(xd, yd),
        holonomic=[("rod tension", sp.sqrt(x**2 + y**2) - L)], parameters=params,
        default_p=(L * sp.sin(theta0), -L * sp.cos(theta0)), default_v=(0, 0),
        embedding=Embedding(coordinates=(th,), g=sp.Matrix([L * sp.sin(th), -L * sp.cos(th)]),
                            inverse=sp.Matrix([sp.atan2(x, -y)])),
        description=__doc__, reference="any textbook",
        visuals=point_pendulum(x, y, L))

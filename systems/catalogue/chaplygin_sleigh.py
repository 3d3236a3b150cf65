"""The Chaplygin sleigh: a planar body on a knife edge, its centre of mass ahead of the blade.

p = (x, y, theta): blade contact point P and heading; v = p'. The centre of mass G lies a
distance a ahead of P along the heading. The blade cannot slip sideways:
  lateral blade force   sin(theta) x' - cos(theta) y' = 0

With u the forward speed of P and w = theta', the motion obeys m u' = m a w^2 and
(I + m a^2) w' = -m a u w: energy is conserved, the turning rate decays and the sleigh settles to
straight motion (Bloch, Nonholonomic Mechanics and Control, section 1.7; Chaplygin 1911).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual
from ._rotations import Rz
from ._shapes import blade, blade_force, ground

NAME = "chaplygin_sleigh"


def build():
    x, y, th = sp.symbols("x y theta", real=True)
    xd, yd, thd = sp.symbols("x_dot y_dot theta_dot", real=True)
    m, I, a = sp.symbols("m I a", positive=True)
    vG = sp.Matrix([xd - a * sp.sin(th) * thd, yd + a * sp.cos(th) * thd])
    T = m / 2 * (vG.T * vG)[0, 0] + I / 2 * thd**2
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(I, 0.1, "kg m^2", "moment of inertia about G"),
              Parameter(a, 0.5, "m", "distance of G ahead of the blade"))
    lam = sp.Symbol("lambda_1", real=True)
    return from_lagrangian(
        NAME, (x, y, th), T, 0, velocities=(xd, yd, thd), multipliers=(lam,),
        nonholonomic=[("lateral blade force", sp.sin(th) * xd - sp.cos(th) * yd)],
        parameters=params, default_p=(0, 0, 0), default_v=(1, 0, 1),
        description=__doc__,
        reference="Bloch, Nonholonomic Mechanics and Control, 2003, section 1.7",
        visuals=(Visual("body", "box", (2 * a, a, a / 10), (x + a * sp.cos(th), y + a * sp.sin(th), a / 5), Rz(th),
                        colour="#d68910", opacity=0.8),
                 blade(x, y, th, a / 2), ground(4 * a),
                 # the ground's sideways force on the blade, m times 1 m/s^2 drawn a long
                 Visual("contact point", "point", (a / 40,), (x, y, 0), colour="#2c3e50"),
                 Visual("blade force", "arrow", (a / m,), (x, y, 0), end=blade_force(th, lam),
                        colour="#c0392b")))

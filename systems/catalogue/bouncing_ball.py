"""A ball dropped onto the ground: impacts with Newton's restitution e, the bounces shrinking in a
geometric series until it rests.

p = (z,), the height of the ball's centre; v = (z',). Mass m, radius a; the ground is z = a.

Contact (systems.Contact "ground force", frictionless, restitution e):
  ground force    Phi = a - z  (gap g = z - a >= 0; the force pushes the ball up)

Dropped from rest at a drop height h (the default state: its lowest point h above the ground),
it hits at T1 = sqrt(2 h / g) at speed sqrt(2 g h) and leaves at e times that; the k-th impact comes
at T1 (1 + 2 e + ... + 2 e^(k-1)), and the impacts accumulate at T1 (1 + e) / (1 - e), where it
rests: infinitely many impacts in finite time. formulations.simulate_contacts ends the series where
a bounce leaves slower than its rest speed (event-driven) or takes every impact of a step at once
(scheme="moreau-jean").

Reference: the classic example of Zeno behaviour of impacting systems (e.g. Brogliato, Nonsmooth
Mechanics, 3rd ed., Springer 2016, section 1.3).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual

NAME = "bouncing_ball"


def build():
    z, zd = sp.Symbol("z", real=True), sp.Symbol("z_dot", real=True)
    m, a, g, h = sp.symbols("m a g h", positive=True)
    e = sp.Symbol("e", nonnegative=True)
    params = (Parameter(m, 0.06, "kg", "mass"), Parameter(a, 0.033, "m", "radius"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(e, 0.5, "", "coefficient of restitution"),
              Parameter(h, 1.0, "m", "drop height of the lowest point (the default state)"))
    return from_lagrangian(
        NAME, (z,), m * zd**2 / 2, m * g * z, velocities=(zd,), parameters=params,
        unilateral=[("ground force", z - a, "e")], default_p=(a + h,), default_v=(0,), description=__doc__,
        reference="Brogliato, Nonsmooth Mechanics (2016), section 1.3",
        visuals=(Visual("ball", "sphere", (a,), (0, 0, z), colour="#d68910"),
                 Visual("ground", "plane", (10 * a,), (0, 0, 0), colour="#bfc9ca")))

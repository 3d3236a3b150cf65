"""A rod standing on one end on a rough floor tips over: it pivots on that end, slides once friction
no longer holds it, and its other end strikes the floor.

Planar: p = (x, y, theta), the centre and the angle from the vertical (theta > 0 leans towards +x);
v = p'. Mass m, length L, inertia m L^2 / 12. The lower end A = (x - (L/2) sin theta,
y - (L/2) cos theta), the upper end B = (x + (L/2) sin theta, y + (L/2) cos theta).

Contacts (systems.Contact):
  A normal force    Phi = (L/2) cos(theta) - y    (gap y_A >= 0), restitution e
  A friction force  (L/2) cos(theta) theta' - x'  (no slip of A; the force acts along +x), mu
  B normal force    Phi = -(L/2) cos(theta) - y   (gap y_B >= 0), restitution e, frictionless

B is frictionless so that the rod lying flat keeps independent rows: with friction at both ends its
two friction forces would share one horizontal balance, statically indeterminate.

Released from rest at theta0, the rod pivots on A (while it sticks) with
theta'^2 = (3 g / L)(cos theta0 - cos theta); the floor's forces on A are
N = m g - (m L / 2)(theta'' sin theta + theta'^2 cos theta) and
F = (m L / 2)(theta'' cos theta - theta'^2 sin theta), theta'' = (3 g / (2 L)) sin theta, and A
starts to slide where |F| = mu N. On a frictionless floor (mu = 0) the centre falls straight down.

Reference: the falling rod (ladder) problem, e.g. Routh, Dynamics of a System of Rigid Bodies,
elementary part (1905); for its slip and lift-off, Shegelski & Goodvin, Am. J. Phys. 73 (2005).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual
from ._rotations import Ry

NAME = "falling_rod"


def build():
    x, y, th = sp.symbols("x y theta", real=True)
    xd, yd, thd = sp.symbols("x_dot y_dot theta_dot", real=True)
    m, L, g = sp.symbols("m L g", positive=True)
    mu, e, tilt = sp.Symbol("mu", nonnegative=True), sp.Symbol("e", nonnegative=True), sp.Symbol("theta_0", real=True)
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(L, 1.0, "m", "length"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(mu, 0.3, "", "friction coefficient at the end A"),
              Parameter(e, 0.0, "", "restitution of both ends"),
              Parameter(tilt, 0.3, "rad", "the angle from the vertical at release (the default state)"))
    half = L / 2
    T = m * (xd**2 + yd**2) / 2 + m * L**2 / 12 * thd**2 / 2
    rod = Visual("rod", "box", (L / 30, L / 30, L), (x, 0, y), rotation=Ry(th), colour="#7d3c98")
    return from_lagrangian(
        NAME, (x, y, th), T, m * g * y, velocities=(xd, yd, thd), parameters=params,
        unilateral=[("A normal force", y - half * sp.cos(th), "e"), ("B normal force", y + half * sp.cos(th), "e")],
        nonholonomic=[("A friction force", half * sp.cos(th) * thd - xd)],
        friction=[("A normal force", ["A friction force"], "mu")],
        default_p=(half * sp.sin(tilt), half * sp.cos(tilt), tilt), default_v=(0, 0, 0), description=__doc__,
        reference="Routh (1905), the falling rod; Shegelski & Goodvin, Am. J. Phys. 73 (2005)",
        visuals=(rod, Visual("end A", "point", (L / 40,), (x - half * sp.sin(th), 0, y - half * sp.cos(th)),
                             colour="#2c3e50"),
                 Visual("ground", "plane", (3 * L,), (0, 0, 0), colour="#bfc9ca")))

"""A solid ball launched on a rough horizontal plane: it slides, friction turns the slip into spin,
and it rolls on.

Planar: p = (x, z, phi), the centre's position and the turning angle about the horizontal axis y
(phi' > 0 rolls towards +x); v = p'. Mass m, radius a, inertia (2/5) m a^2 about the centre.

Contact (systems.Contact "normal force", friction coefficient mu, restitution e):
  normal force    Phi = a - z  (gap g = z - a >= 0; the force pushes the ball up)
  friction force  a phi' - x'  (no slip at the contact point; the force acts along +x)

Launched at speed v0 without spin, the ball slides while Coulomb's force mu m g takes speed and
gives spin, until a phi' = x' at t = 2 v0 / (7 mu g), a distance 12 v0^2 / (49 mu g) on; it rolls
at 5 v0 / 7 from then on (the angular momentum about the contact point, m a v0, is kept through
the slide). Its default state is this launch (parameter v_0 = 2 m/s); run it with
formulations.simulate_contacts, which lets the friction row go while it slides. The family
"launched" sets the speed and a spin (negative: backspin, which can bring it back).

Reference: the classic billiard-ball problem (e.g. Routh, Dynamics of a System of Rigid Bodies,
elementary part, 1905, on the motion of a ball on a rough table).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..families import StateFamily, StateVariable
from ..visuals import Visual
from ._rotations import Ry

NAME = "sliding_ball"


def build():
    x, z, phi = sp.symbols("x z phi", real=True)
    xd, zd, phid = sp.symbols("x_dot z_dot phi_dot", real=True)
    m, a, g = sp.symbols("m a g", positive=True)
    mu, e = sp.Symbol("mu", nonnegative=True), sp.Symbol("e", nonnegative=True)
    v0 = sp.Symbol("v_0", real=True)
    params = (Parameter(m, 0.17, "kg", "mass"), Parameter(a, 0.028, "m", "radius"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(mu, 0.2, "", "friction coefficient between ball and plane"),
              Parameter(e, 0.0, "", "restitution of the plane"),
              Parameter(v0, 2.0, "m/s", "launch speed along x, without spin (the default state)"))
    T = m * (xd**2 + zd**2) / 2 + sp.Rational(2, 5) * m * a**2 * phid**2 / 2
    ball = Visual("ball", "sphere", (a,), (x, 0, z), rotation=Ry(phi), colour="#c0392b")
    band = Visual("band", "box", (2.02 * a, a / 6, a / 2), (x, 0, z), rotation=Ry(phi), colour="#f4f6f7")
    return from_lagrangian(
        NAME, (x, z, phi), T, m * g * z, velocities=(xd, zd, phid), parameters=params,
        unilateral=[("normal force", z - a, "e")], nonholonomic=[("friction force", a * phid - xd)],
        friction=[("normal force", ["friction force"], "mu")], default_p=(0, a, 0), default_v=(v0, 0, 0),
        description=__doc__, reference="Routh, Dynamics of a System of Rigid Bodies (1905): the ball on a rough table",
        families=(LAUNCHED,), visuals=(ball, band, Visual("ground", "plane", (40 * a,), (0, 0, 0), colour="#bfc9ca")))


def _launched(system, values):
    a = system.parameter_dict["a"]
    return (0.0, a, 0.0), (values["speed"], 0.0, values["spin"]), ("x", "z", "phi", "x_dot", "z_dot", "phi_dot")


LAUNCHED = StateFamily(
    "launched", (StateVariable("speed", 2.0, "m/s", "initial speed along x"),
                 StateVariable("spin", 0.0, "rad/s", "initial spin phi' (negative: backspin)")),
    _launched, "launched along x with a given speed and spin")

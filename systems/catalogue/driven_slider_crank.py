"""A slider-crank whose crank is driven at a constant rate, with a pendulum hanging from the slider.

p = (theta, phi, s, psi): crank angle, rod angle, slider position along x, pendulum angle from the
downward vertical; v = p'. Crank (length a, uniform bar about its pivot at the origin), rod (length
b > a, uniform bar) and slider (on the x axis) close the loop; a motor holds the crank angle at
theta = omega t (``omega`` a parameter, rad/s). Rheonomic holonomic constraints (multipliers are
forces and the motor's torque on the mechanism):
  slider pin force x     Phi = a cos(theta) + b cos(phi) - s
  slider pin force y     Phi = a sin(theta) + b sin(phi)
  crank driving torque   Phi = omega t - theta
so the crank, rod and slider move as prescribed, whatever the pendulum does, and the pendulum
(a point mass on a massless rod of length L) is the one degree of freedom: a pendulum on a support
moving along x. The motor does work on it: E is not conserved.

Closed form of the prescribed part: theta = omega t, phi = -asin(a sin(omega t) / b),
s = a cos(omega t) + sqrt(b^2 - a^2 sin(omega t)^2). Embedding q = (psi,), p = g(psi, t).
Default: a = 0.1 m, b = 0.3 m, omega = 5 rad/s, the pendulum released at psi = 0.3 rad.

Reference: the slider-crank (e.g. Haug, Computer-Aided Kinematics and Dynamics of Mechanical
Systems, driving constraints, section 3.3); the pendulum with a moving support, e.g. Landau &
Lifshitz, Mechanics, section 5.
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import TIME, Embedding, Parameter
from ..visuals import Visual

NAME = "driven_slider_crank"
PSI0 = 0.3  # rad, default state


def prescribed(a, b, omega, t, sin=sp.sin, cos=sp.cos, asin=sp.asin, sqrt=sp.sqrt):
    """(theta, phi, s) of the driven mechanism at time t (sympy by default; pass numpy functions for
    numbers)."""
    return omega * t, -asin(a * sin(omega * t) / b), a * cos(omega * t) + sqrt(b**2 - a**2 * sin(omega * t) ** 2)


def build():
    th, ph, s, ps = p = sp.symbols("theta phi s psi", real=True)
    thd, phd, sd, psd = sp.symbols("theta_dot phi_dot s_dot psi_dot", real=True)
    a, b, L, m1, m2, m3, m4, g = sp.symbols("a b L m1 m2 m3 m4 g", positive=True)
    omega = sp.Symbol("omega", real=True)
    t = TIME
    rod_centre = sp.Matrix([a * sp.cos(th) + b / 2 * sp.cos(ph), a * sp.sin(th) + b / 2 * sp.sin(ph)])
    rod_rate = rod_centre.jacobian([th, ph]) * sp.Matrix([thd, phd])
    bob_rate = sp.Matrix([sd + L * sp.cos(ps) * psd, L * sp.sin(ps) * psd])
    T = (m1 * a**2 / 3 * thd**2 + m2 * (rod_rate.dot(rod_rate)) + m2 * b**2 / 12 * phd**2 + m3 * sd**2
         + m4 * bob_rate.dot(bob_rate)) / 2
    V = g * (m1 * a / 2 * sp.sin(th) + m2 * rod_centre[1] - m4 * L * sp.cos(ps))
    theta_t, phi_t, s_t = prescribed(a, b, omega, t)
    g_of_q = sp.Matrix([theta_t, phi_t, s_t, ps])
    params = (Parameter(a, 0.1, "m", "crank length"), Parameter(b, 0.3, "m", "rod length"),
              Parameter(L, 0.2, "m", "pendulum length"), Parameter(omega, 5.0, "rad/s", "crank rate"),
              Parameter(m1, 1.0, "kg", "crank mass"), Parameter(m2, 1.0, "kg", "rod mass"),
              Parameter(m3, 1.0, "kg", "slider mass"), Parameter(m4, 0.5, "kg", "pendulum bob mass"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    at0 = {t: 0, ps: PSI0}
    return from_lagrangian(
        NAME, p, T, V, velocities=(thd, phd, sd, psd),
        holonomic=[("slider pin force x", a * sp.cos(th) + b * sp.cos(ph) - s),
                   ("slider pin force y", a * sp.sin(th) + b * sp.sin(ph)),
                   ("crank driving torque", omega * t - th)],
        parameters=params, default_p=tuple(sp.simplify(e.subs(at0)) for e in g_of_q),
        default_v=tuple(sp.simplify(sp.diff(e, t).subs(at0)) for e in g_of_q),
        embedding=Embedding(coordinates=(ps,), g=g_of_q, inverse=sp.Matrix([ps])),
        description=__doc__, reference="Haug, Computer-Aided Kinematics and Dynamics (driving constraints)",
        visuals=_visuals(th, ph, s, ps, a, b, L))


def _visuals(th, ph, s, ps, a, b, L):
    """Crank and rod as rods, the slider as a block, the pendulum's rod and bob, in the vertical x-z
    plane of a 3D scene (the mechanism's y is the scene's z)."""
    pin = (a * sp.cos(th), 0, a * sp.sin(th))
    bob = (s + L * sp.sin(ps), 0, -L * sp.cos(ps))
    return (Visual("crank", "link", (a / 12,), (0, 0, 0), end=pin, colour="#c0392b"),
            Visual("rod", "link", (a / 14,), pin, end=(a * sp.cos(th) + b * sp.cos(ph), 0, a * sp.sin(th) + b * sp.sin(ph)),
                   colour="#2471a3"),
            Visual("slider", "box", (a, a / 2, a / 2), (s, 0, 0), colour="#d68910"),
            Visual("pendulum rod", "link", (a / 30,), (s, 0, 0), end=bob, colour="#5d6d7e"),
            Visual("bob", "sphere", (a / 4,), bob, colour="#7d3c98"))

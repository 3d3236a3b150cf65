"""Small systems whose contacts let go, with closed-form motions (tests/test_contact_runs.py)."""
import sympy as sp

import systems

P = systems.Parameter


def sliding_ball(v0=2.0, mu=0.2):
    """The catalogue's ball launched along x at v0 without spin on a plane of friction mu: it slides
    until t = 2 v0 / (7 mu g), a distance 12 v0^2 / (49 mu g), then rolls at 5 v0 / 7."""
    return systems.load("sliding_ball", v_0=v0, mu=mu)


def bouncing_ball(h=1.0, e=0.5, radius=0.033):
    """The catalogue's ball dropped from rest with its lowest point h above the ground (its centre at
    z = radius + h), restitution e: impacts at T1 (1 + 2 e + ... + 2 e^(k-1)), T1 = sqrt(2 h / g), at
    rest from T1 (1 + e) / (1 - e)."""
    return systems.load("bouncing_ball", h=h, e=e, a=radius)


def particle_on_sphere(v0=0.1):
    """A particle sliding without friction over the top of a sphere of radius R, in its vertical
    plane: the normal force m g (3 cos(theta) - 2) - m v0^2 / R vanishes at
    cos(theta) = (2 + v0^2 / (g R)) / 3, where it leaves the sphere (gap rho - R >= 0)."""
    x, y = sp.symbols("x y", real=True)
    m, g, R = sp.symbols("m g R", positive=True)
    xd, yd = sp.symbols("x_dot y_dot", real=True)
    params = (P(m, 1.0, "kg", "mass"), P(g, 9.81, "m/s^2", "gravity"), P(R, 1.0, "m", "sphere radius"))
    return systems.from_lagrangian("particle_on_sphere", (x, y), m * (xd**2 + yd**2) / 2, m * g * y,
                                   unilateral=[("normal force", sp.sqrt(x**2 + y**2) - R)], parameters=params,
                                   default_p=(0, R), default_v=(v0, 0))


def rocking_block(b=0.5, h=2.0, tilt=0.1):
    """A slender block (half-width b, half-height h) standing on its corner A, tilted by ``tilt``: it
    falls onto corner B. Frictionless corners with e = 0."""
    x, y, th = sp.symbols("x y theta", real=True)
    xd, yd, thd = sp.symbols("x_dot y_dot theta_dot", real=True)
    m, g = sp.symbols("m g", positive=True)
    inertia = (b**2 + h**2) / 3
    corner_A = y - b * sp.sin(th) - h * sp.cos(th)
    corner_B = y + b * sp.sin(th) - h * sp.cos(th)
    return systems.from_lagrangian(
        "rocking_block", (x, y, th), m * (xd**2 + yd**2) / 2 + m * inertia * thd**2 / 2, m * g * y,
        parameters=(P(m, 1.0, "kg", "mass"), P(g, 9.81, "m/s^2", "gravity")),
        unilateral=[("A", corner_A), ("B", corner_B)],
        default_p=(0, b * sp.sin(tilt) + h * sp.cos(tilt), tilt), default_v=(0, 0, 0))

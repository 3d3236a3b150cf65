"""A planar n-link pendulum in absolute coordinates, for scaling studies.

p = (x1, y1, theta1, ..., xn, yn, thetan): the centre and angle (from the downward vertical) of
every link; v = p'. Uniform links of mass m and length L (J = m L^2 / 12), y up, gravity along -y.
The top of link 1 is pinned at the origin and the top of link i to the bottom of link i - 1:
  joint i horizontal force, joint i vertical force   (two rows per joint; the multipliers are the
  forces on link i from the link above, or from the support)
so 3n - 2n = n degrees of freedom remain. A motor at the support turns link 1 with the torque tau
(an input, zero by default: with n = 1 the torque-driven swing-up, with n = 2 the Pendubot).
Embedding q = (theta1, ..., thetan). ``n`` is a build
option: systems.load("n_pendulum", n=5). Drawn as rods in the vertical x-z plane of a 3D scene (the
plane's y is the scene's z).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Embedding, Parameter
from ..visuals import Visual

NAME = "n_pendulum"


def build(n=3):
    if not (isinstance(n, int) and n >= 1):
        raise ValueError(f"n_pendulum got n={n!r} but expected a whole number >= 1")
    m, L, g = sp.symbols("m L g", positive=True)
    tau = sp.Symbol("tau", real=True)
    p, v, T, V, holonomic = [], [], sp.S.Zero, sp.S.Zero, []
    bottom = sp.Matrix([0, 0])
    thetas = sp.symbols(f"theta1:{n + 1}", real=True)
    g_pos, above, visuals = [], sp.Matrix([0, 0]), []
    for i in range(n):
        x, y = sp.symbols(f"x{i + 1} y{i + 1}", real=True)
        th = thetas[i]
        xd, yd, thd = sp.symbols(f"x{i + 1}_dot y{i + 1}_dot theta{i + 1}_dot", real=True)
        p += [x, y, th]
        v += [xd, yd, thd]
        T += m * (xd**2 + yd**2) / 2 + m * L**2 / 24 * thd**2
        V += m * g * y
        half = sp.Matrix([sp.sin(th), -sp.cos(th)]) * L / 2
        top = sp.Matrix([x, y]) - half
        holonomic += [(f"joint {i + 1} horizontal force", bottom[0] - top[0]),
                      (f"joint {i + 1} vertical force", bottom[1] - top[1])]
        bottom = sp.Matrix([x, y]) + half
        visuals.append(Visual(f"link {i + 1}", "link", (L / 25,), (top[0], 0, top[1]), end=(bottom[0], 0, bottom[1])))
        centre = above + sp.Matrix([sp.sin(th), -sp.cos(th)]) * L / 2
        g_pos += [centre[0], centre[1], th]
        above = above + sp.Matrix([sp.sin(th), -sp.cos(th)]) * L
    angles = [sp.Rational(1, 2) * (-1) ** i for i in range(n)]
    at = dict(zip(thetas, angles))
    return from_lagrangian(
        NAME, p, T, V, velocities=v, holonomic=holonomic, forces=[tau if j == 2 else 0 for j in range(3 * n)],
        parameters=(Parameter(m, 1.0, "kg", "mass of a link"), Parameter(L, 1.0, "m", "length of a link"),
                    Parameter(g, 9.81, "m/s^2", "gravity"),
                    Parameter(tau, 0.0, "N m", "torque of the motor at the support on link 1 (an input)")),
        default_p=tuple(e.subs(at) for e in g_pos), default_v=(0,) * (3 * n),
        embedding=Embedding(coordinates=thetas, g=sp.Matrix(g_pos), inverse=sp.Matrix(p[2::3])),
        description=__doc__, reference="a standard benchmark of multibody codes",
        visuals=tuple(visuals) + (Visual("pivot", "sphere", (L / 15,), (0, 0, 0), colour="#5d6d7e"),))

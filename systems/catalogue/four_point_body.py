"""A rigid body made of four point masses held by six distance constraints (Bona).

p = (x1, y1, z1, ..., x4, y4, z4): the four positions; v = p'. Every pair of points is held at its
initial distance by a massless rod:
  rod force i-j   Phi_ij = |r_i - r_j| - L_ij      (six rows; the reaction pulls the pair together)
so 12 - 6 = 6 degrees of freedom remain: the body's translation and rotation. The points sit at
the corners of a regular tetrahedron of edge `edge`, each of mass m, under gravity; the default
motion is a throw with a spin. No embedding: reduced, minimal and manifold run on charts.
Reference: B. Bona, "Generalized coordinates and constraints" (the 4-point rigid body).
"""
import itertools

import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual

NAME = "four_point_body"


def build():
    xyz = sp.symbols("x1 y1 z1 x2 y2 z2 x3 y3 z3 x4 y4 z4", real=True)
    vel = sp.symbols("x1_dot y1_dot z1_dot x2_dot y2_dot z2_dot x3_dot y3_dot z3_dot x4_dot y4_dot z4_dot",
                     real=True)
    m, g, a = sp.symbols("m g edge", positive=True)
    r = [sp.Matrix(xyz[3 * i: 3 * i + 3]) for i in range(4)]
    v = [sp.Matrix(vel[3 * i: 3 * i + 3]) for i in range(4)]
    T = sum((m * (vi.T * vi)[0, 0] / 2 for vi in v), sp.S.Zero)
    V = sum((m * g * ri[2] for ri in r), sp.S.Zero)
    # a regular tetrahedron of edge a, centred at the origin
    corners = [sp.Matrix([1, 1, 1]), sp.Matrix([1, -1, -1]), sp.Matrix([-1, 1, -1]), sp.Matrix([-1, -1, 1])]
    corners = [c * a / (2 * sp.sqrt(2)) for c in corners]
    omega, drift = sp.Matrix([0, 0, 3]), sp.Matrix([1, 0, 2])  # spin 3 rad/s, thrown sideways and up
    holonomic = [(f"rod force {i + 1}-{j + 1}", sp.sqrt(((r[i] - r[j]).T * (r[i] - r[j]))[0, 0]) - a)
                 for i, j in itertools.combinations(range(4), 2)]
    return from_lagrangian(
        NAME, xyz, T, V, velocities=vel, holonomic=holonomic,
        parameters=(Parameter(m, 1.0, "kg", "mass of each point"), Parameter(g, 9.81, "m/s^2", "gravity"),
                    Parameter(a, 1.0, "m", "edge of the tetrahedron", alias="edge")),
        default_p=tuple(x for c in corners for x in c),
        default_v=tuple(x for c in corners for x in (drift + omega.cross(c))),
        description=__doc__, reference="Bona, Generalized coordinates and constraints",
        visuals=tuple(Visual(f"point {i + 1}", "sphere", (a / 12,), r[i], colour="#c0392b") for i in range(4))
        + tuple(Visual(f"rod {i + 1}-{j + 1}", "link", (a / 60,), r[i], end=r[j], colour="#5d6d7e")
                for i, j in itertools.combinations(range(4), 2)))

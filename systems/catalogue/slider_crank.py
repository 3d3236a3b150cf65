"""The planar slider-crank in absolute coordinates: crank, connecting rod and piston.

p = (x1, y1, phi1, x2, y2, phi2, x3, y3, phi3): centre and angle of crank, rod and piston; v = p'.
The crank (length a) turns about the origin, the rod (length b > a) joins the crank's end P2 to
the piston, and the piston slides on the x axis:
  crank pivot force x, y       (the crank's end at the origin)
  crank pin force x, y         (crank and rod share P2)
  piston pin force x, y        (rod and piston share the piston's centre)
  piston normal force, piston guide moment   (y3 = 0, phi3 = 0)
so 9 - 8 = 1 degree of freedom. Uniform bars (J = m L^2 / 12), gravity along -y, no driving torque:
the mechanism turns freely and conserves its energy. The paper this benchmark comes from
(Paraskevopoulos, Potosakis & Natsiavas) does not give its numbers in the text we have; these are
chosen as physically sensible ones: a = 0.1 m, b = 0.3 m, crank, rod and piston 1 kg each, crank
released horizontal at 10 rad/s. Embedding q = (phi1,). Drawn in the vertical x-z plane of a 3D
scene (the mechanism's y is the scene's z).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Embedding, Parameter
from ..visuals import Visual

NAME = "slider_crank"
CRANK_RATE = 10.0  # rad/s, default state


def build():
    names = [f"{c}{i}" for i in range(1, 4) for c in ("x", "y", "phi")]
    p = sp.symbols(" ".join(names), real=True)
    v = sp.symbols(" ".join(f"{n}_dot" for n in names), real=True)
    x1, y1, f1, x2, y2, f2, x3, y3, f3 = p
    a, b, m1, m2, m3, g = sp.symbols("a b m1 m2 m3 g", positive=True)
    bars = [(m1, m1 * a**2 / 12), (m2, m2 * b**2 / 12), (m3, m3 * b**2 / 12)]
    T = sum(((m * (v[3 * i] ** 2 + v[3 * i + 1] ** 2) + J * v[3 * i + 2] ** 2) / 2
             for i, (m, J) in enumerate(bars)), sp.S.Zero)
    V = g * (m1 * y1 + m2 * y2 + m3 * y3)
    e1 = sp.Matrix([sp.cos(f1), sp.sin(f1)])
    e2 = sp.Matrix([sp.cos(f2), sp.sin(f2)])
    crank_end, P2_crank = sp.Matrix([x1, y1]) - a / 2 * e1, sp.Matrix([x1, y1]) + a / 2 * e1
    P2_rod, P3_rod = sp.Matrix([x2, y2]) - b / 2 * e2, sp.Matrix([x2, y2]) + b / 2 * e2
    holonomic = [("crank pivot force x", -crank_end[0]), ("crank pivot force y", -crank_end[1]),
                 ("crank pin force x", P2_crank[0] - P2_rod[0]), ("crank pin force y", P2_crank[1] - P2_rod[1]),
                 ("piston pin force x", P3_rod[0] - x3), ("piston pin force y", P3_rod[1] - y3),
                 ("piston normal force", -y3), ("piston guide moment", -f3)]
    th = sp.Symbol("theta", real=True)
    rod = sp.atan2(-a * sp.sin(th), sp.sqrt(b**2 - a**2 * sp.sin(th) ** 2))
    P2 = a * sp.Matrix([sp.cos(th), sp.sin(th)])
    g_of_q = sp.Matrix([a / 2 * sp.cos(th), a / 2 * sp.sin(th), th,
                        P2[0] + b / 2 * sp.cos(rod), P2[1] + b / 2 * sp.sin(rod), rod,
                        P2[0] + b * sp.cos(rod), 0, 0])
    w = CRANK_RATE
    at0 = {th: 0}
    qdot0 = [sp.simplify(sp.diff(e, th).subs(at0) * w) for e in g_of_q]
    params = (Parameter(a, 0.1, "m", "crank length"), Parameter(b, 0.3, "m", "rod length"),
              Parameter(m1, 1.0, "kg", "crank mass"), Parameter(m2, 1.0, "kg", "rod mass"),
              Parameter(m3, 1.0, "kg", "piston mass"), Parameter(g, 9.81, "m/s^2", "gravity"))
    return from_lagrangian(
        NAME, p, T, V, velocities=v, holonomic=holonomic, parameters=params,
        default_p=tuple(sp.simplify(e.subs(at0)) for e in g_of_q), default_v=tuple(qdot0),
        embedding=Embedding(coordinates=(th,), g=g_of_q, inverse=sp.Matrix([f1])),
        description=__doc__, reference="after Paraskevopoulos, Potosakis & Natsiavas (numbers chosen here)",
        visuals=_visuals((crank_end, P2_crank), (P2_rod, P3_rod), (x3, y3, f3), a, b))


def _visuals(crank, rod, piston, a, b):
    """Crank and rod as rods between their joints, the piston as a block turned by phi3, the guide;
    in the vertical x-z plane of a 3D scene (the mechanism's y is the scene's z)."""
    x3, y3, f3 = piston
    turn = sp.Matrix([[sp.cos(f3), 0, -sp.sin(f3)], [0, 1, 0], [sp.sin(f3), 0, sp.cos(f3)]])
    return (Visual("crank", "link", (a / 12,), (crank[0][0], 0, crank[0][1]), end=(crank[1][0], 0, crank[1][1]),
                   colour="#c0392b"),
            Visual("rod", "link", (a / 14,), (rod[0][0], 0, rod[0][1]), end=(rod[1][0], 0, rod[1][1]), colour="#2471a3"),
            Visual("piston", "box", (a, a / 2, a / 2), (x3, 0, y3), turn, colour="#d68910"),
            Visual("guide", "box", (2 * (a + b), a / 4, a / 20), (b, 0, -a / 4 - a / 40), colour="#bfc9ca"))

"""IFToMM benchmark A05: the stiff flyball governor, Watt's governor with spring-damper couplers.

A vertical shaft (angle psi about z, free, spinning at 2 pi rad/s at the start) carries two rods of
length L hinged at (+-h, 0, L) in the shaft's frame, with a ball of mass m_ball at each rod's end,
and a slider at height s on the shaft. Each rod's midpoint is tied to the slider's side (+-h, 0, s)
by a spring-damper (stiffness K, damping C, rest length L / 2) instead of a rigid coupler, which
makes the system stiff. Gravity g along -z. p = (psi, s, x1, z1, x2, z2): the shaft angle, the
slider height and the rod tips in the shaft's rotating frame (x outwards in the plane of the rods);
v = p'. Rows (the rods' axial forces, N):
  rod 1 force   |(x1 - h, z1 - L)| - L,    rod 2 force   |(x2 + h, z2 - L)| - L
so 6 - 2 = 4 degrees of freedom. The rods are slender bars (kinetic energy from their end points,
m (|a'|^2 + a'.b' + |b'|^2) / 6; their inertia about their own axis, 5e-6 kg m^2, is left out), the
shaft and the slider spin with their moments of inertia about z; the spring-damper force
K (d - L/2) + C d' acts along each coupler.

Benchmark data: shaft and rods 1 x 0.01 x 0.01 m, slider 0.1 x 0.1 x 0.1 m, density 3000 kg/m^3
(rods and shaft 0.3 kg, slider 3 kg), balls 5 kg, K = 8e5 N/m, C = 4e4 N s/m, h = 0.05 m; start
with s = 0.5 m and the rods 30 degrees below the horizontal (the couplers at their rest length),
shaft rate 2 pi rad/s; 10 s; the reference output is s(t). Embedding q = (psi, s, theta1, theta2)
with the rods' angles from the downward vertical. Reference: Gonzalez, Dopico, Lugris, Cuadrado
2006; the IFToMM library of computational benchmark problems, problem A05.
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Embedding, Parameter
from ..visuals import Visual
from ._rotations import Rz

NAME = "flyball_governor"


def _in_world(psi, x, z):
    return sp.Matrix([sp.cos(psi) * x, sp.sin(psi) * x, z])


def build():
    names = ("psi", "s", "x1", "z1", "x2", "z2")
    p = sp.symbols(" ".join(names), real=True)
    v = sp.symbols(" ".join(f"{n}_dot" for n in names), real=True)
    psi, s, x1, z1, x2, z2 = p
    m_rod, m_ball, m_slider, J_shaft, J_slider, L, h, K, g = sp.symbols(
        "m_rod m_ball m_slider J_shaft J_slider L h K g", positive=True)
    C = sp.Symbol("C", nonnegative=True)
    t = sp.Symbol("t", real=True)
    path = {q: sp.Function(q.name)(t) for q in p}
    to_v = {sp.diff(path[q], t): qd for q, qd in zip(p, v)}

    def velocity(point):
        moving = point.subs(path)
        return sp.Matrix([sp.diff(e, t) for e in moving]).subs(to_v).subs({path[q]: q for q in p})

    T = (J_shaft + J_slider) * v[0] ** 2 / 2 + m_slider * v[1] ** 2 / 2
    V = m_slider * g * s
    forces = sp.zeros(6, 1)
    holonomic = []
    for i, (x, z, side) in enumerate(((x1, z1, 1), (x2, z2, -1)), start=1):
        pivot, tip = _in_world(psi, side * h, L), _in_world(psi, x, z)
        a, b = velocity(pivot), velocity(tip)
        T += m_rod / 6 * (a.dot(a) + a.dot(b) + b.dot(b)) + m_ball / 2 * b.dot(b)
        V += m_rod * g * (L + z) / 2 + m_ball * g * z
        d = sp.sqrt(((side * h + x) / 2 - side * h) ** 2 + ((L + z) / 2 - s) ** 2)  # coupler length
        grad = sp.Matrix([d]).jacobian(p).T
        V += K / 2 * (d - L / 2) ** 2
        forces += -C * (grad.T * sp.Matrix(v))[0, 0] * grad
        holonomic.append((f"rod {i} force", sp.sqrt((x - side * h) ** 2 + (z - L) ** 2) - L))
    th1, th2 = sp.symbols("theta1 theta2", real=True)
    g_of_q = sp.Matrix([psi, s, h + L * sp.sin(th1), L - L * sp.cos(th1), -h - L * sp.sin(th2), L - L * sp.cos(th2)])
    q_psi, q_s = sp.symbols("psi_q s_q", real=True)
    g_of_q = g_of_q.subs({psi: q_psi, s: q_s})
    params = (Parameter(m_rod, 0.3, "kg", "rod mass"), Parameter(m_ball, 5.0, "kg", "ball mass"),
              Parameter(m_slider, 3.0, "kg", "slider mass"), Parameter(J_shaft, 5e-6, "kg m^2", "shaft inertia about z"),
              Parameter(J_slider, 5e-3, "kg m^2", "slider inertia about z"), Parameter(L, 1.0, "m", "rod length"),
              Parameter(h, 0.05, "m", "hinge offset from the shaft axis"), Parameter(K, 8e5, "N/m", "coupler stiffness"),
              Parameter(C, 4e4, "N s/m", "coupler damping"), Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    root3 = sp.sqrt(3) / 2
    return from_lagrangian(
        NAME, p, T, V, velocities=v, forces=forces, holonomic=holonomic, parameters=params,
        default_p=(0, L / 2, h + L * root3, L / 2, -h - L * root3, L / 2), default_v=(2 * sp.pi, 0, 0, 0, 0, 0),
        embedding=Embedding(coordinates=(q_psi, q_s, th1, th2), g=g_of_q,
                            inverse=sp.Matrix([psi, s, sp.atan2(x1 - h, L - z1), sp.atan2(-x2 - h, L - z2)])),
        description=__doc__, reference="IFToMM benchmark A05 (Gonzalez, Dopico, Lugris, Cuadrado 2006)",
        visuals=_visuals(psi, s, ((x1, z1), (x2, z2)), L, h))


def _visuals(psi, s, tips, L, h):
    """The shaft, the slider (turning with the shaft), the two rods from their hinges to the balls
    and the two spring-dampers from the rods' midpoints to the slider's sides, in world axes: the
    shaft's frame turned by psi about z."""
    turn = Rz(psi)

    def world(x, z):
        return turn * sp.Matrix([x, 0, z])

    out = [Visual("shaft", "link", (L / 100,), (0, 0, 0), end=(0, 0, L + 2 * h), colour="#5d6d7e"),
           Visual("slider", "box", (L / 10, L / 10, L / 10), (0, 0, s), turn, colour="#d68910")]
    for i, ((x, z), side) in enumerate(zip(tips, (1, -1)), start=1):
        hinge, tip = world(side * h, L), world(x, z)
        out += [Visual(f"rod {i}", "link", (L / 100,), hinge, end=tip, colour="#2471a3"),
                Visual(f"ball {i}", "sphere", (L / 12,), tip, colour="#c0392b"),
                Visual(f"spring-damper {i}", "link", (L / 200,), (hinge + tip) / 2, end=world(side * h, s),
                       colour="#229954")]
    return tuple(out)

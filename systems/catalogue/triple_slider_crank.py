"""The triple slider-crank of Haug & Pavesic (section 2.4), in four coordinates.

p = (q1, q2, q3, q4): slider 1 on the x axis, the crank angle relative to slider 1, slider 3 on
the x axis and slider 4 on the y axis; v = p'. A crank of unit radius turns on slider 1; a rod of
length 1 joins the crank's tip to slider 3 and a rod of length 2 joins slider 1 to slider 4:
  crank rod force   Phi_1 = |(q3 - q1 - cos q2, -sin q2)| - 1
  slider rod force  Phi_2 = |(q1, q4)| - 2
Phi_p loses rank at q2 = +-pi/2 with q3 = q1, which splits the regular configurations into four
domains of functionality; C3 (q3 = q1 + 2 cos q2, |q2| < pi/2) and C1 (q3 = q1, |q2| < pi/2) are
the two the paper simulates, chosen here by ``domain``. A torque -K q2 / ((pi/2)^2 - q2^2) on the
crank keeps it inside its domain.

Masses (kg) and inertias (kg m^2) of section 7.2: slider 1 m1 = 2, crank m2 = 10 (centroid on the
pivot) with J2 = 10, sliders 3 and 4 m3 = m4 = 2; K = 100 N m. Initial state q = (0, 0, 2, 2) in
C3, q = (0, 0, 0, 2) in C1, q' = (6, 2, 6, 0). No embedding: the reduced, minimal and manifold
formulations run on tangent-space charts. Reference: E. J. Haug, P. Pavesic, "Mechanical system
kinematics and dynamics on differentiable manifolds".
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual

NAME = "triple_slider_crank"


def build(domain=3, bodies=False):
    """domain: 1 or 3 (the starting domain of functionality); bodies: the four-body planar model with
    12 coordinates (x_i, y_i, phi_i) and 10 constraints instead of the four-coordinate one."""
    if domain not in (1, 3):
        raise ValueError(f"triple_slider_crank got domain={domain!r} but expected 1 or 3")
    if bodies:
        return _four_bodies(domain)
    q = sp.symbols("q1:5", real=True)
    qd = sp.symbols("q1_dot q2_dot q3_dot q4_dot", real=True)
    m1, m2, J2, m3, m4, K = sp.symbols("m1 m2 J2 m3 m4 K", positive=True)
    T = ((m1 + m2) * qd[0] ** 2 + J2 * qd[1] ** 2 + m3 * qd[2] ** 2 + m4 * qd[3] ** 2) / 2
    V = -K / 2 * sp.log((sp.pi / 2) ** 2 - q[1] ** 2)  # the torque -K q2 / ((pi/2)^2 - q2^2) = -dV/dq2
    params = (Parameter(m1, 2.0, "kg", "slider 1"), Parameter(m2, 10.0, "kg", "crank"),
              Parameter(J2, 10.0, "kg m^2", "crank moment of inertia"), Parameter(m3, 2.0, "kg", "slider 3"),
              Parameter(m4, 2.0, "kg", "slider 4"), Parameter(K, 100.0, "N m", "restoring torque constant"))
    q3_0 = 2 if domain == 3 else 0
    return from_lagrangian(
        NAME, q, T, V, velocities=qd,
        holonomic=[("crank rod force", sp.sqrt((q[2] - q[0] - sp.cos(q[1])) ** 2 + sp.sin(q[1]) ** 2) - 1),
                   ("slider rod force", sp.sqrt(q[0] ** 2 + q[3] ** 2) - 2)],
        parameters=params, default_p=(0, 0, q3_0, 2), default_v=(6, 2, 6, 0), description=__doc__,
        reference="Haug & Pavesic, Mechanical system kinematics and dynamics on differentiable manifolds, 2.4, 7.2",
        visuals=_visuals((q[0], 0), (q[0] + sp.cos(q[1]), sp.sin(q[1])), (q[2], 0), (0, q[3])))


def _visuals(slider1, tip, slider3, slider4):
    """Sliders 1 and 3 on the x axis and slider 4 on the y axis as blocks, the crank and the two rods,
    in the vertical x-z plane of a 3D scene (the mechanism's y is the scene's z)."""
    at = [(x, 0, y) for x, y in (slider1, tip, slider3, slider4)]
    block = (sp.Rational(3, 10), sp.Rational(2, 10), sp.Rational(2, 10))
    return (Visual("slider 1", "box", block, at[0], colour="#d68910"),
            Visual("slider 3", "box", block, at[2], colour="#d68910"),
            Visual("slider 4", "box", block, at[3], colour="#d68910"),
            Visual("crank", "link", (sp.Rational(1, 20),), at[0], end=at[1], colour="#c0392b"),
            Visual("crank rod", "link", (sp.Rational(1, 30),), at[1], end=at[2], colour="#2471a3"),
            Visual("slider rod", "link", (sp.Rational(1, 30),), at[0], end=at[3], colour="#2471a3"))


def _four_bodies(domain):
    """Haug & Pavesic's four-body planar model (section 7.2): slider 1, crank, slider 3, slider 4."""
    names = [f"{c}{i}" for i in range(1, 5) for c in ("x", "y", "phi")]
    p = sp.symbols(" ".join(names), real=True)
    v = sp.symbols(" ".join(f"{n}_dot" for n in names), real=True)
    x1, y1, f1, x2, y2, f2, x3, y3, f3, x4, y4, f4 = p
    m1, J1, m2, J2, m3, J3, m4, J4, K = sp.symbols("m1 J1 m2 J2 m3 J3 m4 J4 K", positive=True)
    masses = [(m1, J1), (m2, J2), (m3, J3), (m4, J4)]
    T = sum(((m * (v[3 * i] ** 2 + v[3 * i + 1] ** 2) + J * v[3 * i + 2] ** 2) / 2
             for i, (m, J) in enumerate(masses)), sp.S.Zero)
    V = -K / 2 * sp.log((sp.pi / 2) ** 2 - (f2 - f1) ** 2)  # the restoring torque on the crank, relative to slider 1
    tip = sp.Matrix([x2 + sp.cos(f2), y2 + sp.sin(f2)])
    holonomic = [("slider 1 normal force", y1), ("slider 1 guide moment", f1),
                 ("slider 3 normal force", y3), ("slider 3 guide moment", f3),
                 ("slider 4 normal force", x4), ("slider 4 guide moment", f4),
                 ("crank pin force x", x2 - x1), ("crank pin force y", y2 - y1),
                 ("crank rod force", sp.sqrt((tip[0] - x3) ** 2 + (tip[1] - y3) ** 2) - 1),
                 ("slider rod force", sp.sqrt((x1 - x4) ** 2 + (y1 - y4) ** 2) - 2)]
    params = (Parameter(m1, 2.0, "kg", "slider 1"), Parameter(J1, 1.0, "kg m^2", "slider 1"),
              Parameter(m2, 10.0, "kg", "crank"), Parameter(J2, 10.0, "kg m^2", "crank"),
              Parameter(m3, 2.0, "kg", "slider 3"), Parameter(J3, 1.0, "kg m^2", "slider 3"),
              Parameter(m4, 2.0, "kg", "slider 4"), Parameter(J4, 1.0, "kg m^2", "slider 4"),
              Parameter(K, 100.0, "N m", "restoring torque constant"))
    x3_0 = 2 if domain == 3 else 0
    return from_lagrangian(
        NAME, p, T, V, velocities=v, holonomic=holonomic, parameters=params,
        default_p=(0, 0, 0, 0, 0, 0, x3_0, 0, 0, 0, 2, 0), default_v=(6, 0, 0, 6, 0, 2, 6, 0, 0, 0, 0, 0),
        description=__doc__, reference="Haug & Pavesic, section 7.2 (four-body model)",
        visuals=_visuals((x1, y1), tip, (x3, y3), (x4, y4)))

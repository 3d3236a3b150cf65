"""IFToMM benchmark A04: Bricard's mechanism, an overconstrained closed chain of five bars that moves.

Five uniform bars of length L, mass m and square cross section c join the fixed points O = (0, 0, 0)
and E = (0, 0, L) through six revolute joints whose axes are perpendicular to both bars they join
and to each other: joint 1 at O with axis u1 = y, joint 2 at A = (L, 0, 0) with u2 = z, joint 3 at
B = (L, -L, 0) with u3 = x, joint 4 at C = (L, -L, L) with u4 = y, joint 5 at D = (0, -L, L) with u5
= z, joint 6 at E with u6 = x (Bricard's orthogonal linkage; the ground closes the loop from E to
O). Gravity g along -y. The motion starts at rest in this configuration.

Natural coordinates (Garcia de Jalon): p = (A, B, C, D, u2, u3, u4, u5), 24 numbers; v = p'. Bar i
runs from its first point a to its second b, r = b - a, and carries the axes w1 = u_i, w2 = u_(i+1);
(r / L, w1, w2) is its orthonormal frame, so its kinetic energy is
    m |a' + r'/2|^2 / 2 + (m L^2 / 12) |r' / L|^2 / 2 + (m c^2 / 12) (|w1'|^2 + |w2'|^2) / 2
(the brick's inertia m (L^2 + c^2) / 12 across and m c^2 / 6 along the bar). Rows, per bar i:
  bar i axial force          (r.r - L^2) / (2 L)
  bar i normal to axis i     r.u_i / L,   bar i normal to axis i+1   r.u_(i+1) / L
  axes i, i+1 perpendicular  u_i.u_(i+1)
and per moving axis k = 2..5:  axis k unit length  (u_k.u_k - 1) / 2.
These are 24 rows on 24 coordinates: the Gruebler count n - m is 0 (for the rigid bodies, 6 x 5
coordinates less 5 x 6 revolute rows, also 0), yet the mechanism moves with one degree of freedom:
rank C = 23, one row is dependent (systems.redundancy(system) names it), the multipliers are the
minimum-norm ones and the reactions are not unique. Benchmark data: L = 1 m, m = 1 kg, c = 0.1 m,
g = 9.81 m/s^2; 10 s; the reference output is the trajectory of point P3 = B (within 1e-3 m).
Reduced, minimal and manifold coordinates need independent rows; the dependent formulation runs
it. Reference: Gonzalez, Dopico, Lugris, Cuadrado 2006; the IFToMM library of computational
benchmark problems, problem A04; R. Bricard, *Memoire sur la theorie de l'octaedre articule* (1897).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual

NAME = "bricard"


def build():
    m, L, c, g = sp.symbols("m L c g", positive=True)
    points, axes = "ABCD", (2, 3, 4, 5)
    names = [f"{k}{P}" for P in points for k in ("x", "y", "z")] + [f"u{i}{k}" for i in axes for k in "xyz"]
    p = sp.symbols(" ".join(names), real=True)
    v = sp.symbols(" ".join(f"{s}_dot" for s in names), real=True)
    vec = [sp.Matrix(p[3 * i:3 * i + 3]) for i in range(8)]
    dot = [sp.Matrix(v[3 * i:3 * i + 3]) for i in range(8)]
    zero = sp.zeros(3, 1)
    chain = [(sp.zeros(3, 1), zero)] + [(vec[i], dot[i]) for i in range(4)] + [(sp.Matrix([0, 0, L]), zero)]
    axis = {1: (sp.Matrix([0, 1, 0]), zero), 6: (sp.Matrix([1, 0, 0]), zero)}
    axis.update({k: (vec[4 + j], dot[4 + j]) for j, k in enumerate(axes)})
    T, V, holonomic = sp.S.Zero, sp.S.Zero, []
    for i in range(1, 6):
        (a, a_dot), (b, b_dot) = chain[i - 1], chain[i]
        (w1, w1_dot), (w2, w2_dot) = axis[i], axis[i + 1]
        r, r_dot = b - a, b_dot - a_dot
        centre_dot = a_dot + r_dot / 2
        T += m / 2 * centre_dot.dot(centre_dot) + m / 24 * r_dot.dot(r_dot) \
            + m * c**2 / 24 * (w1_dot.dot(w1_dot) + w2_dot.dot(w2_dot))
        V += m * g * (a[1] + r[1] / 2)
        holonomic += [(f"bar {i} axial force", (r.dot(r) - L**2) / (2 * L)),
                      (f"bar {i} normal to axis {i}", r.dot(w1) / L),
                      (f"bar {i} normal to axis {i + 1}", r.dot(w2) / L),
                      (f"axes {i}, {i + 1} perpendicular", w1.dot(w2))]
    holonomic += [(f"axis {k} unit length", (axis[k][0].dot(axis[k][0]) - 1) / 2) for k in axes]
    params = (Parameter(m, 1.0, "kg", "mass of every bar"), Parameter(L, 1.0, "m", "length of every bar"),
              Parameter(c, 0.1, "m", "side of the bars' square cross section"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    p0 = (L, 0, 0, L, -L, 0, L, -L, L, 0, -L, L, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1)
    return from_lagrangian(
        NAME, p, T, V, velocities=v, holonomic=holonomic, parameters=params, default_p=p0, default_v=(0,) * 24,
        units={**{s.name: "1" for s in p[12:]}, **{s.name: "1/s" for s in v[12:]}},  # axes: unit vectors
        description=__doc__, reference="IFToMM benchmark A04 (Gonzalez, Dopico, Lugris, Cuadrado 2006)",
        visuals=tuple(Visual(f"bar {i + 1}", "link", (c / 2,), chain[i][0], end=chain[i + 1][0], colour=colour)
                      for i, colour in enumerate(("#c0392b", "#2471a3", "#d68910", "#229954", "#7d3c98")))
        + tuple(Visual(name, "sphere", (c,), point, colour="#2c3e50") for name, point in (("O", chain[0][0]),
                                                                                            ("E", chain[-1][0]))))

"""The contact oscillator: three coupled oscillators under one nonholonomic constraint, a test
problem for nonholonomic integrators (McLachlan & Perlmutter, *Integrators for nonholonomic
mechanical systems*, J. Nonlinear Sci. 16, 2006, section 5.2).

p = (x, y, z), v = p'; a point of mass m on springs of stiffness k, with the quartic coupling
eps x^2 z^2 / 2 of the nonlinear variant, and the constraint (l a length, 1 m by default)
  contact force   x' + (y / l) z' = 0
whose one-form has no dy part: y oscillates on its own, y'' = -(k / m) y, and the energy
E = m |v|^2 / 2 + k |p|^2 / 2 + eps x^2 z^2 / 2 is conserved.

``b`` adds the gyroscopic force b (y', -x', 0) (N s/m). It does no work, so the energy is still
conserved, but it breaks the reversibility v -> -v of the motion. With b = 0 the system is
reversible and integrable (Modin & Verdier, *What makes nonholonomic integrators work?*, Numer.
Math. 145, 2020). Their non-reversible variant shifts the canonical momentum by a gradient, which
in a description in velocities is the total derivative dS/dt added to L, with the same motion; the
gyroscopic variant is this catalogue's own non-reversible test instead.

Default state: x = sqrt(1.94), y = 1, z = 0.2 m; x' = -0.1, y' = 0, z' = 0.1 m/s (energy 1.5 J
with the unit parameters, as in McLachlan & Perlmutter's runs).
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual

NAME = "contact_oscillator"


def build():
    x, y, z = sp.symbols("x y z", real=True)
    xd, yd, zd = sp.symbols("x_dot y_dot z_dot", real=True)
    m, k, eps, b, ell = sp.symbols("m k epsilon b l", real=True)
    T = m / 2 * (xd**2 + yd**2 + zd**2)
    V = k / 2 * (x**2 + y**2 + z**2) + eps / 2 * x**2 * z**2
    params = (Parameter(m, 1.0, "kg", "mass"), Parameter(k, 1.0, "N/m", "stiffness of each spring"),
              Parameter(eps, 0.0, "N/m^3", "quartic coupling eps x^2 z^2 / 2"),
              Parameter(b, 0.0, "N s/m", "gyroscopic coefficient: force b (y', -x', 0)"),
              Parameter(ell, 1.0, "m", "length scale of the constraint"))
    return from_lagrangian(
        NAME, (x, y, z), T, V, velocities=(xd, yd, zd), forces=sp.Matrix([b * yd, -b * xd, 0]),
        nonholonomic=[("contact force", -(xd + y / ell * zd))],
        parameters=params, default_p=(sp.sqrt(sp.Rational(194, 100)), 1, sp.Rational(1, 5)),
        default_v=(-sp.Rational(1, 10), 0, sp.Rational(1, 10)), description=__doc__,
        # y's own energy: conserved while b = 0 (the gyroscopic force couples y to x)
        invariants=[("y oscillator energy (b = 0)", m / 2 * yd**2 + k / 2 * y**2)],
        reference="McLachlan & Perlmutter, J. Nonlinear Sci. 16 (2006), section 5.2",
        visuals=(Visual("mass", "sphere", (ell / 10,), (x, y, z), colour="#2471a3"),
                 Visual("origin", "point", (ell / 40,), (0, 0, 0), colour="#2c3e50")))

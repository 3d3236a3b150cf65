"""IFToMM benchmark A01: the simple pendulum, a point mass on a massless rod, in Cartesian coordinates.

p = (x, y): the mass point P1, y up; v = p'. A massless link of length L = 1 m holds a lumped mass
m = 1 kg to the origin under gravity g = 9.81 m/s^2 along -y:
  rod tension   Phi = sqrt(x^2 + y^2) - L
The motion starts at rest with the rod horizontal, x = +L, y = 0. Its closed form
(``closed_form``) is the large-amplitude pendulum through Jacobi's elliptic functions: with
k = sin(theta0 / 2) (theta0 = pi/2 from the downward vertical) and omega0 = sqrt(g / L),
sin(theta / 2) = k sn(K(k) - omega0 t, k). The benchmark asks for P1 over 10 s (its long version
2000 s), within 1e-3 m (high precision) and 1e-1 m (low precision). Embedding q = (angle,) measured
from the downward vertical. Reference: M. Gonzalez, D. Dopico, U. Lugris, J. Cuadrado, *A
benchmarking system for MBS simulation software: problem standardization and performance
measurement*, Multibody Syst. Dyn. 16 (2006); the IFToMM library of computational benchmark
problems, problem A01.
"""
import numpy as np
import sympy as sp
from scipy.special import ellipj, ellipk

from ..builders.lagrangian import from_lagrangian
from ..description import Embedding, Parameter
from ._shapes import point_pendulum

NAME = "iftomm_pendulum"


def build():
    x, y = sp.symbols("x y", real=True)
    xd, yd = sp.symbols("x_dot y_dot", real=True)
    m, L, g = sp.symbols("m L g", positive=True)
    th = sp.Symbol("angle", real=True)
    params = (Parameter(m, 1.0, "kg", "lumped mass"), Parameter(L, 1.0, "m", "link length"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    return from_lagrangian(
        NAME, (x, y), m / 2 * (xd**2 + yd**2), m * g * y, velocities=(xd, yd),
        holonomic=[("rod tension", sp.sqrt(x**2 + y**2) - L)], parameters=params,
        default_p=(L, 0), default_v=(0, 0),
        embedding=Embedding(coordinates=(th,), g=sp.Matrix([L * sp.sin(th), -L * sp.cos(th)]),
                            inverse=sp.Matrix([sp.atan2(x, -y)])),
        description=__doc__, reference="IFToMM benchmark A01 (Gonzalez, Dopico, Lugris, Cuadrado 2006)",
        visuals=point_pendulum(x, y, L))


def closed_form(t, L=1.0, g=9.81, theta0=np.pi / 2):
    """(x, y) of the mass at times t (s), released at rest theta0 from the downward vertical (exact:
    Jacobi's sn, scipy.special.ellipj)."""
    k = np.sin(theta0 / 2)
    sn = ellipj(ellipk(k**2) - np.sqrt(g / L) * np.asarray(t, float), k**2)[0]
    theta = 2 * np.arcsin(k * sn)
    return L * np.sin(theta), -L * np.cos(theta)

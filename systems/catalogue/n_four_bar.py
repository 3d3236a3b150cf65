"""IFToMM benchmark A02: the N-four-bar mechanism, a row of N parallelograms that passes singular positions.

N + 1 cranks of length L hang from fixed pivots A_i = (i L, 0), i = 0..N, and N couplers of length
L join their ends B_i: 2 N + 1 uniform slender bars of mass m each, under gravity g along -y. p =
(x0, y0, ..., xN, yN): the points B_i, in natural coordinates; v = p'. Rows (the bars' axial
forces):
  crank i force     |B_i - A_i| - L        (i = 0..N)
  coupler i force   |B_i - B_(i-1)| - L    (i = 1..N)
so 2 (N + 1) - (2 N + 1) = 1 degree of freedom. A bar between points a and b has the kinetic
energy m (|a'|^2 + a'.b' + |b'|^2) / 6. When the cranks pass the horizontal, every bar lies on the
x axis: the crank and coupler rows become dependent (rank 2 N + 1 - N), the mechanism momentarily
has N + 1 degrees of freedom and may leave the parallelogram branch; the benchmark checks that a
method passes these singular positions and stays on it.

Benchmark data: N = 40, L = 1 m, m = 1 kg, g = 9.81 m/s^2; the cranks start vertical (B_i =
(i, 1)) with x-velocity 1 m/s at every B_i; 10 s (the library asks for 20 s; position and velocity
of B0 within 1e-3). The catalogue default is N = 4 (a few seconds to build and run);
``systems.load("n_four_bar", n=40)`` is the benchmark's mechanism. Embedding q = (theta,), the
common crank angle from the x axis (the parallelogram branch). On that branch the mechanism is a
pendulum in theta: (N + 1) cranks of energy m L^2 theta'^2 / 6 and N translating couplers of
m L^2 theta'^2 / 2, ``branch_motion`` integrates it (a reference independent of the formulations). Reference: Gonzalez, Dopico, Lugris,
Cuadrado 2006; the IFToMM library of computational benchmark problems, problem A02. Drawn in the
vertical x-z plane of a 3D scene.
"""
import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

from ..builders.lagrangian import from_lagrangian
from ..description import Embedding, Parameter
from ..visuals import Visual

NAME = "n_four_bar"


def build(n=4):
    """n: the number of four-bar loops N (the benchmark: 40)."""
    if n < 1:
        raise ValueError(f"n_four_bar got n={n!r} but expected a whole number >= 1")
    names = [f"{c}{i}" for i in range(n + 1) for c in ("x", "y")]
    p = sp.symbols(" ".join(names), real=True)
    v = sp.symbols(" ".join(f"{s}_dot" for s in names), real=True)
    m, L, g = sp.symbols("m L g", positive=True)
    B = [sp.Matrix(p[2 * i:2 * i + 2]) for i in range(n + 1)]
    Bd = [sp.Matrix(v[2 * i:2 * i + 2]) for i in range(n + 1)]
    T = sum((m / 6 * Bd[i].dot(Bd[i]) for i in range(n + 1)), sp.S.Zero)
    T += sum((m / 6 * (Bd[i - 1].dot(Bd[i - 1]) + Bd[i - 1].dot(Bd[i]) + Bd[i].dot(Bd[i])) for i in range(1, n + 1)),
             sp.S.Zero)
    V = m * g * (sum((B[i][1] / 2 for i in range(n + 1)), sp.S.Zero)
                 + sum(((B[i - 1][1] + B[i][1]) / 2 for i in range(1, n + 1)), sp.S.Zero))
    holonomic = [(f"crank {i} force", sp.sqrt((B[i][0] - i * L) ** 2 + B[i][1] ** 2) - L) for i in range(n + 1)]
    holonomic += [(f"coupler {i} force", sp.sqrt((B[i] - B[i - 1]).dot(B[i] - B[i - 1])) - L) for i in range(1, n + 1)]
    th = sp.Symbol("theta", real=True)
    g_of_q = sp.Matrix([e for i in range(n + 1) for e in (i * L + L * sp.cos(th), L * sp.sin(th))])
    params = (Parameter(m, 1.0, "kg", "mass of every bar"), Parameter(L, 1.0, "m", "length of every bar"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"))
    return from_lagrangian(
        NAME, p, T, V, velocities=v, holonomic=holonomic, parameters=params,
        default_p=tuple(e for i in range(n + 1) for e in (i * L, L)), default_v=tuple(e for _ in range(n + 1)
                                                                                  for e in (1, 0)),
        embedding=Embedding(coordinates=(th,), g=g_of_q, inverse=sp.Matrix([sp.atan2(p[1], p[0])])),
        description=__doc__, reference="IFToMM benchmark A02 (Gonzalez, Dopico, Lugris, Cuadrado 2006)",
        visuals=_visuals(B, L))


def _visuals(B, L):
    """Cranks from their pivots and couplers between their ends, as rods in the vertical x-z plane of
    a 3D scene (the mechanism's y is the scene's z), and the pivots."""
    at = [(b[0], 0, b[1]) for b in B]
    cranks = [Visual(f"crank {i}", "link", (L / 30,), (i * L, 0, 0), end=at[i], colour="#c0392b") for i in range(len(B))]
    couplers = [Visual(f"coupler {i}", "link", (L / 30,), at[i - 1], end=at[i], colour="#2471a3")
                for i in range(1, len(B))]
    pivots = [Visual(f"pivot {i}", "sphere", (L / 20,), (i * L, 0, 0), colour="#2c3e50") for i in range(len(B))]
    return tuple(cranks + couplers + pivots)


def branch_motion(t, n=4, L=1.0, g=9.81):
    """(x0, y0) of B0 at times t (s) on the parallelogram branch from the default start (theta = pi/2,
    B0 moving at 1 m/s along x): the one-degree-of-freedom pendulum
    ((N + 1)/3 + N) L theta'' = -g ((N + 1)/2 + N) cos theta, integrated by DOP853 at 1e-13."""
    t = np.asarray(t, float)
    ratio = g / L * ((n + 1) / 2 + n) / ((n + 1) / 3 + n)
    run = solve_ivp(lambda _, y: [y[1], -ratio * np.cos(y[0])], (0.0, float(t[-1])), [np.pi / 2, -1.0 / L],
                    method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t)
    return L * np.cos(run.y[0]), L * np.sin(run.y[0])

"""Aluminium boxes as rigid bodies (frames at the centre of mass), shared by the Lie-group examples."""
import sympy as sp

from ..builders.body_frames import BodyFrame
from ..builders.rotations import quaternion_rates_matrix, rotation_matrix
from ..description import Parameter

DENSITY = 2700.0  # kg/m^3, aluminium


def box(name, a, b, c, velocity, density=DENSITY):
    """A solid box with sides a, b, c along its body axes x, y, z (m): mass and central inertia."""
    m = density * a * b * c
    inertia = sp.diag(m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12, m * (a**2 + b**2) / 12)
    return BodyFrame(name, m, inertia, velocity)


def gravity_parameter(default):
    g = sp.Symbol("g", nonnegative=True)
    return g, Parameter(g, default, "m/s^2", "gravitational acceleration (along -z)")


def reduced_orientation(label):
    """Symbols of a reduced orientation: Euler parameters q (4), body angular velocity w (3), the
    kinematics block A_q = G(q) (4, 3) and R(q)."""
    q = sp.symbols(f"q0_{label} q1_{label} q2_{label} q3_{label}", real=True)
    w = sp.symbols(f"w1_{label} w2_{label} w3_{label}", real=True)
    return q, w, quaternion_rates_matrix(q), rotation_matrix(q)


def linear_velocity(frame, R0, u_world):
    """The entries u of ``frame`` for the centre velocity u_world (world axes) at attitude R0:
    R0^T u_world for a twist, u_world for a hybrid velocity."""
    u_world = sp.Matrix(u_world)
    return list(R0.T * u_world) if frame.velocity == "twist" else list(u_world)

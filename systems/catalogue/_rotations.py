"""Elementary rotation matrices and Euler-parameter kinematics used by the catalogue."""
import sympy as sp

from ..builders.rotations import quaternion_rates_matrix as quaternion_rates_body  # noqa: F401
from ..builders.rotations import quaternion_rates_world_matrix as quaternion_rates_world  # noqa: F401
from ..builders.rotations import rotation_matrix as rotation_from_quaternion  # noqa: F401


def Rx(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])


def Ry(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def Rz(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])

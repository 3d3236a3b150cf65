"""Elementary rotation matrices and Euler-parameter kinematics used by the catalogue."""
from ..builders.frames import axis_rotation
from ..builders.rotations import quaternion_rates_matrix as quaternion_rates_body  # noqa: F401
from ..builders.rotations import quaternion_rates_world_matrix as quaternion_rates_world  # noqa: F401
from ..builders.rotations import rotation_matrix as rotation_from_quaternion  # noqa: F401


def Rx(a):
    return axis_rotation("x", a)


def Ry(a):
    return axis_rotation("y", a)


def Rz(a):
    return axis_rotation("z", a)

"""Elementary rotation matrices and Euler-parameter kinematics used by the catalogue."""
import sympy as sp


def Rx(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])


def Ry(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def Rz(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def quaternion_rates_world(e):
    """G with e' = G omega for a unit quaternion e = (e0, e1, e2, e3) and world-axes omega, (4, 3)."""
    e0, e1, e2, e3 = e
    return sp.Matrix([[-e1, -e2, -e3],
                      [e0, e3, -e2],
                      [-e3, e0, e1],
                      [e2, -e1, e0]]) / 2


def rotation_from_quaternion(e):
    """World <- body rotation of a unit quaternion (3, 3)."""
    e0, e1, e2, e3 = e
    return sp.Matrix([
        [e0**2 + e1**2 - e2**2 - e3**2, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
        [2 * (e1 * e2 + e0 * e3), e0**2 - e1**2 + e2**2 - e3**2, 2 * (e2 * e3 - e0 * e1)],
        [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0**2 - e1**2 - e2**2 + e3**2]])


def quaternion_rates_body(e):
    """G with e' = G omega for a unit quaternion e and body-axes omega, (4, 3)."""
    e0, e1, e2, e3 = e
    return sp.Matrix([[-e1, -e2, -e3],
                      [e0, -e3, e2],
                      [e3, e0, -e1],
                      [-e2, e1, e0]]) / 2

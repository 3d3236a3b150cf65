"""Euler-parameter (unit quaternion) kinematics, symbolic and numeric.

e = (e0, e1, e2, e3) with scalar part e0; R(e) rotates body axes into world axes. The rates are
e' = G_body(e) omega_body = G_world(e) omega_world with the (4, 3) matrices below (the factor 1/2
included). Each function returns a sympy Matrix for symbolic input and a numpy array otherwise.
"""
from __future__ import annotations

import numpy as np
import sympy as sp


def _matrix(rows, e):
    if any(isinstance(x, sp.Basic) for x in e):
        return sp.Matrix(rows)
    return np.array(rows, dtype=float)


def rotation_matrix(e):
    """World <- body rotation of the unit quaternion e, shape (3, 3)."""
    e0, e1, e2, e3 = e
    return _matrix([
        [e0**2 + e1**2 - e2**2 - e3**2, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
        [2 * (e1 * e2 + e0 * e3), e0**2 - e1**2 + e2**2 - e3**2, 2 * (e2 * e3 - e0 * e1)],
        [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0**2 - e1**2 - e2**2 + e3**2]], e)


def quaternion_rates_matrix(e):
    """G_body with e' = G_body(e) omega for body-axes omega, shape (4, 3)."""
    e0, e1, e2, e3 = e
    half = sp.Rational(1, 2) if any(isinstance(x, sp.Basic) for x in e) else 0.5
    return _matrix([[-e1 * half, -e2 * half, -e3 * half],
                    [e0 * half, -e3 * half, e2 * half],
                    [e3 * half, e0 * half, -e1 * half],
                    [-e2 * half, e1 * half, e0 * half]], e)


def quaternion_rates_world_matrix(e):
    """G_world with e' = G_world(e) omega for world-axes omega, shape (4, 3)."""
    e0, e1, e2, e3 = e
    half = sp.Rational(1, 2) if any(isinstance(x, sp.Basic) for x in e) else 0.5
    return _matrix([[-e1 * half, -e2 * half, -e3 * half],
                    [e0 * half, e3 * half, -e2 * half],
                    [-e3 * half, e0 * half, e1 * half],
                    [e2 * half, -e1 * half, e0 * half]], e)

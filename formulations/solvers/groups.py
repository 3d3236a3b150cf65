"""The rotation group SO(3) and the rigid-body groups SE(3) and SO(3) x R^3, in closed form.

Vectors x in R^3 stand for so(3) through the cross-product matrix hat(x); a twist X = (omega, v) in
R^6 (angular part first) stands for se(3) and, with another bracket, for so(3) x R^3.

    so(3):  ad_x = hat(x);   exp(x) = I + a hat(x) + b hat(x)^2
            dexp_x = I + b hat(x) + c hat(x)^2,   dexp_x^-1 = I - hat(x)/2 + e hat(x)^2
    se(3):  ad_X = [[hat(w), 0], [hat(v), hat(w)]];  exp(X) = (exp(w), dexp_w v)
            dexp_X = [[dexp_w, 0], [Q(w, v), dexp_w]],  dexp_X^-1 = [[D^-1, 0], [-D^-1 Q D^-1, D^-1]]
    so(3) x R^3:  exp(X) = (exp(w), v),  dexp_X = diag(dexp_w, I)

with theta = |x|, a = sin(theta)/theta, b = (1 - cos theta)/theta^2, c = (theta - sin theta)/theta^3,
e = (1 - (theta/2) cot(theta/2))/theta^2, and Q the closed form of Selig (Geometrical Methods in
Robotics) and Bullo & Murray (PD control on the Euclidean group), with the further coefficients
c2 = (theta^2 + 2 cos theta - 2)/(2 theta^4) and c3 = (2 theta - 3 sin theta + theta cos theta)/(2 theta^5).
dexp_X is the right-trivialized differential, sum_k ad_X^k / (k+1)! (Hairer, Lubich & Wanner,
Geometric Numerical Integration, III.4); the left-trivialized one used for body-fixed velocities is
dexp_{-X}. Every coefficient switches to its Taylor series below theta = 0.1, where the closed forms
lose digits to cancellation; the series are truncated where the next term is below 1e-17.
"""
from __future__ import annotations

import numpy as np

from systems.builders.rotations import rotation_matrix as rotation_from_quaternion  # noqa: F401

SERIES_BELOW = 0.1


def hat(x) -> np.ndarray:
    """The cross-product matrix of x (3,): hat(x) y = x x y, shape (3, 3)."""
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def _series(t2, coefficients):
    return sum(c * t2**k for k, c in enumerate(coefficients))


def _coefficients(x):
    """(theta^2, a, b, c) of the module docstring."""
    t2 = float(np.dot(x, x))
    if t2 < SERIES_BELOW**2:
        return (t2, _series(t2, (1, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880)),
                _series(t2, (1 / 2, -1 / 24, 1 / 720, -1 / 40320, 1 / 3628800)),
                _series(t2, (1 / 6, -1 / 120, 1 / 5040, -1 / 362880, 1 / 39916800)))
    t = np.sqrt(t2)
    s, co = np.sin(t), np.cos(t)
    return t2, s / t, (1 - co) / t2, (t - s) / (t2 * t)


def _inverse_coefficient(x):
    """e = (1 - (theta/2) cot(theta/2)) / theta^2 of dexp^-1 on so(3)."""
    t2 = float(np.dot(x, x))
    if t2 < SERIES_BELOW**2:
        return _series(t2, (1 / 12, 1 / 720, 1 / 30240, 1 / 1209600, 1 / 47900160))
    t = np.sqrt(t2)
    return (1 - t / 2 / np.tan(t / 2)) / t2


# -- SO(3) -------------------------------------------------------------------------------------
def so3_exp(x) -> np.ndarray:
    """Rotation matrix exp(hat(x)) (Rodrigues), shape (3, 3)."""
    _, a, b, _ = _coefficients(x)
    K = hat(x)
    return np.eye(3) + a * K + b * (K @ K)


def so3_dexpinv(x) -> np.ndarray:
    """dexp_x^-1 on so(3), shape (3, 3)."""
    K = hat(x)
    return np.eye(3) - 0.5 * K + _inverse_coefficient(x) * (K @ K)


# -- SE(3) -------------------------------------------------------------------------------------
def _Q(w, v):
    """The off-diagonal block of dexp on se(3) for X = (w, v), shape (3, 3)."""
    t2, _, _, c1 = _coefficients(w)
    if t2 < SERIES_BELOW**2:
        c2 = _series(t2, (1 / 24, -1 / 720, 1 / 40320, -1 / 3628800, 1 / 479001600))
        c3 = _series(t2, (1 / 120, -1 / 2520, 3 / 362880, -4 / 39916800, 5 / 6227020800))
    else:
        t = np.sqrt(t2)
        s, co = np.sin(t), np.cos(t)
        c2 = (t2 + 2 * co - 2) / (2 * t2 * t2)
        c3 = (2 * t - 3 * s + t * co) / (2 * t2 * t2 * t)
    W, V = hat(w), hat(v)
    WV, VW, WVW = W @ V, V @ W, W @ V @ W
    return (0.5 * V + c1 * (WV + VW + WVW) + c2 * (W @ WV + VW @ W - 3 * WVW)
            + c3 * (WVW @ W + W @ WVW))


def se3_exp(X):
    """(R, t) of exp(X) for X = (w, v): the screw motion of twist X over unit time."""
    _, a, b, c = _coefficients(X[:3])
    K = hat(X[:3])
    K2 = K @ K
    return np.eye(3) + a * K + b * K2, X[3:] + b * (K @ X[3:]) + c * (K2 @ X[3:])


def se3_dexpinv(X) -> np.ndarray:
    """dexp_X^-1 on se(3), shape (6, 6)."""
    Di = so3_dexpinv(X[:3])
    out = np.zeros((6, 6))
    out[:3, :3] = out[3:, 3:] = Di
    out[3:, :3] = -Di @ _Q(X[:3], X[3:]) @ Di
    return out


# -- unit quaternions (Euler parameters) -------------------------------------------------------
def quaternion_from_rotation(R, like=None) -> np.ndarray:
    """The unit quaternion of a rotation matrix (Shepperd's method: the largest of the four
    squares is taken first), with the sign that makes it closest to ``like`` if given, shape (4,)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    k = int(np.argmax([tr, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        e0 = 0.5 * np.sqrt(max(1.0 + tr, 0.0))
        q = np.array([e0, (R[2, 1] - R[1, 2]) / (4 * e0), (R[0, 2] - R[2, 0]) / (4 * e0), (R[1, 0] - R[0, 1]) / (4 * e0)])
    else:
        i, j, l = (k - 1, k % 3, (k + 1) % 3)
        ei = 0.5 * np.sqrt(max(1.0 + 2 * R[i, i] - tr, 0.0))
        q = np.empty(4)
        q[1 + i] = ei
        q[0] = (R[l, j] - R[j, l]) / (4 * ei)
        q[1 + j] = (R[j, i] + R[i, j]) / (4 * ei)
        q[1 + l] = (R[l, i] + R[i, l]) / (4 * ei)
    q /= np.linalg.norm(q)
    if like is not None and np.dot(q, like) < 0:
        q = -q
    return q

"""A wheel rolling without slip on the horizontal plane z = height.

The wheel is a thin disc of radius r (tube radius rho = 0) or a torus whose tube of radius rho
runs round a circle of radius r. With the axle a and the vertical u = e_z (unit vectors, both in
the wheel frame's axes, where a is constant and u is the third row of R), s = a . u and
c = sqrt(1 - s^2) (the cosine of the wheel plane's lean, > 0 unless the wheel lies flat):

    contact point      P = C + r (s a - u) / c - rho u
    rolling direction  e_long = (a x u) / c,    lateral  e_lat = u x e_long = (a - s u) / c
    normal force       Phi = r c + rho + height - z_C          (minus the height of P)
    longitudinal       -e_long . v_P = -[(a x u) . v_C] / c + r omega_a + rho (omega_a - s omega_u) / c
    lateral            -e_lat . v_P  = -[(a - s u) . v_C + (r c + rho) omega . (a x u)] / c

with v_P = v_C + omega x (P - C) the velocity of the wheel's material point at P, omega_a and
omega_u the components of omega along a and u. The last two lines use the identities
(s a - u) x (a x u) = -c^2 a and (s a - u) x (a - s u) = c^2 (a x u), so the rows carry c only
as a factor: no identity is left for sympy to find. Each multiplier is the force of the ground on
the wheel along e_z, e_long and e_lat, in N (DESIGN section 2's sign convention).
"""
from __future__ import annotations

import sympy as sp

from .common import tidy
from .frames import AXES, Frame, Point, unit


def _lean_cosine(u, k: int, coordinates) -> sp.Expr:
    """c = sqrt(1 - u_k^2) for the unit vector u: without the square root where 1 - u_k^2 is a
    perfect square (an upright wheel on yaw and roll angles gives cos(roll)^2), the root taking its
    sign at p = 0, where the wheels of the builders' mechanisms stand; else sqrt(u_i^2 + u_j^2) of
    the other two components, unexpanded (shorter than 1 - u_k^2 expanded)."""
    radicand = tidy(1 - u[k] ** 2)
    if isinstance(radicand, sp.Pow) and radicand.exp == 2:
        base = radicand.base
        at_zero = base.subs({q: 0 for q in coordinates})
        if at_zero.is_positive:
            return base
        if at_zero.is_negative:
            return -base
    return sp.sqrt(sum(u[i] ** 2 for i in range(3) if i != k))


def _contact_frame(name: str, wheel: Frame, axle: str):
    """(a, u, s, c) in the wheel's axes: the axle, e_z, s = a . u and c, the lean cosine."""
    if axle not in AXES:
        raise ValueError(f"rolling contact {name!r}: axle got {axle!r} but expected 'x', 'y' or 'z'")
    a = unit(axle)
    u = sp.Matrix(wheel.R[2, :]).T
    return a, u, u[AXES[axle]], _lean_cosine(u, AXES[axle], wheel.kinematics.p)


def rolling_contact(name: str, wheel: Frame, centre: Point, radius, *, axle: str = "y", tube_radius=0,
                    height=0) -> tuple:
    """The rows of a wheel rolling without slip on the plane z = ``height``.

    wheel: the wheel's frame with its angular velocity (e.g. ``carrier.spinning(angle, "y", ...)``);
    its ``axle`` axis is the wheel's axis of symmetry. centre: the wheel's centre (a Point).
    Returns (holonomic, nonholonomic): [("<name> normal force", Phi)] and
    [("<name> longitudinal friction force", row), ("<name> lateral friction force", row)],
    ready for :func:`~systems.builders.rigid_body.from_rigid_bodies`.
    """
    a, u, s, c = _contact_frame(name, wheel, axle)  # all vectors in the wheel's axes
    r, rho, height = sp.sympify(radius), sp.sympify(tube_radius), sp.sympify(height)
    v_C, omega = centre.velocity_in(wheel), sp.Matrix(wheel.omega)
    a_x_u = a.cross(u)
    omega_a = omega[AXES[axle]]
    omega_u = (omega.T * u)[0, 0]
    longitudinal = (-(a_x_u.T * v_C)[0, 0] + rho * (omega_a - s * omega_u)) / c + r * omega_a
    lateral = -(((a - s * u).T * v_C)[0, 0] + (r * c + rho) * (omega.T * a_x_u)[0, 0]) / c
    Phi = r * c + rho + height - centre.position[2]
    return ([(f"{name} normal force", Phi)],
            [(f"{name} longitudinal friction force", longitudinal), (f"{name} lateral friction force", lateral)])


def rolling_contact_force(wheel: Frame, centre: Point, radius, multipliers, *, axle: str = "y", tube_radius=0):
    """The contact point P (3,) and the ground's force on the wheel there (3,), both in world axes,
    for the multipliers (normal, longitudinal, lateral) of the rows of :func:`rolling_contact`:
    F = lambda_N e_z + lambda_long e_long + lambda_lat e_lat (for the arrows of a scene)."""
    a, u, s, c = _contact_frame(wheel.name, wheel, axle)
    r, rho = sp.sympify(radius), sp.sympify(tube_radius)
    R = sp.Matrix(wheel.R)  # world <- wheel axes
    P = sp.Matrix(centre.position) + R * (r * (s * a - u) / c - rho * u)
    normal, along, across = multipliers
    F = R * (normal * u + along * a.cross(u) / c + across * (a - s * u) / c)
    return P, F

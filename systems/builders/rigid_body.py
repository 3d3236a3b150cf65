"""A system from rigid bodies, in the projective Newton-Euler form (Blajer).

For bodies i with mass m_i, centre velocity v_Gi = J_ri v (world axes) and angular velocity
omega_i = J_wi v (in the axes of the inertia tensor I_i, body or world):

    M = sum J_r^T m J_r + J_w^T I J_w
    d = sum J_r^T m (J_r' v) + J_w^T (I (J_w' v) + omega x I omega)
    f = sum J_r^T (m g + F) + J_w^T tau

with J' v = (d(J v)/dp) A v. The formula holds for world-axes components as well, because
d(I_world)/dt omega = omega x I_world omega. Forces F act at the centre (world axes); torques tau
are in world axes and are rotated into body axes where needed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import sympy as sp

from ..description import System
from .common import pfaffian_matrix, split_constraints, tidy


def _vec(x):
    return sp.Matrix(x).reshape(3, 1)


@dataclass(frozen=True)
class RigidBody:
    """One rigid body of a system.

    position: centre of mass in world axes, a function of p (3,).
    rotation: R(p), world <- body (3, 3); needed for point velocities and body-axes torques.
    angular_velocity: components linear in v, in ``axes`` ("body" or "world"); derived from the
        rotation when omitted (omega_body = R^T R' as a skew matrix).
    inertia: about the centre, in the same axes as the angular velocity (3, 3).
    force, torque: applied at the centre, world axes; may depend on p, v, t and the multipliers.
    """

    name: str
    mass: sp.Expr
    inertia: sp.Matrix
    position: sp.Matrix
    rotation: sp.Matrix | None = None
    angular_velocity: sp.Matrix | None = None
    axes: str = "body"
    force: sp.Matrix = field(default_factory=lambda: sp.zeros(3, 1))
    torque: sp.Matrix = field(default_factory=lambda: sp.zeros(3, 1))

    def __post_init__(self):
        if self.axes not in ("body", "world"):
            raise ValueError(f"body {self.name!r}: axes got {self.axes!r} but expected 'body' or 'world'")
        if self.rotation is None and self.angular_velocity is None:
            raise ValueError(f"body {self.name!r}: give its rotation or its angular velocity")


class Kinematics:
    """Velocities of bodies and points as linear functions of v, for a given p, v and A(p)."""

    def __init__(self, coordinates, velocities, A):
        self.p = list(coordinates)
        self.v = list(velocities)
        self.A = sp.Matrix(A)
        self.pdot = self.A * sp.Matrix(self.v)

    def time_derivative(self, expr):
        """d/dt of an expression in p only (p' = A v)."""
        return sp.Matrix(expr).jacobian(self.p) * self.pdot

    def centre_velocity(self, body: RigidBody):
        return self.time_derivative(_vec(body.position))

    def angular_velocity(self, body: RigidBody):
        """omega in the body's ``axes``."""
        if body.angular_velocity is not None:
            return _vec(body.angular_velocity)
        R = sp.Matrix(body.rotation)
        Rdot = sum((R.diff(pi) * pdi for pi, pdi in zip(self.p, self.pdot)), sp.zeros(3, 3))
        W = tidy(R.T * Rdot) if body.axes == "body" else tidy(Rdot * R.T)
        return sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])

    def angular_velocity_world(self, body: RigidBody):
        w = self.angular_velocity(body)
        return sp.Matrix(body.rotation) * w if body.axes == "body" else w

    def point_velocity(self, body: RigidBody, r_GP):
        """Velocity of the material point at r_GP from the centre (world axes), linear in v."""
        return self.centre_velocity(body) + self.angular_velocity_world(body).cross(_vec(r_GP))

    def reaction_row(self, body: RigidBody, r_GP, direction):
        """Constraint row -direction . v_P: its multiplier is the force on the body along direction."""
        return sp.expand(-(_vec(direction).T * self.point_velocity(body, r_GP))[0, 0])


def from_rigid_bodies(name: str, coordinates: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol],
                      A, bodies: Sequence[RigidBody], *, gravity=(0, 0, 0), holonomic=(),
                      nonholonomic=(), forces=None, parameters=(), default_p=(), default_v=(),
                      simplify=True, **system_fields) -> System:
    """Build a :class:`System` from rigid bodies (projective Newton-Euler equations).

    ``holonomic``: (name, Phi_i(p)); ``nonholonomic``: (name, row linear in v), typically from
    :meth:`Kinematics.reaction_row`. ``gravity`` is the world vector g (e.g. (0, 0, -g)); its
    potential enters the energy. ``forces`` are extra generalized forces (n,).
    """
    kin = Kinematics(coordinates, velocities, A)
    v = list(velocities)
    n = len(v)
    g = _vec(gravity)
    M = sp.zeros(n, n)
    d = sp.zeros(n, 1)
    f = sp.zeros(n, 1) if forces is None else sp.Matrix(forces)
    V = sp.S.Zero
    for body in bodies:
        vG = kin.centre_velocity(body)
        J_r = vG.jacobian(v)
        w = kin.angular_velocity(body)
        J_w = w.jacobian(v)
        I = sp.Matrix(body.inertia)
        m = body.mass
        M += m * J_r.T * J_r + J_w.T * I * J_w
        Jr_dot_v = vG.jacobian(kin.p) * kin.pdot  # J_r' v with v held
        Jw_dot_v = w.jacobian(kin.p) * kin.pdot
        d += m * J_r.T * Jr_dot_v + J_w.T * (I * Jw_dot_v + w.cross(I * w))
        tau = _vec(body.torque)
        if body.axes == "body":
            tau = sp.Matrix(body.rotation).T * tau
        f += J_r.T * (m * g + _vec(body.force)) + J_w.T * tau
        V += -m * (g.T * _vec(body.position))[0, 0]
    names, Phi, rows = split_constraints(holonomic, nonholonomic)
    C_nh = pfaffian_matrix([sp.expand(r) for r in rows], v, name) if rows else sp.zeros(0, n)
    return System(name=name, coordinates=tuple(coordinates), velocities=tuple(velocities), A=A,
                  M=tidy(M, simplify), d=tidy(d, simplify), f=tidy(f, simplify),
                  Phi=sp.Matrix(Phi) if Phi else None, C_nh=tidy(C_nh, simplify), constraint_names=names,
                  parameters=tuple(parameters), potential=tidy(V, simplify), default_p=default_p,
                  default_v=default_v, **system_fields)

"""Systems of rigid bodies with their configurations as Euler parameters and positions.

Each body's frame sits at its centre of mass; its coordinates are p_i = (e0, e1, e2, e3, x, y, z)
and its velocities v_i = (omega, u): angular velocity in body axes and the centre's velocity, in
body axes (``velocity="twist"``, the body-fixed twist of SE(3)) or in world axes
(``velocity="hybrid"``, the velocity of SO(3) x R^3). The Newton-Euler equations about the
centre are then, per body,

    twist:   I omega' + omega x I omega = tau_body,    m (u' + omega x u) = R^T F
    hybrid:  I omega' + omega x I omega = tau_body,    m u' = F

so M = diag(I, m 1), d = (omega x I omega, m omega x u or 0), f = (tau_body, R^T F or F)
(A. Mueller, *Is there an optimal choice of configuration space for Lie group integration schemes
applied to constrained MBS?*, eqs. 40 and 42). The system records each body as a
:class:`~systems.description.BodyBlock`, so Lie-group integrators can update its configuration on
SE(3) or SO(3) x R^3.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Sequence

import sympy as sp

from ..description import BodyBlock, System
from ..errors import SystemDescriptionError
from ..visuals import Visual
from .common import affine_rows, split_constraints, vector3 as _vec
from .rotations import quaternion_rates_matrix, rotation_matrix


@dataclass(frozen=True)
class BodyFrame:
    """One rigid body: its symbols, mass and central inertia (body axes), and velocity kind."""

    name: str
    mass: sp.Expr
    inertia: sp.Matrix
    velocity: str = "twist"

    def __post_init__(self):
        if self.velocity not in ("twist", "hybrid"):
            raise ValueError(f"body {self.name!r}: velocity got {self.velocity!r} but expected 'twist' or 'hybrid'")
        try:
            inertia = sp.ImmutableMatrix(self.inertia)
        except (TypeError, ValueError, sp.SympifyError):
            inertia = None
        if inertia is None or inertia.shape != (3, 3) or any(sp.simplify(e) != 0 for e in inertia - inertia.T):
            raise SystemDescriptionError(f"body {self.name}", [
                f"inertia got {self.inertia!r} but expected a symmetric 3 x 3 matrix about the centre in body axes "
                f"(sympy.diag(I1, I2, I3) for principal moments)"])
        object.__setattr__(self, "inertia", inertia)
        object.__setattr__(self, "mass", sp.sympify(self.mass))

    @property
    def e(self) -> tuple:
        return sp.symbols(f"e0_{self.name} e1_{self.name} e2_{self.name} e3_{self.name}", real=True)

    @property
    def r(self) -> tuple:
        return sp.symbols(f"x_{self.name} y_{self.name} z_{self.name}", real=True)

    @property
    def omega(self) -> tuple:
        return sp.symbols(f"omega1_{self.name} omega2_{self.name} omega3_{self.name}", real=True)

    @property
    def u(self) -> tuple:
        """The centre's velocity: body axes for a twist, world axes for a hybrid velocity."""
        return sp.symbols(f"u1_{self.name} u2_{self.name} u3_{self.name}", real=True)

    @property
    def R(self) -> sp.Matrix:
        """World <- body rotation (3, 3)."""
        return rotation_matrix(self.e)

    def point(self, rho) -> sp.Matrix:
        """World position of the material point at rho (body axes) from the centre, (3, 1)."""
        return sp.Matrix(self.r) + self.R * _vec(rho)

    def kinematics(self) -> sp.Matrix:
        """The (7, 6) block of A: e' = G(e) omega, r' = R u (twist) or u (hybrid)."""
        A = sp.zeros(7, 6)
        A[:4, :3] = quaternion_rates_matrix(self.e)
        A[4:, 3:] = self.R if self.velocity == "twist" else sp.eye(3)
        return A

    def centre_velocity(self) -> sp.Matrix:
        """The centre's velocity in world axes, (3, 1)."""
        u = sp.Matrix(self.u)
        return self.R * u if self.velocity == "twist" else u

    def point_velocity(self, rho) -> sp.Matrix:
        """World velocity of the material point at rho (body axes), (3, 1)."""
        return self.centre_velocity() + self.R * sp.Matrix(self.omega).cross(_vec(rho))

    def newton_euler(self, gravity, force=(0, 0, 0), torque=(0, 0, 0)):
        """(M, d, f) of this body, shapes (6, 6), (6, 1), (6, 1); force and torque in world axes."""
        w, u, I, m = sp.Matrix(self.omega), sp.Matrix(self.u), sp.Matrix(self.inertia), self.mass
        F = m * _vec(gravity) + _vec(force)
        M = sp.diag(I, m * sp.eye(3))
        d_lin = m * w.cross(u) if self.velocity == "twist" else sp.zeros(3, 1)
        d = sp.Matrix.vstack(w.cross(I * w), d_lin)
        f_lin = self.R.T * F if self.velocity == "twist" else F
        f = sp.Matrix.vstack(self.R.T * _vec(torque), f_lin)
        return M, sp.expand(d), sp.expand(f)


def from_body_frames(name: str, frames: Sequence[BodyFrame], *, gravity=(0, 0, 0), holonomic=(),
                     nonholonomic_rows=(), parameters=(), default_p=(), default_v=(), **system_fields) -> System:
    """A :class:`System` of the bodies ``frames`` (coordinates and velocities in that order).

    holonomic: (name, Phi_i(p, t)) pairs, e.g. the rows of :func:`spherical_joint`;
    nonholonomic_rows: (name, row affine in v); t is systems.TIME (rheonomic rows). gravity: world
    vector g; its potential enters the energy. visuals (systems.Visual): what the bodies look like;
    by default each body's inertia ellipsoid.
    """
    p, v, blocks = [], [], []
    M, d, f = [], [], []
    V = sp.S.Zero
    if system_fields.get("visuals") is None:  # each body's inertia ellipsoid (systems.Visual.of_inertia)
        system_fields["visuals"] = tuple(Visual.of_inertia(SimpleNamespace(
            name=frame.name, mass=frame.mass, inertia=frame.inertia, position=sp.Matrix(frame.r), rotation=frame.R))
            for frame in frames)
    for frame in frames:
        i, j = len(p), len(v)
        blocks.append(BodyBlock(frame.name, range(i, i + 4), range(i + 4, i + 7), range(j, j + 3), range(j + 3, j + 6),
                                frame.velocity))
        p += [*frame.e, *frame.r]
        v += [*frame.omega, *frame.u]
        Mi, di, fi = frame.newton_euler(gravity)
        M.append(Mi)
        d.append(di)
        f.append(fi)
        V += -frame.mass * (_vec(gravity).T * sp.Matrix(frame.r))[0, 0]
    A = sp.diag(*[frame.kinematics() for frame in frames])
    names, Phi, rows = split_constraints(holonomic, nonholonomic_rows, name)
    C_nh, c_nh = affine_rows([sp.expand(r) for r in rows], v, name) if rows else (sp.zeros(0, len(v)), None)
    return System(name=name, coordinates=tuple(p), velocities=tuple(v), A=A, M=sp.diag(*M),
                  d=sp.Matrix.vstack(*d), f=sp.Matrix.vstack(*f), Phi=sp.Matrix(Phi) if Phi else None, C_nh=C_nh,
                  c_nh=c_nh,
                  constraint_names=names, parameters=tuple(parameters), potential=V, default_p=default_p,
                  default_v=default_v, unit_norm_blocks=tuple(b.rotation for b in blocks), bodies=tuple(blocks),
                  **system_fields)


def spherical_joint(name: str, first: BodyFrame, rho_first, second: BodyFrame | None = None, rho_second=(0, 0, 0),
                    anchor=(0, 0, 0)):
    """The three rows of a spherical joint, named "<name> force x|y|z".

    Phi = (point of ``second`` at rho_second, or the fixed ``anchor``) - (point of ``first`` at
    rho_first), world axes, so each multiplier is the joint's force on ``first`` along a world axis
    (and minus the force on ``second``), in N.
    """
    other = _vec(anchor) if second is None else second.point(rho_second)
    Phi = other - first.point(rho_first)
    return [(f"{name} force {axis}", sp.expand(Phi[k])) for k, axis in enumerate("xyz")]

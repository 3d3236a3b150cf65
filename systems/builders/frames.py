"""Frames by successive rotations, points, joints and rigid bodies on them.

A :class:`Frame` holds its rotation R (world <- frame, (3, 3)) and its angular velocity omega in its
own axes, linear in the velocities v. Each rotation adds one link: for a rotation by the angle a
about the unit axis e (components in the parent's axes, and in the child's),

    R_child = R_parent R_e(a),    omega_child = R_e(a)^T omega_parent + a' e,

with a' = (da/dp) A v. This is how sympy.physics.mechanics composes angular velocities
(``ReferenceFrame.orient_body_fixed``): the result is a short expression per link. Deriving omega
from R^T R' instead multiplies the whole chain of rotations and leaves R R^T products that sympy
never cancels, and the build grows from seconds to many minutes; these helpers offer only the
link-by-link way.

A :class:`Point` holds its world position and its velocity in the axes of a frame, also composed
link by link: for a point Q fixed in frame F at offset c from a point P,
v_Q = R_FP v_P + omega_F x c in F's axes (the two-point formula), plus e s' for a point sliding
along an axis e of F. R_FP, the rotation between two frames, is the product of the links between
them only (not of the chains down from the world), as sympy's ``dcm`` between frames of one tree.
Point velocities are left unexpanded: nested, they are several times shorter than expanded.
:meth:`Frame.body` makes a :class:`~systems.builders.rigid_body.RigidBody` with its angular
velocity and centre velocity in its own axes, so
:func:`~systems.builders.rigid_body.from_rigid_bodies` differentiates no rotation matrix at all.

Joints: a revolute joint is :meth:`Frame.rotated` about an axis through a pivot :class:`Point`
fixed in both frames; a prismatic joint is :meth:`Point.slid` along a frame axis.

Sequences (as sympy's ``orient_body_fixed`` and ``orient_space_fixed``): body-fixed "zxy" rotates
about z, then about the new x, then about the newest y; space-fixed "zxy" rotates about the
parent's z, then the parent's x, then the parent's y, which is the body-fixed sequence "yxz" with
the angles reversed.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .common import tidy, vector3 as _vec
from .rigid_body import Kinematics, RigidBody

AXES = {"x": 0, "y": 1, "z": 2}


def axis_rotation(axis: str, angle) -> sp.Matrix:
    """The rotation by ``angle`` about the coordinate axis "x", "y" or "z", shape (3, 3): it maps
    the components of a vector in the turned frame to those in the original frame."""
    c, s = sp.cos(angle), sp.sin(angle)
    return {"x": sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]]),
            "y": sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
            "z": sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])}[axis]


def unit(axis: str) -> sp.Matrix:
    e = sp.zeros(3, 1)
    e[AXES[axis]] = 1
    return e


def _check_axis(axis, where):
    if axis not in AXES:
        raise ValueError(f"{where}: axis got {axis!r} but expected 'x', 'y' or 'z' (a coordinate axis of the frame)")


@dataclass(frozen=True, eq=False)
class Frame:
    """A frame: ``link`` (parent <- frame, (3, 3)), R (world <- frame, (3, 3)) and omega (3, 1),
    the angular velocity in its own axes, linear in v. ``parent`` is None for the world frame.
    Two successive rotations about one axis are merged in R (R_y(a) R_y(b) = R_y(a + b)), while
    the links stay apart for the rotations between frames."""

    name: str
    R: sp.ImmutableMatrix
    omega: sp.ImmutableMatrix
    kinematics: Kinematics
    parent: "Frame | None" = None
    link: sp.ImmutableMatrix | None = None
    axis_angle: tuple | None = None  # the link's (axis, angle) where it is one elementary rotation
    axes_omega: sp.ImmutableMatrix | None = None  # a spinning frame's axes turn with its carrier

    @property
    def axes_rate(self) -> sp.Matrix:
        """The angular velocity of this frame's axes (its carrier's for a spinning frame), (3, 1)."""
        return sp.Matrix(self.omega if self.axes_omega is None else self.axes_omega)

    @classmethod
    def ground(cls, kinematics: Kinematics, name: str = "ground") -> "Frame":
        """The world frame: R = I, omega = 0."""
        return cls(name, sp.ImmutableMatrix(sp.eye(3)), sp.ImmutableMatrix(sp.zeros(3, 1)), kinematics)

    # -- orientation ---------------------------------------------------------------------------
    def rotated(self, angle, axis: str, name: str) -> "Frame":
        """The frame turned by ``angle`` about its own axis "x", "y" or "z": a revolute joint whose
        angle may be a coordinate, an expression in coordinates, or a constant (rate 0)."""
        _check_axis(axis, f"frame {name!r}")
        if self.axes_omega is not None:
            raise ValueError(f"frame {name!r}: got the spinning frame {self.name!r} as parent, whose axes are its "
                             f"carrier's; expected a frame fixed in a body (rotate the carrier, or make the spin "
                             f"angle a rotation with Frame.rotated)")
        angle = sp.sympify(angle)
        Rj = axis_rotation(axis, angle)
        omega = tidy(Rj.T * self.axes_rate + self.kinematics.rate(angle) * unit(axis))
        if self.axis_angle is not None and self.axis_angle[0] == axis:  # R_y(a) R_y(b) = R_y(a + b) in R
            R = sp.Matrix(self.parent.R) * axis_rotation(axis, self.axis_angle[1] + angle)
        else:
            R = sp.Matrix(self.R) * Rj
        return Frame(name, sp.ImmutableMatrix(tidy(R)), sp.ImmutableMatrix(omega), self.kinematics, self,
                     sp.ImmutableMatrix(Rj), (axis, angle))

    def body_fixed(self, angles, sequence: str, name: str) -> "Frame":
        """Successive rotations about the new axes: ``sequence`` such as "zxy", one angle each."""
        angles, sequence = tuple(angles), str(sequence).lower()
        if len(angles) != len(sequence) or any(a not in AXES for a in sequence):
            raise ValueError(f"frame {name!r}: sequence {sequence!r} with {len(angles)} angles; expected one angle "
                             f"per axis letter x, y or z (e.g. (psi, phi, theta) with 'zxy')")
        frame = self
        for i, (angle, axis) in enumerate(zip(angles, sequence)):
            frame = frame.rotated(angle, axis, name if i == len(sequence) - 1 else f"{name} [{i + 1}]")
        return frame

    def space_fixed(self, angles, sequence: str, name: str) -> "Frame":
        """Successive rotations about the parent's (fixed) axes: the body-fixed sequence reversed."""
        angles, sequence = tuple(angles), str(sequence).lower()
        return self.body_fixed(angles[::-1], sequence[::-1], name)

    def spinning(self, angle, axis: str, name: str) -> "Frame":
        """A frame spinning by ``angle`` about this frame's ``axis`` but keeping this frame's axes:
        omega = omega_self + angle' e, while the axes turn with this frame (``axes_rate``). For a
        body symmetric about that axis (a wheel on its axle) the inertia is constant in these axes,
        so the spin angle never enters a rotation. Points located in it are fixed in the carrier
        (the wheel's centre); the rolling contact uses omega for the wheel's material point."""
        _check_axis(axis, f"frame {name!r}")
        omega = self.axes_rate + self.kinematics.rate(sp.sympify(angle)) * unit(axis)
        return Frame(name, self.R, sp.ImmutableMatrix(omega), self.kinematics, self, sp.ImmutableMatrix(sp.eye(3)),
                     axes_omega=sp.ImmutableMatrix(self.axes_rate))

    def _ancestry(self) -> list:
        chain, frame = [], self
        while frame is not None:
            chain.append(frame)
            frame = frame.parent
        return chain[::-1]

    def rotation_from(self, other: "Frame") -> sp.Matrix:
        """R_self<-other: this frame's components of a vector given in ``other``'s axes, (3, 3);
        the product of the links between the two frames only."""
        mine, theirs = self._ancestry(), other._ancestry()
        if mine[0] is not theirs[0]:
            raise ValueError(f"frames {self.name!r} and {other.name!r} do not hang from the same world frame")
        k = 0
        while k < min(len(mine), len(theirs)) and mine[k] is theirs[k]:
            k += 1
        down_to_self, down_to_other = sp.eye(3), sp.eye(3)
        for frame in mine[k:]:
            down_to_self = down_to_self * sp.Matrix(frame.link)
        for frame in theirs[k:]:
            down_to_other = down_to_other * sp.Matrix(frame.link)
        return down_to_self.T * down_to_other

    # -- vectors -------------------------------------------------------------------------------
    def axis(self, axis: str) -> sp.Matrix:
        """World components of the frame's unit axis "x", "y" or "z", (3, 1)."""
        _check_axis(axis, f"frame {self.name!r}")
        return sp.Matrix(self.R[:, AXES[axis]])

    def vector(self, components) -> sp.Matrix:
        """World components of a vector given in this frame's axes, (3, 1)."""
        return sp.Matrix(self.R) * _vec(components)

    def express(self, world) -> sp.Matrix:
        """This frame's components of a vector given in world axes, (3, 1)."""
        return tidy(sp.Matrix(self.R).T * _vec(world))

    @property
    def omega_world(self) -> sp.Matrix:
        """Angular velocity in world axes, (3, 1)."""
        return sp.Matrix(self.R) * sp.Matrix(self.omega)

    # -- bodies --------------------------------------------------------------------------------
    def body(self, name: str, mass, inertia, centre: "Point", force=(0, 0, 0), torque=(0, 0, 0)) -> RigidBody:
        """A rigid body fixed in this frame: inertia about ``centre`` in this frame's axes; force
        and torque in world axes. Its angular velocity and centre velocity are in its own axes."""
        return RigidBody(name, mass, inertia, centre.position, rotation=self.R, angular_velocity=self.omega,
                         axes="body", force=sp.Matrix(force), torque=sp.Matrix(torque),
                         velocity=centre.velocity_in(self), axes_angular_velocity=self.axes_omega)


@dataclass(frozen=True, eq=False)
class Point:
    """A point: world position (3, 1), and its velocity (3, 1) in the axes of ``frame``."""

    name: str
    position: sp.ImmutableMatrix
    velocity: sp.ImmutableMatrix
    frame: Frame

    @classmethod
    def at(cls, ground: Frame, position, name: str) -> "Point":
        """A point at ``position`` (world axes, a function of p); its velocity is dposition/dt, in
        the axes of ``ground`` (the world frame)."""
        r = _vec(position, f"point {name!r} position")
        return cls(name, sp.ImmutableMatrix(r), sp.ImmutableMatrix(ground.kinematics.time_derivative(r)), ground)

    @classmethod
    def moving(cls, frame: Frame, position, velocity, name: str) -> "Point":
        """A point at ``position`` (world axes) whose velocity has the components ``velocity`` in
        ``frame``'s axes, e.g. velocities of the system (then A must give position' = R velocity)."""
        return cls(name, sp.ImmutableMatrix(_vec(position, f"point {name!r} position")),
                   sp.ImmutableMatrix(_vec(velocity, f"point {name!r} velocity")), frame)

    def velocity_in(self, frame: Frame) -> sp.Matrix:
        """The velocity in ``frame``'s axes, (3, 1)."""
        if frame is self.frame:
            return sp.Matrix(self.velocity)
        return frame.rotation_from(self.frame) * sp.Matrix(self.velocity)

    def located(self, frame: Frame, offset, name: str) -> "Point":
        """The point fixed in ``frame`` at ``offset`` (frame axes) from this point, which must be
        fixed in ``frame`` too (two-point formula)."""
        c = _vec(offset, f"point {name!r} offset")
        v = self.velocity_in(frame) + frame.axes_rate.cross(c)
        return Point(name, sp.ImmutableMatrix(sp.Matrix(self.position) + frame.vector(c)), sp.ImmutableMatrix(v), frame)

    def slid(self, frame: Frame, axis: str, distance, name: str) -> "Point":
        """A prismatic joint: the point at ``distance`` (a coordinate or an expression in p) along
        ``frame``'s axis from this point, which is fixed in ``frame``."""
        _check_axis(axis, f"point {name!r}")
        distance = sp.sympify(distance)
        e = unit(axis)
        rate = frame.kinematics.rate(distance)
        v = self.velocity_in(frame) + frame.axes_rate.cross(e * distance) + e * rate
        return Point(name, sp.ImmutableMatrix(sp.Matrix(self.position) + frame.vector(e * distance)),
                     sp.ImmutableMatrix(v), frame)

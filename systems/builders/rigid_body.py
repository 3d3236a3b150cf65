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
from ..visuals import body_visuals
from ..errors import SystemDescriptionError
from .common import BuildClock, affine_rows, check_symbols, column, contact_rows, split_constraints, tidy, vector3 as _vec


@dataclass(frozen=True)
class RigidBody:
    """One rigid body of a system, for :func:`systems.from_rigid_bodies`.

    The constructor takes the attributes below (``name``, ``mass``, ``inertia`` and ``position``
    required; give ``rotation`` or ``angular_velocity``). A bad value raises ValueError (``axes``, a
    missing rotation) or SystemDescriptionError (a shape, a non-symmetric inertia).

    Attributes
    ----------
    name : str
        The body's name.
    mass : Expr
        Its mass, in kg.
    inertia : Matrix, shape (3, 3)
        About the centre, in the same axes as the angular velocity, symmetric.
    position : Matrix, shape (3,)
        Centre of mass in world axes, a function of p.
    rotation : Matrix, shape (3, 3), optional
        R(p), world <- body; needed for point velocities and body-axes torques.
    angular_velocity : Matrix, shape (3,), optional
        Components linear in v, in ``axes``; derived from the rotation when omitted
        (omega_body = R^T R' as a skew matrix: slow for a chain of rotations, where
        systems.builders.frames composes omega link by link instead).
    axes : str
        "body" (default) or "world": the axes of the angular velocity and the inertia.
    force, torque : Matrix, shape (3,)
        Applied at the centre, world axes; may depend on p, v, t and the multipliers (default 0).
    velocity : Matrix, shape (3,), optional
        The centre's velocity in ``axes`` like the angular velocity, linear in v; dposition/dt
        (world axes) when omitted. In body axes, the translational terms read
        m J^T (J' v + omega x v_G) and J^T R^T (m g + F), with no rotation matrix differentiated.
    axes_angular_velocity : Matrix, shape (3,), optional
        Where the body's axes are not fixed in it but in a carrier (a wheel in its fork's axes, with
        the inertia constant in them because the wheel is symmetric about its axle), the carrier's
        angular velocity in those axes; it replaces omega in the terms omega x I omega and
        omega x v_G.
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
    velocity: sp.Matrix | None = None
    axes_angular_velocity: sp.Matrix | None = None

    def __post_init__(self):
        if self.axes not in ("body", "world"):
            raise ValueError(f"body {self.name!r}: axes got {self.axes!r} but expected 'body' or 'world'")
        if self.rotation is None and self.angular_velocity is None:
            raise ValueError(f"body {self.name!r}: give its rotation or its angular velocity")
        if self.velocity is not None and self.axes == "body" and self.rotation is None:
            raise ValueError(f"body {self.name!r}: a centre velocity in body axes needs the rotation R (world <- body) "
                             f"for the applied forces; give rotation= or the velocity in world axes (axes='world')")
        problems = []
        try:
            object.__setattr__(self, "mass", sp.sympify(self.mass))
        except sp.SympifyError:
            problems.append(f"mass got {self.mass!r} but expected a number or a sympy expression")
        for field_name, shape, what in (("inertia", (3, 3), "a 3 x 3 matrix about the centre (sympy.diag(I1, I2, I3) "
                                                            "for principal moments)"),
                                        ("position", (3, 1), "3 world-axes coordinates of the centre"),
                                        ("rotation", (3, 3), "the 3 x 3 rotation matrix R (world <- body)"),
                                        ("angular_velocity", (3, 1), "3 components linear in v"),
                                        ("force", (3, 1), "3 world-axes components"),
                                        ("torque", (3, 1), "3 world-axes components"),
                                        ("velocity", (3, 1), "3 components linear in v"),
                                        ("axes_angular_velocity", (3, 1), "3 components linear in v")):
            value = getattr(self, field_name)
            if value is None:
                continue
            matrix = _as_matrix(value)
            if matrix is not None and shape[1] == 1 and matrix.shape == (1, 3):
                matrix = matrix.T
            if matrix is None or matrix.shape != shape:
                problems.append(f"{field_name} got {value!r} (shape {None if matrix is None else matrix.shape}) but "
                                f"expected {what}")
                continue
            object.__setattr__(self, field_name, sp.ImmutableMatrix(matrix))
        if not problems:
            asym = [e for e in (self.inertia - self.inertia.T) if sp.simplify(e) != 0]
            if asym:
                problems.append(f"inertia got a non-symmetric matrix {self.inertia.tolist()} but expected a symmetric "
                                f"one (I = I^T)")
        if problems:
            raise SystemDescriptionError(f"body {self.name}", problems)


def _as_matrix(value):
    try:
        return sp.Matrix(value)
    except (TypeError, ValueError, sp.SympifyError):
        return None


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

    def rate(self, expr) -> sp.Expr:
        """d/dt of one scalar expression in p (0 for a constant), linear in v."""
        expr = sp.sympify(expr)
        return sp.expand(sum((expr.diff(q) * qd for q, qd in zip(self.p, self.pdot) if expr.has(q)), sp.S.Zero))

    def centre_velocity(self, body: RigidBody):
        """The centre's velocity in world axes."""
        if body.velocity is None:
            return self.time_derivative(_vec(body.position))
        return sp.Matrix(body.rotation) * _vec(body.velocity) if body.axes == "body" else _vec(body.velocity)

    def centre_velocity_in_axes(self, body: RigidBody):
        """(velocity, True) in body axes where the body gives it so, else (world-axes velocity, False)."""
        if body.velocity is not None and body.axes == "body":
            return _vec(body.velocity), True
        return self.centre_velocity(body), False

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
                      simplify=True, warn_after=30.0, visuals=None, unilateral=(), friction=(),
                      **system_fields) -> System:
    """Build a System from rigid bodies, by the projective Newton–Euler equations (Blajer): each body
    adds m J_r^T J_r + J_w^T I J_w to M (J_r, J_w: its centre's and its angular velocity's Jacobians).

    Parameters
    ----------
    name : str
        The system's name.
    coordinates, velocities : sequence of Symbol
        p, shape (n_p,), and v, shape (n,).
    A : Matrix, shape (n_p, n)
        p' = A(p) v.
    bodies : list of RigidBody
        The bodies, each with its mass, inertia, centre position and rotation or angular velocity.
    gravity, forces : sequence of Expr, optional
        The world vector g, e.g. (0, 0, -g) in m/s^2 (its potential enters the energy); extra
        generalized forces, shape (n,).
    holonomic, nonholonomic : sequence of (str, Expr), optional
        (name, Phi_i(p, t)) and (name, row affine in v), t being ``systems.TIME``; rows typically from
        ``Kinematics.reaction_row`` or ``systems.builders.contact.rolling_contact`` (minus a moving
        support's velocity).
    parameters, default_p, default_v, simplify, unilateral, friction, **system_fields
        As in ``systems.from_lagrangian``: parameters with values and units, the default state,
        simplification, contacts, and further System fields.
    warn_after, visuals : float, sequence of Visual, optional
        A build over ``warn_after`` s (default 30) warns (SlowBuildWarning) naming its slowest steps.
        ``Visual.on_body`` poses a shape in a body's frame; by default each body with a rotation shows
        its inertia ellipsoid (``Visual.of_inertia``).

    Returns
    -------
    System
        The validated description.

    Raises
    ------
    systems.SystemDescriptionError
        Naming every bad piece: A's shape, an entry that is not a RigidBody, a malformed row.

    Examples
    --------
    >>> import sympy as sp, systems
    >>> z, w = sp.symbols("z w", real=True)
    >>> ball = systems.RigidBody("ball", 1, sp.eye(3) / 10, sp.Matrix([0, 0, z]), rotation=sp.eye(3))
    >>> falling = systems.from_rigid_bodies("falling ball", [z], [w], sp.eye(1), [ball], gravity=(0, 0, -9.81),
    ...                                     default_p=[1.0], default_v=[0.0])
    >>> falling.M, falling.f
    (Matrix([[1]]), Matrix([[-9.81]]))
    """
    kin = _kinematics(name, coordinates, velocities, A, bodies)
    coordinates, velocities, n = kin.p, kin.v, len(kin.v)
    v = list(velocities)
    g = column("gravity", gravity, 3, "the world vector g, e.g. (0, 0, -g)", name)
    M = sp.zeros(n, n)
    d = sp.zeros(n, 1)
    f = sp.zeros(n, 1) if forces is None else column(
        "forces", forces, n, f"one generalized force per velocity ({', '.join(map(str, v))})", name)
    clock = BuildClock(name, warn_after)
    M, d, f, V = _body_terms(kin, bodies, g, (M, d, f), clock)
    with clock.step("constraint rows"):
        holonomic, contacts = contact_rows(holonomic, unilateral, friction, system_fields.pop("contacts", ()), name)
        names, Phi, rows = split_constraints(holonomic, nonholonomic, name)
        C_nh, c_nh = affine_rows(rows, v, name) if rows else (sp.zeros(0, n), None)
    with clock.step("simplification of M, d, f and C_nh"):
        pieces = [tidy(x, simplify) for x in (M, d, f, C_nh, V)]
    with clock.step("validation of the description"):
        return System(name=name, coordinates=tuple(coordinates), velocities=tuple(velocities), A=A,
                      M=pieces[0], d=pieces[1], f=pieces[2], Phi=sp.Matrix(Phi) if Phi else None, C_nh=pieces[3],
                      c_nh=c_nh, constraint_names=names, parameters=tuple(parameters), potential=pieces[4],
                      default_p=default_p, default_v=default_v, visuals=body_visuals(bodies, visuals),
                      contacts=contacts, **system_fields)


def _body_terms(kin, bodies, g, terms, clock):
    """M, d, f with each body's share added to ``terms``, and the potential V of gravity."""
    M, d, f = terms
    v = kin.v
    V = sp.S.Zero
    for body in bodies:
        with clock.step(f"velocities of body {body.name!r}"):
            vG, in_body_axes = kin.centre_velocity_in_axes(body)
            J_r = vG.jacobian(v)
        slow_hint = ("" if body.angular_velocity is not None else
                     f"Body {body.name!r} has no angular velocity, so it is derived from R^T R', which is slow for "
                     f"a chain of rotations: compose it link by link with systems.builders.frames.Frame and make the "
                     f"body with Frame.body.")
        with clock.step(f"angular velocity of body {body.name!r}", slow_hint):
            w = kin.angular_velocity(body)
            J_w = w.jacobian(v)
        with clock.step(f"inertia terms of body {body.name!r}"):
            I = sp.Matrix(body.inertia)
            m = body.mass
            M += m * J_r.T * J_r + J_w.T * I * J_w
            Jr_dot_v = vG.jacobian(kin.p) * kin.pdot  # J_r' v with v held
            Jw_dot_v = w.jacobian(kin.p) * kin.pdot
            w_axes = w if body.axes_angular_velocity is None else _vec(body.axes_angular_velocity)
            if in_body_axes:  # d/dt (R v_b) = R (v_b' + omega_axes x v_b)
                Jr_dot_v = Jr_dot_v + w_axes.cross(vG)
            d += m * J_r.T * Jr_dot_v + J_w.T * (I * Jw_dot_v + w_axes.cross(I * w))
            tau, F = _vec(body.torque), m * g + _vec(body.force)
            if body.axes == "body":
                tau = sp.Matrix(body.rotation).T * tau
            if in_body_axes:
                F = sp.Matrix(body.rotation).T * F
            f += J_r.T * F + J_w.T * tau
            V += -m * (g.T * _vec(body.position))[0, 0]
    return M, d, f, V


def _kinematics(name, coordinates, velocities, A, bodies) -> "Kinematics":
    """The Kinematics of p, v and A, checked, and a check that every body is a RigidBody."""
    coordinates = check_symbols("coordinates", coordinates, name)
    velocities = check_symbols("velocities", velocities, name)
    n_p, n = len(coordinates), len(velocities)
    A_matrix = _as_matrix(A)
    if A_matrix is None or A_matrix.shape != (n_p, n):
        raise SystemDescriptionError(name, [f"A got shape {None if A_matrix is None else A_matrix.shape} but expected "
                                            f"({n_p}, {n}): p' = A v with {n_p} coordinates and {n} velocities"])
    bad = [f"bodies[{i}] got {b!r} but expected a RigidBody" for i, b in enumerate(bodies) if not isinstance(b, RigidBody)]
    if bad:
        raise SystemDescriptionError(name, bad)
    return Kinematics(coordinates, velocities, A_matrix)

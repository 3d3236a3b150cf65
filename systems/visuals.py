"""What the bodies of a system look like, and where they are: simple shapes posed by p.

A :class:`Visual` is a shape, its sizes (m; numbers or expressions in the parameters), a colour and
its pose: the centre of the shape in world axes and R (world <- shape axes), expressions in p, the
parameters and the time t. Shapes and their sizes, in the shape's own axes:

    box        (a, b, c)         edge lengths along x, y, z
    cylinder   (radius, length)  axis along y; a disc or a wheel is a short one
    sphere     (radius,)
    ellipsoid  (a, b, c)         semi-axes along x, y, z
    torus      (R, r)            ring of radius R about the y axis, tube radius r
    link       (radius,)         a rod from ``position`` to ``end`` (rotation not used)
    point      (radius,)         a marked point (a small sphere), e.g. a contact point to trail
    arrow      (scale,)          a force applied at ``position``: ``end`` is the vector (N, world
                                 axes; it may depend on the multipliers lambda), drawn ``scale``
                                 m per N
    plane      (half_size,)      the horizontal ground z = position[2], a square seen from above
    wall       (radius, height)  a vertical cylinder wall about the z axis through ``position``,
                                 from height position[2] up, seen from inside

``Visual.on_body`` poses a shape in a rigid body's frame; ``Visual.of_inertia`` gives a body with no
shape of its own the ellipsoid of uniform density with its mass and principal moments (Legendre's
ellipsoid; the sphere of the same trace where the inertia is not diagonal in the body's axes), so
that every rigid body can be drawn. :class:`Poses` evaluates the poses at states.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

SIZES = {"box": 3, "cylinder": 2, "sphere": 1, "ellipsoid": 3, "torus": 2, "link": 1, "plane": 1, "wall": 2,
         "point": 1, "arrow": 1}
WITH_END = ("link", "arrow")  # the kinds whose ``end`` is given: a rod's end point, a force's vector
PALETTE = ("#c0392b", "#2471a3", "#d68910", "#229954", "#7d3c98", "#17a589", "#a04000", "#5d6d7e")
THINNEST = 0.02  # an ellipsoid's smallest semi-axis, as a share of its largest (a flat body stays visible)
INERTIA_OPACITY = 0.5  # shapes made from the inertia are drawn see-through: they stand for the mass, not the form


@dataclass(frozen=True)
class Visual:
    """One drawn shape: ``kind`` (a key of SIZES), ``sizes``, its pose, colour ("#rrggbb"; empty: one
    of PALETTE by its place in the system) and opacity (0 < opacity <= 1)."""

    name: str
    kind: str
    sizes: tuple
    position: sp.ImmutableMatrix
    rotation: sp.ImmutableMatrix | None = None
    end: sp.ImmutableMatrix | None = None
    colour: str = ""
    opacity: float = 1.0

    def __post_init__(self):
        if self.kind not in SIZES:
            raise ValueError(f"visual {self.name!r}: kind got {self.kind!r} but expected one of {', '.join(SIZES)}")
        sizes = tuple(sp.sympify(s) for s in (self.sizes if isinstance(self.sizes, (tuple, list)) else (self.sizes,)))
        if len(sizes) != SIZES[self.kind]:
            raise ValueError(f"visual {self.name!r}: a {self.kind} takes {SIZES[self.kind]} sizes but got {len(sizes)}")
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "position", _matrix(self.name, "position", self.position, (3, 1)))
        rotation = sp.eye(3) if self.rotation is None else self.rotation
        object.__setattr__(self, "rotation", _matrix(self.name, "rotation", rotation, (3, 3)))
        if (self.kind in WITH_END) != (self.end is not None):
            raise ValueError(f"visual {self.name!r}: a link needs its end point and an arrow its vector (end=); other "
                             f"shapes take none")
        if self.end is not None:
            object.__setattr__(self, "end", _matrix(self.name, "end", self.end, (3, 1)))
        if self.colour and not (len(self.colour) == 7 and self.colour.startswith("#")
                                and all(c in "0123456789abcdefABCDEF" for c in self.colour[1:])):
            raise ValueError(f"visual {self.name!r}: colour got {self.colour!r} but expected '#rrggbb'")
        if not 0.0 < float(self.opacity) <= 1.0:
            raise ValueError(f"visual {self.name!r}: opacity got {self.opacity!r} but expected 0 < opacity <= 1")

    @classmethod
    def on_body(cls, body, kind, sizes, offset=(0, 0, 0), rotation=None, colour="", name=None,
                opacity=1.0) -> Visual:
        """``kind`` with ``sizes`` fixed in ``body`` (a systems.builders.rigid_body.RigidBody with its
        rotation R): centred at the body's centre plus R offset (offset in body axes), its axes
        R rotation (rotation: body <- shape axes, default identity)."""
        R = _body_rotation(body)
        local = sp.eye(3) if rotation is None else sp.Matrix(rotation)
        return cls(name or body.name, kind, sizes, sp.Matrix(body.position) + R * sp.Matrix(offset), R * local,
                   colour=colour, opacity=opacity)

    @classmethod
    def of_inertia(cls, body, colour="") -> Visual:
        """The ellipsoid of uniform density with the body's mass and inertia: semi-axes
        a^2 = 5 (I_2 + I_3 - I_1) / (2 m) and cyclically, in the body's axes where its inertia is
        diagonal in them (the smallest semi-axis at least THINNEST of the largest); else the sphere of
        uniform density with the same trace, r^2 = 5 tr(I) / (6 m)."""
        inertia = sp.Matrix(body.inertia)
        I1, I2, I3 = (inertia[i, i] for i in range(3))
        m = body.mass
        if any(inertia[i, j] != 0 for i in range(3) for j in range(3) if i != j):  # principal axes unknown here
            return cls(body.name, "sphere", (sp.sqrt(5 * (I1 + I2 + I3) / (6 * m)),), body.position, colour=colour,
                       opacity=INERTIA_OPACITY)
        axes = [sp.sqrt(sp.Max(5 * (b + c - a) / (2 * m), 0)) for a, b, c in ((I1, I2, I3), (I2, I3, I1), (I3, I1, I2))]
        largest = sp.Max(*axes)
        return cls.on_body(body, "ellipsoid", tuple(sp.Max(x, THINNEST * largest) for x in axes), colour=colour,
                           opacity=INERTIA_OPACITY)


def _matrix(name, field, value, shape):
    try:
        matrix = sp.ImmutableMatrix(value)
    except (TypeError, ValueError, sp.SympifyError):
        raise ValueError(f"visual {name!r}: {field} got {value!r} but expected a {shape[0]} x {shape[1]} matrix") from None
    if matrix.shape == (1, 3) and shape == (3, 1):
        matrix = matrix.T
    if matrix.shape != shape:
        raise ValueError(f"visual {name!r}: {field} got shape {matrix.shape} but expected {shape}")
    return matrix


def _body_rotation(body):
    if body.rotation is None:
        raise ValueError(f"body {body.name!r} has no rotation R (world <- body), so its shape cannot be posed; give "
                         f"RigidBody(..., rotation=R)")
    return sp.Matrix(body.rotation)


def body_visuals(bodies, given=None) -> tuple:
    """The visuals of a system built from ``bodies``: ``given`` (a sequence of Visual) where given,
    else each body's ellipsoid of inertia (bodies without a rotation are left out)."""
    if given is not None:
        return tuple(given)
    return tuple(Visual.of_inertia(b) for b in bodies if b.rotation is not None)


@dataclass(frozen=True)
class Pose:
    """A visual at one state: sizes (m), centre (3,) and R (3, 3) world <- shape axes, end (3,) for a
    link (its end point) or an arrow (its tip, position + scale * force; NaN without multipliers),
    else None; colour and opacity."""

    name: str
    kind: str
    sizes: tuple
    position: np.ndarray
    rotation: np.ndarray
    end: np.ndarray | None
    colour: str
    opacity: float


class Poses:
    """The poses of a system's visuals: ``Poses(system).at(p, t, multipliers)`` -> tuple of Pose, at the
    system's parameter values (multipliers (m + l,) for the arrows; without them an arrow's tip is
    NaN); ``along(t, P, L)`` -> {name: (positions (k, 3), rotations (k, 3, 3), ends or None)} for the
    states P (k, n_p) and multipliers L (k, m + l) or None at the times t (k,)."""

    def __init__(self, system):
        visuals = system.visuals
        if not visuals:
            raise ValueError(f"system {system.name!r} has no visuals: give them with System(..., visuals=...) or build "
                             f"it from rigid bodies (systems.builders.rigid_body.from_rigid_bodies)")
        self.system, self.visuals = system, visuals
        values = dict(zip((p.symbol for p in system.parameters), system.parameter_values))
        self.sizes = [tuple(float(sp.sympify(s).subs(values)) for s in vis.sizes) for vis in visuals]
        bad = [f"{vis.name!r} {sizes}" for vis, sizes in zip(visuals, self.sizes)
               if not all(np.isfinite(x) and x > 0 for x in sizes)]
        if bad:
            raise ValueError(f"system {system.name!r}: the sizes of the visuals {', '.join(bad)} are not all positive "
                             f"at its parameter values")
        self.colours = [vis.colour or PALETTE[i % len(PALETTE)] for i, vis in enumerate(visuals)]
        entries = []
        for vis in visuals:
            entries += list(vis.position) + list(vis.rotation) + (list(vis.end) if vis.end is not None else [])
        entries = [sp.sympify(e).subs(values) for e in entries]
        self._lam = len(system.multipliers)
        self._f = sp.lambdify([system.coordinates, system.time, system.multipliers], entries, modules="numpy")

    def _flat(self, p, t, multipliers):
        lam = np.full(self._lam, np.nan) if multipliers is None else np.asarray(multipliers, float)
        with np.errstate(invalid="ignore"):
            return np.array([float(x) for x in self._f(np.asarray(p, float), float(t), lam)])

    def at(self, p, t=0.0, multipliers=None) -> tuple:
        flat, out, k = self._flat(p, t, multipliers), [], 0
        for vis, sizes, colour in zip(self.visuals, self.sizes, self.colours):
            position, rotation = flat[k:k + 3], flat[k + 3:k + 12].reshape(3, 3)
            k += 12
            end = None
            if vis.end is not None:
                end, k = flat[k:k + 3], k + 3
                if vis.kind == "arrow":
                    end = position + sizes[0] * end
            out.append(Pose(vis.name, vis.kind, sizes, position, rotation, end, colour, float(vis.opacity)))
        return tuple(out)

    def along(self, t, P, L=None) -> dict:
        L = [None] * len(t) if L is None else np.asarray(L, float)
        frames = [self.at(p, s, lam) for s, p, lam in zip(np.asarray(t, float), np.asarray(P, float), L)]
        return {vis.name: (np.array([f[i].position for f in frames]), np.array([f[i].rotation for f in frames]),
                           None if vis.end is None else np.array([f[i].end for f in frames]))
                for i, vis in enumerate(self.visuals)}

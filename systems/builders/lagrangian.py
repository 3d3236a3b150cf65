"""A system from a Lagrangian T(p, p') - V(p) with v = p' and A = I.

    M = d2T / dv dv,   d = (d/dp (dT/dv)) v - dT/dp  (the Christoffel terms),
    f = -dV/dp + Q     (Q the given generalized forces, possibly affine in the multipliers).
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from ..description import System
from ..errors import SystemDescriptionError
from .common import affine_rows, check_symbols, column, contact_rows, split_constraints, tidy


def velocity_symbols(coordinates):
    """The symbols <name>_dot for each coordinate."""
    return tuple(sp.Symbol(f"{q.name}_dot", real=True) for q in coordinates)


def from_lagrangian(name: str, coordinates: Sequence[sp.Symbol], T, V=0, *, velocities=None,
                    forces=None, holonomic=(), nonholonomic=(), parameters=(), default_p=(),
                    default_v=(), simplify=True, unilateral=(), friction=(), **system_fields) -> System:
    """Build a :class:`System` from kinetic energy T(p, v) and potential V(p), with v = p'.

    ``holonomic`` and ``nonholonomic`` are sequences of (name, expression): Phi_i(p, t) and rows
    affine in v, C_nh,i(p, t) v + c_nh,i(p, t) (t is systems.TIME: rheonomic rows). ``forces`` are
    generalized forces Q (n,), which may depend on t and be affine in the system's multipliers (pass
    ``multipliers=`` then). ``unilateral`` [(name, gap) or (name, gap, restitution)] adds a contact that
    may open, g(p) >= 0, as the holonomic row (name, -g); ``friction`` [(normal row, tangential rows,
    mu)] lets friction limit rows (systems.builders.common.contact_rows, systems.contacts). Remaining
    keywords go to System.
    """
    if not isinstance(name, str) or not name:
        raise SystemDescriptionError(repr(name), [f"name got {name!r} but expected a non-empty str"])
    p = check_symbols("coordinates", coordinates, name)
    v = check_symbols("velocities", velocities, name) if velocities is not None else velocity_symbols(p)
    if len(v) != len(p):
        raise SystemDescriptionError(name, [f"velocities got {len(v)} symbols but expected {len(p)}, one per "
                                            f"coordinate (v = p')"])
    T, V = sp.sympify(T), sp.sympify(V)
    vcol = sp.Matrix(v)
    dT_dv = sp.Matrix([T]).jacobian(v).T
    M = tidy(dT_dv.jacobian(v), simplify)
    d = tidy(dT_dv.jacobian(p) * vcol - sp.Matrix([T]).jacobian(p).T, simplify)
    f = -sp.Matrix([V]).jacobian(p).T
    if forces is not None:
        f = f + column("forces", forces, len(v), f"one generalized force per velocity ({', '.join(map(str, v))})",
                       name)
    holonomic, contacts = contact_rows(holonomic, unilateral, friction, system_fields.pop("contacts", ()), name)
    names, Phi, rows = split_constraints(holonomic, nonholonomic, name)
    C_nh, c_nh = affine_rows(rows, v, name) if rows else (sp.zeros(0, len(v)), None)
    return System(name=name, coordinates=p, velocities=v, A=sp.eye(len(p)), M=M, d=d, f=f,
                  Phi=sp.Matrix(Phi) if Phi else None, C_nh=C_nh, c_nh=c_nh, constraint_names=names,
                  parameters=tuple(parameters), potential=V, default_p=default_p, default_v=default_v,
                  contacts=contacts, **system_fields)

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
    """Build a System from kinetic energy T(p, v) and potential V(p), with v = p' and A = I.

    M = d2T / dv dv, d = (d/dp (dT/dv)) v - dT/dp (the Christoffel terms), f = -dV/dp + Q.

    Parameters
    ----------
    name : str
        The system's name, non-empty.
    coordinates : sequence of Symbol
        p, shape (n,).
    T, V : Expr
        Kinetic energy in p and v, and potential in p (default 0), in J.
    velocities : sequence of Symbol, optional
        v = p', shape (n,); default the symbols ``<coordinate>_dot``.
    forces : sequence of Expr, optional
        Generalized forces Q, shape (n,), which may depend on t and be affine in the system's
        multipliers (pass ``multipliers=`` then).
    holonomic, nonholonomic : sequence of (str, Expr), optional
        (name, Phi_i(p, t)) and (name, row affine in v, C_nh,i(p, t) v + c_nh,i(p, t)); t is
        ``systems.TIME`` (rheonomic rows); the name is that of the reaction the row carries.
    parameters, default_p, default_v : sequence, optional
        The Parameter objects of the free symbols; the default state (numbers or expressions in them).
    simplify : bool, optional
        The builders' cheap simplification of M and d (default True).
    unilateral, friction : sequence of tuple, optional
        ``unilateral`` [(name, gap) or (name, gap, restitution)] adds a contact that may open,
        g(p) >= 0, as the holonomic row (name, -g); ``friction`` [(normal row, tangential rows, mu)]
        lets friction limit rows (systems.builders.common.contact_rows, systems.contacts).
    **system_fields
        Remaining keywords go to System.

    Returns
    -------
    System
        The validated system.

    Raises
    ------
    SystemDescriptionError
        Listing every problem of the description (a name, symbol, shape or row at fault).

    Examples
    --------
    >>> import sympy as sp, systems
    >>> x, y, x_dot, y_dot = sp.symbols("x y x_dot y_dot", real=True)
    >>> pendulum = systems.from_lagrangian("pendulum", [x, y], (x_dot**2 + y_dot**2) / 2, 9.81 * y,
    ...     holonomic=[("rod tension", sp.sqrt(x**2 + y**2) - 1)], default_p=(1, 0), default_v=(0, 0))
    >>> pendulum.velocity_names, pendulum.constraint_names, pendulum.k
    (('x_dot', 'y_dot'), ('rod tension',), 1)
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

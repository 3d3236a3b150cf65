"""Quasi-velocities: independent velocities u = Y(p) v that are combinations of the system's
velocities with coefficients in the coordinates (Kane's generalized speeds, Hamel's
quasi-velocities): a blade's forward speed cos(phi) x' + sin(phi) y', a body's angular velocity in
its own axes.

A choice of u is a list of entries, each a name of v (or of the embedding's w), a name the
system declares in ``System.speeds``, an expression linear in v (a sympy expression or its text,
in the names of p, v and the parameters), or a pair (name, expression). Its time derivative, for
v' = D w' + gamma:
    u' = Y v' + Y' v,   Y' v = (d/dp (Y v)) A v   (r,),
so the minimal formulation's [C_bar_nh; E] gamma_bar = [-xi_bar; -(Y gamma + Y' v)] with E = Y D.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from systems.errors import ArgumentError
from systems.validation import speed_problem


def is_component(entry, names) -> bool:
    """Whether ``entry`` names a component of v or w (today's choice by names)."""
    return isinstance(entry, str) and entry in names


def linear_row(expr, velocities, allowed, where: str, system_name: str, declared=()):
    """The row y (1, n) of an expression y v linear in ``velocities``, its coefficients in the
    ``allowed`` symbols; ArgumentError naming an unknown name, a nonlinear term or a constant."""
    why = speed_problem(expr, velocities, allowed)
    if why:
        speeds = f"; the speeds {system_name!r} declares: {', '.join(declared)}" if declared else ""
        raise ArgumentError(f"{where}: independent velocity {expr} of {system_name!r} {why}{speeds}", "independent")
    return sp.Matrix([expr]).jacobian(list(velocities))


def parse(system, entries, where="minimal formulation", components=()):
    """(names, Y (r, n) Matrix or None): the choice ``entries`` (a list, a dict {name: expression} or
    one name) as names of components (of v, the
    embedding's w, or ``components``: a chart's) (Y None) or as quasi-velocities u = Y(p) v (every
    entry then a row of Y). Names of w components may not be mixed with expressions (their rows
    are not rows in v)."""
    if isinstance(entries, dict):
        entries = tuple(entries.items())
    elif isinstance(entries, str):  # one name, not its characters
        entries = (entries,)
    entries = tuple(entries)
    declared = dict(getattr(system, "speeds", {}) or {})
    components = set(system.velocity_names) | set(components)
    if system.embedding is not None:
        components |= {s.name for s in system.embedding.velocities}
    if all(is_component(e, components) for e in entries):
        return tuple(entries), None
    symbols = {s.name: s for s in (*system.coordinates, *system.velocities)}
    symbols.update({par.name: par.symbol for par in system.parameters})
    allowed = set(system.coordinates) | {par.symbol for par in system.parameters}
    names, rows = [], []
    for i, entry in enumerate(entries):
        name, expr = _named(entry, i, declared)
        if isinstance(expr, str) and expr not in system.velocity_names and expr in components:
            raise ArgumentError(f"{where}: {expr!r} is a velocity of the embedding, which cannot be combined with "
                                f"quasi-velocities in v; name a velocity of v or write it in v", "independent")
        try:
            value = sp.sympify(expr, locals=symbols) if isinstance(expr, str) else sp.sympify(expr)
        except (sp.SympifyError, SyntaxError, TypeError) as exc:
            raise ArgumentError(f"{where}: independent entry {entry!r} is neither a velocity name, a speed of "
                                f"{system.name!r} ({', '.join(declared) or 'none declared'}) nor an expression: "
                                f"{exc}", "independent") from exc
        rows.append(linear_row(value, system.velocities, allowed, where, system.name, tuple(declared)))
        names.append(name)
    if len(set(names)) != len(names):
        raise ArgumentError(f"{where}: the independent velocities {names} repeat a name", "independent")
    return tuple(names), sp.Matrix.vstack(*rows)


def _named(entry, i, declared):
    """(name, expression or text) of one entry of a choice."""
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
        return entry
    if isinstance(entry, str) and entry in declared:
        return entry, declared[entry]
    if isinstance(entry, str) and entry.isidentifier():
        return entry, entry  # a velocity's own name, or an unknown one (linear_row names it)
    return f"u_{i + 1}", entry


class QuasiVelocities:
    """u = Y(p) v for a system: ``names`` (r,), ``Y`` (r, n) sympy Matrix in p and the parameters,
    and ``Y_dot_v`` (r,) = (d/dp (Y v)) A v. ``function(backend)`` evaluates (Y, Y' v) at
    (p, v, params) (numpy or a compiled kernel, ``.kernel`` for the compiled loops), made once per
    process for each system structure and Y (the formulations of a parameter study share it)."""

    def __init__(self, system, names, Y):
        self.system, self.names, self.Y = system, tuple(names), sp.ImmutableMatrix(Y)

    @property
    def Y_dot_v(self):
        return _made(self.system, self.Y, "Y_dot_v", lambda: _rate(self.system, self.Y))

    def function(self, backend: str):
        return _made(self.system, self.Y, backend, lambda: _function(self.system, self.Y, self.Y_dot_v, backend))

    def at(self, p, v, params, backend="numpy"):
        """(Y (r, n), Y' v (r,)) at (p, v) for the parameter values params."""
        return self.function(backend)(np.asarray(p, float), np.asarray(v, float), params)


_MADE: dict = {}  # (system structure, Y, what) -> the derived rate or the generated function


def _made(system, Y, what, make):
    from systems.numeric.model import structure_hash

    key = (structure_hash(system), Y, what)
    if key not in _MADE:
        _MADE[key] = make()
    return _MADE[key]


def _rate(system, Y):
    """Y' v = (d/dp (Y v)) A v (r, 1)."""
    v = sp.Matrix(system.velocities)
    return sp.ImmutableMatrix((Y * v).jacobian(list(system.coordinates)) * sp.Matrix(system.A) * v)


def _function(system, Y, Y_dot_v, backend):
    from systems.numeric.model import _maker

    params = [par.symbol for par in system.parameters]
    r, n = Y.shape
    make = _maker(backend, system if backend != "numpy" else None)
    return make("speeds", [("p", list(system.coordinates)), ("v", list(system.velocities)), ("params", params)],
                [sp.Matrix(Y), sp.Matrix(Y_dot_v)], [(r, n), (r,)])

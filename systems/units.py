"""Units of a description's coordinates, velocities and reactions, for the labels of figures.

A unit is what the description declares (``System(units={"x": "m", ...})``, names of p, v, q, w
or constraint rows) or else what dimensional analysis finds from the units of the parameters:

- the kinetic energy v^T M v / 2 is in J, so v_j has the unit of sqrt(J / M_jj) (kg -> m/s,
  kg m^2 -> rad/s) where M_jj holds parameters (a bare number says nothing);
- a rigid-body block (System.bodies) has its origin in m, its velocity in m/s and omega in rad/s;
- p' = A v gives each coordinate from a velocity (p_i = A_ij v_j s for A_ij != 0), and q' = A_q w,
  p = g(q) do the same for the embedding's q and w;
- the constraint force on v_k is -C_ik lambda_i, a generalized force in J / (v_k s), so lambda_i is
  in N where the row acts on a length and in N m where it acts on an angle.

Dimensions are exponents of (kg, m, s); an angle is dimensionless and is shown as rad (rad/s,
rad/s^2) unless it sits in a unit-norm block (Euler parameters: 1). Where the analysis finds
nothing (a row that mixes lengths and angles with no dimensionless coefficient, say), the unit is
"?" rather than a guess.
"""
from __future__ import annotations

import re
from fractions import Fraction

import sympy as sp

BASE = {"kg": (1, 0, 0), "m": (0, 1, 0), "s": (0, 0, 1), "N": (1, 1, -2), "J": (1, 2, -2),
        "W": (1, 2, -3), "Pa": (1, -1, -2), "Hz": (0, 0, -1), "rad": (0, 0, 0), "1": (0, 0, 0)}
ENERGY = (1, 2, -2)
NAMES = {(0, 1, 0): "m", (0, 1, -1): "m/s", (0, 1, -2): "m/s^2", (0, 0, -1): "rad/s", (0, 0, -2): "rad/s^2",
         (1, 1, -2): "N", (1, 2, -2): "N m", (1, 0, 0): "kg", (0, 0, 1): "s", (1, 2, 0): "kg m^2",
         (1, 0, -2): "N/m", (1, 1, -1): "N s", (1, 2, -1): "N m s"}
UNKNOWN = "?"


def parse(unit: str):
    """(kg, m, s) exponents of a unit string ("kg m^2", "m/s^2", "N s/m", "kg^(1/2)", "rad" or "1"
    for a pure number), or None where a token is not a known unit or the string is empty (no unit
    given: unknown, not dimensionless)."""
    text = re.sub(r"\^\((-?\d+)/(\d+)\)", r"^\1|\2", unit.strip())  # kg^(1/2): not a division
    if not text:
        return None
    numerator, _, denominator = text.partition("/")
    total = [Fraction(0)] * 3
    for sign, part in ((1, numerator), (-1, denominator)):
        for token in part.replace("*", " ").replace("·", " ").split():
            name, _, power = token.partition("^")
            try:
                exponent = Fraction(power.replace("|", "/")) if power else Fraction(1)
            except ValueError:
                return None
            base = BASE.get(name)
            if base is None:
                return None
            total = [x + sign * exponent * b for x, b in zip(total, base)]
    return tuple(total)


def _add(a, b, scale=1):
    return tuple(x + scale * y for x, y in zip(a, b))


def dimension(expr, known: dict):
    """(kg, m, s) exponents of ``expr`` given those of its symbols (``known``: Symbol -> exponents),
    or None where a symbol's is unknown or the terms of a sum disagree (a bare number in a sum takes
    the unit of the others); functions other than powers (sin, exp, atan2, ...) are dimensionless."""
    expr = sp.sympify(expr)
    if expr.is_Number or expr.is_NumberSymbol:
        return (0, 0, 0)
    if expr.is_Symbol:
        return known.get(expr)
    if expr.is_Add:  # every term with a symbol must agree; a bare number takes the others' unit
        found = {dimension(term, known) for term in expr.args if term.free_symbols}
        return found.pop() if len(found) == 1 and None not in found else None
    if expr.is_Mul:
        total = (0, 0, 0)
        for factor in expr.args:
            found = dimension(factor, known)
            if found is None:
                return None
            total = _add(total, found)
        return total
    if expr.is_Pow:
        base = dimension(expr.base, known)
        if base is None or not expr.exp.is_Rational:
            return None if base is None or any(base) else (0, 0, 0)
        return tuple(x * Fraction(int(expr.exp.p), int(expr.exp.q)) for x in base)
    if isinstance(expr, (sp.Abs, sp.Max, sp.Min, sp.sign)) or expr.func.__name__ == "Piecewise":
        for arg in (expr.args if expr.func.__name__ != "Piecewise" else [a.expr for a in expr.args]):
            found = dimension(arg, known)
            if found is not None:
                return (0, 0, 0) if isinstance(expr, sp.sign) else found
        return None
    return (0, 0, 0)  # sin, cos, exp, atan2, ...: of a dimensionless argument


def _show(dims, angle_ok: bool = True) -> str:
    """A unit string for exponents (rad for a dimensionless angle, 1 where ``angle_ok`` is False)."""
    if dims is None:
        return UNKNOWN
    dims = tuple(Fraction(x) for x in dims)
    if not angle_ok and dims[:2] == (0, 0):  # a pure number and its rates
        order = -dims[2]
        return "1" if order == 0 else "1/s" if order == 1 else f"1/s^{order}"
    if dims == (0, 0, 0):
        return "rad"
    if dims in NAMES:
        return NAMES[dims]
    parts = [name if x == 1 else f"{name}^{x}" if x.denominator == 1 else f"{name}^({x})"
             for name, x in zip(("kg", "m", "s"), dims) if x]
    return " ".join(parts)


def _through(rows, unknowns, known, offset):
    """Fill ``unknowns`` (symbols) from relations x_i = sum_j K_ij y_j (rows: [(x_i, [(K_ij, y_j)])]),
    either way: dim(y) = dim(x) - dim(K) - offset or dim(x) = dim(K) + dim(y) + offset."""
    changed = False
    for x, terms in rows:
        for K, y in terms:
            dK = dimension(K, known)
            if dK is None:
                continue
            if x in unknowns and x not in known and y in known:
                known[x] = _add(_add(dK, known[y]), offset)
                changed = True
            elif y in unknowns and y not in known and x in known:
                known[y] = _add(_add(known[x], dK, -1), offset, -1)
                changed = True
    return changed


def units(system) -> dict:
    """{name: unit string} for every coordinate and velocity of p and v, of the embedding's q and w
    where there is one, for every constraint row (its reaction) and every declared invariant of
    ``system``; declared units (``system.units``) are kept as given."""
    declared = dict(getattr(system, "units", {}) or {})
    known = {}
    for parameter in system.parameters:
        found = parse(parameter.unit) if isinstance(parameter.unit, str) else None
        if found is not None:
            known[parameter.symbol] = found
    known[system.time] = (0, 0, 1)
    emb = system.embedding
    symbols = list(system.coordinates) + list(system.velocities)
    if emb is not None:
        symbols += list(emb.coordinates) + list(emb.velocities)
    by_name = {s.name: s for s in symbols}
    for name, unit in declared.items():
        if name in by_name and parse(unit) is not None:
            known[by_name[name]] = parse(unit)
    unit_norm = {system.coordinates[i] for block in system.unit_norm_blocks for i in block}
    if emb is not None:
        unit_norm |= {emb.coordinates[i] for block in emb.unit_norm_blocks for i in block}
    for s in unit_norm:
        known.setdefault(s, (0, 0, 0))
    for body in system.bodies:  # rigid-body blocks: origin in m, its velocity in m/s, omega in rad/s
        for indices, symbols_, dims in ((body.position, system.coordinates, (0, 1, 0)),
                                        (body.linear, system.velocities, (0, 1, -1)),
                                        (body.angular, system.velocities, (0, 0, -1))):
            for i in indices:
                known.setdefault(symbols_[i], dims)
    parameter_symbols = {parameter.symbol for parameter in system.parameters}
    p, v = system.coordinates, system.velocities
    kinematics = [(p[i], [(system.A[i, j], v[j]) for j in range(len(v)) if system.A[i, j] != 0]) for i in range(len(p))]
    unknowns = set(symbols)
    second = (0, 0, 1)
    if emb is not None:
        q, w = emb.coordinates, emb.velocities
        kinematics += [(q[i], [(emb.A_q[i, j], w[j]) for j in range(len(w)) if emb.A_q[i, j] != 0])
                       for i in range(len(q))]
        placement = [(p[i], [(sp.diff(emb.g[i], q[k]), q[k]) for k in range(len(q)) if sp.diff(emb.g[i], q[k]) != 0])
                     for i in range(len(p))]
    else:
        placement = []
    for _ in range(2 * len(symbols) + 2):
        changed = False
        for j, vj in enumerate(v):  # v^T M v / 2 in J
            if vj not in known and system.M[j, j].free_symbols & parameter_symbols:  # not a bare number
                dM = dimension(system.M[j, j], known)
                if dM is not None:
                    known[vj] = tuple(Fraction(x) / 2 for x in _add(ENERGY, dM, -1))
                    changed = True
        changed |= _through(kinematics, unknowns, known, second)  # p_i = A_ij v_j s
        changed |= _through(placement, unknowns, known, (0, 0, 0))  # dp_i = g_q dq
        if not changed:
            break
    out = {s.name: declared.get(s.name) or _show(known.get(s), angle_ok=s not in unit_norm) for s in symbols}
    C = system.C
    for i, row in enumerate(system.constraint_names):
        if row in declared:
            out[row] = declared[row]
            continue
        # every column gives the reaction's unit; they must agree. A coefficient with a decimal number
        # in it may hide a length (a numeric offset), so such columns count only where no other does.
        found = {}
        for k in range(len(v)):
            if C[i, k] != 0 and v[k] in known:
                dC = dimension(C[i, k], known)
                if dC is not None:
                    found.setdefault(bool(sp.sympify(C[i, k]).atoms(sp.Float)), set()).add(
                        _add(_add(_add(ENERGY, second, -1), known[v[k]], -1), dC, -1))
        units_found = found.get(False) or found.get(True) or set()
        out[row] = _show(units_found.pop()) if len(units_found) == 1 else UNKNOWN
    for name, expr in getattr(system, "invariants", ()):  # an energy is shown in J, not N m
        if name not in declared:
            found = dimension(expr, known)
            out[name] = "J" if found == ENERGY else _show(found)
    return out


def rate(unit: str, order: int = 1) -> str:
    """The unit of the ``order``-th time derivative of a quantity in ``unit`` ("m" -> "m/s")."""
    dims = parse(unit) if unit != UNKNOWN else None
    if dims is None:
        return UNKNOWN
    return _show(_add(dims, (0, 0, -order)), angle_ok=unit not in ("1", ""))

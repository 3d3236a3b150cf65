"""A System from a sympy.physics.mechanics model: a KanesMethod, a LagrangesMethod or a System.

The model's generalized coordinates become p and its generalized speeds v (for a LagrangesMethod,
v = p'). The kinematic differential equations q' = A(q) u give A; the bodies and loads give the
unconstrained equations M v' + d = f over all speeds (independent and dependent alike: Kane's
equations formed again with every speed independent, so that the constraint forces appear as
-C^T lambda instead of being projected out). The configuration constraints become Phi, and the
velocity constraints that are not time derivatives of configuration constraints become the rows of
C_nh. Kane's constrained equations (T. R. Kane, D. A. Levinson, *Dynamics: Theory and
Applications*, ch. 6) are the projection of these onto the null space of C, so every formulation
run on the result gives the model's accelerations.

    system = systems.from_sympy(kane, {"m": 2.0, "r": 0.3, "g": 9.81})
"""
from __future__ import annotations

import warnings

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

from ..description import TIME, Parameter, System
from ..errors import SystemDescriptionError
from ..parameters import parameter_value
from .common import tidy
from .sympy_reading import Model, name_of
from .sympy_reading import read as read_model

RANK_TOL = 1e-9  # relative singular-value bound: a velocity row within it of span(C_h) is a holonomic derivative


def from_sympy(model, parameters=None, *, name="from_sympy", state=None, constraint_names=None, potential=0,
               simplify=True, description="", **system_fields) -> System:
    """A :class:`System` from a sympy.physics.mechanics ``KanesMethod``, ``LagrangesMethod`` or ``System``.

    parameters: {name or Symbol: value} for every free symbol of the model other than time; a missing
    or unknown name is an error that names it (no default values are made up).
    state: the default (p, v) — two sequences in the order of the model's coordinates and speeds, or
    two {name: value} dicts; default p = 0 moved onto Phi = 0 by Newton's method, v = 0.
    constraint_names: the m + l reaction names, holonomic rows first (in the order of the model's
    configuration constraints), then the nonholonomic rows (in the order of its velocity constraints);
    default "configuration constraint i" and, for a KanesMethod, "velocity constraint j" (j the row's
    place among its velocity constraints), for a LagrangesMethod or a System "nonholonomic constraint
    j". The multipliers carry the sign of the rows: the constraint force is -C^T lambda.
    potential: V(p) for the energy v^T M v / 2 + V (a LagrangesMethod gives it: minus the part of the
    Lagrangian free of velocities); written in the model's symbols.
    simplify: the builders' cheap simplification (expand, sin^2 -> 1 - cos^2) of A, M, d, f.
    Remaining keywords go to System (e.g. independent_velocities, embedding, reference).
    """
    read = read_model(model, name)
    return _build(read, parameters, name, state, constraint_names, potential, simplify, description, system_fields)


# -- building the System -----------------------------------------------------------------------

def _build(model: Model, values, name, state, constraint_names, potential, simplify, description, fields):
    t = me.dynamicsymbols._t
    p = tuple(sp.Symbol(name_of(x), real=True) for x in model.q)
    speeds_are_qdots = model.u == tuple(x.diff(t) for x in model.q)  # a Lagrangian model: v = p'
    v = tuple(sp.Symbol(f"{name_of(x)}_dot", real=True) for x in model.q) if speeds_are_qdots else \
        tuple(sp.Symbol(name_of(x), real=True) for x in model.u)
    qdots = {x.diff(t): model.qdot_map[x.diff(t)] for x in model.q}
    to_v = {a: b for a, b in zip(model.u, v)}
    to_p = {a: b for a, b in zip(model.q, p)}

    def plain(expr):
        """Model expression -> expression in p, v and TIME; q' through the kinematic equations."""
        e = sp.sympify(expr)
        e = me.msubs(e, qdots) if e.atoms(sp.Derivative) else e
        return e.xreplace(to_v).xreplace(to_p).xreplace({t: TIME})

    qdot_col = sp.Matrix([plain(model.qdot_map[x.diff(t)]) for x in model.q])
    A = qdot_col.jacobian(v)
    problems = [] if speeds_are_qdots else _kinematics_problems(qdot_col, A, v)
    if len(v) > len(p):
        problems.append(f"the model has {len(v)} speeds but {len(p)} coordinates: give every speed a coordinate "
                        "(e.g. a wheel's rotation angle for its spin rate) with its kinematic differential equation")
    M = sp.Matrix(model.M).applyfunc(plain)
    d = sp.Matrix(model.d).applyfunc(plain)
    f = sp.Matrix(model.f).applyfunc(plain)
    Phi = sp.Matrix([plain(e) for e in model.holonomic]) if model.holonomic else None
    rows = [sp.expand(plain(e)) for e in model.velocity_rows]
    V = plain(potential) if potential != 0 else plain(model.potential)
    problems += _unknown_functions([A, M, d, f, Phi, sp.Matrix(rows) if rows else None, sp.Matrix([V])])
    if problems:
        raise SystemDescriptionError(name, problems)
    if simplify:
        A, M, d, f = (tidy(x) for x in (A, M, d, f))
    parameters = _parameters(name, [A, M, d, f, Phi, sp.Matrix(rows) if rows else None, sp.Matrix([V])],
                             set(p) | set(v) | {TIME}, values)
    par_values = {par.symbol: par.default for par in parameters}
    C_rows = _velocity_matrix(name, rows, v, model.row_labels)
    C_nh, kept = _nonholonomic_rows(name, Phi, A, C_rows, p, par_values, model.row_labels)
    names = _constraint_names(name, constraint_names, len(model.holonomic), kept, model.row_labels)
    p0, v0 = _default_state(name, state, p, v, Phi, par_values)
    system = System(name=name, coordinates=p, velocities=v, A=A, M=M, d=d, f=f, Phi=Phi, C_nh=C_nh,
                    constraint_names=names, parameters=parameters, potential=V, default_p=tuple(p0),
                    default_v=tuple(v0), description=description or f"imported from a sympy {model.kind}", **fields)
    _warn_if_massless(system)
    return system


def _kinematics_problems(qdot_col, A, v) -> list:
    """What keeps q' = qdot_col from being q' = A(q) u."""
    problems = []
    if A.free_symbols & set(v):
        problems.append(f"the kinematic differential equations are not linear in the speeds: q' = {list(qdot_col)}; "
                        "pfaff needs q' = A(q) u")
    rest = sp.simplify(qdot_col.xreplace({s: 0 for s in v}))
    if any(e != 0 for e in rest):
        problems.append(f"the kinematic differential equations have a speed-free term q' = A u + b with b = "
                        f"{list(rest)}; pfaff needs q' = A(q) u (b = 0)")
    if TIME in A.free_symbols:
        problems.append("the kinematic differential equations depend on time explicitly; pfaff needs q' = A(q) u")
    return problems


def _unknown_functions(pieces) -> list:
    """Functions of time left in the pieces once q, u and q' are replaced (specified inputs)."""
    left = set()
    for piece in pieces:
        if piece is not None:
            left |= piece.atoms(AppliedUndef) | piece.atoms(sp.Derivative)
    if not left:
        return []
    return [f"the model depends on functions of time that are neither coordinates nor speeds: "
            f"{', '.join(sorted(map(str, left)))}; write specified inputs as expressions of t or as parameters"]


def _warn_if_massless(system):
    """Warn where M is singular at the default state: the model's velocities were written with the
    constraints applied (e.g. a wheel centre's velocity as rolling), so some speeds carry no inertia off
    the constraints. The accelerations are right; the projections in the kinetic-energy metric
    (consistent_state, Projection) need M regular."""
    p0, v0 = system.default_state()
    M0 = system.numeric.dynamics(0.0, p0, v0, system.params).M
    values, vectors = np.linalg.eigh(M0)
    null = values <= 1e-12 * max(1.0, float(np.max(np.abs(values))))
    if not null.any():
        return
    massless = [n for n, row in zip(system.velocity_names, vectors[:, null]) if np.linalg.norm(row) > 1e-6]
    warnings.warn(f"system {system.name!r}: M is singular at the default state (smallest eigenvalue "
                  f"{values[0]:.3g}, along the speeds {', '.join(massless)}): the model's velocities seem to be "
                  "written with the constraints applied (e.g. a mass centre's velocity as rolling); the accelerations "
                  "are right, but consistent_state and the Projection stabilization need M regular: write every "
                  "point's velocity from its position (v2pt_theory from the contact point's own velocity)",
                  stacklevel=3)


def _parameters(name, pieces, known, values) -> tuple:
    """Parameter objects for the free symbols of ``pieces`` other than ``known``, valued from ``values``."""
    symbols = set()
    for piece in pieces:
        if piece is not None:
            symbols |= piece.free_symbols
    symbols = sorted(symbols - known, key=lambda s: s.name)
    values = dict(values or {})
    by_name = {}
    problems = []
    for key, value in values.items():
        key_name = key.name if isinstance(key, sp.Symbol) else key
        if not isinstance(key_name, str):
            problems.append(f"parameters key {key!r} ({type(key).__name__}) is not a name or a sympy Symbol")
            continue
        by_name[key_name] = value
    known_names = [s.name for s in symbols]
    unknown = sorted(set(by_name) - set(known_names))
    if unknown:
        problems.append(f"parameters got values for {', '.join(unknown)}, which the model does not contain; its "
                        f"parameters are: {', '.join(known_names) or 'none'}")
    missing = [s for s in known_names if s not in by_name]
    if missing:
        problems.append(f"no value for parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)}: pass "
                        "parameters={" + ", ".join(f"{m!r}: ..." for m in missing) + "} (no value is assumed)")
    if problems:
        raise SystemDescriptionError(name, problems)
    out = []
    for s in symbols:
        par = Parameter(s, 0.0, "", "from the sympy model")
        out.append(Parameter(s, parameter_value(name, par, by_name[s.name]), "", "from the sympy model"))
    return tuple(out)


def _velocity_matrix(name, rows, v, labels):
    """The matrix of the velocity rows (each linear and homogeneous in v)."""
    if not rows:
        return sp.zeros(0, len(v))
    out = sp.Matrix(rows).jacobian(v)
    problems = []
    for i, row in enumerate(rows):
        if out[i, :].free_symbols & set(v):
            problems.append(f"{labels[i]} is not linear in the speeds: {row}")
            continue
        rest = sp.simplify(row.xreplace({s: 0 for s in v}))
        if rest != 0:
            problems.append(f"{labels[i]} has a speed-free term {rest} (a rheonomic or affine row, which this "
                            "import does not take)")
    if problems:
        raise SystemDescriptionError(name, problems)
    return out


def _nonholonomic_rows(name, Phi, A, C_rows, p, values, labels):
    """(C_nh, indices kept): the velocity rows that are not combinations of the holonomic rows
    Phi_p A, chosen in order by their rank at a random configuration."""
    m = Phi.shape[0] if Phi is not None else 0
    if C_rows.shape[0] == 0:
        return C_rows, ()
    if m == 0:
        return C_rows, tuple(range(C_rows.shape[0]))
    at = sp.lambdify([p, list(values)], [Phi.jacobian(p) * A, C_rows], modules="numpy", cse=True)
    C_h_num, rows_num = (np.array(x, dtype=float) for x in at(np.random.default_rng(7).uniform(-0.3, 0.3, len(p)),
                                                               list(values.values())))
    basis, kept = C_h_num, []
    for i, row in enumerate(rows_num):
        trial = np.vstack([basis, row])
        s = np.linalg.svd(trial, compute_uv=False)
        if s[-1] > RANK_TOL * max(1.0, s[0]):
            basis, kept = trial, kept + [i]
    if C_rows.shape[0] - len(kept) != m:
        dropped = [labels[i] for i in range(C_rows.shape[0]) if i not in kept]
        raise SystemDescriptionError(name, [
            f"of {C_rows.shape[0]} velocity constraints, {len(dropped)} ({', '.join(dropped) or 'none'}) are "
            f"combinations of the derivatives of the {m} configuration constraints but expected {m}: the velocity "
            "constraints must hold the time derivative of every configuration constraint (as KanesMethod "
            "needs), and be independent otherwise"])
    return C_rows.extract(kept, list(range(C_rows.shape[1]))), tuple(kept)


def _constraint_names(name, given, m, kept, labels) -> tuple:
    default = tuple(f"configuration constraint {i + 1}" for i in range(m)) + tuple(labels[i] for i in kept)
    if given is None:
        return default
    given = tuple(given)
    if len(given) != len(default) or not all(isinstance(x, str) and x for x in given):
        raise SystemDescriptionError(name, [f"constraint_names got {given!r} but expected {len(default)} names, "
                                            f"one per row in this order: {', '.join(default)}"])
    return given


def _default_state(name, state, p, v, Phi, values):
    """(p0, v0): the given state, or p = 0 moved onto Phi = 0 and v = 0."""
    if state is not None:
        try:
            p_given, v_given = state
        except (TypeError, ValueError):
            raise SystemDescriptionError(name, [f"state got {state!r} but expected (p, v)"]) from None
        return _vector(name, "p", p_given, p), _vector(name, "v", v_given, v)
    p0 = np.zeros(len(p))
    if Phi is not None:
        Phi_n = sp.lambdify([p], Phi.subs(values), modules="numpy")
        J_n = sp.lambdify([p], Phi.jacobian(p).subs(values), modules="numpy")
        for _ in range(50):
            res = np.asarray(Phi_n(p0), float).ravel()
            if np.max(np.abs(res)) < 1e-13 * (1 + np.max(np.abs(p0))):
                break
            p0 = p0 - np.linalg.lstsq(np.asarray(J_n(p0), float), res, rcond=None)[0]
        else:
            raise SystemDescriptionError(name, [
                f"Newton's method from p = 0 did not reach Phi = 0 (|Phi| = {np.max(np.abs(res)):.2e}); pass "
                "state=(p, v) with a configuration that satisfies the configuration constraints"])
    return tuple(float(x) for x in p0), tuple(0.0 for _ in v)


def _vector(name, label, given, symbols):
    names = [s.name for s in symbols]
    if isinstance(given, dict):
        unknown = sorted(set(map(str, given)) - set(names))
        missing = [n for n in names if n not in {str(k) for k in given}]
        if unknown or missing:
            raise SystemDescriptionError(name, [f"state {label} got names {sorted(map(str, given))} but expected "
                                                f"{', '.join(names)}"])
        given = {str(k): x for k, x in given.items()}
        return tuple(float(given[n]) for n in names)
    try:
        values = np.asarray(given, dtype=float).ravel()
    except (TypeError, ValueError):
        raise SystemDescriptionError(name, [f"state {label} got {given!r} but expected {len(names)} numbers "
                                            f"({', '.join(names)}) or a {{name: value}} dict"]) from None
    if values.shape != (len(names),):
        raise SystemDescriptionError(name, [f"state {label} got {values.shape[0]} values but expected {len(names)} "
                                            f"({', '.join(names)})"])
    return tuple(float(x) for x in values)

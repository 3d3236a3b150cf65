"""Reading a sympy.physics.mechanics model (KanesMethod, LagrangesMethod or System) into the pieces
a pfaff System is made of, still in sympy's dynamic symbols: q, u, the kinematic map q' -> A(q) u,
the configuration and velocity constraints, and the unconstrained equations M u' + d = f over all
speeds (Kane's equations formed again with every speed independent; for a Lagrangian, Lagrange's
equations split by the velocity-free part of L). systems.builders.from_sympy builds the System.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

from ..analysis.bounded import bounded
from ..errors import SystemDescriptionError
from .common import tidy

SIMPLIFY_SECONDS = 10.0  # bound on simplifying A and the velocity rows (see _simplified_linear)


@dataclass(frozen=True)
class Model:
    """What the three kinds of sympy model have in common, in sympy's dynamic symbols."""

    kind: str              # "KanesMethod", "LagrangesMethod" or "System"
    q: tuple               # generalized coordinates q(t)
    u: tuple               # generalized speeds u(t); for Lagrange the derivatives q'(t)
    qdot_map: dict         # q'(t) -> expression in q, u, t
    holonomic: tuple       # configuration constraints, expressions in q, t
    velocity_rows: tuple   # velocity constraints (holonomic derivatives included), in q, u, t
    row_labels: tuple      # a readable name for each velocity row
    M: sp.Matrix           # unconstrained M v' + d = f over all speeds
    d: sp.Matrix
    f: sp.Matrix
    potential: sp.Expr     # V(q) where the model gives it (Lagrangian), else 0


def read(model, name) -> Model:
    if isinstance(model, me.KanesMethod):
        return _read_kane(model, name)
    if isinstance(model, me.LagrangesMethod):
        return _read_lagrange(model, name)
    if isinstance(model, me.System):
        return _read_system(model, name)
    raise SystemDescriptionError(name, [f"model got {type(model).__name__} but expected a "
                                        "sympy.physics.mechanics KanesMethod, LagrangesMethod or System"])


def _read_kane(kane, name) -> Model:
    t = me.dynamicsymbols._t
    problems = []
    if len(kane._uaux):
        problems.append(f"auxiliary speeds {names(kane._uaux)} are not supported: they bring non-contributing "
                        "forces into evidence, which pfaff computes as reactions; build the KanesMethod without "
                        "u_auxiliary and read the reactions from formulations.reactions or traj.reactions")
    if not kane._qdot_u_map:
        problems.append("the KanesMethod has no kinematic differential equations; pass kd_eqs")
    if not kane.bodies:
        problems.append("the KanesMethod has no bodies; pass bodies= to KanesMethod or call "
                        "kanes_equations(bodies, loads) before from_sympy")
    if problems:
        raise SystemDescriptionError(name, problems)
    q, u = tuple(kane.q), tuple(kane.u)
    qdot = [x.diff(t) for x in q]
    qdot_map = dict(zip(qdot, _simplified_linear([kane._qdot_u_map[x] for x in qdot], u)))
    rows = tuple(_simplified_linear(kane._k_nh * sp.Matrix(u) + kane._f_nh, u)) if len(kane._k_nh) else ()
    M, d, f = _kane_dynamics(kane._inertial, q, u, qdot_map, kane.bodies, kane.loads)
    return Model("KanesMethod", q, u, qdot_map, tuple(kane._f_h), rows,
                 tuple(f"velocity constraint {j + 1}" for j in range(len(rows))), M, d, f, sp.S.Zero)


def _read_system(system, name) -> Model:
    t = me.dynamicsymbols._t
    loads = tuple(system.loads) + tuple(load for act in system.actuators for load in act.to_loads())
    if not len(system.u):
        lagrangian = me.Lagrangian(system.frame, *system.bodies)
        return _lagrange_model("System", lagrangian, tuple(system.q), system.frame, loads,
                               tuple(system.holonomic_constraints), tuple(system.nonholonomic_constraints), name)
    if len(system.u_aux):
        raise SystemDescriptionError(name, [f"auxiliary speeds {names(system.u_aux)} are not supported: pfaff "
                                            "computes the constraint forces as reactions; remove them"])
    q, u = tuple(system.q), tuple(system.u)
    qdot = [x.diff(t) for x in q]
    kdes = sp.Matrix(system.kdes)
    if kdes.shape[0] != len(q):
        raise SystemDescriptionError(name, [f"the System has {kdes.shape[0]} kinematic differential equations but "
                                            f"expected {len(q)}, one per coordinate ({names(q)})"])
    K_qdot = kdes.jacobian(qdot)
    if me.find_dynamicsymbols(K_qdot.row_join(kdes.jacobian(u))) & set(qdot + list(u)):
        raise SystemDescriptionError(name, ["the kinematic differential equations are not linear in the speeds "
                                            "and coordinate derivatives; write them as q' = A(q) u"])
    rest = kdes.xreplace({x: 0 for x in qdot}).xreplace({x: 0 for x in u})
    solved = K_qdot.LUsolve(-(kdes.jacobian(u) * sp.Matrix(u) + rest))
    qdot_map = dict(zip(qdot, _simplified_linear(solved, u)))
    rows = tuple(system.velocity_constraints)
    if system._vel_constrs is None:  # the derivatives of the holonomic constraints, then the nonholonomic ones
        labels = _labels(len(system.holonomic_constraints), len(system.nonholonomic_constraints))
    else:
        labels = tuple(f"velocity constraint {j + 1}" for j in range(len(rows)))
    M, d, f = _kane_dynamics(system.frame, q, u, qdot_map, system.bodies, loads)
    return Model("System", q, u, qdot_map, tuple(system.holonomic_constraints), rows, labels, M, d, f, sp.S.Zero)


def _read_lagrange(lagranges, name) -> Model:
    hol = tuple(lagranges._hol_coneqs)
    nonhol = tuple(lagranges.coneqs)[len(hol):]
    return _lagrange_model("LagrangesMethod", lagranges._L[0], tuple(lagranges.q), lagranges.inertial,
                           tuple(lagranges.forcelist or ()), hol, nonhol, name)


def _lagrange_model(kind, L, q, frame, loads, hol, nonhol, name) -> Model:
    """M, d, f of Lagrange's equations d/dt dL/dq' - dL/dq = Q: M = d2L/dq'dq', the velocity-free part
    L0 of L gives f = dL0/dq + Q (and V = -L0), the rest is d."""
    t = me.dynamicsymbols._t
    qd = tuple(x.diff(t) for x in q)
    if loads and frame is None:
        raise SystemDescriptionError(name, ["the model has loads but no inertial frame; pass frame= to "
                                            "LagrangesMethod"])
    Q = sp.zeros(len(q), 1)
    for point_or_frame, vector in loads:
        speed = point_or_frame.vel(frame) if isinstance(point_or_frame, me.Point) else point_or_frame.ang_vel_in(frame)
        for i, x in enumerate(qd):
            Q[i] += speed.diff(x, frame).dot(vector)
    L = sp.sympify(L)
    dL_dqd = sp.Matrix([L]).jacobian(qd).T
    M = dL_dqd.jacobian(qd)
    if me.find_dynamicsymbols(M) & set(qd):
        raise SystemDescriptionError(name, ["the Lagrangian is not quadratic in the coordinate derivatives "
                                            "(its Hessian in q' depends on q'); pfaff needs M(q) v' + d = f"])
    L0 = L.xreplace({x: 0 for x in qd})
    d = dL_dqd.jacobian(q) * sp.Matrix(qd) + _partial_t(dL_dqd, q, qd) - sp.Matrix([L - L0]).jacobian(q).T
    f = sp.Matrix([L0]).jacobian(q).T + Q
    rows = tuple(sp.Matrix(hol).diff(t)) + tuple(nonhol) if hol else tuple(nonhol)
    potential = -L0 if _partial_t(sp.Matrix([L0]), q, qd)[0] == 0 else sp.S.Zero
    return Model(kind, q, qd, {x: x for x in qd}, hol, rows, _labels(len(hol), len(nonhol)), M, d, f, potential)


def _labels(holonomic, nonholonomic) -> tuple:
    """Names of velocity rows made of the holonomic constraints' derivatives and the nonholonomic rows."""
    return tuple(f"derivative of configuration constraint {i + 1}" for i in range(holonomic)) + tuple(
        f"nonholonomic constraint {j + 1}" for j in range(nonholonomic))


def _partial_t(expr, q, qd):
    """The explicit time derivative of ``expr`` (q(t) and q'(t) held)."""
    t = me.dynamicsymbols._t
    held = {x: sp.Dummy() for x in list(qd) + list(q)}
    frozen = expr.xreplace({k: v for k, v in held.items() if k in qd}).xreplace(
        {k: v for k, v in held.items() if k in q})
    back = {v: k for k, v in held.items()}
    return frozen.diff(t).xreplace(back)


def _simplified_linear(exprs, u, seconds=SIMPLIFY_SECONDS):
    """Expressions linear in ``u`` with each coefficient cancelled (_cancelled), within ``seconds`` in
    all (else as given): a symbolic LU solve of the kinematic equations leaves quotients such as
    1/(sin(q3) + cos(q3)^2/sin(q3)) that cancel, and that are 0/0 at q3 = 0 if left."""
    def simplify():
        out = []
        for expr in exprs:
            expr = sp.expand(expr)
            out.append(sum((_cancelled(expr.coeff(s)) * s for s in u), sp.S.Zero) + expr.xreplace({s: 0 for s in u}))
        return out

    return bounded(simplify, seconds, list(exprs))


def _cancelled(coefficient):
    """A coefficient with a variable denominator as one quotient, sin^2 written 1 - cos^2 above and
    below, and cancelled (linear in the size of the expression, unlike trigsimp); others as they are."""
    if not coefficient.as_numer_denom()[1].free_symbols:
        return coefficient
    numerator, denominator = sp.together(coefficient).as_numer_denom()
    return sp.factor_terms(sp.cancel(tidy(numerator) / tidy(denominator)))


def _kane_dynamics(frame, q, u, qdot_map, bodies, loads):
    """M, d, f of Kane's equations with every speed independent: M u' + d = f, Fr = f, Fr* = -(M u' + d)."""
    t = me.dynamicsymbols._t
    kd = [x.diff(t) - qdot_map[x.diff(t)] for x in q]
    free = me.KanesMethod(frame, q_ind=list(q), u_ind=list(u), kd_eqs=kd)
    free.kanes_equations(list(bodies), list(loads) if loads else None)
    fr = free._fr if free._fr is not None else sp.zeros(len(u), 1)
    return sp.Matrix(free.mass_matrix), sp.Matrix(free._f_d + fr), sp.Matrix(fr)


def names(symbols) -> str:
    return ", ".join(name_of(s) for s in symbols)


def name_of(s) -> str:
    return s.func.__name__ if isinstance(s, AppliedUndef) else str(s)

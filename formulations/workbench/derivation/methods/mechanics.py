"""What the classical methods share: the system in generalized coordinates q with q' = w, its kinetic
energy T(q, q'), potential V(q), generalized forces Q(q, q', t), the nonholonomic rows in q'
(C_bar_nh q' = 0), the independent velocities, generalized speeds u = Y(q) q' and the map back,
q' = W(q) u on the constrained velocities.

Euler parameters are written in yaw, pitch and roll angles first (methods.angles). Every method
starts from T, V and Q alone; the system's own inertia terms d (from Newton-Euler or
Lagrange's equations, as its builder made them) are left for the comparison that ends a derivation.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import sympy as sp

from systems.dependent_rows import velocity_partition
from systems.validation import speed_problem

from ..steps import _independent_choice, _velocity_map, on_g_of, with_identity_embedding
from .angles import clean, has_euler_parameters, unit_norm_gram, with_angles

_NAME = re.compile(r"^([A-Za-z]+)(\d[0-9A-Za-z]*)?(?:_dot)?$")


class NotApplicable(ValueError):
    """A method does not apply to a system; the message says why."""


def rate_symbol(symbol):
    """The symbol of a velocity's time derivative, printed with a dot over it: x_dot -> xddot,
    omega_1 -> omegadot_1."""
    name = symbol.name
    if name.endswith("_dot"):
        match = _NAME.match(name)
        base, index = match.groups() if match else (name[:-4], None)
        return sp.Symbol(base + "ddot" + (f"_{index}" if index else ""), real=True)
    head, _, index = name.partition("_")
    return sp.Symbol(head + "dot" + (f"_{index}" if index else ""), real=True)


@dataclass(frozen=True)
class MethodEquations:
    """A method's equations of motion for the comparison: ``residual`` = 0 is linear in ``unknowns``;
    ``qdd`` gives q'' from the unknowns and the state; ``velocities`` maps the method's velocity symbols
    to expressions in q and q' (its speeds u = Y q')."""

    method: str
    unknowns: tuple
    residual: sp.Matrix
    qdd: sp.Matrix
    velocities: dict


@dataclass(frozen=True)
class Mechanics:
    """A system in generalized coordinates for the classical methods.

    Attributes
    ----------
    name : str
        The system's name.
    q, qd, qdd : Matrix, shape (k, 1)
        Coordinates, their rates (the system's reduced velocities w) and accelerations.
    D : Matrix, shape (n, k)
        The system's velocities in the rates, v = D q'.
    T, V : Expr
        Kinetic energy T(q, q') and potential energy V(q), in J.
    M : Matrix, shape (k, k)
        d^2 T / dq'^2, the mass matrix in q'.
    Q : Matrix, shape (k, 1)
        Generalized forces of all applied forces, D^T f (gravity included; N or N m by coordinate).
    Q_nc : Matrix, shape (k, 1)
        The part not derived from V: Q + dV/dq.
    C_bar : Matrix, shape (l, k)
        Nonholonomic rows in q': C_bar q' = 0.
    independent : list of int
        Indices of q' taken as independent velocities (the minimal formulation's choice).
    parameters : list of Symbol
        The system's parameters, in its order.
    system : System
        The system, with an embedding (p = q where it had none).
    """

    name: str
    q: sp.Matrix
    qd: sp.Matrix
    qdd: sp.Matrix
    D: sp.Matrix
    T: sp.Expr
    V: sp.Expr
    M: sp.Matrix
    Q: sp.Matrix
    Q_nc: sp.Matrix
    C_bar: sp.Matrix
    independent: list
    parameters: list
    system: object

    @property
    def k(self):
        return self.q.rows

    @property
    def l(self):
        return self.C_bar.rows

    @property
    def r(self):
        return self.k - self.l

    def d_dt(self, expr):
        """The time derivative of ``expr`` (in q, q'; a Matrix or an Expr), q'' written as ``qdd``."""
        matrix = sp.Matrix([expr]) if not isinstance(expr, sp.MatrixBase) else sp.Matrix(expr)
        out = matrix.jacobian(self.q) * self.qd + matrix.jacobian(self.qd) * self.qdd
        return out if isinstance(expr, sp.MatrixBase) else out[0, 0]

    def accelerations(self, u, W, simp):
        """(u', q''): the symbols of the speeds' rates and q'' = W u' + W' u along q' = W u."""
        udot = sp.Matrix([rate_symbol(s) for s in u])
        return udot, simp(W * udot + (W * u).jacobian(self.q) * (W * u))


def mechanics(system, simp, method, independent=None) -> Mechanics:
    """The system in generalized coordinates (its embedding p = g(q) with q' = w), with ``independent``
    velocities by name (default: the minimal formulation's choice); NotApplicable naming why the
    classical methods do not apply to it."""
    angled = has_euler_parameters(system)
    system = with_angles(system)
    why = _refusal(system)
    if why:
        raise NotApplicable(f"derive: the {method} method does not apply to system {system.name!r}: {why}")
    if system.embedding is None:
        system = with_identity_embedding(system)
    q, on_g, D = _angled_velocity_map(system, simp) if angled else _velocity_map(system, simp)
    emb = system.embedding
    w = sp.Matrix(emb.velocities)
    q = sp.Matrix(q)
    on_state = dict(on_g)
    on_state.update(dict(zip(system.velocities, D * w)))
    no_multipliers = {lam: 0 for lam in system.multipliers}
    M_p = sp.Matrix(system.M).subs(on_g)
    T = sp.expand((w.T * D.T * M_p * D * w)[0, 0] / 2)
    if angled:  # the angles' kinetic energy comes in products of sines and cosines
        T = sp.expand(simp(clean(sp.Matrix([T])))[0, 0])
    V = simp(sp.sympify(system.potential).subs(on_g))
    Q = simp(D.T * sp.Matrix(system.f).subs(no_multipliers).subs(on_state))
    Q_nc = simp(Q + sp.Matrix([V]).jacobian(q).T)
    C_bar = sp.Matrix(system.C_nh).subs(on_g) * D if system.l else sp.zeros(0, len(w))
    C_bar = simp(clean(C_bar) if angled else C_bar)
    M = simp(sp.hessian(T, list(w)))
    qdd = sp.Matrix([rate_symbol(s) for s in w])
    chosen = _pivoted(system, C_bar, independent) if angled else _independent_choice(system, independent)
    return Mechanics(system.name, q, w, qdd, D, T, V, M, Q, Q_nc, C_bar, chosen,
                     [par.symbol for par in system.parameters], system)


def _angled_velocity_map(system, simp):
    """(q, p = g(q), D) of a system whose Euler parameters became angles (methods.angles):
    D = (A^T A)^-1 A^T g_q, the unit norm used in A^T A."""
    emb = system.embedding
    q = list(emb.coordinates)
    on_g = on_g_of(system)
    A = sp.Matrix(system.A).subs(on_g)
    g_q = sp.Matrix(emb.g).jacobian(q)
    return q, on_g, simp(clean(unit_norm_gram(system).subs(on_g).LUsolve(A.T * g_q)))


def _pivoted(system, C_bar, names):
    """Indices of q' taken as independent: ``names``, or by pivoting on C_bar at a generic point."""
    rates = [s.name for s in system.embedding.velocities]
    if names:
        unknown = [name for name in names if name not in rates]
        if unknown:
            raise ValueError(f"derive: independent velocities {unknown} are not rates of {', '.join(rates)}")
        return [rates.index(name) for name in names]
    if not C_bar.rows:
        return list(range(len(rates)))
    rng = np.random.default_rng(7)
    point = {s: rng.uniform(0.3, 0.9) for s in C_bar.free_symbols}
    return list(velocity_partition(np.array(C_bar.subs(point).evalf(), float))[2])


def _refusal(system):
    """Why the classical methods here do not apply, or ''."""
    emb = system.embedding
    if system.is_rheonomic:
        return ("its constraints move with time (a rheonomic system); the minimal formulation derives it "
                "(derive(system, 'minimal'))")
    if emb is None and not (system.m == 0 and sp.Matrix(system.A) == sp.eye(system.n)):
        return "it has no embedding in independent coordinates (p = g(q)) from which T(q, q') follows"
    if emb is not None and ((len(system.coordinates) != system.n and not system.unit_norm_blocks)
                            or emb.A_q != sp.eye(len(emb.coordinates))):
        return "its embedding is not one of generalized coordinates with q' = w"
    return ""


def independent_speeds(mech):
    """(u, Y): the independent velocities q'_i as speeds, u = Y q' with Y selecting them."""
    Y = sp.zeros(mech.r, mech.k)
    for row, j in enumerate(mech.independent):
        Y[row, j] = 1
    return sp.Matrix(mech.r, 1, [mech.qd[j] for j in mech.independent]), Y


def speeds(mech, given=None):
    """Generalized speeds u = Y q' (r of them): ``given`` (expressions linear in the system's v or in q'),
    else the system's own velocities v where they are not rates of its coordinates (A != I; a choice of
    r of them, from the last, that together with the rows determines q' at a generic point and at the
    default state), else the independent velocities. Returns the symbols u (Matrix (r, 1)) and Y
    (Matrix (r, k)); ValueError for given speeds that are not linear in the velocities or do not
    determine them."""
    if given is not None:
        return _given_speeds(mech, given)
    system = mech.system
    if sp.Matrix(system.A) == sp.eye(system.n) or system.unit_norm_blocks:  # angles: their rates are simplest
        return independent_speeds(mech)
    D = mech.D
    points = (_generic_point(mech), _default_point(mech))
    chosen, rows = [], sp.Matrix(mech.C_bar)
    for i in reversed(range(D.rows)):
        trial = rows.col_join(D[i, :])
        if len(chosen) < mech.r and all(_rank(trial, point) == trial.rows for point in points):
            chosen.insert(0, i)
            rows = trial
    if len(chosen) < mech.r:
        return independent_speeds(mech)
    Y = sp.Matrix(len(chosen), mech.k, lambda a, b: D[chosen[a], b])
    return sp.Matrix(len(chosen), 1, [system.velocities[i] for i in chosen]), Y


def _given_speeds(mech, given):
    """(u_1 .. u_r, Y) of speeds given as sympy expressions or strings in the names of the system's
    coordinates, velocities and parameters."""
    system = mech.system
    if isinstance(given, (str, sp.Basic)) or not hasattr(given, "__iter__"):
        raise ValueError(f"derive: speeds got {given!r} but expected a list of {mech.r} expressions linear in the "
                         f"velocities {', '.join(map(str, system.velocities))}")
    on_w = dict(zip(system.velocities, mech.D * mech.qd)) | dict(zip(system.coordinates, system.embedding.g))
    names = {s.name: s for s in (*system.coordinates, *system.velocities, *mech.q, *mech.qd, *mech.parameters)}
    names.update({par.name: par.symbol for par in system.parameters})
    allowed = set(mech.q) | set(mech.parameters)
    rows = []
    declared = system.speeds
    for expr in given:
        e = sp.expand(sp.sympify(declared.get(expr, expr) if isinstance(expr, str) else expr, locals=names).subs(on_w))
        why = speed_problem(e, list(mech.qd), allowed)
        if why:
            raise ValueError(f"derive: speed {expr} of {system.name!r} {why}")
        rows.append(sp.Matrix([e]).jacobian(mech.qd))
    if len(rows) != mech.r:
        raise ValueError(f"derive: {len(rows)} speeds given but system {system.name!r} has r = {mech.r} velocity "
                         f"degrees of freedom")
    Y = sp.Matrix.vstack(*rows)
    if _rank(Y.col_join(mech.C_bar), _generic_point(mech)) < mech.k:
        raise ValueError(f"derive: the speeds {list(given)} together with the constraint rows do not determine "
                         f"the velocities of {system.name!r} (the matrix [Y; C_bar_nh] is singular)")
    return sp.Matrix([sp.Symbol(f"u_{i + 1}", real=True) for i in range(mech.r)]), Y


def _generic_point(mech):
    """Values of q and the parameters, away from special ones, where ranks are generic."""
    rng = np.random.default_rng(7)
    return {s: sp.Float(rng.uniform(0.3, 0.9), 20) for s in list(mech.q) + list(mech.parameters)}


def _default_point(mech):
    """q at the system's default state and its parameter values."""
    p, _ = mech.system.default_state()
    q = sp.lambdify([mech.system.coordinates], list(mech.system.embedding.inverse))(p)
    values = dict(zip(mech.q, (sp.Float(float(x), 20) for x in q)))
    values.update(zip(mech.parameters, (sp.Float(float(x), 20) for x in mech.system.parameter_values)))
    return values


def _rank(matrix, point):
    return np.linalg.matrix_rank(np.array(matrix.subs(point).evalf(), float), tol=1e-9)


def velocity_map(mech, Y, simp):
    """(Z, W): q' = Z [u; u_c] with the constraint quasi-velocities u_c = C_bar q', and W = Z's first
    r columns, so that q' = W u wherever the rows hold."""
    Z = simp((Y.col_join(mech.C_bar)).inv(method="LU"))
    return Z, Z[:, :mech.r]

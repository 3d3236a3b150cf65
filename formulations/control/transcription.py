"""Direct collocation of a ControlModel: the NLP's variables, constraints and cost.

Mesh: N intervals of length h = (t1 - t0) / N. At every collocation point the variables are
x = (q, s), a = s', z (multipliers) and the inputs u; the node equations E(q, s, a, z, u, t) = 0 hold
there, with x' = (K(q, s, z, u, t), a). Defects (Betts, Practical Methods for Optimal Control,
2010, section 4.5):

    trapezoidal       x_k+1 - x_k - h/2 (x'_k + x'_k+1) = 0                         (order 2)
    hermite-simpson   x_m - (x_k + x_k+1)/2 - h/8 (x'_k - x'_k+1) = 0               (order 4,
                      x_k+1 - x_k - h/6 (x'_k + 4 x'_m + x'_k+1) = 0                 separated form)

The cost's integral uses the same quadrature (trapezoid, Simpson).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from systems.errors import ArgumentError

from .bridge import casadi


@dataclass
class Transcription:
    """The NLP (CasADi symbols) and how to read a solution back."""

    nlp: dict
    lbx: np.ndarray
    ubx: np.ndarray
    lbg: np.ndarray
    ubg: np.ndarray
    x0: np.ndarray
    points: list          # per collocation point: dict of name -> slice of the variable vector
    fractions: np.ndarray  # (n_points,) position of each point in [0, 1] of the horizon
    duration: object      # slice of the final-time variable, or None
    defects: slice        # rows of g that are collocation defects


class _Builder:
    def __init__(self, ca):
        self.ca, self.w, self.lb, self.ub, self.guess = ca, [], [], [], []
        self.g, self.glb, self.gub, self.size = [], [], [], 0

    def var(self, n, lo=-np.inf, hi=np.inf, guess=0.0):
        x = self.ca.SX.sym("w", n)
        self.w.append(x)
        self.lb.append(np.broadcast_to(lo, n).astype(float))
        self.ub.append(np.broadcast_to(hi, n).astype(float))
        self.guess.append(np.broadcast_to(guess, n).astype(float))
        out = slice(self.size, self.size + n)
        self.size += n
        return x, out

    def eq(self, expr, lo=0.0, hi=0.0):
        """lo <= expr <= hi; rows that are structurally zero (0 = 0) are left out."""
        if not expr.numel():
            return
        rows = [i for i in range(expr.shape[0]) if expr[i].nnz() and not expr[i].is_zero()]
        if rows:
            self.g.append(self.ca.densify(expr[rows]))
            self.glb.append(np.broadcast_to(lo, len(rows)).astype(float))
            self.gub.append(np.broadcast_to(hi, len(rows)).astype(float))

    def rows(self):
        return sum(e.shape[0] for e in self.g)


def transcribe(model, prob, guess, named, cost_integrand, path_functions) -> Transcription:
    """The NLP of ``prob`` (a Problem) on ``model``; ``guess(fraction)`` gives (q, s, u) at a point of
    the horizon; ``named(q, s, t)`` gives {name: CasADi value} for the boundary conditions;
    ``cost_integrand(q, s, u, t)`` the Lagrange term (None for 'time'); ``path_functions``
    {name: (function of (q, s, z, u, t), lo, hi)}."""
    ca = casadi()
    b = _Builder(ca)
    nq, ns, nz, nu = model.sizes
    N = prob.nodes
    if prob.free_time:
        T, duration = b.var(1, *prob.t1_bounds, guess=prob.t1 - prob.t0)
        T = T[0]
    else:
        T, duration = prob.t1 - prob.t0, None
    h = T / N
    step = 2 if prob.scheme == "hermite-simpson" else 1
    fractions = np.linspace(0.0, 1.0, step * N + 1)
    ulo, uhi = (np.array([bd[i] for bd in prob.input_bounds]) for i in (0, 1))
    points, values = [], []
    for frac in fractions:
        q_g, s_g, u_g = guess(frac)
        q, sq = b.var(nq, guess=q_g)
        s, ss = b.var(ns, guess=s_g)
        a, sa = b.var(ns)
        z, sz = b.var(nz)
        u, su = b.var(nu, ulo, uhi, guess=np.clip(u_g, ulo, uhi))
        points.append({"q": sq, "s": ss, "a": sa, "z": sz, "u": su})
        values.append((q, s, a, z, u, prob.t0 + frac * T))
    for q, s, a, z, u, t in values:
        b.eq(model.balance(q, s, a, z, u, t))
    slack, imposed = _rows(b, ca, model, prob, named, guess, values, fractions, step)
    _boundary(b, named, values[0], prob.initial, imposed[0])
    _boundary(b, named, values[-1], prob.final, imposed[len(values) - 1])
    for function, lo, hi in path_functions.values():
        for q, s, a, z, u, t in values:
            b.eq(function(q, s, z, u, t), lo, hi)
    rate = [ca.vertcat(model.kinematics(q, s, t), a) for q, s, a, z, u, t in values]
    state = [ca.vertcat(q, s) for q, s, *_ in values]
    start = b.rows()
    for k in range(0, len(values) - 1, step):
        e = k + step
        if step == 2:
            m = k + 1
            b.eq(state[m] - (state[k] + state[e]) / 2 - h / 8 * (rate[k] - rate[e]))
            b.eq(state[e] - state[k] - h / 6 * (rate[k] + 4 * rate[m] + rate[e]) - slack.get(e, 0))
        else:
            b.eq(state[e] - state[k] - h / 2 * (rate[k] + rate[e]) - slack.get(e, 0))
    defects = slice(start, b.rows())
    J = _cost(ca, prob, values, cost_integrand, h, step == 2, T)
    nlp = {"x": ca.vertcat(*b.w), "f": J, "g": ca.vertcat(*b.g)}
    return Transcription(nlp, np.concatenate(b.lb), np.concatenate(b.ub), np.concatenate(b.glb), np.concatenate(b.gub),
                         np.concatenate(b.guess), points, fractions, duration, defects)


def _rows(b, ca, model, prob, named, guess, values, fractions, step):
    """Impose the model's rows: at t0 only, or (projected) at every mesh node with slack
    multipliers sigma. Returns ({point index: R^T sigma}, the correction added to the defect that
    ends at that node; {boundary point index: names of the conditions to impose there})."""
    slack, last = {}, len(values) - 1
    ends = {0: ("initial", prob.initial), last: ("final", prob.final)}
    imposed = {}
    for k, (where, conditions) in ends.items():
        imposed[k], kept = _independent(ca, model, named, conditions, guess(fractions[k]),
                                        prob.t0 + fractions[k] * (prob.t1 - prob.t0), where)
        ends[k] = kept
    for k in range(0, last + 1, step) if model.projected else (0,):
        q, s, _, _, _, t = values[k]
        rows = model.rows(q, s, t)
        keep = ends.get(k, list(range(rows.shape[0])))
        if keep:
            b.eq(rows[keep])
        if k and rows.shape[0]:  # every row's slack, those implied by the final conditions too
            sigma, _ = b.var(rows.shape[0])
            slack[k] = model.rows_jacobian(q, s, t).T @ sigma
    return slack, imposed


def _independent(ca, model, named, conditions, guess, t, where):
    """(names of the conditions to impose, indices of the model's rows to impose) at a boundary
    point, each independent of those before it at the boundary state: the state nearest the guess
    that meets the conditions and the rows (_boundary_point; the guess need not meet them).

    Conditions on p and v can say the same thing twice in the model's own variables (x and y of a
    point on a ring both fix its angle; v = 0 implies C v = 0): imposing both would make the
    constraint Jacobian rank-deficient, which IPOPT does not survive. A condition left out is
    checked on the solution (solve.py); a row left out must hold at the boundary values
    (ArgumentError naming it otherwise)."""
    nq, ns = len(model.q_names), len(model.s_names)
    q, s = ca.SX.sym("q", nq), ca.SX.sym("s", ns)
    rows = model.rows(q, s, t)
    available = named(q, s, t)
    x = ca.vertcat(q, s)
    given = ca.vertcat(*[available[name] for name in conditions]) if conditions else ca.SX(0, 1)
    at = ca.Function("at", [q, s], [ca.jacobian(given, x), ca.jacobian(rows, x), rows, given])
    values = np.array([conditions[name] for name in conditions], dtype=float)
    point = _boundary_point(at, np.concatenate([np.ravel(guess[0]), np.ravel(guess[1])]), values, nq)
    J_given, J_rows, value, held = (np.array(m) for m in at(point[:nq], point[nq:]))
    basis = np.zeros((0, nq + ns))
    names, kept = [], []
    scale = max(1.0, np.max(np.abs(point[:nq]), initial=0.0), np.max(np.abs(values), initial=0.0))
    for i, name in enumerate(conditions):
        basis, grew = _grow(basis, J_given[i:i + 1])
        if grew:
            names.append(name)
        elif abs(held.ravel()[i] - conditions[name]) > 1e-8 * max(scale, abs(conditions[name])):
            raise ArgumentError(f"optimal_control got {where} conditions that the constraints do not allow together: "
                                f"{name} = {conditions[name]:g} does not follow from the others and the constraints "
                                f"({name} = {held.ravel()[i]:.6g} does)", where)
    for i in range(J_rows.shape[0]):
        basis, grew = _grow(basis, J_rows[i:i + 1])
        if grew:
            kept.append(i)
        elif conditions and abs(value.ravel()[i]) > 1e-8 * scale:
            raise ArgumentError(f"optimal_control got {where} conditions that violate the constraint "
                                f"{model.row_names[i]!r} (residual {value.ravel()[i]:.3g})", where)
    return names, kept


def _boundary_point(at, x, values, nq, iterations=30):
    """The state x (q then s) nearest ``x`` that meets the boundary conditions (``values``) and the
    model's rows: Gauss-Newton with minimum-norm steps on [given(x) - values; rows(x)]. Where they
    cannot all hold, the point where the iterations end (the checks after it name the conflict)."""
    for _ in range(iterations):
        J_given, J_rows, rows, given = (np.array(m) for m in at(x[:nq], x[nq:]))
        r = np.concatenate([given.ravel() - values, rows.ravel()])
        if not np.all(np.isfinite(r)) or np.max(np.abs(r), initial=0.0) <= 1e-13 * max(1.0, np.max(np.abs(x))):
            break
        step = np.linalg.lstsq(np.vstack([J_given, J_rows]), -r, rcond=None)[0]
        x = x + step
        if np.max(np.abs(step), initial=0.0) <= 1e-15 * max(1.0, np.max(np.abs(x))):
            break
    return x


def _grow(basis, row):
    """(basis with row appended, True) where row is independent of basis, else (basis, False)."""
    if not np.any(row):
        return basis, False
    grown = np.vstack([basis, row])
    if np.linalg.matrix_rank(grown, tol=1e-9 * max(1.0, np.max(np.abs(grown)))) > basis.shape[0]:
        return grown, True
    return basis, False


def _boundary(b, named, point, conditions, names):
    q, s, _, _, _, t = point
    available = named(q, s, t)
    for name in names:
        b.eq(available[name] - conditions[name])


def _cost(ca, prob, values, integrand, h, hs, T):
    if integrand is None:
        return T
    L = [integrand(q, s, u, t) for q, s, _, _, u, t in values]
    if hs:
        return sum(h / 6 * (L[k] + 4 * L[k + 1] + L[k + 2]) for k in range(0, len(L) - 1, 2))
    return sum(h / 2 * (L[k] + L[k + 1]) for k in range(len(L) - 1))

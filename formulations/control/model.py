"""A formulation's equations as CasADi functions, for direct collocation.

Every formulation is written here the same way (Kane's form of each, DESIGN section 2): own
coordinates q and velocity state s, the kinematics q' = K(q, s, t), the velocity map
v = V(q, s, t) with its partial velocities B = dV/ds, and, with s' = a, the equations of motion in
index-1 form (the constraints' time derivative G' = 0 beside the balance) at every collocation
point, and the constraint rows themselves:

    dependent   q = p, s = v, V = v, B = I; z = lambda (all rows)
                balance  M a + d - f + C^T lambda = 0,   G' = 0
                rows     Phi = 0, N = 0,  G = [C_h v + Phi_t;  C_nh v + c_nh] = 0
    reduced     q, s = w of the embedding p = g(q, t), V = A^+ (g_q A_q w + g_t), z = lambda_nh
                balance  B^T (M v' + d - f) + (C_nh B)^T lambda_nh = 0,   G' = 0
                rows     N = 0,  G = C_nh V + c_nh = 0
    minimal     s = u, w = W(q, u) solves C_nh V(q, w) + c_nh = 0 for the dependent entries of w, or
                [C_nh V_w; Y V_w] w = [-c_nh; u - Y V(q, 0)] for quasi-velocities u = Y(p) v
                balance  B^T (M v' + d - f) = 0;  rows N = 0 only

Non-ideal rows (f depends on lambda, e.g. rolling resistance proportional to a normal force): the
reduced and minimal forms then carry every multiplier, z = lambda, and their balance is the whole
of M v' + d - f(lambda) + C^T lambda = 0 at p(q), V(q, s) (n rows; beside G' = 0 in reduced). Its
unknowns (a, lambda) are determined where the dependent formulation's saddle-point matrix is
regular: in minimal C B = 0, so [M B, C^T] is; in reduced Phi_p A B = 0 and G' = C_nh B a + ... = 0
gives the rest.

N holds (|e|^2 - 1) / 2 of each unit quaternion e among q (position rows without multipliers: e' =
G(e) omega keeps the norm); A^+ = (A^T A)^-1 A^T where A is tall (Euler parameters).

with v' = B a + (dV/dq) q' + dV/dt. Stabilization "projection" imposes the rows at every mesh
node, with slack multipliers sigma that move each node's state along the rows' gradients: a
position row's in q, a velocity row's in s only (Posa, Kuindersma & Tedrake, ICRA 2016: without
them the rows and the collocated index-1 equations over-determine the state; a velocity row's
gradient in q would be tangent to the constraint manifold, a free move along the motion). "none"
imposes the rows at t0 only, and the drift is reported. Inputs are
parameters that enter f; the other parameters are numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from systems.dependent_rows import velocity_partition
from systems.errors import ArgumentError

from .. import registry
from ..configuration import parse_configuration
from ..coordinates.speeds import parse
from ..dependent import Dependent
from ..errors import CapabilityError
from ..manifold import Manifold
from ..minimal import Minimal
from ..reduced import Reduced
from ..udwadia_kalaba import UdwadiaKalaba
from .bridge import casadi
from .casadi_expressions import Converter

@dataclass(frozen=True)
class Transcription:
    """A formulation's piece of optimal control (formulations.registry, layer "optimal control"):
    model(pieces, casadi, projected, independent, q_guess) -> ControlModel; stabilizations: the ones
    that may follow its name ("+projection": the constraint rows hold at every node, the default
    where it has them; "+none": at t0 only)."""

    model: object
    stabilizations: tuple = ()


def kinds() -> tuple:
    """The formulations optimal control transcribes, each with the stabilizations it takes."""
    out = []
    for name in registry.having("optimal control"):
        out += [name] + [f"{name}+{s}" for s in registry.piece("optimal control", name).stabilizations]
    return tuple(out)


@dataclass(frozen=True)
class ControlModel:
    """CasADi functions of one formulation (see the module docstring); names of its variables."""

    label: str
    q_names: tuple
    s_names: tuple
    z_names: tuple           # the multipliers carried (constraint names)
    input_names: tuple
    kinematics: object       # (q, s, t) -> q'
    balance: object          # (q, s, a, z, u, t) -> the equations of motion in index-1 form
    rows: object             # (q, s, t) -> the position and velocity constraints on q, s
    rows_jacobian: object    # (q, s, t) -> the directions of the slacks in (q, s): d Phi/dq, d G/ds
    projected: bool          # the rows hold at every node (else at t0 only)
    row_names: tuple         # what each row constrains
    dependent: object        # (q, s, t) -> (p, v)
    note: str = ""           # how the velocities were chosen (minimal)
    parameter_names: tuple = ()  # symbolic models: the parameters of the last argument ``par``
    partition: object = None  # minimal: (q, t) -> det of C_bar_nh's columns solved for (0 where u is singular)

    @property
    def sizes(self):
        return len(self.q_names), len(self.s_names), len(self.z_names), len(self.input_names)

    @property
    def carried(self):
        return self.z_names


def build(system, kind: str, inputs, independent=None, q_guess=None, symbolic=False) -> ControlModel:
    """The ControlModel of formulation ``kind`` (one of kinds()) for ``system`` with input parameter
    names ``inputs``; ``independent`` names the entries of w kept as u (minimal; default the
    system's choice, else pivoting on C_bar_nh at ``q_guess``). symbolic: the other parameters
    stay symbols, the last argument ``par`` of every function (formulations.control.export)."""
    if kind not in kinds():
        base_kind = _base_name(kind)
        why = f" ({registry.why_not('optimal control', base_kind)})" if base_kind in registry.names() else ""
        raise ArgumentError(f"optimal_control got formulation={kind!r} but expected one of: {', '.join(kinds())}{why}",
                            "formulation")
    ca = casadi()
    base = _Pieces(system, inputs, symbolic)
    parts = parse_configuration(kind, "formulation")
    projected = parts.stabilization != "none"
    return registry.piece("optimal control", parts.formulation).model(base, ca, projected, independent, q_guess)


def _base_name(kind):
    """The formulation named in ``kind``, or None where it names none (formulations.configuration)."""
    try:
        return parse_configuration(kind, "formulation").formulation
    except (ValueError, TypeError):
        return None


class _Pieces:
    """The primitives of a description as CasADi expressions in p, v, u, t (and lambda where f
    holds them); the parameters that are not inputs replaced by their values, or (symbolic) kept
    as the entries of ``par`` (their order: ``parameter_names``)."""

    def __init__(self, system, inputs, symbolic=False, pieces=True):
        ca = casadi()
        self.system, self.ca, self.input_names = system, ca, tuple(inputs)
        kept = [par for par in system.parameters if par.name not in self.input_names]
        self.parameter_names = tuple(par.name for par in kept) if symbolic else ()
        self.par = ca.SX.sym("par", len(self.parameter_names))
        self.parameters = {par.symbol: self.par[i] for i, par in enumerate(kept)} if symbolic else {}
        n_p, n = len(system.coordinates), system.n
        self.p, self.v, self.t = ca.SX.sym("p", n_p), ca.SX.sym("v", n), ca.SX.sym("t")
        self.u = ca.SX.sym("u", len(inputs))
        self.lam = ca.SX.sym("lambda", system.m + system.l)
        symbols = {s: self.p[i] for i, s in enumerate(system.coordinates)}
        symbols.update({s: self.v[i] for i, s in enumerate(system.velocities)})
        symbols.update({s: self.lam[i] for i, s in enumerate(system.multipliers)})
        symbols[system.time] = self.t
        by_name = {par.name: par.symbol for par in system.parameters}
        symbols.update({by_name[name]: self.u[i] for i, name in enumerate(inputs)})
        symbols.update(self.parameters)
        self.to_casadi = Converter(symbols, self.values())
        if pieces:  # pieces=False: the variables and the converter only (a user's expression)
            self._convert(system, ca, n_p, n)

    def _convert(self, system, ca, n_p, n):
        """A, M, d, f, Phi, C_nh, c_nh as CasADi, and Phi_p, C, G from them."""
        conv = self.to_casadi.matrix
        self.A, self.M, self.d, self.f = conv(system.A), conv(system.M), conv(system.d), conv(system.f)
        self.nonideal = ca.depends_on(self.f, self.lam) if system.m + system.l else False
        self.Phi = conv(system.Phi) if system.m else ca.SX(0, 1)
        self.C_nh, self.c_nh = conv(system.C_nh), conv(system.c_nh)
        self.Phi_p = ca.jacobian(self.Phi, self.p) if system.m else ca.SX(0, n_p)
        self.C = ca.vertcat(self.Phi_p @ self.A, self.C_nh)
        self.G = ca.vertcat(self.Phi_p @ self.A @ self.v + ca.jacobian(self.Phi, self.t), self.C_nh @ self.v + self.c_nh)
        # each unit quaternion's norm: a position row, kept by p' = A v itself (no multiplier, no velocity row)
        self.norms = unit_norms(ca, self.p, system.unit_norm_blocks)
        self.norm_names = tuple(f"unit norm of ({', '.join(system.coordinate_names[i] for i in block)})"
                                for block in system.unit_norm_blocks)

    def values(self):
        """{parameter symbol: value} for the parameters that are numbers here."""
        return {s: v for s, v in self.system.parameter_map.items()
                if s.name not in self.input_names and s not in self.parameters}


def _dependent(b, ca, projected):
    system = b.system
    a = ca.SX.sym("a", system.n)
    qdot = b.A @ b.v
    balance = ca.vertcat(b.M @ a + b.d - b.f + b.C.T @ b.lam, _rate(ca, b.G, b.p, b.v, qdot, a, b.t))
    names = tuple(f"{name} (position)" for name in system.holonomic_names) + b.norm_names \
        + tuple(f"{name} (velocity)" for name in system.holonomic_names) + system.nonholonomic_names
    return _model(ca, f"{Dependent.name}+{'projection' if projected else 'none'}", system.coordinate_names,
                  system.velocity_names, b, b.p, b.v, b.lam, a, qdot, balance, ca.vertcat(b.Phi, b.norms, b.G), b.p,
                  b.v, tuple(system.constraint_names), projected, names, positions=system.m + b.norms.shape[0])


def _rate(ca, G, q, s, qdot, a, t):
    """G' = dG/dq q' + dG/ds a + dG/dt."""
    return ca.jtimes(G, q, qdot) + ca.jtimes(G, s, a) + ca.jacobian(G, t)


def _embedded(b, ca):
    """(q, w, p(q, t), V(q, w, t), q'(q, w), the unit-norm rows of q) of the embedding, or of q = p
    where m = 0."""
    system = b.system
    if not system.m:
        return system.coordinate_names, system.velocity_names, b.p, b.v, b.p, b.v, b.A @ b.v, b.norms
    emb = system.embedding
    if emb is None:
        raise CapabilityError(f"optimal_control: system {system.name!r} has holonomic rows but no embedding "
                              f"p = g(q); use formulation 'dependent'")
    q, w = ca.SX.sym("q", len(emb.coordinates)), ca.SX.sym("w", len(emb.velocities))
    conv = Converter({**{s: q[i] for i, s in enumerate(emb.coordinates)}, system.time: b.t, **b.parameters},
                     b.values())
    g, A_q = conv.matrix(emb.g), conv.matrix(emb.A_q)
    p_of_q = g
    A = ca.substitute(b.A, b.p, p_of_q)
    rate = ca.jacobian(g, q) @ A_q @ w + ca.jacobian(g, b.t)
    V = ca.solve(A, rate) if A.shape[0] == A.shape[1] else ca.solve(A.T @ A, A.T @ rate)  # A tall: Euler parameters
    norms = unit_norms(ca, q, emb.unit_norm_blocks)
    return emb.coordinate_names, tuple(s.name for s in emb.velocities), q, w, p_of_q, V, A_q @ w, norms


def _kane(b, ca, q, s, qdot, p_of_q, V):
    """(a, B, M v' + d - f at p(q), V(q, s)) with v' = B a + dV/dq q' + dV/dt."""
    a = ca.SX.sym("a", s.shape[0])
    B = ca.jacobian(V, s)
    vdot = B @ a + ca.jtimes(V, q, qdot) + ca.jacobian(V, b.t)
    at = lambda e: ca.substitute([e], [b.p, b.v], [p_of_q, V])[0]  # noqa: E731
    return a, B, at(b.M) @ vdot + at(b.d) - at(b.f), at


def _reduced(b, ca, projected):
    q_names, w_names, q, w, p_of_q, V, qdot, norms = _embedded(b, ca)
    a, B, residual, at = _kane(b, ca, q, w, qdot, p_of_q, V)
    G = at(b.C_nh) @ V + at(b.c_nh)
    if b.nonideal:
        lam, names = b.lam, tuple(b.system.constraint_names)
        balance = residual + at(b.C).T @ lam
    else:
        lam, names = ca.SX.sym("lambda_nh", b.system.l), tuple(b.system.nonholonomic_names)
        balance = B.T @ residual + (at(b.C_nh) @ B).T @ lam
    balance = ca.vertcat(balance, _rate(ca, G, q, w, qdot, a, b.t))
    label = f"{Reduced.name}+{'projection' if projected else 'none'}"
    return _model(ca, label, q_names, w_names, b, q, w, lam, a, qdot, balance, ca.vertcat(norms, G), p_of_q, V, names,
                  projected, _norm_names(q_names, b, norms) + tuple(b.system.nonholonomic_names),
                  positions=norms.shape[0])


def unit_norms(ca, x, blocks):
    """(|e|^2 - 1) / 2 of each unit quaternion e = x[block]: position rows (len(blocks), 1)."""
    return ca.vertcat(*[(ca.sumsqr(x[list(block)]) - 1) / 2 for block in blocks]) if blocks else ca.SX(0, 1)


def _norm_names(q_names, b, norms):
    """The names of the unit-norm rows of q (of p where q = p)."""
    blocks = b.system.embedding.unit_norm_blocks if b.system.m else b.system.unit_norm_blocks
    return tuple(f"unit norm of ({', '.join(q_names[i] for i in block)})" for block in blocks)


def _minimal(b, ca, independent, q_guess):
    q_names, w_names, q, w, p_of_q, V, qdot_w, norms = _embedded(b, ca)
    system = b.system
    rows = ca.substitute([b.C_nh @ b.v + b.c_nh], [b.p, b.v], [p_of_q, V])[0]
    C_bar = ca.jacobian(rows, w)
    if independent is not None:
        names, Y = parse(system, independent, "optimal_control")
        independent = names if Y is None else independent
        if Y is not None:
            return _quasi(b, ca, names, Y, (q_names, w, q, p_of_q, V, qdot_w, norms), rows, C_bar)
    numeric = ca.substitute(C_bar, b.par, ca.DM([system.parameter_dict[name] for name in b.parameter_names])) \
        if b.parameter_names else C_bar
    keep, note = _choose(system, ca, w_names, numeric, q, independent, q_guess, b.t)
    drop = [i for i in range(len(w_names)) if i not in keep]
    u = ca.SX.sym("u_ind", len(keep))
    if drop:
        c_bar = ca.substitute(rows, w, ca.SX.zeros(w.shape[0]))
        solved = -ca.solve(C_bar[:, drop], C_bar[:, keep] @ u + c_bar)
    W = ca.SX(len(w_names), 1)
    for j, i in enumerate(keep):
        W[i] = u[j]
    for j, i in enumerate(drop):
        W[i] = solved[j]
    V_u, qdot = ca.substitute(V, w, W), ca.substitute(qdot_w, w, W)
    a, B, residual, at = _kane(b, ca, q, u, qdot, p_of_q, V_u)
    z, balance, carried = _projected(b, ca, B, residual, at)
    return _model(ca, Minimal.name, q_names, tuple(w_names[i] for i in keep), b, q, u, z, a, qdot,
                  balance, norms, p_of_q, V_u, carried, bool(norms.shape[0]), _norm_names(q_names, b, norms), note,
                  positions=norms.shape[0], partition=ca.det(C_bar[:, drop]) if drop else None)


def _projected(b, ca, B, residual, at):
    """(z, the minimal balance, the names of z): B^T (M v' + d - f) = 0 without multipliers; with
    non-ideal rows the whole balance in (a, lambda) (module docstring)."""
    if b.nonideal:
        return b.lam, residual + at(b.C).T @ b.lam, tuple(b.system.constraint_names)
    return ca.SX(0, 1), B.T @ residual, ()


def _quasi(b, ca, names, Y, embedded, rows, C_bar):
    """The minimal model in quasi-velocities u = Y(p) v: w solves [C_bar_nh; Y V_w] w = [-c_bar_nh;
    u - Y V(q, 0)] (V_w = dV/dw), singular where det of that matrix vanishes."""
    q_names, w, q, p_of_q, V, qdot_w, norms = embedded
    u = ca.SX.sym("u_ind", len(names))
    Y_q = ca.substitute(b.to_casadi.matrix(Y), b.p, p_of_q)
    zero = ca.SX.zeros(w.shape[0])
    K = ca.vertcat(C_bar, Y_q @ ca.jacobian(V, w))
    W = ca.solve(K, ca.vertcat(-ca.substitute(rows, w, zero), u - Y_q @ ca.substitute(V, w, zero)))
    V_u, qdot = ca.substitute(V, w, W), ca.substitute(qdot_w, w, W)
    a, B, residual, at = _kane(b, ca, q, u, qdot, p_of_q, V_u)
    note = f"u = ({', '.join(names)}), quasi-velocities u = Y(p) v"
    z, balance, carried = _projected(b, ca, B, residual, at)
    return _model(ca, Minimal.name, q_names, names, b, q, u, z, a, qdot, balance, norms, p_of_q,
                  V_u, carried, bool(norms.shape[0]), _norm_names(q_names, b, norms), note, positions=norms.shape[0],
                  partition=ca.det(K))


def _choose(system, ca, w_names, C_bar, q, independent, q_guess, t):
    """Indices of w kept as u: the names asked for, the system's own choice, else the columns left
    by pivoted QR of C_bar_nh at q_guess (coordinate partitioning)."""
    r = len(w_names) - system.l
    wanted = independent if independent is not None else system.independent_velocities
    if wanted and all(name in w_names for name in wanted):
        if len(wanted) != r:
            raise ArgumentError(f"optimal_control got independent={tuple(wanted)} but expected {r} names of "
                                f"{', '.join(w_names)}", "independent")
        return [w_names.index(name) for name in wanted], f"u = ({', '.join(wanted)})"
    if independent is not None:
        unknown = [name for name in independent if name not in w_names]
        raise ArgumentError(f"optimal_control got independent names {unknown} but expected names of "
                            f"{', '.join(w_names)}", "independent")
    if not system.l:
        return list(range(len(w_names))), f"u = ({', '.join(w_names)})"
    at = ca.Function("C_bar", [q, t], [C_bar])
    q0 = np.zeros(q.shape[0]) if q_guess is None else np.asarray(q_guess, float)
    keep = velocity_partition(np.array(at(q0, 0.0)))[2]
    names = tuple(w_names[i] for i in keep)
    return keep, f"u = ({', '.join(names)}), chosen by pivoting on C_bar_nh at the first node"


def _model(ca, label, q_names, s_names, b, q, s, z, a, qdot, balance, rows, p, v, carried, projected, row_names,
           note="", positions=0, partition=None):
    """The ControlModel; the first ``positions`` rows are position rows (Phi), the rest velocity rows."""
    directions = ca.vertcat(ca.horzcat(ca.jacobian(rows[:positions], q), ca.SX(positions, s.shape[0])),
                            ca.horzcat(ca.SX(rows.shape[0] - positions, q.shape[0]), ca.jacobian(rows[positions:], s)))
    par = [b.par] if b.parameter_names else []

    def function(name, args, out):
        return ca.Function(name, args + par, out)
    return ControlModel(
        label, tuple(q_names), tuple(s_names), tuple(carried), b.input_names,
        function("kinematics", [q, s, b.t], [qdot]),
        function("balance", [q, s, a, z, b.u, b.t], [balance]),
        function("rows", [q, s, b.t], [rows]),
        function("rows_jacobian", [q, s, b.t], [directions]),
        projected, tuple(row_names),
        function("dependent_state", [q, s, b.t], [p, v]), note, b.parameter_names,
        function("partition", [q, b.t], [partition]) if partition is not None else None)


def expression_function(system, model_inputs, text: str, where: str):
    """A CasADi function (p, v, u, t) -> value of a user expression in the names of p, v, the
    inputs and t (parameters by their values); ArgumentError naming what is unknown."""
    ca = casadi()
    names = {s.name: s for s in (*system.coordinates, *system.velocities)}
    by_name = {par.name: par.symbol for par in system.parameters}
    for name in model_inputs:
        names[name] = by_name[name]
    names[system.time.name] = system.time
    for par in system.parameters:
        names.setdefault(par.name, par.symbol)
    try:
        expr = sp.sympify(text, locals=names)
    except (sp.SympifyError, SyntaxError, TypeError) as exc:
        raise ArgumentError(f"optimal_control got {where}={text!r}, which is not an expression: {exc}", where) from exc
    unknown = sorted(str(s) for s in expr.free_symbols if s not in set(names.values()))
    if unknown:
        raise ArgumentError(f"optimal_control got {where}={text!r} with unknown names {unknown}; expected names of "
                            f"coordinates, velocities, inputs and parameters of {system.name}", where)
    pieces = _Pieces(system, tuple(model_inputs), pieces=False)
    value = pieces.to_casadi(expr)
    return ca.Function(where, [pieces.p, pieces.v, pieces.u, pieces.t], [value])


registry.provide("optimal control", Dependent, Transcription(
    lambda base, ca, projected, independent, q_guess: _dependent(base, ca, projected), ("projection", "none")))
registry.provide("optimal control", Reduced, Transcription(
    lambda base, ca, projected, independent, q_guess: _reduced(base, ca, projected), ("projection", "none")))
registry.provide("optimal control", Minimal, Transcription(
    lambda base, ca, projected, independent, q_guess: _minimal(base, ca, independent, q_guess)))
registry.provide("optimal control", UdwadiaKalaba, registry.Refusal(
    "the Moore-Penrose inverse in its fundamental equation has no smooth transcription where rows are dependent or "
    "change rank; transcribe 'dependent', whose motions it shares"))
registry.provide("optimal control", Manifold, registry.Refusal(
    "its tangent-space charts are taken during a run and change along it; transcribe 'reduced', the same equations "
    "through an embedding"))

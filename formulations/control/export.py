"""A formulation's equations as an implicit residual F(x', x, lambda, r, par) = 0, for users who
transcribe them in their own tools (opty, CasADi, Pyomo): sympy matrices with their Jacobians and
sparsity patterns, and CasADi functions.

    dependent, index 1   x = (p, v):  F = [p' - A v;  M v' + d - f + C^T lambda;  C v' + xi]
    dependent, index 3   x = (p, v):  F = [p' - A v;  M v' + d - f + C^T lambda;  Phi;  C_nh v + c_nh]
    reduced, minimal     x = (q, s):  F = [q' - K(q, s, t);  the balance of formulations.control.model]
                                       (CasADi only: their D, D_bar are solves, not sympy matrices)

r are the inputs (force or torque parameters), par the other parameters, in the order of the
names the result lists. An index-3 residual needs a transcription that keeps its algebraic rows
(collocation with the rows at every point); the index-1 one drifts off Phi = 0 unless the
transcription imposes Phi and C v + c as well (formulations.optimal_control does both).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from systems.catalogue import as_system
from systems.errors import ArgumentError

from .. import registry
from ..dependent import Dependent
from ..inputs import input_names
from .bridge import casadi
from .model import build

WRT = ("xdot", "x", "lambda", "r")
ARGUMENTS = WRT + ("par",)


@dataclass(frozen=True)
class ImplicitResidual:
    """F(x', x, lambda, r, par) = 0 of one formulation (module docstring).

    names: {"xdot", "x", "lambda", "r", "par": names of each argument's entries}; F: the sympy
    column (None for the reduced and minimal forms); symbols: {argument: sympy symbols}, the
    variables F is written in.
    """

    system: str
    formulation: str
    form: str
    names: dict
    F: sp.Matrix | None
    symbols: dict
    _casadi: tuple

    def jacobian(self, wrt: str) -> sp.Matrix:
        """dF/d(wrt) as a sympy matrix, wrt one of "xdot", "x", "lambda", "r"."""
        if self.F is None:
            raise ArgumentError(f"the {self.formulation} residual has no sympy form; use casadi_functions()", "wrt")
        if wrt not in WRT:
            raise ArgumentError(f"jacobian got wrt={wrt!r} but expected one of {', '.join(WRT)}", "wrt")
        return self.F.jacobian(self.symbols[wrt]) if self.symbols[wrt] else sp.zeros(self.F.shape[0], 0)

    def pattern(self, wrt: str) -> list:
        """The structural non-zeros (row, column) of dF/d(wrt) (from CasADi's sparsity, so for every form)."""
        J = self.casadi_functions()[f"J_{wrt}"]
        rows, cols = J.sparsity_out(0).get_triplet()
        return sorted(zip(rows, cols))

    def casadi_functions(self) -> dict:
        """{"F": F(xdot, x, lambda, r, par), "J_xdot", "J_x", "J_lambda", "J_r": its Jacobians} as
        CasADi Functions (sparse)."""
        ca = casadi()
        args, F = self._casadi
        out = {"F": ca.Function("F", list(args), [F], list(ARGUMENTS), ["F"])}
        for name, arg in zip(WRT, args):
            out[f"J_{name}"] = ca.Function(f"J_{name}", list(args), [ca.jacobian(F, arg)], list(ARGUMENTS),
                                           [f"dF_d{name}"])
        return out


def implicit_residual(system, formulation=Dependent.name, inputs=(), form="index-1", independent=None,
                      parameters="symbolic"):
    """The ImplicitResidual of ``formulation`` (one that optimal control transcribes:
    formulations.registry.having("optimal control")) for ``system``
    with the force or torque parameters ``inputs`` as r; form "index-1" or "index-3" (dependent).
    parameters: "symbolic" (the other parameters are the argument par) or "values" (the system's
    values substituted, par empty; needed where a parameter decides a structure, e.g. the rolling
    disc's rolling resistance, which makes f depend on lambda unless it is 0)."""
    system = as_system(system)
    inputs = input_names(system, inputs)
    if formulation not in registry.having("optimal control"):
        raise ArgumentError(f"implicit_residual got formulation={formulation!r} but expected one of: "
                            f"{', '.join(registry.having('optimal control'))}", "formulation")
    if form not in ("index-1", "index-3"):
        raise ArgumentError(f"implicit_residual got form={form!r} but expected 'index-1' or 'index-3'", "form")
    if form == "index-3" and formulation != Dependent.name:
        raise ArgumentError("implicit_residual: the index-3 form is that of the dependent variables", "form")
    if parameters not in ("symbolic", "values"):
        raise ArgumentError(f"implicit_residual got parameters={parameters!r} but expected 'symbolic' or 'values'",
                            "parameters")
    _time_free(system)
    symbolic = parameters == "symbolic"
    if formulation == Dependent.name:
        return _dependent(system, inputs, form, symbolic)
    return _through_model(system, formulation, inputs, independent, symbolic)


def _dependent(system, inputs, form, symbolic):
    from .casadi_expressions import Converter

    ca = casadi()
    p, v = sp.Matrix(system.coordinates), sp.Matrix(system.velocities)
    pd = sp.Matrix([sp.Symbol(f"{s.name}__rate", real=True) for s in system.coordinates])
    vd = sp.Matrix([sp.Symbol(f"{s.name}__rate", real=True) for s in system.velocities])
    lam = sp.Matrix(system.multipliers)
    F = [pd - system.A * v, system.M * vd + system.d - system.f + system.C.T * lam]
    F.append(system.C * vd + system.xi if form == "index-1" else
             sp.Matrix.vstack(sp.Matrix(system.Phi), system.C_nh * v + system.c_nh))
    F = sp.Matrix.vstack(*F)
    by_name = {par.name: par.symbol for par in system.parameters}
    kept = [s.symbol for s in system.parameters if s.name not in inputs]
    if not symbolic:
        F, kept = F.xreplace({s: system.parameter_map[s] for s in kept}), []
    symbols = {"xdot": list(pd) + list(vd), "x": list(p) + list(v), "lambda": list(lam),
               "r": [by_name[name] for name in inputs], "par": kept}
    names = {"xdot": tuple(f"{s.name}'" for s in (*system.coordinates, *system.velocities)),
             "x": system.coordinate_names + system.velocity_names, "lambda": tuple(system.constraint_names),
             "r": tuple(inputs), "par": tuple(s.name for s in symbols["par"])}
    args = [ca.SX.sym(key, len(symbols[key])) for key in ARGUMENTS]
    conv = Converter({s: arg[i] for key, arg in zip(ARGUMENTS, args) for i, s in enumerate(symbols[key])})
    return ImplicitResidual(system.name, Dependent.name, form, names, F, symbols, (args, conv.matrix(F)))


def _through_model(system, formulation, inputs, independent, symbolic):
    ca = casadi()
    model = build(system, formulation, inputs, independent, symbolic=symbolic)
    nq, ns, nz, nu = model.sizes
    xdot, x = ca.SX.sym("xdot", nq + ns), ca.SX.sym("x", nq + ns)
    z, r, par = ca.SX.sym("lambda", nz), ca.SX.sym("r", nu), ca.SX.sym("par", len(model.parameter_names))
    extra = [par] if model.parameter_names else []
    q, s = x[:nq], x[nq:]
    F = ca.vertcat(xdot[:nq] - model.kinematics(q, s, 0.0, *extra), model.balance(q, s, xdot[nq:], z, r, 0.0, *extra))
    names = {"xdot": tuple(f"{n}'" for n in (*model.q_names, *model.s_names)), "x": model.q_names + model.s_names,
             "lambda": model.z_names, "r": tuple(inputs), "par": model.parameter_names}
    return ImplicitResidual(system.name, model.label, "index-1", names, None, {}, ([xdot, x, z, r, par], F))


def _time_free(system):
    """ArgumentError where a piece depends on time: the residuals exported hold no t."""
    pieces = [system.A, system.M, system.d, system.f, system.Phi, system.C_nh, system.c_nh]
    if system.embedding is not None:
        pieces.append(system.embedding.g)
    if any(system.time in sp.Matrix(piece).free_symbols for piece in pieces):
        raise ArgumentError(f"implicit_residual: system {system.name!r} depends on time (rheonomic rows or forces "
                            f"in t); the residuals exported hold no t", "system")

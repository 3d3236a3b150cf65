"""Classroom derivations: the equations of each formulation, step by step, in the notation of
Blajer's *A geometrical framework for modeling and simulation of nonholonomic mechanical systems*.

Each step is simplified cheaply (expansion and sin^2 -> 1 - cos^2 reduction) and then, within a
time bound, by sympy's simplify; what the bound cuts stays correct, only longer. These symbolic
forms are for reading; simulation never needs them (formulations work numerically at run time).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from systems._bounded import bounded
from systems.builders.common import tidy

from ..equations import LATEX_NAMES

LATEX_NAMES = dict(LATEX_NAMES, M_barbar=r"\bar{\bar{\mathbf{M}}}", d_barbar=r"\bar{\bar{\mathbf{d}}}",
                   f_barbar=r"\bar{\bar{\mathbf{f}}}", gamma_bar=r"\bar{\boldsymbol{\gamma}}",
                   xi_bar=r"\bar{\boldsymbol{\xi}}", V=r"V", E=r"\mathbf{E}")


@dataclass(frozen=True)
class Step:
    """One step of a derivation: a title, a sentence, and named results."""

    title: str
    text: str
    results: tuple = ()  # ((name, sympy object), ...)


@dataclass(frozen=True)
class Derivation:
    system_name: str
    formulation: str
    steps: tuple
    analysis: object = None
    notes: tuple = ()
    pieces: dict = field(default_factory=dict)

    def __getitem__(self, name):
        return self.pieces[name]

    def text(self) -> str:
        out = [f"Derivation of the {self.formulation} formulation for {self.system_name}", ""]
        for i, step in enumerate(self.steps, 1):
            out.append(f"{i}. {step.title}: {step.text}")
            out += [f"   {name} = {sp.sstr(value)}" for name, value in step.results]
        out += [f"note: {n}" for n in self.notes]
        if self.analysis is not None:
            out += ["", self.analysis.text()]
        return "\n".join(out)

    __str__ = text

    def to_latex(self) -> str:
        out = [rf"\section*{{{self.formulation.capitalize()} formulation: {_tex_text(self.system_name)}}}"]
        for i, step in enumerate(self.steps, 1):
            out.append(rf"\paragraph{{{i}. {_tex_text(step.title)}}} {_tex_text(step.text)}")
            if step.results:
                rows = [rf"{LATEX_NAMES.get(name, _tex_name(name))} &= {_latex(value)}" for name, value in step.results]
                out.append("\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}")
        out += [rf"\noindent\emph{{Note:}} {_tex_text(n)}" for n in self.notes]
        return "\n\n".join(out)

    def to_markdown(self) -> str:
        out = [f"## {self.formulation.capitalize()} formulation: `{self.system_name}`", ""]
        for i, step in enumerate(self.steps, 1):
            out += [f"**{i}. {step.title}.** {step.text}", ""]
            for name, value in step.results:
                out += [f"$$ {LATEX_NAMES.get(name, _tex_name(name))} = {_latex(value)} $$", ""]
        out += [f"> {n}" for n in self.notes]
        if self.analysis is not None:
            out += ["", self.analysis.to_markdown()]
        return "\n".join(out)

    def _repr_markdown_(self):
        return self.to_markdown()

    def _repr_latex_(self):
        rows = [rf"{LATEX_NAMES.get(n, _tex_name(n))} &= {_latex(v)}" for s in self.steps for n, v in s.results]
        return "$$\\begin{aligned}" + " \\\\ ".join(rows) + "\\end{aligned}$$"


def _tex_text(text):
    return text.replace("_", r"\_").replace("&", r"\&").replace("%", r"\%")


def _tex_name(name):
    return name.replace("_", r"\_")


def _latex(value):
    return sp.latex(value, mat_delim="(") if isinstance(value, sp.MatrixBase) else sp.latex(value)


class _Simplifier:
    """Cheap reduction always; sympy's simplify while the time budget lasts."""

    def __init__(self, seconds):
        self.deadline = time.monotonic() + seconds

    def __call__(self, expr):
        expr = tidy(expr)
        left = self.deadline - time.monotonic()
        if left <= 0:
            return expr
        if isinstance(expr, sp.MatrixBase):
            out = bounded(lambda: expr.applyfunc(sp.simplify), min(left, 5.0))
        else:
            out = bounded(lambda: sp.simplify(expr), min(left, 5.0))
        return expr if out is None else out


def _velocity_map(system, simp):
    """D = A^-1 g_q (A_q = I, square A) and the substitution p = g(q)."""
    emb = system.embedding
    q = list(emb.coordinates)
    on_g = dict(zip(system.coordinates, emb.g))
    A = sp.Matrix(system.A).subs(on_g)
    g_q = sp.Matrix(emb.g).jacobian(q)
    D = simp(g_q if A == sp.eye(A.shape[0]) else A.LUsolve(g_q))
    return q, on_g, D


def _common_steps(system, simp):
    p, v = sp.Matrix(system.coordinates), sp.Matrix(system.velocities)
    steps = [Step("Description", f"coordinates p and velocities v of {system.name}, kinematics p' = A v, "
                  "mass matrix M, inertia terms d and applied forces f (Blajer's notation); V is the potential "
                  "energy", (("p", p), ("v", v), ("A", system.A), ("M", system.M), ("d", system.d), ("f", system.f),
                             ("V", system.potential)))]
    if system.m:
        names = "; ".join(f"row {i + 1}: {n}" for i, n in enumerate(system.holonomic_names))
        steps.append(Step("Holonomic constraints", f"Phi(p) = 0, each row carrying a reaction ({names}); at "
                          "velocity level C_h = Phi_p A", (("Phi", system.Phi), ("C_h", simp(system.C_h)))))
    if system.l:
        names = "; ".join(f"row {i + 1}: {n}" for i, n in enumerate(system.nonholonomic_names))
        steps.append(Step("Nonholonomic constraints", f"C_nh(p) v = 0 ({names})", (("C_nh", system.C_nh),)))
    return steps


def _dependent(system, simp, steps):
    C = sp.Matrix(system.C)
    v = sp.Matrix(system.velocities)
    xi = simp((C * v).jacobian(system.coordinates) * sp.Matrix(system.A) * v) if C.shape[0] else C
    steps.append(Step("Acceleration level", "C v' + xi = 0 with C = [C_h; C_nh] and xi = (dC/dt) v",
                      (("C", simp(C)), ("xi", xi))))
    steps.append(Step("Equations of motion", "M v' + d = f - C^T lambda together with C v' + xi = 0: the "
                      "augmented system [[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]; p' = A v", ()))
    return {"C": C, "xi": xi}


def _reduced(system, simp, steps):
    emb = system.embedding
    q, on_g, D = _velocity_map(system, simp)
    w = sp.Matrix(emb.velocities)
    steps.append(Step("Embedding", "the holonomic constraints hold identically for p = g(q); with q' = w, "
                      "v = D w and D = A^-1 g_q (so C_h D = 0)", (("q", sp.Matrix(q)), ("g", emb.g), ("D", D))))
    gamma = simp((D * w).jacobian(q) * w)
    on_state = dict(on_g)
    on_state.update(dict(zip(system.velocities, D * w)))
    M = sp.Matrix(system.M).subs(on_g)
    M_bar = simp(D.T * M * D)
    d_bar = simp(D.T * (M * gamma + sp.Matrix(system.d).subs(on_state)))
    f_bar = simp(D.T * sp.Matrix(system.f).subs(on_state))
    steps.append(Step("Accelerations", "v' = D w' + gamma with gamma = D' w", (("gamma", gamma),)))
    steps.append(Step("Projected dynamics", "premultiplying M v' + d = f - C^T lambda by D^T removes the "
                      "holonomic reactions: M_bar = D^T M D, d_bar = D^T (M gamma + d), f_bar = D^T f",
                      (("M_bar", M_bar), ("d_bar", d_bar), ("f_bar", f_bar))))
    pieces = {"q": sp.Matrix(q), "w": w, "D": D, "gamma": gamma, "M_bar": M_bar, "d_bar": d_bar, "f_bar": f_bar}
    if system.l:
        C_bar = simp(sp.Matrix(system.C_nh).subs(on_g) * D)
        xi_bar = simp((C_bar * w).jacobian(q) * w)
        steps.append(Step("Nonholonomic constraints in q", "C_bar_nh = C_nh D, and at acceleration level "
                          "C_bar_nh w' + xi_bar = 0 with xi_bar = (d C_bar_nh/dt) w",
                          (("C_bar_nh", C_bar), ("xi_bar", xi_bar))))
        pieces.update(C_bar_nh=C_bar, xi_bar=xi_bar)
    steps.append(Step("Equations of motion", "[[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = "
                      "[f_bar - d_bar; -xi_bar]; holonomic reactions follow in resolved form", ()))
    return pieces


def _independent_choice(system, names):
    """Indices of w chosen as u: the given names, the system's default, or pivoting at its default state."""
    emb = system.embedding
    names = names or system.independent_velocities
    if names and all(n in emb.velocity_names for n in names):
        return [emb.velocity_names.index(n) for n in names]
    import formulations

    form = formulations.create("minimal", system, independent=names or None)
    form.prepare(*system.default_state())
    if any(n not in emb.velocity_names for n in form.choice):
        raise ValueError(f"derive: independent velocities {form.choice} must be reduced velocities "
                         f"{emb.velocity_names} for a symbolic derivation")
    return [emb.velocity_names.index(n) for n in form.choice]


def _minimal(system, simp, steps, independent=None):
    pieces = _reduced(system, simp, steps)
    steps.pop()  # the reduced equations of motion are replaced by the minimal ones
    emb = system.embedding
    q, w = pieces["q"], pieces["w"]
    k = len(w)
    ind = _independent_choice(system, independent)
    dep = [j for j in range(k) if j not in ind]
    u = sp.Matrix([w[j] for j in ind])
    D_bar = sp.zeros(k, len(ind))
    for col, j in enumerate(ind):
        D_bar[j, col] = 1
    if system.l:
        C_bar = pieces["C_bar_nh"]
        C_d, C_i = C_bar.extract(list(range(system.l)), dep), C_bar.extract(list(range(system.l)), ind)
        W_d = simp(-C_d.LUsolve(C_i))
        for row, j in enumerate(dep):
            D_bar[j, :] = W_d[row, :]
    D_bar = simp(D_bar)
    steps.append(Step("Independent velocities", f"u = ({', '.join(str(s) for s in u)}); solving C_bar_nh w = 0 "
                      "for the others gives w = D_bar u with C_bar_nh D_bar = 0", (("u", u), ("D_bar", D_bar))))
    on_u = dict(zip(list(w), D_bar * u))
    gamma_bar = simp((D_bar * u).jacobian(list(q)) * (D_bar * u))
    M_bar = pieces["M_bar"]
    M_bb = simp(D_bar.T * M_bar * D_bar)
    d_bb = simp(D_bar.T * (M_bar * gamma_bar + pieces["d_bar"].subs(on_u)))
    f_bb = simp(D_bar.T * pieces["f_bar"].subs(on_u))
    steps.append(Step("Accelerations", "w' = D_bar u' + gamma_bar with gamma_bar = D_bar' u",
                      (("gamma_bar", gamma_bar),)))
    steps.append(Step("Minimal equations", "premultiplying by D_bar^T removes the nonholonomic reactions: "
                      "M_barbar u' + d_barbar = f_barbar with M_barbar = D_bar^T M_bar D_bar, "
                      "d_barbar = D_bar^T (M_bar gamma_bar + d_bar), f_barbar = D_bar^T f_bar; q' = D_bar u",
                      (("M_barbar", M_bb), ("d_barbar", d_bb), ("f_barbar", f_bb))))
    pieces.update(u=u, D_bar=D_bar, gamma_bar=gamma_bar, M_barbar=M_bb, d_barbar=d_bb, f_barbar=f_bb,
                  independent=[emb.velocity_names[j] for j in ind])
    return pieces


def derive(system, formulation="minimal", *, seconds=20.0, independent=None, analysis=True) -> Derivation:
    """The derivation of ``formulation`` ("dependent", "reduced" or "minimal") for ``system``.

    seconds bounds the time spent in sympy's simplify (the cheap reduction always runs).
    """
    if formulation not in ("dependent", "reduced", "minimal"):
        raise ValueError(f"derive got formulation {formulation!r} but expected one of: dependent, reduced, minimal")
    simp = _Simplifier(seconds)
    steps = _common_steps(system, simp)
    notes = []
    emb = system.embedding
    if formulation != "dependent" and emb is None and system.m == 0:
        notes.append("no holonomic constraints: q = p and D = I")
        emb_ok = False
    else:
        emb_ok = emb is not None and len(system.coordinates) == system.n and emb.A_q == sp.eye(len(emb.coordinates))
    if formulation == "dependent":
        pieces = _dependent(system, simp, steps)
    elif not emb_ok and system.m == 0 and len(system.coordinates) == system.n and system.A == sp.eye(system.n):
        from systems.description import Embedding

        trivial = Embedding(coordinates=system.coordinates, g=sp.Matrix(system.coordinates),
                            inverse=sp.Matrix(system.coordinates), velocities=system.velocities)
        pieces = _with_embedding(system, trivial, formulation, simp, steps, independent)
    elif emb_ok:
        pieces = _reduced(system, simp, steps) if formulation == "reduced" else _minimal(system, simp, steps,
                                                                                      independent)
    else:
        raise ValueError(f"derive: system {system.name!r} has Euler parameters or no embedding, so the "
                         f"{formulation} formulation has no symbolic form here (it runs numerically); "
                         f"use --formulation dependent")
    if system.is_nonideal:
        notes.append("f depends on the multipliers (a non-ideal constraint): at run time the accelerations and "
                     "all multipliers are solved for together; set the multipliers to zero in f for the ideal case")
    steps.append(Step("Reactions", "once the accelerations are known, C^T lambda = f - d - M v' gives every "
                      "multiplier in resolved form, lambda = (C C^T)^-1 C (f - d - M v')", ()))
    report = None
    if analysis:
        from systems.analysis import analyze_constraints

        report = analyze_constraints(system)
    return Derivation(system.name, formulation, tuple(steps), report, tuple(notes), pieces)


def _with_embedding(system, embedding, formulation, simp, steps, independent):
    from dataclasses import replace

    wrapped = replace(system, embedding=embedding, independent_velocities=())
    if formulation == "reduced":
        return _reduced(wrapped, simp, steps)
    return _minimal(wrapped, simp, steps, independent or system.independent_velocities or None)


def minimal_accelerations(derivation, system, q, u):
    """u' from the derived M_barbar, d_barbar, f_barbar at numeric (q, u) (for checking a derivation)."""
    pieces = derivation.pieces
    symbols = list(pieces["q"]) + list(pieces["u"]) + [par.symbol for par in system.parameters]
    values = list(q) + list(u) + list(system.parameter_values)
    lam = {s: 0.0 for s in system.multipliers}
    M = np.array(sp.lambdify([symbols], pieces["M_barbar"].subs(lam))(values), float)
    rhs = np.array(sp.lambdify([symbols], (pieces["f_barbar"] - pieces["d_barbar"]).subs(lam))(values), float)
    return np.linalg.solve(M, rhs.ravel())

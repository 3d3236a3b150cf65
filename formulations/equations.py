"""Symbolic pieces of a formulation, named as in DESIGN section 2, for display and teaching."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import sympy as sp

from systems.analysis.bounded import bounded
from systems.display import latex

LATEX_NAMES = {
    "p": r"\mathbf{p}", "v": r"\mathbf{v}", "A": r"\mathbf{A}", "M": r"\mathbf{M}", "d": r"\mathbf{d}",
    "f": r"\mathbf{f}", "Phi": r"\boldsymbol{\Phi}", "C_h": r"\mathbf{C}_h", "C_nh": r"\mathbf{C}_{nh}",
    "C": r"\mathbf{C}", "xi": r"\boldsymbol{\xi}", "q": r"\mathbf{q}", "g": r"\mathbf{g}",
    "w": r"\mathbf{w}", "A_q": r"\mathbf{A}_q", "D": r"\mathbf{D}", "gamma": r"\boldsymbol{\gamma}",
    "M_bar": r"\bar{\mathbf{M}}", "d_bar": r"\bar{\mathbf{d}}", "f_bar": r"\bar{\mathbf{f}}",
    "C_bar_nh": r"\bar{\mathbf{C}}_{nh}", "u": r"\mathbf{u}", "D_bar": r"\bar{\mathbf{D}}",
    "E": r"\mathbf{E}",
}


@dataclass(frozen=True)
class Equations:
    """The equations of one formulation: named sympy pieces and the relations between them."""

    formulation: str
    system_name: str
    relations: tuple                     # the equations, as plain text in the notation
    pieces: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "pieces", MappingProxyType(dict(self.pieces)))

    def __getitem__(self, name):
        return self.pieces[name]

    def __str__(self):
        lines = [f"{self.formulation} formulation of {self.system_name}"]
        lines += [f"  {r}" for r in self.relations]
        for name, value in self.pieces.items():
            lines.append(f"  {name} = {sp.sstr(value)}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<Equations of the {self.formulation} formulation of {self.system_name}: "
                f"pieces {', '.join(self.pieces)}>")

    def to_latex(self) -> str:
        body = [rf"{LATEX_NAMES.get(name, name)} &= {latex(value)}" for name, value in self.pieces.items()]
        return "\\begin{aligned}\n" + " \\\\\n".join(body) + "\n\\end{aligned}"

    def _repr_latex_(self):
        return "$$" + self.to_latex() + "$$"

    def _repr_markdown_(self):
        relations = "\n".join(f"    {r}" for r in self.relations)
        return (f"**The {self.formulation} formulation of `{self.system_name}`**\n\n{relations}\n\n"
                f"$${self.to_latex()}$$\n")


def primitive_pieces(system) -> dict:
    """The shared pieces of the dependent description (c and its terms in xi where rows are rheonomic
    or affine: xi = (d/dp (C v + c)) A v + d/dt (C v + c))."""
    pieces = {"p": sp.Matrix(system.coordinates), "v": sp.Matrix(system.velocities), "A": system.A, "M": system.M,
              "d": system.d, "f": system.f, "Phi": system.Phi, "C_h": system.C_h, "C_nh": system.C_nh, "C": system.C,
              "xi": system.xi}
    if system.is_rheonomic:
        pieces["c"] = system.c
    return pieces


def embedding_pieces(system, expanded, seconds=10.0) -> dict:
    """q, g, A_q and, when expanded, D = A^-1 g_q A_q and M_bar, C_bar_nh (bounded simplification)."""
    emb = system.embedding
    if emb is None:
        return {}
    out = {"q": sp.Matrix(emb.coordinates), "w": sp.Matrix(emb.velocities), "g": emb.g, "A_q": emb.A_q}
    if expanded and len(system.coordinates) == system.n:
        subs = dict(zip(system.coordinates, emb.g))
        A = sp.Matrix(system.A).subs(subs)
        g_q = sp.Matrix(emb.g).jacobian(emb.coordinates) * emb.A_q
        D = bounded(lambda: sp.simplify(A.LUsolve(g_q)), seconds)
        if D is not None:
            out["D"] = D
            M = sp.Matrix(system.M).subs(subs)
            out["M_bar"] = bounded(lambda: sp.simplify(D.T * M * D), seconds) or D.T * M * D
            out["C_bar_nh"] = bounded(lambda: sp.simplify(sp.Matrix(system.C_nh).subs(subs) * D), seconds) \
                or sp.Matrix(system.C_nh).subs(subs) * D
    return out

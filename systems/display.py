"""How symbols and systems look in print: velocities named ``x_dot`` as the time derivative of x
(a dot over it, in sympy's LaTeX and unicode printers), and a short Markdown card of a system for
notebooks."""
from __future__ import annotations

import re

import sympy as sp

_TIME_DERIVATIVE = re.compile(r"^([A-Za-z]+)(\d[0-9A-Za-z]*)?_dot$")


def display_symbols(expr):
    """``expr`` with each symbol named like ``x_dot`` or ``theta1_dot`` renamed so that sympy's
    printers show a dot over it (xdot, thetadot_1, udot_2x); other symbols unchanged."""
    if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
        return expr
    renames = {}
    for symbol in expr.free_symbols:
        match = _TIME_DERIVATIVE.match(symbol.name)
        if match:
            base, index = match.groups()
            renames[symbol] = sp.Symbol(base + "dot" + (f"_{index}" if index else ""), **symbol.assumptions0)
    return expr.xreplace(renames) if renames else expr


def latex(expr) -> str:
    """sympy's LaTeX of ``expr`` with dotted velocities and matrices in brackets."""
    return sp.latex(display_symbols(expr), mat_delim="[")


def _names(symbols):
    return ", ".join(latex(s) for s in symbols)


def _units(system, symbols):
    return ", ".join(system.unit_of(s.name) for s in symbols)


def system_markdown(system) -> str:
    """A Markdown card of ``system``: sizes, coordinates, velocities, constraint rows, parameters."""
    lines = [f"**{system.name}**: $n = {system.n}$ velocities, $m = {system.m}$ holonomic and $l = {system.l}$ "
             f"nonholonomic constraints; $k = {system.k}$ configuration and $r = {system.r}$ velocity degrees of "
             "freedom", "",
             f"- coordinates $\\mathbf{{p}} = ({_names(system.coordinates)})$ in ({_units(system, system.coordinates)})",
             f"- velocities $\\mathbf{{v}} = ({_names(system.velocities)})$ in ({_units(system, system.velocities)})"]
    for kind, names in (("holonomic", system.holonomic_names), ("nonholonomic", system.nonholonomic_names)):
        if names:
            lines.append(f"- {kind} rows, each named by its reaction: "
                         + "; ".join(f"{name} [{system.unit_of(name)}]" for name in names))
    params = ", ".join(f"${latex(p.symbol)} = {v:g}$ {p.unit}".rstrip()
                       for p, v in zip(system.parameters, system.parameter_values))
    if params:
        lines.append(f"- parameters: {params}")
    return "\n".join(lines) + "\n"


class MarkdownCard:
    """Jupyter display of a System: its card (system_markdown)."""

    def _repr_markdown_(self):
        return system_markdown(self)


def _verdict(row) -> str:
    """exact, integrable, not integrable or undecided (a test the time bound left open)."""
    if row.exact:
        return "exact"
    if row.integrable:
        return "integrable"
    return "undecided" if row.integrable is None else "not integrable"


def analysis_repr(report) -> str:
    """A one-line repr of a ConstraintAnalysis: sizes, growth vector, classification, the first rows."""
    rows = ", ".join(f"{row.name}: {_verdict(row)}" for row in report.rows[:6])
    more = f", ... {len(report.rows) - 6} more" if len(report.rows) > 6 else ""
    return (f"<ConstraintAnalysis {report.system_name}: n={report.n} m={report.m} l={report.l}, growth vector "
            f"{report.growth_vector}, {report.classification}{'; rows ' + rows + more if rows else ''}>")

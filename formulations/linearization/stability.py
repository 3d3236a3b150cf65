"""Stability along a one-parameter family of steady motions.

``stability(system, family, parameter, values)`` linearizes (formulations.linearize) at every value
of ``parameter`` — a system parameter (each value gives system.with_parameters(...), the operating
point from the family or the system's default state) or a variable of a state family — and keeps
the non-trivial eigenvalues (neither drifts of ignorable coordinates nor conserved quantities).
A member is unstable where the largest real part exceeds tol x max(1, |eigenvalues|), asymptotically
stable where it is below minus that, and marginal (a conservative system's neutral stability) in
between. Between neighbouring values whose class changes to or from unstable, the critical value is
located: by Brent's method on the largest real part where it crosses zero transversally (unstable
on one side, asymptotically stable on the other), by bisection on the class otherwise (a pair of
real eigenvalues meeting at zero and leaving along the imaginary axis), to ``xtol`` in the parameter.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from systems.arguments import real, vector
from systems.catalogue import as_system
from systems.errors import ArgumentError, UnknownNameError

from .linearize import linearize_formulation
from ..minimal import Minimal

CLASSES = {1: "unstable", 0: "marginal", -1: "stable"}


@dataclass(frozen=True)
class Critical:
    """A critical value of the parameter: where the family turns ``change`` ("unstable -> marginal",
    ...) going up in the parameter, located to ``xtol`` (the bracket's width at the end)."""

    value: float
    change: str
    bracket: tuple
    method: str


@dataclass(frozen=True)
class StabilityResult:
    """Eigenvalues along a family. values (N,); eigenvalues (N, k) complex, the non-trivial ones of
    each member sorted by decreasing real part (NaN where a member has fewer); max_real (N,);
    classes (N,) of "unstable", "marginal", "stable"; critical: Critical values in increasing order."""

    system_name: str
    family: str
    parameter: str
    formulation: str
    values: np.ndarray
    eigenvalues: np.ndarray
    max_real: np.ndarray
    classes: tuple
    critical: tuple
    xtol: float
    unit: str = "?"  # of the parameter (System.unit_of)

    def __post_init__(self):
        for name in ("values", "eigenvalues", "max_real"):
            x = np.array(getattr(self, name))
            x.setflags(write=False)
            object.__setattr__(self, name, x)

    @property
    def critical_values(self) -> tuple:
        return tuple(c.value for c in self.critical)

    def table(self) -> str:
        """The eigenvalues as a Markdown table."""
        k = self.eigenvalues.shape[1]
        head = f"| {self.parameter} | " + " | ".join(f"eigenvalue {i + 1}" for i in range(k)) + " | class |"
        lines = [head, "|" + "---|" * (k + 2)]
        for x, row, cls in zip(self.values, self.eigenvalues, self.classes):
            cells = " | ".join("" if np.isnan(z.real) else f"{z.real:.6g} {'+' if z.imag >= 0 else '-'} "
                               f"{abs(z.imag):.6g}i" for z in row)
            lines.append(f"| {x:.6g} | {cells} | {cls} |")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain data for JSON (complex numbers as [real, imag])."""
        return {"system": self.system_name, "family": self.family, "parameter": self.parameter, "unit": self.unit,
                "formulation": self.formulation, "values": self.values.tolist(),
                "eigenvalues": [[[z.real, z.imag] for z in row] for row in self.eigenvalues],
                "max_real": self.max_real.tolist(), "classes": list(self.classes), "xtol": self.xtol,
                "critical": [{"value": c.value, "change": c.change, "bracket": list(c.bracket), "method": c.method}
                             for c in self.critical]}

    def __str__(self):
        found = "; ".join(f"{self.parameter} = {c.value:.12g} ({c.change})" for c in self.critical) or "none"
        return (f"stability of {self.system_name!r} along {self.family} in {self.parameter} "
                f"[{self.values[0]:g}, {self.values[-1]:g}] ({len(self.values)} values, {self.formulation}); "
                f"critical: {found}")


class _Family:
    """Members of the family: (system, p, v) at a value of the parameter."""

    def __init__(self, system, family, parameter, given):
        self.system = system
        self.family = system.family(family) if isinstance(family, str) else family
        given = dict(given or {})
        variables = self.family.variable_names if self.family is not None else ()
        if parameter in system.parameter_names:
            self.kind = "parameter"
        elif parameter in variables:
            self.kind = "variable"
        else:
            where = f" or variable of its state family {self.family.name!r}" if self.family is not None else \
                " (no state family given)"
            raise UnknownNameError(f"parameter of system {system.name!r}{where}", parameter,
                                   system.parameter_names + tuple(variables), argument="parameter")
        if given and self.family is None:
            raise ArgumentError(f"stability got values {sorted(given)} of state-family variables but no family",
                                "given")
        if self.family is not None:
            self.family.values(**given)  # names and values checked
        self.parameter, self.given = parameter, given
        self.name = self.family.name if self.family is not None else "default state"

    def member(self, value):
        if self.kind == "parameter":
            system = self.system.with_parameters(**{self.parameter: value})
            if self.family is None:
                return (system, *system.default_state())
            return (system, *self.family.state(system, **self.given))
        return (self.system, *self.family.state(self.system, **(self.given | {self.parameter: value})))


def stability(system, family, parameter, values, *, formulation=Minimal.name, given=None, ignorable=None,
              tol=1e-9, xtol=1e-10, **options) -> StabilityResult:
    """Eigenvalues along a one-parameter family of steady motions, and the critical values.

    system: a System or a catalogue name; family: a state family of the system (name or object) or
    None (each member's operating point is its default state); parameter: a system parameter or a
    variable of the family; values: increasing parameter values (at least two). given: values of the
    family's other variables; ignorable, options: as formulations.linearize. tol: the relative size
    of a real part that counts as zero; xtol: the accuracy of the critical values in the parameter.
    """
    from ..base import create

    system = as_system(system)
    members = _Family(system, family, parameter, given)
    values = vector("values", values)
    if values.size < 2 or not np.all(np.diff(values) > 0):
        raise ArgumentError(f"values got {values.size} values but expected at least two, strictly increasing",
                            "values")
    tol = real("tol", tol, positive=True)
    xtol = real("xtol", xtol, positive=True)
    options.setdefault("backend", "numpy")

    def nontrivial(value, conserved=None):
        sysm, p, v = members.member(value)
        form = create(formulation, sysm, **options)
        lin = linearize_formulation(form, p, v, ignorable=ignorable, conserved=conserved)
        return lin.nontrivial, len(lin.conserved), form.label()

    first = [nontrivial(x) for x in values]
    count = Counter(c for _, c, _ in first).most_common(1)[0][0]
    eigs = [e if c == count else nontrivial(x, count)[0] for (e, c, _), x in zip(first, values)]
    label = first[0][2]
    k = max(len(e) for e in eigs)
    table = np.full((len(values), k), np.nan + 1j * np.nan)
    for i, e in enumerate(eigs):
        table[i, : len(e)] = e

    def spread(e):
        return tol * max(1.0, np.max(np.abs(e), initial=0.0))

    def largest(e):
        return np.max(e.real, initial=-np.inf)

    def classify(e):
        s, band = largest(e), spread(e)
        return 1 if s > band else -1 if s < -band else 0

    classes = [classify(e) for e in eigs]
    at = lambda x: nontrivial(x, count)[0]  # noqa: E731
    critical = []
    for i in range(len(values) - 1):
        a, b, ca, cb = values[i], values[i + 1], classes[i], classes[i + 1]
        if ca == cb or 1 not in (ca, cb):
            continue
        change = f"{CLASSES[ca]} -> {CLASSES[cb]}"
        if {ca, cb} == {1, -1}:
            root = brentq(lambda x: largest(at(x)), a, b, xtol=xtol / 4, rtol=4 * np.finfo(float).eps)
            critical.append(Critical(float(root), change, (float(a), float(b)), "brent"))
            continue
        lo, hi = a, b
        while hi - lo > xtol:
            mid = 0.5 * (lo + hi)
            if (classify(at(mid)) == 1) == (ca == 1):
                lo = mid
            else:
                hi = mid
        critical.append(Critical(float(0.5 * (lo + hi)), change, (float(lo), float(hi)), "bisection"))
    return StabilityResult(system.name, members.name, parameter, label, values, table,
                           np.array([largest(e) for e in eigs]), tuple(CLASSES[c] for c in classes), tuple(critical),
                           xtol, system.unit_of(parameter))

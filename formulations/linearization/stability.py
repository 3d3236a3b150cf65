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
    """Eigenvalues along a one-parameter family of steady motions, as returned by :func:`stability`.

    A member is unstable where the largest real part exceeds tol × max(1, max abs(eigenvalues)), asymptotically stable
    where it is below minus that, and marginal (a conservative system's neutral stability) in between. Immutable;
    its arrays are read-only.

    Attributes
    ----------
    values : ndarray, shape (N,)
        The values of the parameter, in its unit (``unit``).
    eigenvalues : ndarray of complex, shape (N, k)
        The non-trivial eigenvalues of each member (neither drifts of ignorable coordinates nor conserved
        quantities), sorted by decreasing real part, in 1/s; NaN where a member has fewer.
    max_real : ndarray, shape (N,)
        The largest real part of each member, in 1/s.
    classes : tuple of str
        (N,) of "unstable", "marginal" or "stable".
    critical : tuple of Critical
        The critical values in increasing order: where the class changes to or from unstable, located to ``xtol``.
    critical_values : tuple of float
        Their values of the parameter.
    xtol : float
        The accuracy of the critical values, in the parameter's unit.
    parameter, unit : str
        The parameter's name and unit (``System.unit_of``; "?" where unknown).
    system_name, family, formulation : str
        The system's name, the family's name ("default state" without one) and the formulation's label.

    See Also
    --------
    plot_stability : The real and imaginary parts against the parameter, the critical values as lines.

    Examples
    --------
    The upright rolling disc (r = 0.5 m) is unstable below the spin sqrt(g / (3 r)), marginally stable above it:

    >>> import numpy as np, formulations
    >>> result = formulations.stability("rolling_disc", "rolling", "spin", np.linspace(1.0, 4.0, 4))
    >>> result.classes
    ('unstable', 'unstable', 'marginal', 'marginal')
    >>> round(result.critical_values[0], 6), result.unit, result.critical[0].change
    (2.557342, 'rad/s', 'unstable -> marginal')
    >>> result.eigenvalues.shape
    (4, 2)
    """

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

    Each member of the family is linearized (``linearize``) about its operating point; the real parts
    of the nontrivial eigenvalues classify it as stable, marginal or unstable, and each change of class
    between neighbouring values is located to ``xtol`` (Brent's method across a sign change of the
    largest real part, bisection otherwise).

    Parameters
    ----------
    system : System or str
        The system, or a catalogue name.
    family : str, StateFamily or None
        A state family of the system (name or object), or None: each member's operating point is the
        system's default state at that parameter value.
    parameter : str
        A system parameter or a variable of the family.
    values : array_like
        At least two strictly increasing values of ``parameter``, in its unit.
    formulation : str, optional
        The formulation linearized (default "minimal"); ``**options`` go to ``formulations.create``
        (backend "numpy" unless given).
    given : dict, optional
        The family's other variables, {name: value}.
    ignorable : sequence of str, optional
        Coordinates that may drift, as in ``linearize``.
    tol : float, optional
        The relative size of a real part that counts as zero (default 1e-9).
    xtol : float, optional
        The accuracy of the critical values, in the parameter's unit (default 1e-10).

    Returns
    -------
    StabilityResult
        ``values``, the eigenvalue table (one row per value, NaN-padded), the largest real part,
        the class of each value and the ``critical`` values (Critical: value, change, bracket, method).

    Raises
    ------
    systems.ArgumentError
        For values that are fewer than two or not strictly increasing, or a bad tol or xtol.

    Examples
    --------
    >>> import formulations
    >>> formulations.stability("rolling_disc", "rolling", "spin", [1.0, 4.0]).classes
    ('unstable', 'marginal')
    """
    system = as_system(system)
    members = _Family(system, family, parameter, given)
    values = vector("values", values)
    if values.size < 2 or not np.all(np.diff(values) > 0):
        raise ArgumentError(f"values got {values.size} values but expected at least two, strictly increasing",
                            "values")
    tol = real("tol", tol, positive=True)
    xtol = real("xtol", xtol, positive=True)
    options.setdefault("backend", "numpy")
    return _scan(system, members, parameter, values, formulation, ignorable, tol, xtol, options)


def _scan(system, members, parameter, values, formulation, ignorable, tol, xtol, options) -> StabilityResult:
    """stability's linearizations along ``values`` and the critical values between them."""
    from ..base import create

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

"""Per-row tests of a Pfaffian constraint a(x) . dx = 0 (Bona, *Generalized coordinates and
constraints*): exactness da_i/dx_j - da_j/dx_i = 0 with the potential phi where it holds, and the
Frobenius condition a ^ da = 0 with an integrating factor searched among simple candidates.
Each conclusion says whether it was reached symbolically or numerically (systems.analysis).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ._bounded import bounded

SYMBOLIC = "symbolic"
NUMERIC = "numeric"
WITNESS = "witness point: non-zero there"


# --------------------------------------------------------------------------------------------
# results
@dataclass(frozen=True)
class RowReport:
    """Analysis of one Pfaffian row a(x) . dx = 0."""

    name: str
    coordinates: tuple          # x symbols
    form: tuple                 # a_i(x)
    exact: bool
    exact_how: str
    failing_pairs: tuple = ()   # ((x_i name, x_j name, da_i/dx_j - da_j/dx_i), ...)
    witness: dict = field(default_factory=dict)  # a point where a failing pair is non-zero
    potential: sp.Expr | None = None
    integrable: bool = False
    integrable_how: str = ""
    integrating_factor: sp.Expr | None = None
    integral: sp.Expr | None = None  # phi with mu a = grad phi

    def text(self) -> str:
        coords = ", ".join(s.name for s in self.coordinates)
        form = " + ".join(f"({sp.sstr(a)}) d{x.name}" for a, x in zip(self.form, self.coordinates) if a != 0)
        lines = [f"row {self.name!r}: {form or '0'} = 0   [x = ({coords})]"]
        if self.exact:
            lines.append(f"  exact ({self.exact_how}); potential phi = {sp.sstr(self.potential)}"
                         if self.potential is not None else f"  exact ({self.exact_how})")
        else:
            pairs = ", ".join(f"({i}, {j})" for i, j, _ in self.failing_pairs[:6])
            more = "" if len(self.failing_pairs) <= 6 else f" and {len(self.failing_pairs) - 6} more"
            wit = ", ".join(f"{k}={v:.3g}" for k, v in self.witness.items())
            lines.append(f"  not exact ({self.exact_how}): failing pairs {pairs}{more}; witness point {wit}")
            if self.integrable:
                extra = ""
                if self.integrating_factor is not None:
                    extra = f"; integrating factor {sp.sstr(self.integrating_factor)}, integral {sp.sstr(self.integral)}"
                lines.append(f"  integrable with an integrating factor (a ^ da = 0, {self.integrable_how}){extra}")
            else:
                lines.append(f"  not integrable by itself (a ^ da != 0, {self.integrable_how})")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# helpers
def _is_zero(expr, seconds):
    """True if sympy proves expr == 0, False if it proves otherwise, None if undecided in time."""
    if expr == 0:
        return True
    simplified = bounded(lambda: sp.simplify(expr), seconds)
    if simplified is None:
        return None
    return True if simplified == 0 else None


def _numeric_values(exprs, symbols, points, values=None):
    exprs = [sp.sympify(e).subs(values or {}) for e in exprs]
    fn = sp.lambdify([list(symbols)], exprs, modules="numpy")
    out = []
    for pt in points:
        with np.errstate(all="ignore"):
            out.append(np.array(fn(pt), dtype=float).ravel())
    return np.array(out)


def _random_points(symbols, rng, count=6):
    return [rng.uniform(0.3, 1.2, len(symbols)) * rng.choice([-1, 1], len(symbols)) for _ in range(count)]


def _potential(a, x, seconds):
    """phi with grad phi = a, or None (a assumed exact)."""

    def run():
        phi = sp.integrate(a[0], x[0])
        for j in range(1, len(x)):
            rest = sp.simplify(a[j] - sp.diff(phi, x[j]))
            if rest != 0:
                phi = phi + sp.integrate(rest, x[j])
        check = [sp.simplify(sp.diff(phi, xi) - ai) for xi, ai in zip(x, a)]
        return sp.simplify(phi) if all(c == 0 for c in check) else None

    return bounded(run, seconds)


def _curl_pairs(a, x):
    return [(i, j, sp.diff(a[i], x[j]) - sp.diff(a[j], x[i])) for i, j in itertools.combinations(range(len(x)), 2)]


def _frobenius_terms(a, x):
    terms = []
    for i, j, k in itertools.combinations(range(len(x)), 3):
        terms.append(a[i] * (sp.diff(a[k], x[j]) - sp.diff(a[j], x[k]))
                     + a[j] * (sp.diff(a[i], x[k]) - sp.diff(a[k], x[i]))
                     + a[k] * (sp.diff(a[j], x[i]) - sp.diff(a[i], x[j])))
    return terms


def _decide_all_zero(exprs, x, points, seconds, values=None):
    """(all_zero, how, values): symbolic when sympy decides, else from the numeric values."""
    if not exprs:
        return True, SYMBOLIC, np.zeros((len(points), 0))
    values = _numeric_values(exprs, x, points, values)
    finite = np.where(np.isfinite(values), np.abs(values), 0.0)
    if np.any(finite > 1e-8):
        return False, WITNESS, values
    decided = [_is_zero(e, seconds) for e in exprs]
    if all(d is True for d in decided):
        return True, SYMBOLIC, values
    return True, NUMERIC + f" (zero at {len(points)} random points)", values


def _integrating_factor(a, x, seconds):
    cands = []
    nonzero = [ai for ai in a if ai != 0]
    cands.append(1 / sum(ai**2 for ai in nonzero))
    cands += [1 / ai for ai in nonzero] + [1 / ai**2 for ai in nonzero]
    for mu in cands:
        scaled = [sp.simplify(mu * ai) for ai in a]
        if all(_is_zero(e, seconds) for _, _, e in _curl_pairs(scaled, x)):
            phi = _potential(scaled, x, seconds)
            if phi is not None:
                return sp.simplify(mu), phi
    return None, None


def analyze_row(name, a, x, rng, seconds=5.0, values=None) -> RowReport:
    """Exactness, potential, Frobenius test and integrating factor of one form a . dx.

    ``values`` substitutes parameter symbols for the numeric evaluations only.
    """
    a = [sp.sympify(ai) for ai in a]
    points = _random_points(x, rng)
    pairs = _curl_pairs(a, x)
    exact, how, values_at = _decide_all_zero([e for _, _, e in pairs], x, points, seconds, values)
    if exact:
        potential = _potential(a, x, seconds)
        return RowReport(name, tuple(x), tuple(a), True, how, potential=potential, integrable=True,
                         integrable_how=how, integral=potential)
    failing = []
    for col, (i, j, e) in enumerate(pairs):
        if np.any(np.abs(np.nan_to_num(values_at[:, col])) > 1e-8):
            failing.append((x[i].name, x[j].name, sp.simplify(e) if sp.count_ops(e) < 200 else e))
    best = int(np.argmax(np.max(np.abs(np.nan_to_num(values_at)), axis=1)))
    witness = {s.name: float(val) for s, val in zip(x, points[best])}
    integrable, ihow, _ = _decide_all_zero(_frobenius_terms(a, x), x, points, seconds, values)
    mu = integral = None
    if integrable:
        mu, integral = _integrating_factor(a, x, seconds)
    return RowReport(name, tuple(x), tuple(a), False, how, tuple(failing), witness, None, integrable, ihow, mu,
                     integral)

"""Per-row tests of a Pfaffian constraint a(x) . dx = 0 (Bona, *Generalized coordinates and
constraints*): exactness da_i/dx_j - da_j/dx_i = 0 with the potential phi where it holds, and the
Frobenius condition a ^ da = 0 with an integrating factor searched among simple candidates.

The coefficients may contain free parameter symbols (constants): the symbolic tests keep them as
symbols (with their assumptions), the numeric tests give them the values passed, or random values
drawn per point where none is passed (positive where the symbol is positive). A time-dependent row
a(q, t) . dq + a_t(q, t) dt = 0 is tested as a form in the extended coordinates x = (q, t).

Each test is numeric first (at random points: a non-zero value is a witness that decides), then
symbolic for what the numerics leave open, within a shared time bound (systems.analysis.bounded.TimeBudget).
Each conclusion says whether it was reached symbolically, at a witness point, or numerically, and
what stayed undecided and why.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .bounded import TimeBudget

SYMBOLIC = "symbolic"
NUMERIC = "numeric"
WITNESS = "witness point: non-zero there"
UNDECIDED = "undecided"
ZERO_TOL = 1e-8  # |value| above which a numeric value counts as non-zero (absolute)


# --------------------------------------------------------------------------------------------
# results
@dataclass(frozen=True)
class RowReport:
    """Analysis of one Pfaffian row a(x) . dx = 0.

    exact / integrable are None where the test stayed undecided (see ``undecided``). The witness
    holds the coordinates and the parameter values of a point where a failing pair is non-zero.
    """

    name: str
    coordinates: tuple          # x symbols (time last for a time-dependent row)
    form: tuple                 # a_i(x)
    exact: bool | None
    exact_how: str
    failing_pairs: tuple = ()   # ((x_i name, x_j name, da_i/dx_j - da_j/dx_i), ...)
    witness: dict = field(default_factory=dict)  # a point where a failing pair is non-zero
    potential: sp.Expr | None = None
    integrable: bool | None = False
    integrable_how: str = ""
    integrating_factor: sp.Expr | None = None
    integral: sp.Expr | None = None  # phi with mu a = grad phi
    parameters: str = ""        # how the free parameters were valued in the numeric tests
    undecided: tuple = ()       # what stayed undecided, and why
    residual: float | None = None  # the largest failing value, at the witness point
    held: tuple = ()            # names of parameters held at the values in ``parameters``

    def text(self, parameters: bool = True) -> str:
        """The row's report; ``parameters`` False leaves out the parameters line (shown once above)."""
        coords = ", ".join(s.name for s in self.coordinates)
        if self.form:
            form = " + ".join(f"({short(a)}) d{x.name}" for a, x in zip(self.form, self.coordinates) if a != 0)
            form = short(form or "0", 300) + " = 0"
        else:
            form = "(not formed symbolically; tested numerically)"
        lines = [f"row {self.name!r}: {form}   [x = ({coords})]"]
        if self.parameters and parameters:
            lines.append(f"  parameters: {self.parameters}")
        if self.exact is None:
            lines.append(f"  exactness undecided ({self.exact_how})")
        elif self.exact:
            lines.append(f"  exact ({self.exact_how}); potential phi = {short(self.potential)}"
                         if self.potential is not None else f"  exact ({self.exact_how})")
        else:
            pairs = ", ".join(f"({i}, {j})" for i, j, _ in self.failing_pairs[:6])
            more = "" if len(self.failing_pairs) <= 6 else f" and {len(self.failing_pairs) - 6} more"
            wit = ", ".join(f"{k}={v:.3g}" for k, v in self.witness.items() if k not in self.held)
            value = f" (largest failing value {self.residual:.3g} there)" if self.residual is not None else ""
            lines.append(f"  not exact ({self.exact_how}): failing pairs {pairs}{more}; witness point {wit}{value}")
        if self.exact is not True:
            if self.integrable is None:
                lines.append(f"  integrability undecided ({self.integrable_how})")
            elif self.integrable:
                extra = ""
                if self.integrating_factor is not None:
                    extra = f"; integrating factor {short(self.integrating_factor)}, integral {short(self.integral)}"
                lines.append(f"  integrable with an integrating factor (a ^ da = 0, {self.integrable_how}){extra}")
            else:
                lines.append(f"  not integrable by itself (a ^ da != 0, {self.integrable_how})")
        lines.extend(f"  undecided: {u}" for u in self.undecided)
        return "\n".join(lines)


def short(expr, limit: int = 160) -> str:
    """expr as text, cut to ``limit`` characters with its full size named where it is longer."""
    text = expr if isinstance(expr, str) else sp.sstr(expr)
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ... [{len(text)} characters]"


# --------------------------------------------------------------------------------------------
# random points over the coordinates and the free parameters
def _random_points(symbols, rng, count=6):
    return [rng.uniform(0.3, 1.2, len(symbols)) * rng.choice([-1, 1], len(symbols)) for _ in range(count)]


def _random_value(symbol, rng):
    """A random number of the sign and kind the symbol's assumptions allow."""
    if symbol.is_integer:
        size = float(rng.integers(1, 4))
    else:
        size = float(rng.uniform(0.3, 1.2))
    if symbol.is_nonnegative or symbol.is_positive:
        return size
    if symbol.is_nonpositive or symbol.is_negative:
        return -size
    return size * float(rng.choice([-1, 1]))


class Sampler:
    """Random points over coordinates x and the free parameters, fixed where ``values`` gives a number.

    points: (count, len(x) + len(params)); coordinates first.
    """

    def __init__(self, x, rng, params=(), values=None, count=6):
        self.x, self.params = list(x), list(params)
        values = dict(values or {})
        self.fixed = {p: float(values[p]) for p in self.params if p in values}
        coords = _random_points(self.x, rng, count)
        self.points = np.array([np.concatenate([c, [self.fixed[p] if p in self.fixed else _random_value(p, rng)
                                                    for p in self.params]]) for c in coords]).reshape(count, -1)
        self.values = values  # numbers for symbols outside params (a system's parameters), substituted

    @classmethod
    def at(cls, x, points, values=None):
        """A sampler over given points (count, len(x)); ``values`` substitutes other symbols."""
        self = cls.__new__(cls)
        self.x, self.params, self.fixed = list(x), [], {}
        self.points = np.asarray(points, dtype=float).reshape(len(points), len(self.x))
        self.values = dict(values or {})
        return self

    @property
    def count(self) -> int:
        return len(self.points)

    def describe(self) -> str:
        """How the parameters were valued, for the report."""
        if not self.params:
            return ", ".join(f"{s.name}={float(v):.4g}" for s, v in self._substituted().items())
        given = [f"{p.name}={v:.4g}" for p, v in self.fixed.items()]
        drawn = [p.name for p in self.params if p not in self.fixed]
        parts = ([", ".join(given) + " (given)"] if given else []) + (
            [", ".join(drawn) + " random per point (symbolic tests keep them as symbols)"] if drawn else [])
        return "; ".join(parts)

    def _substituted(self) -> dict:
        """The numbers substituted for symbols that are not sampled (a system's parameter values)."""
        seen = {s.name for s in self.x + self.params}
        out = {}
        for s, v in sorted(self.values.items(), key=lambda kv: kv[0].name):
            if s.name not in seen:
                seen.add(s.name)
                out[s] = v
        return out

    def held(self) -> list:
        """Names of the symbols held at fixed values (not sampled), listed in :meth:`describe`."""
        return [s.name for s in self._substituted()] if not self.params else []

    def point(self, i) -> dict:
        """{name: value} of point i, the parameters included."""
        out = {s.name: float(v) for s, v in zip(self.x + self.params, self.points[i])}
        out.update({s.name: float(v) for s, v in self._substituted().items()})
        return out

    def evaluate(self, exprs, clock: TimeBudget, seconds=None, label=""):
        """Values (count, len(exprs)) of exprs at the points, or None if not found within the bound."""
        if not exprs:
            return np.zeros((self.count, 0))

        def run():
            subs = [sp.sympify(e).subs(self.values) if self.values else sp.sympify(e) for e in exprs]
            subs = [sp.nan if e.has(sp.zoo, sp.oo, -sp.oo) else e for e in subs]  # singular at the values
            fn = sp.lambdify([self.x + self.params], subs, modules="numpy", cse=True)
            out = []
            for pt in self.points:
                with np.errstate(all="ignore"):
                    out.append(np.array([np.asarray(val, dtype=complex) for val in fn(pt)]).ravel())
            arr = np.array(out)
            return np.where(np.abs(arr.imag) > 1e-12 * (1 + np.abs(arr.real)), np.nan, arr.real)

        return clock.run(run, seconds, label=label)


# --------------------------------------------------------------------------------------------
# parameters: names to symbols, assumptions
def _as_symbol_map(given, symbols, what, where):
    """{symbol: item} from a mapping keyed by symbols or names; unknown keys raise ValueError."""
    by_name = {s.name: s for s in symbols}
    out = {}
    for key, item in dict(given or {}).items():
        name = key.name if isinstance(key, sp.Symbol) else str(key)
        if name not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise ValueError(f"{where}: {what} got a value for {name!r} but expected one of the free parameters "
                             f"({known})")
        out[by_name[name]] = item
    return out


def _assume(symbols, assumptions, where):
    """{symbol: symbol with the stated assumptions} (real unless stated otherwise)."""
    wanted = _as_symbol_map(assumptions, symbols, "assumptions", where)
    out = {}
    for s in symbols:
        facts = {key: val for key, val in s.assumptions0.items() if key in ("real", "positive", "negative",
                                                                            "nonnegative", "nonpositive",
                                                                            "nonzero", "integer")}
        facts.setdefault("real", True)
        facts.update(wanted.get(s, {}))
        try:
            out[s] = sp.Symbol(s.name, **facts)
        except Exception as exc:  # sympy's InconsistentAssumptions
            raise ValueError(f"{where}: assumptions for {s.name!r} got {facts} but they contradict each other "
                             f"({exc})") from None
    return out


# --------------------------------------------------------------------------------------------
# symbolic helpers
def _is_zero(expr, seconds, clock: TimeBudget):
    """True if sympy proves expr == 0, None if undecided in time (sympy proves no non-zero here)."""
    if expr == 0:
        return True
    run = (lambda: sp.simplify(expr))
    simplified = clock.run(run, seconds)
    if simplified is None:
        return None
    return True if simplified == 0 else None


def _potential(a, x, seconds, clock: TimeBudget):
    """phi with grad phi = a (checked), or None (a assumed exact). Where an integral splits into
    cases (sin(w t)/w for w != 0, t for w = 0) the generic case is taken."""

    def integrate(expr, var):  # the generic branch where sympy splits off special parameter values
        return sp.integrate(expr, var).replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[0].expr)

    def run():
        phi = integrate(a[0], x[0])
        for j in range(1, len(x)):
            rest = sp.simplify(a[j] - sp.diff(phi, x[j]))
            if rest != 0:
                phi = phi + integrate(rest, x[j])
        check = [sp.simplify(sp.diff(phi, xi) - ai) for xi, ai in zip(x, a)]
        return sp.simplify(phi) if all(c == 0 for c in check) else None

    return clock.run(run, seconds)


def _curl_pairs(a, x):
    return [(i, j, sp.diff(a[i], x[j]) - sp.diff(a[j], x[i])) for i, j in itertools.combinations(range(len(x)), 2)]


def _frobenius_terms(a, x):
    terms = []
    for i, j, k in itertools.combinations(range(len(x)), 3):
        terms.append(a[i] * (sp.diff(a[k], x[j]) - sp.diff(a[j], x[k]))
                     + a[j] * (sp.diff(a[i], x[k]) - sp.diff(a[k], x[i]))
                     + a[k] * (sp.diff(a[j], x[i]) - sp.diff(a[i], x[j])))
    return terms


def _integrating_factor(a, x, seconds, clock: TimeBudget):
    """(mu, phi) with mu a = grad phi among simple candidates mu, or (None, None)."""
    nonzero = [ai for ai in a if ai != 0]
    cands = [1 / sum(ai**2 for ai in nonzero)] + [1 / ai for ai in nonzero] + [1 / ai**2 for ai in nonzero]
    for mu in cands:
        if clock.expired:
            return None, None
        scaled = clock.run(lambda: [sp.simplify(mu * ai) for ai in a], seconds)
        if scaled is None:
            continue
        if all(_is_zero(e, seconds, clock) for _, _, e in _curl_pairs(scaled, x)):
            phi = _potential(scaled, x, seconds, clock)
            if phi is not None:
                return clock.run(lambda: sp.simplify(mu), seconds, default=mu), phi
    return None, None


# --------------------------------------------------------------------------------------------
# the tests of one row: numeric first, then symbolic for what the numerics leave open
def _zero_test(exprs, what, sampler, clock):
    """Numeric half of 'all exprs vanish': (decision, how, values); decision None if undecided."""
    if not exprs:
        return True, SYMBOLIC, np.zeros((sampler.count, 0))
    values = sampler.evaluate(exprs, clock, None, label=f"numeric evaluation of {what}")
    if values is None:
        return None, f"{UNDECIDED}: the numeric evaluation of {what} did not finish within the bound", None
    finite = np.isfinite(values)
    if np.any(np.where(finite, np.abs(values), 0.0) > ZERO_TOL):
        return False, WITNESS, values
    if not np.all(finite.any(axis=0)):
        return None, f"{UNDECIDED}: {what} is not finite at any of {sampler.count} random points", values
    return True, f"{NUMERIC} (zero at {sampler.count} random points)", values


def _confirm_zero(exprs, what, clock, seconds):
    """Symbolic half: (SYMBOLIC, None) if sympy reduces every expr to zero, else (None, why not)."""
    if clock.expired:
        return None, (f"{what}: symbolic simplification not attempted, the overall bound of "
                      f"{clock.limit:g} s was used up (the numeric test decided)")
    open_ = [e for e in exprs if _is_zero(e, seconds, clock) is not True]
    if not open_:
        return SYMBOLIC, None
    reason = ("the overall bound was reached" if clock.expired
              else f"sympy did not reduce them to zero within {seconds:g} s each")
    return None, (f"{what}: symbolic simplification left {len(open_)} of {len(exprs)} open ({reason}); "
                  "the numeric test decided")


def _numeric_decision(values, scale, what, sampler):
    """(decision, how, |values| / scale) from values at the sampler's points (finite differences)."""
    big = np.abs(np.nan_to_num(values)) / scale
    finite = np.isfinite(values)
    if np.any(np.where(finite, big, 0.0) > ZERO_TOL):
        return False, WITNESS, big
    if values.shape[1] and not np.all(finite.any(axis=0)):
        return None, f"{UNDECIDED}: {what} is not finite at any of {sampler.count} random points", big
    return True, f"{NUMERIC} (zero at {sampler.count} random points, complex-step derivatives)", big


class RowTest:
    """Exactness, potential, Frobenius test and integrating factor of one form a . dx."""

    def __init__(self, name, a, x, sampler: Sampler):
        self.name, self.x, self.sampler = name, list(x), sampler
        self.a, self.pairs = None, [(i, j, None) for i, j in itertools.combinations(range(len(self.x)), 2)]
        if a is not None:
            self.set_form(a)
        self.undecided = []
        self.exact = self.integrable = None
        self.exact_how = self.integrable_how = ""
        self.failing, self.witness, self.residual = (), {}, None
        self.potential = self.mu = self.integral = None
        self._frobenius = None

    def set_form(self, a):
        """The symbolic form a(x), found after the numeric decisions (failing pairs get their expressions)."""
        self.a = [sp.sympify(ai) for ai in a]
        self.pairs = _curl_pairs(self.a, self.x)
        names = {(xi, xj) for xi, xj, _ in getattr(self, "failing", ())}
        self.failing = tuple((self.x[i].name, self.x[j].name, e) for i, j, e in self.pairs
                             if (self.x[i].name, self.x[j].name) in names)

    def decide(self, curl, frob, scales):
        """Decisions from numeric values (count, pairs) and (count, triples) at the sampler's points
        (systems.analysis.numeric_fields.row_residuals): a value above ZERO_TOL * scale is a witness."""
        self.exact, self.exact_how, big = _numeric_decision(curl, scales[0], "the exactness pairs", self.sampler)
        if self.exact is False:
            self.failing = tuple((self.x[i].name, self.x[j].name, e)
                                 for col, (i, j, e) in enumerate(self.pairs) if np.any(big[:, col] > ZERO_TOL))
            self.witness = self.sampler.point(int(np.argmax(np.max(big, axis=1))))
            self.residual = float(np.max(np.abs(np.nan_to_num(curl))))
        if self.exact:
            self.integrable, self.integrable_how = True, self.exact_how
            return
        self.integrable, self.integrable_how, _ = _numeric_decision(frob, scales[1], "the Frobenius terms a ^ da",
                                                                    self.sampler)

    def numeric(self, clock: TimeBudget, seconds: float):
        """Exactness and Frobenius tests at the sampler's points: a non-zero value is a witness that
        decides; all zero is a numeric conclusion that :meth:`symbolic` then tries to prove."""
        exprs = [e for _, _, e in self.pairs]
        self.exact, self.exact_how, values = _zero_test(exprs, "the exactness pairs", self.sampler, clock)
        if self.exact is False:
            big = np.abs(np.nan_to_num(values))
            self.failing = tuple((self.x[i].name, self.x[j].name, e)
                                 for col, (i, j, e) in enumerate(self.pairs) if np.any(big[:, col] > ZERO_TOL))
            self.witness = self.sampler.point(int(np.argmax(np.max(big, axis=1))))
            self.residual = float(np.max(big))
        if self.exact:
            self.integrable, self.integrable_how = True, self.exact_how
            return
        self._frobenius = _frobenius_terms(self.a, self.x)
        self.integrable, self.integrable_how, _ = _zero_test(self._frobenius, "the Frobenius terms a ^ da",
                                                             self.sampler, clock)

    def symbolic(self, clock: TimeBudget, seconds: float):
        """Symbolic proofs of the numeric zeros, the potential or an integrating factor, and tidy
        failing pairs, while the budget lasts; what is left open goes to ``undecided``."""
        if self.a is None:
            if self.exact or self.integrable:
                self.undecided.append("symbolic proof not attempted: the form was not found symbolically "
                                      "within the bound (the numeric test decided)")
            return
        if self.exact:
            how, why = _confirm_zero([e for _, _, e in self.pairs], "exactness", clock, seconds)
            if how:
                self.exact_how = self.integrable_how = how
            else:
                self.undecided.append(why)
            self.potential = _potential(self.a, self.x, seconds, clock)
            if self.potential is None:
                self.undecided.append("potential: sympy's integration did not give one within the bound")
            return
        if self.exact is False:
            self.failing = tuple((i, j, clock.run(lambda: sp.simplify(e), seconds, default=e)
                                  if e is not None and sp.count_ops(e) < 200 and not clock.expired else e)
                                 for i, j, e in self.failing)
        if self.integrable:
            self._frobenius = self._frobenius or _frobenius_terms(self.a, self.x)
            how, why = _confirm_zero(self._frobenius, "integrability", clock, seconds)
            if how:
                self.integrable_how = how
            else:
                self.undecided.append(why)
            self.mu, self.integral = _integrating_factor(self.a, self.x, seconds, clock)
            if self.mu is None:
                self.undecided.append("integrating factor: none among the candidates 1/|a|^2, 1/a_i, 1/a_i^2"
                                      + (" (the overall bound was reached)" if clock.expired else ""))

    def report(self) -> RowReport:
        return RowReport(self.name, tuple(self.x), tuple(self.a or ()), self.exact, self.exact_how, tuple(self.failing),
                         dict(self.witness), self.potential, self.integrable, self.integrable_how, self.mu,
                         self.integral, self.sampler.describe(), tuple(self.undecided), self.residual,
                         tuple(self.sampler.held()))



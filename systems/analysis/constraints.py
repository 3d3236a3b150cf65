"""Constraint analysis: exactness, integrability and the growth of the constraint distribution.

For each Pfaffian row a(x) . dx = 0 (x the reduced coordinates q where the system has an
embedding, else p; see Bona, *Generalized coordinates and constraints*):
  - exactness: da_i/dx_j - da_j/dx_i = 0 for all pairs; the potential phi (a = grad phi) if exact;
  - Frobenius: a ^ da = 0, i.e. for all i < j < k
        a_i (d_j a_k - d_k a_j) + a_j (d_k a_i - d_i a_k) + a_k (d_i a_j - d_j a_i) = 0,
    the condition for an integrating factor mu with mu a exact (searched among simple candidates).
For the set of rows: the distribution Delta = A ker C of admissible directions p' (holonomic rows
included, so the analysis lives on the manifold Phi = 0) is grown by Lie brackets until its rank
stops growing (systems.analysis.distribution). Its generic rank R gives the classification: R = r:
holonomic (the l rows hide l holonomic constraints); R = k = n - m: completely nonholonomic;
otherwise partially nonholonomic with k - R hidden holonomic constraints. The growth vector
lists the ranks level by level.

Every conclusion says how it was reached: "symbolic" (sympy simplified to zero, or an exact
evaluation at a point proved a quantity non-zero) or "numeric" (observed at random points). The
numeric parts come first, from the matrices lambdified once (systems.analysis.numeric_phase): the
ranks of Phi_p and C at the analysed point and at random consistent points (redundant rows are
short of rank at all of them, a singular configuration only at its own), the row tests and the
growth vector by brackets of numeric fields; symbolic proofs follow while time remains, and are not
tried where C is too large for them (SYMBOLIC_OPS). ``dof`` is the mobility n - rank C.

Rows may carry free parameters (constants; symbolic tests keep them as symbols, numeric tests give
them values) and may depend on time: a row a(q, t) . dq + a_t(q, t) dt = 0 (a rheonomic or affine
row) is analysed as a form in the extended coordinates (q, t), after Neimark & Fufaev, *Dynamics of
Nonholonomic Systems*. The whole analysis runs within one time bound (``time_limit``): numeric
tests first, then symbolic steps for what they leave open while time remains; the report lists
what stayed undecided and why.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .bounded import TimeBudget
from ..arguments import _show
from ..errors import ArgumentTypeError
from .forms import _extended_rows, _manifold_points, _row_forms, _time_column  # noqa: F401
from .numeric_phase import Ranks, form_function, growth, matrix_functions, ranks, row_values
from ..dependent_rows import independent_rows, redundancy_notes
from ..description import DegreesOfFreedom
from ..display import analysis_repr
from .distribution import (_bracket, _classify, _growth_how, _involutive_symbolic, _nullspace_fields,  # noqa: F401
                           _proved_rank, _rank)
from .pfaffian_rows import (NUMERIC, SYMBOLIC, RowReport, RowTest, Sampler, _as_symbol_map, _assume,  # noqa: F401
                            _is_zero, _random_points, short)
from .singular import find_singular_configurations, nearest_singular_configuration, rank_ratio  # noqa: F401

SYMBOLIC_OPS = 1000  # operations in C above which the symbolic proof of the classification is not tried


@dataclass(frozen=True)
class ConstraintAnalysis(DegreesOfFreedom):
    """The constraint analysis of a system (or of Pfaffian rows given directly)."""

    system_name: str
    n: int
    m: int
    l: int  # noqa: E741
    rows: tuple                       # RowReport per nonholonomic row
    growth_vector: tuple
    classification: str               # "holonomic" | "partially nonholonomic" | "completely nonholonomic"
    hidden_holonomic: int
    classification_how: str
    jacobian_rank: int | None = None  # rank of Phi_p at the analysed point
    singular: bool = False
    analysed_point: dict = field(default_factory=dict)
    coordinates_used: str = ""
    notes: tuple = ()
    singular_points: tuple = ()       # configurations found where Phi_p loses rank (numeric search)
    singular_summary: str = ""
    undecided: tuple = ()             # what stayed undecided within the time bound, and why
    time_limit: float | None = None   # the overall bound, s
    elapsed: float = 0.0              # the time the analysis took, s
    jacobian_rank_generic: int | None = None  # rank of Phi_p at random consistent points (the largest)
    mobility: int | None = None       # n - rank C at random consistent points: the velocity dof
    rank_how: str = ""                # how the ranks were found
    rank_points: int = 0              # random consistent points the generic ranks were taken at

    @property
    def gruebler(self) -> int:
        """The Gruebler-Kutzbach count n - m - l (every row independent)."""
        return self.r

    @property
    def dof(self) -> int:
        """Velocity degrees of freedom: the mobility n - rank C where it was found, else n - m - l."""
        return self.r if self.mobility is None else self.mobility

    @property
    def redundant_rows(self) -> bool:
        """Phi_p or C is short of rank at every random consistent point (dependent rows)."""
        short_jacobian = self.jacobian_rank_generic is not None and self.jacobian_rank_generic < self.m
        return short_jacobian or (self.mobility is not None and self.mobility > self.r)

    def text(self) -> str:
        lines = [f"Constraint analysis of {self.system_name}", "  " + self._sizes()]
        if self.m:
            lines.append("  " + self._rank_line())
        if self.rows:
            lines.append(f"  Pfaffian rows in {self.coordinates_used}:")
            shared = len({row.parameters for row in self.rows}) == 1 and self.rows[0].parameters
            if shared:
                lines.append(f"  parameters of the numeric tests: {short(shared, 400)}")
            lines.extend("  " + line for row in self.rows for line in row.text(not shared).splitlines())
        if self.singular_summary:
            lines.append(f"  singular configurations: {self.singular_summary}")
            for point in self.singular_points[:4]:
                lines.append("    at " + short(", ".join(f"{k}={v:.4g}" for k, v in point.items()), 240))
        lines.append(f"  distribution of admissible directions: growth vector {self.growth_vector}")
        hidden = (f", {self.hidden_holonomic} hidden holonomic"
                  if self.classification in ("holonomic", "partially nonholonomic") else "")
        lines.append(f"  classification: {self.classification}{hidden} ({self.classification_how})")
        lines.extend(f"  note: {n}" for n in self.notes)
        lines.extend(f"  undecided: {u}" for u in self.undecided)
        lines.append(f"  {self._timing()}")
        return "\n".join(lines)

    def _sizes(self) -> str:
        head = f"n = {self.n}, m = {self.m} holonomic, l = {self.l} nonholonomic: "
        if not self.redundant_rows:
            return head + f"k = n - m = {self.k} configuration dof, r = n - m - l = {self.r} velocity dof"
        k = self.n - (self.jacobian_rank_generic if self.jacobian_rank_generic is not None else self.m)
        return head + (f"the rows are redundant: k = n - rank Phi_p = {k} configuration dof, dof = n - rank C = "
                       f"{self.dof} velocity dof (the mobility; Gruebler count n - m - l = {self.r})")

    def _rank_line(self) -> str:
        if self.jacobian_rank is None:
            return f"rank of Phi_p (of m = {self.m}) at the analysed point: not computed"
        if self.singular:
            state = "singular configuration"
            if self.jacobian_rank_generic is not None:
                state += f" (the rank is {self.jacobian_rank_generic} elsewhere)"
        elif self.jacobian_rank < self.m:
            state = f"regular configuration; the rows are redundant ({self.m - self.jacobian_rank} dependent)"
        else:
            state = "regular"
        how = f" [{self.rank_how}]" if self.rank_how else ""
        return f"rank of Phi_p = {self.jacobian_rank} (of m = {self.m}) at the analysed point: {state}{how}"

    def _timing(self) -> str:
        bound = f" of the {self.time_limit:g} s bound" if self.time_limit is not None else " (no time bound)"
        return f"analysis time {self.elapsed:.2f} s{bound}"

    __str__ = text

    def to_markdown(self) -> str:
        out = [f"### Constraint analysis of `{self.system_name}`", "",
               "| quantity | value |", "|---|---|",
               f"| n, m, l | {self.n}, {self.m}, {self.l} |",
               f"| k = n − m, r = n − m − l (Gruebler) | {self.k}, {self.r} |"]
        if self.mobility is not None and self.mobility != self.r:
            out.append(f"| dof = mobility n − rank C | {self.mobility} (the rows are redundant) |")
        if self.m:
            state = ("singular" if self.singular else "regular, redundant rows" if self.jacobian_rank is not None
                     and self.jacobian_rank < self.m else "regular")
            out.append(f"| rank Φ_p at the analysed point | {self.jacobian_rank} ({state}) |")
        if self.singular_summary:
            out.append(f"| singular configurations | {self.singular_summary} |")
        out += [f"| growth vector | {self.growth_vector} |",
                f"| classification | {self.classification} ({self.classification_how}) |",
                f"| hidden holonomic constraints | {self.hidden_holonomic} |", ""]
        if self.rows:
            out += [f"Pfaffian rows in {self.coordinates_used}:", "",
                    "| row | exact | integrable | potential / integral |", "|---|---|---|---|"]
            for row in self.rows:
                integral = row.potential if row.exact else row.integral
                out.append(f"| {row.name} | {_yes_no(row.exact)} ({row.exact_how}) | "
                           f"{_yes_no(row.integrable)} ({row.integrable_how}) | "
                           f"{'$' + sp.latex(integral) + '$' if integral is not None else '—'} |")
            out.append("")
        out += [f"- {n}" for n in self.notes]
        out += [f"- undecided: {u}" for u in self.undecided]
        out += [f"- {self._timing()}"]
        return "\n".join(out).rstrip() + "\n"

    def _repr_markdown_(self):
        return self.to_markdown()

    __repr__ = analysis_repr  # one line: sizes, growth vector, classification, the first rows


def _yes_no(decision) -> str:
    return "undecided" if decision is None else ("yes" if decision else "no")


# --------------------------------------------------------------------------------------------
# entry points
def analyze_constraints(system, *, point=None, seconds: float = 5.0, time_limit: float | None = 60.0,
                        seed: int = 1, singular_search: bool = True, assumptions=None,
                        values=None) -> ConstraintAnalysis:
    """The analysis of DESIGN section 4 for ``system`` (see the module docstring).

    point: the configuration p (n_p,) at which the rank of Phi_p is reported (default: the
    system's default state); seconds bounds each symbolic step, time_limit (s, None for none)
    the whole analysis, which always returns and lists what stayed undecided; singular_search
    looks numerically for configurations where Phi_p loses rank. assumptions ({parameter name:
    {"positive": True}, ...}) hold for the symbolic tests of the rows; values ({name: number})
    replace the system's parameter values in the numeric tests. Every numeric result (ranks, the
    growth vector, witnesses) comes first; symbolic proofs follow while time remains.
    """
    clock = TimeBudget(time_limit)
    rng = np.random.default_rng(seed)
    subs, renamed = _parameter_values(system, values, assumptions)
    p0 = system.default_state()[0] if point is None else np.asarray(point, dtype=float)
    if p0.shape != (len(system.coordinates),):
        raise ValueError(f"analyze_constraints: point has shape {p0.shape} but expected ({len(system.coordinates)},)")
    notes = []
    num = _numeric_phase(system, subs, p0, rng, clock, notes)
    points, summary = _singular_search(system, num.ranks, singular_search, seed, clock)
    if system.m + system.l:
        notes += redundancy_notes(system, p0)
    label = _symbolic_rows(system, num, renamed, seconds, clock)
    if num.found is not None and num.classification != "undetermined" and not clock.expired:
        num.how = _distribution_proof(system, num, seconds, clock, notes) or num.how
    r = num.ranks
    return ConstraintAnalysis(system.name, system.n, system.m, system.l, tuple(t.report() for t in num.tests),
                              num.growth, num.classification, num.hidden, num.how, r.jacobian,
                              r.jacobian is not None and r.jacobian < (r.jacobian_generic or system.m),
                              {name: float(val) for name, val in zip(system.coordinate_names, p0)},
                              label or num.label, tuple(notes), points, summary, tuple(clock.cut), time_limit,
                              clock.elapsed(), r.jacobian_generic,
                              None if r.C_generic is None else system.n - r.C_generic, r.how(system.m), r.points)


def _parameter_values(system, values, assumptions):
    """(subs, renamed): numbers for the parameters (``values`` over the system's), and the
    parameter symbols with ``assumptions`` for the symbolic tests."""
    where = f"analyze_constraints({system.name})"
    params = [par.symbol for par in system.parameters]
    subs = dict(system.parameter_map)
    subs.update({s: float(v) for s, v in _as_symbol_map(values, params, "values", where).items()})
    renamed = _assume(params, assumptions, where) if assumptions else {}
    subs.update({renamed[s]: subs[s] for s in renamed})
    return subs, renamed


class _Numeric:
    """What the numeric phase found (filled step by step; None where a step was cut)."""

    def __init__(self):
        self.ranks, self.tests, self.label, self.found = Ranks(), [], "", None
        self.growth, self.classification, self.hidden = (), "undetermined", 0
        self.how = "not analysed (time bound)"
        self.P = self.C = self.A = self.points = None
        self.size = 0  # operations in C


def _numeric_phase(system, subs, p0, rng, clock, notes):
    """Ranks, per-row witnesses and the growth vector from the lambdified matrices (quick)."""
    out = _Numeric()
    P, C, A, timed = _extended_rows(system, subs)
    out.P, out.C, out.A, out.size = P, C, A, sp.count_ops(C)
    fns = None if clock.expired else matrix_functions(P, C, A)  # not picklable: runs here, not in a bounded step
    points = clock.run(lambda: _manifold_points(system, rng, timed=timed), label="random points on Phi = 0")
    out.points = points
    if points is not None:
        out.ranks = clock.run(lambda: ranks(system, p0, points, timed), default=Ranks(),
                              label="the ranks of Phi_p and C")
    elif system.m:
        out.ranks = clock.run(lambda: ranks(system, p0, [], timed), default=Ranks(), label="the rank of Phi_p")
    if fns is not None and system.l:
        _numeric_rows(system, subs, fns, timed, rng, clock, out, notes)
    if not system.l:
        mobility = system.n - out.ranks.C_generic if out.ranks.C_generic is not None else system.r
        out.growth, out.classification, out.hidden, out.how = (mobility,), "holonomic", 0, "no nonholonomic rows"
    elif fns is not None and points is not None:
        _numeric_distribution(system, fns, points, timed, clock, out, notes)
    return out


def _numeric_rows(system, subs, fns, timed, rng, clock, out, notes):
    """Exactness and Frobenius witnesses of each row at random points (complex-step derivatives)."""
    x, a_fn = form_function(system, subs, *fns, timed)
    if x is None:
        notes.append("per-row tests skipped: the kinematics A is not square (Euler parameters), so the rows "
                     "have no form in independent coordinates; they are analysed as a distribution only")
        return
    reduced = [s.name for s in x[:len(system.coordinates)]] != list(system.coordinate_names)
    out.label = (("reduced coordinates q = (" if reduced else "coordinates p = (")
                 + ", ".join(s.name for s in x) + ")")
    sampler = Sampler(x, rng, values=subs)
    values = clock.run(lambda: row_values(a_fn, sampler), label="the numeric row tests")
    out.tests = [RowTest(name, None, x, sampler) for name in system.nonholonomic_names]
    for test, (curl, frob, scales) in zip(out.tests, values or ()):
        test.decide(curl, frob, scales)
    if values is None:
        for test in out.tests:
            test.exact_how = test.integrable_how = "undecided: the numeric row tests did not finish within the bound"


def _numeric_distribution(system, fns, points, timed, clock, out, notes):
    """The growth vector of ker C at the random points, and the classification from it."""
    extra = 1 if timed else 0
    r = out.ranks
    k = system.n - (r.jacobian_generic if r.jacobian_generic is not None else system.m)
    dof = system.n - r.C_generic if r.C_generic is not None else system.r
    if timed:
        notes.append("the rows depend on time: the distribution lives in (p, t), so its ranks count one "
                     "dimension more (k + 1 for a completely nonholonomic system)")
    if clock.expired:
        return
    found = growth(*fns, points, len(out.P), k + extra, clock)  # each level's ranks are bounded steps
    vector, complete, count, kept = found
    out.growth = vector
    out.classification, out.hidden = _classify(vector, dof + extra, k + extra, complete)
    space = " of (p, t)" if timed else ""
    out.how = _growth_how(vector, complete, f" on Phi = 0{space} (brackets of numeric fields)", count)
    out.found = kept


def _singular_search(system, r, wanted, seed, clock):
    """(points, summary) of the numeric search for singular configurations (where Phi_p drops below
    its generic rank); not run where the rows are redundant everywhere."""
    if not (system.m and wanted):
        return (), ""
    if r.jacobian_generic is not None and r.jacobian_generic < system.m:
        return (), (f"not searched: Phi_p has rank {r.jacobian_generic} < m = {system.m} at every one of "
                    f"{r.points} random consistent points (redundant rows), so the search for a rank loss "
                    f"would find every configuration")
    share = max(0.0, min(60.0, clock.left() / 4))
    return clock.run(
        lambda: find_singular_configurations(system, np.random.default_rng(seed + 1), starts=12, seconds=share),
        default=((), "not searched: the overall time bound was used up"), label="the singular-configuration search")


def _symbolic_rows(system, num, renamed, seconds, clock):
    """The rows' symbolic forms and proofs while time remains; returns the coordinates' label.
    Where every row was decided by a witness the forms are only shown, so they get a short bound."""
    if not num.tests or clock.expired:
        return ""
    needed = any(t.exact or t.integrable or t.exact is None or t.integrable is None for t in num.tests)
    if needed:
        x, forms, label = _row_forms(system, seconds, clock)
    elif num.size <= SYMBOLIC_OPS:
        side = TimeBudget(max(1e-3, min(seconds, clock.left()) / 2))  # only shown: not noted where cut
        x, forms, label = _row_forms(system, seconds, side)
    else:
        return ""
    if forms is None or [s.name for s in x] != [s.name for s in num.tests[0].x]:
        return ""
    forms = forms.xreplace(renamed)
    for i, test in enumerate(num.tests):
        test.set_form(list(forms[i, :]))
        test.symbolic(clock, seconds)
    return label


def _distribution_proof(system, num, seconds, clock, notes):
    """The symbolic reason for a numeric classification where one is found within the bound."""
    size = num.size
    if size > SYMBOLIC_OPS:
        notes.append(f"symbolic proof of the classification not attempted: C has {size} operations "
                     f"(above {SYMBOLIC_OPS}); the numeric growth vector stands")
        return None
    P, C, A = num.P, num.C, num.A
    sampler = Sampler.at(P, num.points, {})
    fields = clock.run(lambda: [sp.Matrix(f) for f in _nullspace_fields(C, A, sampler, clock, seconds)],
                       seconds * 4, label="the symbolic null space of C")
    if fields is None:
        return None
    timed = len(P) > len(system.coordinates)
    growth = num.growth
    if num.classification == "completely nonholonomic" and not timed:
        kept = clock.run(lambda: [_word_field(w, fields, P) for w in num.found], seconds * 4,
                         label="the symbolic brackets of the kept fields")
        if kept is not None and _proved_rank(kept, P, system, growth[-1], seconds, clock):
            return f"{SYMBOLIC}: the rank {growth[-1]} = k is attained at an exact point (a non-zero minor)"
    if (num.classification == "holonomic" and A == sp.eye(A.shape[0])
            and _involutive_symbolic(fields, C, P, seconds, clock)):
        return f"{SYMBOLIC}: every bracket of the admissible fields is annihilated by C (Frobenius)"
    return None


def _coordinate_symbols(coordinates) -> list:
    """The coordinates of check_pfaffian as sympy Symbols: Symbols kept, names (str) made Symbols."""
    if isinstance(coordinates, (str, sp.Symbol)) or not hasattr(coordinates, "__iter__"):
        raise ArgumentTypeError(f"coordinates got {_show(coordinates)} but expected a sequence of sympy Symbols or "
                                f"their names, e.g. sympy.symbols('x y z') or ['x', 'y', 'z']", "coordinates")
    out = []
    for i, c in enumerate(coordinates):
        if isinstance(c, str) and c.isidentifier():
            c = sp.Symbol(c)
        if not isinstance(c, sp.Symbol):
            raise ArgumentTypeError(f"coordinates[{i}] got {_show(c)} ({type(c).__name__}) but expected a sympy Symbol "
                                    f"or its name (a str such as 'x')", "coordinates")
        out.append(c)
    return out


def _same_names(F, coordinates, x) -> dict:
    """{symbol of F: real coordinate} for the coordinates given by name: a row written with
    sympy.Symbol('x', positive=True) or parsed from text matches the coordinate 'x'."""
    named = {c: xi for c, xi in zip(coordinates, x) if isinstance(c, str)}
    return {s: named[s.name] for s in F.free_symbols if isinstance(s, sp.Symbol) and s.name in named}


def _rows_matrix(rows) -> sp.Matrix:
    """The rows of check_pfaffian as a sympy Matrix (entries may be text, parsed by sympify)."""
    try:
        return sp.Matrix(rows)
    except (TypeError, ValueError, sp.SympifyError) as exc:
        raise ArgumentTypeError(f"rows got {_show(rows)} but expected rows of coefficients (sympy expressions or "
                                f"their text), one per coordinate: {exc}", "rows") from None
def _word_field(word, fields, x):
    """The symbolic bracket [X_i, [X_j, ...]] of the field indices ``word``."""
    if len(word) == 1:
        return fields[word[0]]
    return _bracket(fields[word[0]], _word_field(word[1:], fields, x), x)


def check_pfaffian(rows, coordinates, *, names=None, seconds: float = 5.0, time_limit: float | None = 60.0,
                   seed: int = 1, time=None, time_coefficients=None, assumptions=None,
                   values=None) -> ConstraintAnalysis:
    """Analysis of Pfaffian forms given directly: rows (l, n) of coefficients a_i(x) over x.
    coordinates: sympy Symbols or their names ("x", matched by name in the rows, which may be text).

    Symbols other than the coordinates (and the time) are free parameters, constants: the
    symbolic tests keep them, with ``assumptions`` ({name: {"positive": True}, ...}; real by
    default), the numeric tests give them ``values`` ({name: number}) or random values per point.
    With ``time`` (a symbol) the rows are a(x, t) . dx + a_t(x, t) dt = 0, the dt coefficients a_t
    (l,) given as ``time_coefficients`` or as an extra last column of ``rows`` (zero otherwise),
    and the forms are analysed in the extended coordinates (x, t). ``seconds`` bounds each
    symbolic step, ``time_limit`` (s, None for none) the whole analysis.
    """
    clock = TimeBudget(time_limit)
    given = _coordinate_symbols(coordinates)
    x = [sp.Symbol(s.name, real=True) for s in given]
    F = _rows_matrix(rows)
    F = F.subs(dict(zip(given, x))).subs(_same_names(F, coordinates, x))
    width = len(x) + (1 if time is not None and time_coefficients is None else 0)
    if F.shape[1] != width and F.shape[1] != len(x):
        if F.shape[0] in (len(x), width) and F.shape[1] == 1:
            F = F.T
        else:
            expected = f"{len(x)} or {width} (the last the dt coefficient)" if width != len(x) else f"{len(x)}"
            raise ValueError(f"check_pfaffian: rows have {F.shape[1]} coefficients but expected {expected} "
                             f"(one per coordinate)")
    if time is not None:
        t = sp.Symbol(time.name, real=True)
        F = F.subs(time, t)
        if time_coefficients is not None:
            a_t = sp.Matrix(time_coefficients).reshape(F.shape[0], 1).subs(dict(zip(given, x))).subs(time, t)
            F = F.row_join(a_t)
        elif F.shape[1] == len(x):
            F = F.row_join(sp.zeros(F.shape[0], 1))
        x = x + [t]
    elif time_coefficients is not None:
        raise ValueError("check_pfaffian: time_coefficients got values but time is None; pass time=<symbol>")
    where = "check_pfaffian"
    free = sorted(F.free_symbols - set(x), key=lambda s: s.name)
    renamed = _assume(free, assumptions, where)
    F = F.xreplace(renamed)
    params = [renamed[s] for s in free]
    fixed = {renamed[s]: float(v) for s, v in _as_symbol_map(values, free, "values", where).items()}
    names = list(names or [f"row {i + 1}" for i in range(F.shape[0])])
    sampler = Sampler(x, np.random.default_rng(seed), params, fixed)
    tests = [RowTest(nm, list(F[i, :]), x, sampler) for i, nm in enumerate(names)]
    for test in tests:
        test.numeric(clock, seconds)
    F_fixed = F.subs(fixed)  # the distribution is tested numerically: at the given values
    growth, classification, hidden, how = _pfaffian_distribution(F_fixed, x, sampler, clock)
    for test in tests:
        test.symbolic(clock, seconds)
    if classification == "holonomic" and not clock.expired:
        fields = clock.run(lambda: _nullspace_fields(F_fixed, sp.eye(len(x)), sampler, clock, seconds), seconds * 4,
                           label="the symbolic null space of the rows")
        if fields is not None and _involutive_symbolic(fields, F_fixed, x, seconds, clock):
            how = f"{SYMBOLIC}: every bracket of the admissible fields is annihilated by the rows (Frobenius)"
    if fixed and classification != "undetermined":
        how += " at the given parameter values " + ", ".join(f"{s.name}={v:.4g}" for s, v in fixed.items())
    label = "x = (" + ", ".join(s.name for s in x) + ")" + (" (time extended)" if time is not None else "")
    return ConstraintAnalysis("Pfaffian forms", len(x), 0, F.shape[0], tuple(t.report() for t in tests), growth,
                              classification, hidden, how, coordinates_used=label,
                              undecided=tuple(clock.cut), time_limit=time_limit, elapsed=clock.elapsed())


def _pfaffian_distribution(F, x, sampler, clock):
    """(growth vector, classification, hidden holonomic, how) of the forms' kernel, numerically
    (brackets of numeric fields at the sampler's points, free parameters at their drawn values)."""
    z = sampler.x + sampler.params
    if clock.expired:
        return (), "undetermined", 0, "not analysed (time bound)"
    fns = matrix_functions(z, F, sp.eye(len(x)))  # not picklable: runs here, each level's ranks bounded
    vector, complete, count, _ = growth(*fns, sampler.points, len(x), len(x), clock)
    values = fns[0](np.asarray(sampler.points, dtype=complex)).real
    rank_F = max((independent_rows(v)[0] for v in values if np.all(np.isfinite(v))), default=0)
    classification, hidden = _classify(vector, len(x) - rank_F, len(x), complete)
    return vector, classification, hidden, _growth_how(vector, complete, " (brackets of numeric fields)", count)


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
evaluation at a point proved a quantity non-zero) or "numeric" (observed at random points).

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
from ..dependent_rows import redundancy_notes
from ..errors import ArgumentTypeError
from ..description import DegreesOfFreedom
from ..display import analysis_repr
from .distribution import (_classify, _growth_how, _involutive_symbolic, _nullspace_fields,  # noqa: F401
                           _proved_rank, _rank, _stack_rank, grow_distribution)
from .pfaffian_rows import (NUMERIC, SYMBOLIC, RowReport, RowTest, Sampler, _as_symbol_map, _assume,  # noqa: F401
                            _is_zero, _random_points, analyze_row)
from .singular import find_singular_configurations, nearest_singular_configuration, rank_ratio  # noqa: F401

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

    @property
    def dof(self) -> int:
        """Velocity degrees of freedom n - m - l."""
        return self.r

    def text(self) -> str:
        lines = [f"Constraint analysis of {self.system_name}",
                 f"  n = {self.n}, m = {self.m} holonomic, l = {self.l} nonholonomic: "
                 f"k = n - m = {self.k} configuration dof, r = n - m - l = {self.r} velocity dof"]
        if self.m:
            state = ("singular" if self.singular else "regular") if self.jacobian_rank is not None else "not computed"
            lines.append(f"  rank of Phi_p = {self.jacobian_rank} (of m = {self.m}) at the analysed point: {state}")
        if self.rows:
            lines.append(f"  Pfaffian rows in {self.coordinates_used}:")
            lines.extend("  " + line for row in self.rows for line in row.text().splitlines())
        if self.singular_summary:
            lines.append(f"  singular configurations: {self.singular_summary}")
            for point in self.singular_points[:4]:
                lines.append("    at " + ", ".join(f"{k}={v:.4g}" for k, v in point.items()))
        lines.append(f"  distribution of admissible directions: growth vector {self.growth_vector}")
        hidden = (f", {self.hidden_holonomic} hidden holonomic"
                  if self.classification in ("holonomic", "partially nonholonomic") else "")
        lines.append(f"  classification: {self.classification}{hidden} ({self.classification_how})")
        lines.extend(f"  note: {n}" for n in self.notes)
        lines.extend(f"  undecided: {u}" for u in self.undecided)
        lines.append(f"  {self._timing()}")
        return "\n".join(lines)

    def _timing(self) -> str:
        bound = f" of the {self.time_limit:g} s bound" if self.time_limit is not None else " (no time bound)"
        return f"analysis time {self.elapsed:.2f} s{bound}"

    __str__ = text

    def to_markdown(self) -> str:
        out = [f"### Constraint analysis of `{self.system_name}`", "",
               "| quantity | value |", "|---|---|",
               f"| n, m, l | {self.n}, {self.m}, {self.l} |",
               f"| k = n − m, r = n − m − l | {self.k}, {self.r} |"]
        if self.m:
            out.append(f"| rank Φ_p at the analysed point | {self.jacobian_rank} ({'singular' if self.singular else 'regular'}) |")
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
def _time_column(system):
    """(timed, c_nh (l, 1)): whether the rows depend on time, and their velocity-free term."""
    t = system.time
    c_nh = getattr(system, "c_nh", None)
    c_nh = sp.Matrix(c_nh) if c_nh is not None else sp.zeros(system.l, 1)
    emb = system.embedding
    symbols = sp.Matrix(system.C_nh).free_symbols | sp.Matrix(system.Phi).free_symbols | c_nh.free_symbols
    timed = t in symbols or any(e != 0 for e in c_nh) or (emb is not None and t in sp.Matrix(emb.g).free_symbols)
    return timed, c_nh


def _row_forms(system, seconds, clock):
    """(coordinates x, forms (l, len(x)), label): rows of C_nh as forms a(x) . dx, with the dt
    column a_t last (x ends with the time) where the rows depend on time."""
    timed, c_nh = _time_column(system)
    t = system.time
    tail = ", t" if timed else ""
    emb = system.embedding
    if emb is not None and emb.A_q == sp.eye(len(emb.coordinates)):
        q = list(emb.coordinates)
        subs = dict(zip(system.coordinates, emb.g))
        g = sp.Matrix(emb.g)
        G = g.jacobian(q + ([t] if timed else []))
        A = sp.Matrix(system.A).subs(subs)
        D = G if A == sp.eye(A.shape[0]) else clock.run(lambda: sp.simplify(A.LUsolve(G)), seconds * 4,
                                                       label="the velocity map D = A^-1 g_q")
        if D is not None:
            forms = clock.run(lambda: sp.simplify(sp.Matrix(system.C_nh).subs(subs) * D), seconds * 4,
                              label="the rows in reduced coordinates")
            if forms is not None:
                if timed:
                    forms = sp.Matrix(forms)
                    forms[:, -1] = forms[:, -1] + c_nh.subs(subs)
                return (q + ([t] if timed else []), forms,
                        "reduced coordinates q = (" + ", ".join(s.name for s in q) + tail + ")")
    A = sp.Matrix(system.A)
    if A.shape[0] == A.shape[1]:
        Ainv = sp.eye(A.shape[0]) if A == sp.eye(A.shape[0]) else clock.run(lambda: sp.simplify(A.inv()),
                                                                            seconds * 4, label="the inverse of A")
        if Ainv is not None:
            forms = sp.Matrix(system.C_nh) * Ainv
            if timed:
                forms = forms.row_join(c_nh)
            return (list(system.coordinates) + ([t] if timed else []), forms,
                    "coordinates p = (" + ", ".join(system.coordinate_names) + tail + ")")
        return None, None, "the rows' form in p was not found within the time bound"
    return None, None, ("the kinematics A is not square (Euler parameters), so the rows have no form in "
                        "independent coordinates; they are analysed as a distribution only")


def _manifold_points(system, rng, count=6, timed=False):
    """Random configurations on Phi = 0 (exact through the embedding where there is one), each
    followed by a random time where the rows depend on time."""
    from ..state import normalize_blocks, project_positions, renormalize

    p0 = system.default_state()[0]
    points = []
    num, par = system.numeric, system.params
    moving = timed and system.time in (sp.Matrix(system.Phi).free_symbols
                                       | (sp.Matrix(system.embedding.g).free_symbols if system.embedding else set()))
    for _ in range(count):
        t = float(rng.uniform(0.3, 1.2))
        at = {"t": t} if moving else {}
        if system.embedding is not None:
            q0 = num.inverse(p0, par, **at)
            q = normalize_blocks(q0 + rng.uniform(-0.6, 0.6, q0.shape), system.embedding.unit_norm_blocks)
            p = num.embedding(q, par, **at)[0]
        else:
            guess = renormalize(system, p0 + rng.uniform(-0.3, 0.3, p0.shape))
            p = project_positions(system, guess, **at)[0]
        points.append(np.append(p, t) if timed else p)
    return points


def analyze_constraints(system, *, point=None, seconds: float = 5.0, time_limit: float | None = 60.0,
                        seed: int = 1, singular_search: bool = True, assumptions=None,
                        values=None) -> ConstraintAnalysis:
    """The analysis of DESIGN section 4 for ``system`` (see the module docstring).

    point: the configuration p (n_p,) at which the rank of Phi_p is reported (default: the
    system's default state); seconds bounds each symbolic step, time_limit (s, None for none)
    the whole analysis, which always returns and lists what stayed undecided; singular_search
    looks numerically for configurations where Phi_p loses rank. assumptions ({parameter name:
    {"positive": True}, ...}) hold for the symbolic tests of the rows; values ({name: number})
    replace the system's parameter values in the numeric tests.
    """
    clock = TimeBudget(time_limit)
    rng = np.random.default_rng(seed)
    where = f"analyze_constraints({system.name})"
    params = [par.symbol for par in system.parameters]
    subs = dict(system.parameter_map)
    subs.update({s: float(v) for s, v in _as_symbol_map(values, params, "values", where).items()})
    renamed = _assume(params, assumptions, where) if assumptions else {}
    subs.update({renamed[s]: subs[s] for s in renamed})
    notes = []
    # rows, numeric tests first
    tests = []
    x, forms, label = _row_forms(system, seconds, clock)
    if forms is not None:
        forms = forms.xreplace(renamed)
        sampler = Sampler(x, rng, values=subs)
        for i, name in enumerate(system.nonholonomic_names):
            tests.append(RowTest(name, list(forms[i, :]), x, sampler))
            tests[-1].numeric(clock, seconds)
    elif system.l:
        notes.append("per-row tests skipped: " + label)
    # holonomic Jacobian at the default state
    jac_rank, singular = None, False
    p0 = system.default_state()[0] if point is None else np.asarray(point, dtype=float)
    if p0.shape != (len(system.coordinates),):
        raise ValueError(f"analyze_constraints: point has shape {p0.shape} but expected ({len(system.coordinates)},)")
    if system.m:
        Phi_p = clock.run(lambda: system.numeric.constraints(p0, system.params)[1], label="the rank of Phi_p")
        if Phi_p is not None:
            jac_rank = _rank(Phi_p, 1e-10)
            singular = jac_rank < system.m
    points, summary = ((), "")
    if system.m and singular_search:
        share = max(0.0, min(60.0, clock.left() / 4))
        points, summary = clock.run(
            lambda: find_singular_configurations(system, np.random.default_rng(seed + 1), starts=12, seconds=share),
            default=((), "not searched: the overall time bound was used up"),
            label="the singular-configuration search")
    # distribution on the manifold (only nonholonomic rows can make it grow)
    if not system.l:
        growth, classification, hidden, how, found = (system.r,), "holonomic", 0, "no nonholonomic rows", None
    else:
        growth, classification, hidden, how, found = _distribution(system, subs, rng, seconds, notes, clock)
    notes += redundancy_notes(system, p0)
    # symbolic steps for what the numerics left open, while time remains
    for test in tests:
        test.symbolic(clock, seconds)
    if found is not None and classification != "undetermined":
        how = _distribution_proof(system, found, growth, classification, seconds, clock) or how
    return ConstraintAnalysis(system.name, system.n, system.m, system.l, tuple(t.report() for t in tests), growth,
                              classification, hidden, how, jac_rank, singular,
                              {name: float(val) for name, val in zip(system.coordinate_names, p0)},
                              label, tuple(notes), points, summary, tuple(clock.cut), time_limit, clock.elapsed())


def _extended_rows(system, subs):
    """(x, C, A, timed) of the distribution: over p, or over (p, t) where the rows depend on time,
    with C extended by the column c = [Phi_t; c_nh] and A by a 1 for t' = 1."""
    timed, c_nh = _time_column(system)
    P = list(system.coordinates)
    C = sp.Matrix(system.C).subs(subs)
    A = sp.Matrix(system.A).subs(subs)
    if not timed:
        return P, C, A, False
    Phi_t = sp.Matrix(system.Phi).diff(system.time) if system.m else sp.zeros(0, 1)
    c = sp.Matrix.vstack(Phi_t, c_nh).subs(subs)
    return P + [system.time], C.row_join(c), sp.diag(A, 1), True


def _distribution(system, subs, rng, seconds, notes, clock):
    """(growth vector, classification, hidden holonomic, how) of ker C grown by brackets on Phi = 0
    (in the extended space (p, t) with one more dimension where the rows depend on time)."""
    P, C, A, timed = _extended_rows(system, subs)
    points = clock.run(lambda: _manifold_points(system, rng, timed=timed), label="random points on Phi = 0")
    if points is None:
        return (), "undetermined", 0, "not analysed (time bound)", None
    sampler = Sampler.at(P, points, subs)
    fields = clock.run(lambda: [sp.Matrix(f) for f in _nullspace_fields(C, A, sampler, clock, seconds)],
                       label="the symbolic null space of C")
    if fields is None:
        notes.append("the symbolic null space of C was not found within the time bound; the distribution "
                     "was not analysed")
        return (), "undetermined", 0, "not analysed (time bound)", None
    extra = 1 if timed else 0
    if timed:
        notes.append("the rows depend on time: the distribution lives in (p, t), so its ranks count one "
                     "dimension more (k + 1 for a completely nonholonomic system)")
    growth, kept, complete = grow_distribution(fields, P, sampler, system.k + extra, clock)
    classification, hidden = _classify(growth, system.r + extra, system.k + extra, complete)
    space = " of (p, t)" if timed else ""
    how = _growth_how(growth, complete, f" on Phi = 0{space}", sampler.count)
    return growth, classification, hidden, how, (kept, P, C, A, fields)


def _distribution_proof(system, found, growth, classification, seconds, clock):
    """The symbolic reason for a numeric classification where one is found within the bound;
    found = (kept fields, x, C, A, first-level fields) from :func:`_distribution`."""
    kept, P, C, A, fields = found
    timed = len(P) > len(system.coordinates)
    if classification == "completely nonholonomic" and not timed and _proved_rank(kept, P, system, growth[-1],
                                                                                  seconds, clock):
        return f"{SYMBOLIC}: the rank {growth[-1]} = k is attained at an exact point (a non-zero minor)"
    if (classification == "holonomic" and A == sp.eye(A.shape[0])
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
    fields = clock.run(lambda: _nullspace_fields(F_fixed, sp.eye(len(x)), sampler, clock, seconds),
                       label="the symbolic null space of the rows")
    if fields is None:
        growth, complete, classification, hidden = (), False, "undetermined", 0
        how = "not analysed (time bound)"
    else:
        rank_F = _stack_rank([v for v in [sampler.evaluate(list(F_fixed[:, j]), clock) for j in range(F.shape[1])]
                              if v is not None]) if F.shape[0] else 0
        growth, kept, complete = grow_distribution(fields, x, sampler, len(x), clock)
        classification, hidden = _classify(growth, len(x) - rank_F, len(x), complete)
        how = _growth_how(growth, complete, "", sampler.count)
    for test in tests:
        test.symbolic(clock, seconds)
    if classification == "holonomic" and _involutive_symbolic(fields, F_fixed, x, seconds, clock):
        how = f"{SYMBOLIC}: every bracket of the admissible fields is annihilated by the rows (Frobenius)"
    if fixed and classification != "undetermined":
        how += " at the given parameter values " + ", ".join(f"{s.name}={v:.4g}" for s, v in fixed.items())
    label = "x = (" + ", ".join(s.name for s in x) + ")" + (" (time extended)" if time is not None else "")
    return ConstraintAnalysis("Pfaffian forms", len(x), 0, F.shape[0], tuple(t.report() for t in tests), growth,
                              classification, hidden, how, coordinates_used=label,
                              undecided=tuple(clock.cut), time_limit=time_limit, elapsed=clock.elapsed())

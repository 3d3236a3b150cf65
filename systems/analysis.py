"""Constraint analysis: exactness, integrability and the growth of the constraint distribution.

For each Pfaffian row a(x) . dx = 0 (x the reduced coordinates q where the system has an
embedding, else p; see Bona, *Generalized coordinates and constraints*):
  - exactness: da_i/dx_j - da_j/dx_i = 0 for all pairs; the potential phi (a = grad phi) if exact;
  - Frobenius: a ^ da = 0, i.e. for all i < j < k
        a_i (d_j a_k - d_k a_j) + a_j (d_k a_i - d_i a_k) + a_k (d_i a_j - d_j a_i) = 0,
    the condition for an integrating factor mu with mu a exact (searched among simple candidates).
For the set of rows: the distribution Delta = A ker C of admissible directions p' (holonomic rows
included, so the analysis lives on the manifold Phi = 0) is grown by Lie brackets until its rank
stops growing. Its generic rank R gives the classification: R = r: holonomic (the l rows hide l
holonomic constraints); R = k = n - m: completely nonholonomic; otherwise partially nonholonomic
with k - R hidden holonomic constraints. The growth vector lists the ranks level by level.

Every conclusion says how it was reached: "symbolic" (sympy simplified to zero, or an exact
evaluation at a point proved a quantity non-zero) or "numeric" (observed at random points).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ._bounded import bounded
from .description import DegreesOfFreedom
from .pfaffian_rows import NUMERIC, SYMBOLIC, RowReport, _is_zero, _random_points, analyze_row  # noqa: F401
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

    @property
    def dof(self) -> int:
        """Velocity degrees of freedom n - m - l."""
        return self.r

    def text(self) -> str:
        lines = [f"Constraint analysis of {self.system_name}",
                 f"  n = {self.n}, m = {self.m} holonomic, l = {self.l} nonholonomic: "
                 f"k = n - m = {self.k} configuration dof, r = n - m - l = {self.r} velocity dof"]
        if self.m:
            state = "singular" if self.singular else "regular"
            lines.append(f"  rank of Phi_p = {self.jacobian_rank} (of m = {self.m}) at the analysed point: {state}")
        if self.rows:
            lines.append(f"  Pfaffian rows in {self.coordinates_used}:")
            lines.extend("  " + line for row in self.rows for line in row.text().splitlines())
        if self.singular_summary:
            lines.append(f"  singular configurations: {self.singular_summary}")
            for point in self.singular_points[:4]:
                lines.append("    at " + ", ".join(f"{k}={v:.4g}" for k, v in point.items()))
        lines.append(f"  distribution of admissible directions: growth vector {self.growth_vector}")
        hidden = f", {self.hidden_holonomic} hidden holonomic" if self.classification != "completely nonholonomic" else ""
        lines.append(f"  classification: {self.classification}{hidden} ({self.classification_how})")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

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
                out.append(f"| {row.name} | {'yes' if row.exact else 'no'} ({row.exact_how}) | "
                           f"{'yes' if row.integrable else 'no'} ({row.integrable_how}) | "
                           f"{'$' + sp.latex(integral) + '$' if integral is not None else '—'} |")
            out.append("")
        out += [f"- {n}" for n in self.notes]
        return "\n".join(out).rstrip() + "\n"

    def _repr_markdown_(self):
        return self.to_markdown()


# --------------------------------------------------------------------------------------------
# the distribution
def _bracket(X, Y, x):
    return Y.jacobian(x) * X - X.jacobian(x) * Y


def _rank(values, tol=1e-8):
    s = np.linalg.svd(values, compute_uv=False)
    return int(np.sum(s > tol * max(1.0, s[0] if s.size else 1.0)))


def _generic_rank(fields, x, points):
    if not fields:
        return 0
    fn = sp.lambdify([list(x)], sp.Matrix.hstack(*fields), modules="numpy")
    ranks = []
    for pt in points:
        with np.errstate(all="ignore"):
            val = np.array(fn(pt), dtype=float)
        if np.all(np.isfinite(val)):
            ranks.append(_rank(val))
    return max(ranks) if ranks else 0


def grow_distribution(fields, x, points, target, max_levels=None):
    """Growth vector of the distribution spanned by ``fields`` (sympy column vectors over x).

    Brackets of the first-level fields with the newest level are added where they raise the
    generic rank (the maximum over ``points``), until the rank stops growing or reaches target.
    Returns (growth vector, kept fields).
    """
    kept = list(fields)
    rank = _generic_rank(kept, x, points)
    growth = [rank]
    newest = list(kept)
    max_levels = max_levels or (target + 1)
    while rank < target and len(growth) < max_levels:
        added = []
        for X in fields:
            for Y in newest:
                Z = _bracket(X, Y, x)
                if all(e == 0 for e in Z):
                    continue
                trial = _generic_rank(kept + added + [Z], x, points)
                if trial > rank + len(added):
                    added.append(Z)
                    if rank + len(added) >= target:
                        break
            if rank + len(added) >= target:
                break
        if not added:
            break
        kept += added
        rank += len(added)
        growth.append(rank)
        newest = added
    return tuple(growth), kept


def _nullspace_fields(C, A):
    """Columns of A N with N a basis of ker C (sympy), the admissible directions p'."""
    N = C.nullspace(simplify=False) if C.shape[0] else [sp.eye(C.shape[1])[:, i] for i in range(C.shape[1])]
    return [sp.Matrix(A) * col for col in N]


def _involutive_symbolic(fields, C, x, seconds):
    """True if every bracket of ``fields`` is annihilated by C (valid where ker C = span fields)."""
    for X, Y in itertools.combinations(fields, 2):
        Z = C * _bracket(X, Y, x)
        if not all(_is_zero(e, seconds) for e in Z):
            return False
    return True


def _classify(growth, r, k):
    final = growth[-1]
    if final >= k:
        return "completely nonholonomic", 0
    if final == r:
        return "holonomic", k - final
    return "partially nonholonomic", k - final


# --------------------------------------------------------------------------------------------
# entry points
def _row_forms(system, seconds):
    """(coordinates x, forms (l, len(x)), label): rows of C_nh as forms a(x) . dx."""
    emb = system.embedding
    if emb is not None and emb.A_q == sp.eye(len(emb.coordinates)):
        q = list(emb.coordinates)
        subs = dict(zip(system.coordinates, emb.g))
        g_q = sp.Matrix(emb.g).jacobian(q)
        A = sp.Matrix(system.A).subs(subs)
        D = g_q if A == sp.eye(A.shape[0]) else bounded(lambda: sp.simplify(A.LUsolve(g_q)), seconds * 4)
        if D is not None:
            forms = bounded(lambda: sp.simplify(sp.Matrix(system.C_nh).subs(subs) * D), seconds * 4)
            if forms is not None:
                return q, forms, "reduced coordinates q = (" + ", ".join(s.name for s in q) + ")"
    A = sp.Matrix(system.A)
    if A.shape[0] == A.shape[1]:
        Ainv = sp.eye(A.shape[0]) if A == sp.eye(A.shape[0]) else bounded(lambda: sp.simplify(A.inv()), seconds * 4)
        if Ainv is not None:
            forms = sp.Matrix(system.C_nh) * Ainv
            return list(system.coordinates), forms, "coordinates p = (" + ", ".join(system.coordinate_names) + ")"
    return None, None, ("the kinematics A is not square (Euler parameters), so the rows have no form in "
                        "independent coordinates; they are analysed as a distribution only")


def _manifold_points(system, rng, count=6):
    """Random configurations on Phi = 0 (exact through the embedding where there is one)."""
    from .state import normalize_blocks, project_positions, renormalize

    p0 = system.default_state()[0]
    points = []
    num, par = system.numeric, system.params
    for _ in range(count):
        if system.embedding is not None:
            q0 = num.inverse(p0, par)
            q = normalize_blocks(q0 + rng.uniform(-0.6, 0.6, q0.shape), system.embedding.unit_norm_blocks)
            points.append(num.embedding(q, par)[0])
        else:
            guess = renormalize(system, p0 + rng.uniform(-0.3, 0.3, p0.shape))
            points.append(project_positions(system, guess)[0])
    return points


def analyze_constraints(system, *, point=None, seconds: float = 5.0, seed: int = 1,
                        singular_search: bool = True) -> ConstraintAnalysis:
    """The analysis of DESIGN section 4 for ``system`` (see the module docstring).

    point: the configuration p (n_p,) at which the rank of Phi_p is reported (default: the
    system's default state); seconds bounds each symbolic simplification; singular_search looks
    numerically for configurations where Phi_p loses rank.
    """
    rng = np.random.default_rng(seed)
    subs = system.parameter_map
    notes = []
    # rows
    rows = []
    x, forms, label = _row_forms(system, seconds)
    if forms is not None:
        for i, name in enumerate(system.nonholonomic_names):
            rows.append(analyze_row(name, list(forms[i, :]), x, rng, seconds, values=subs))
    elif system.l:
        notes.append("per-row tests skipped: " + label)
    # holonomic Jacobian at the default state
    jac_rank, singular = None, False
    p0 = system.default_state()[0] if point is None else np.asarray(point, dtype=float)
    if p0.shape != (len(system.coordinates),):
        raise ValueError(f"analyze_constraints: point has shape {p0.shape} but expected ({len(system.coordinates)},)")
    if system.m:
        _, Phi_p, _ = system.numeric.constraints(p0, system.params)
        jac_rank = _rank(Phi_p, 1e-10)
        singular = jac_rank < system.m
    # distribution on the manifold (only nonholonomic rows can make it grow)
    if not system.l:
        growth, classification, hidden, how = (system.r,), "holonomic", 0, "no nonholonomic rows"
    else:
        growth, classification, hidden, how = _distribution(system, subs, rng, seconds, notes)
    _redundancy_notes(system, p0, notes)
    points, summary = (find_singular_configurations(system, np.random.default_rng(seed + 1), starts=12)
                       if system.m and singular_search else ((), ""))
    return ConstraintAnalysis(system.name, system.n, system.m, system.l, tuple(rows), growth, classification,
                              hidden, how, jac_rank, singular,
                              {name: float(val) for name, val in zip(system.coordinate_names, p0)},
                              label, tuple(notes), points, summary)


def _redundancy_notes(system, p0, notes):
    """The redundancy section: rank of C at p0, its dependent rows by name, and the mobility (the
    Gruebler-Kutzbach count n - m - l against n - rank C); systems.dependent_rows."""
    from .dependent_rows import redundancy

    if not system.m + system.l:
        return
    red = redundancy(system, p0)
    notes.append(f"redundancy: rank C = {red.rank} of m + l = {red.rows} rows at the analysed point"
                 + (f"; dependent rows: {', '.join(red.dependent)} (minimum-norm multipliers, reactions not unique)"
                    if red.dependent else "; no dependent rows"))
    notes.append(f"mobility: Gruebler count n - m - l = {red.gruebler}, actual n - rank C = {red.mobility} "
                 f"velocity degrees of freedom")


def _distribution(system, subs, rng, seconds, notes):
    """(growth vector, classification, hidden holonomic, how) of ker C grown by brackets on Phi = 0."""
    P = list(system.coordinates)
    C = sp.Matrix(system.C).subs(subs)
    A = sp.Matrix(system.A).subs(subs)
    fields = bounded(lambda: [sp.Matrix(f) for f in _nullspace_fields(C, A)], seconds * 4)
    if fields is None:
        notes.append(f"the symbolic null space of C was not found within {seconds * 4:g} s; the distribution "
                     "was not analysed")
        return (), "undetermined", 0, "not analysed (time bound)"
    points = [np.asarray(pt) for pt in _manifold_points(system, rng)]
    growth, kept = grow_distribution(fields, P, points, system.k)
    classification, hidden = _classify(growth, system.r, system.k)
    how = f"{NUMERIC}: generic rank at {len(points)} random points on Phi = 0"
    if classification == "completely nonholonomic" and _proved_rank(kept, P, system, growth[-1], seconds):
        how = f"{SYMBOLIC}: the rank {growth[-1]} = k is attained at an exact point (a non-zero minor)"
    elif classification == "holonomic" and A == sp.eye(A.shape[0]) and _involutive_symbolic(fields, C, P, seconds):
        how = f"{SYMBOLIC}: every bracket of the admissible fields is annihilated by C (Frobenius)"
    return growth, classification, hidden, how


def _proved_rank(kept, P, system, rank, seconds):
    """True if an exact evaluation at a point shows a rank x rank minor of ``kept`` non-zero."""
    emb = system.embedding
    if system.m and emb is None:
        return False
    if system.unit_norm_blocks:
        return False  # exact unit quaternions with rational entries exist, but keep this numeric
    if emb is not None:
        q_exact = [sp.Rational(2 + i, 7 + i) for i in range(len(emb.coordinates))]
        point = dict(zip(P, sp.Matrix(emb.g).subs(dict(zip(emb.coordinates, q_exact))).subs(system.parameter_map)))
    else:
        point = {s: sp.Rational(2 + i, 7 + i) for i, s in enumerate(P)}
    point = {s: sp.nsimplify(val) if isinstance(val, float) else val for s, val in point.items()}
    params = {s: sp.nsimplify(val) for s, val in system.parameter_map.items()}

    def run():
        F = sp.Matrix.hstack(*kept).subs(params).subs(point)
        numeric = np.array(F.evalf(30).tolist(), dtype=float)
        _, _, piv = _pivot_rows(numeric, rank)
        minor = F.extract(piv, list(range(rank)))
        det = minor.det(method="berkowitz").evalf(40)
        return abs(det) > 1e-25

    return bool(bounded(run, seconds * 4, default=False))


def _pivot_rows(values, rank):
    """Rows of ``values`` forming a well-conditioned rank x rank block (QR with pivoting on the transpose)."""
    from scipy.linalg import qr

    _, R, piv = qr(values[:, :rank].T, pivoting=True)
    return None, R, sorted(piv[:rank].tolist())


def check_pfaffian(rows, coordinates, *, names=None, seconds: float = 5.0, seed: int = 1) -> ConstraintAnalysis:
    """Analysis of Pfaffian forms given directly: rows (l, n) of coefficients a_i(x) over x."""
    given = list(coordinates)
    x = [sp.Symbol(s.name, real=True) for s in given]
    F = sp.Matrix(rows).subs(dict(zip(given, x)))
    if F.shape[1] != len(x):
        if F.shape[0] == len(x) and F.shape[1] == 1:
            F = F.T
        else:
            raise ValueError(f"check_pfaffian: rows have {F.shape[1]} coefficients but expected {len(x)} "
                             f"(one per coordinate)")
    names = list(names or [f"row {i + 1}" for i in range(F.shape[0])])
    rng = np.random.default_rng(seed)
    reports = tuple(analyze_row(nm, list(F[i, :]), x, rng, seconds) for i, nm in enumerate(names))
    fields = _nullspace_fields(F, sp.eye(len(x)))
    points = _random_points(x, rng)
    r = len(x) - F.rank(simplify=True)
    growth, kept = grow_distribution(fields, x, points, len(x))
    classification, hidden = _classify(growth, r, len(x))
    how = f"{NUMERIC}: generic rank at {len(points)} random points"
    if classification == "holonomic" and _involutive_symbolic(fields, F, x, seconds):
        how = f"{SYMBOLIC}: every bracket of the admissible fields is annihilated by the rows (Frobenius)"
    return ConstraintAnalysis("Pfaffian forms", len(x), 0, F.shape[0], reports, growth, classification, hidden, how,
                              coordinates_used="x = (" + ", ".join(s.name for s in x) + ")")

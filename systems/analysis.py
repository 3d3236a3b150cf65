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
import time
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ._bounded import bounded
from .description import DegreesOfFreedom

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


def _bordered_residual(num, par, p_size):
    """r(x) of the bordered system whose solutions are the singular configurations: x = (p, mu),
    r = [Phi_a(p); Phi_p(p)^T mu; (|mu|^2 - 1) / 2]. A solution has Phi_a = 0 and a unit mu in the
    left null space of Phi_p, so Phi_p has lost rank there (Phi_a holds Phi and the unit norms of
    Euler parameters)."""
    zeros = np.zeros(p_size)

    def residual(x):
        p, mu = x[:p_size], x[p_size:]
        Phi_a = num.holonomic_chart(p, zeros, par)[0]
        Phi_p = num.constraints(p, par)[1]
        return np.concatenate([Phi_a, Phi_p.T @ mu, [(mu @ mu - 1.0) / 2]])

    return residual


def rank_ratio(system, p) -> float:
    """sigma_min / sigma_max of Phi_p at p (0 where Phi_p vanishes)."""
    s = np.linalg.svd(system.numeric.constraints(p, system.params)[1], compute_uv=False)
    return float(s[-1] / s[0]) if s.size and s[0] > 0 else 0.0


def nearest_singular_configuration(system, p, *, tol=1e-9):
    """A configuration p* near p with Phi(p*) = 0 where Phi_p loses rank (sigma_min / sigma_max <= 1e-7),
    found by solving the bordered system from p (trust-region least squares); None where the
    iteration ends elsewhere. ``tol`` bounds |Phi(p*)|."""
    from scipy.optimize import least_squares

    from .state import renormalize

    num, par = system.numeric, system.params
    p = np.asarray(p, float)
    with np.errstate(all="ignore"):
        Phi_p = num.constraints(p, par)[1]
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(Phi_p))):
            return None
        mu0 = np.linalg.svd(Phi_p)[0][:, -1]
        try:
            res = least_squares(_bordered_residual(num, par, len(p)), np.concatenate([p, mu0]), method="trf",
                                xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=200 * (len(p) + system.m))
        except (ValueError, np.linalg.LinAlgError):
            return None
        found = renormalize(system, res.x[:len(p)])
        ok = (np.all(np.isfinite(found)) and np.max(np.abs(num.Phi(found, par)), initial=0.0) <= tol
              and rank_ratio(system, found) <= 1e-7)
    return found if ok else None


def find_singular_configurations(system, rng, starts=12, seconds=60.0):
    """Configurations on Phi = 0 where Phi_p loses rank, found numerically.

    From ``starts`` random consistent configurations (a fixed sequence of ``rng``), the bordered
    system Phi_a(p) = 0, Phi_p(p)^T mu = 0, |mu| = 1 is solved by trust-region least squares
    (:func:`nearest_singular_configuration`), started at mu = the left singular vector of the
    smallest singular value of Phi_p. Its solution set is exactly the singular set, so a start that
    converges lands on it; a point is kept when |Phi| <= 1e-9 and sigma_min / sigma_max <= 1e-7
    there. The number of starts, not the clock, bounds the work; ``seconds`` is only a safety bound,
    named in the summary when it cuts the search. Returns (points as {name: value}, summary text).
    """
    from .state import project_positions, renormalize

    p0 = system.default_state()[0]
    guesses = [renormalize(system, p0 + rng.normal(0.0, 0.7 if i % 2 == 0 else 2.0, p0.shape)) for i in range(starts)]
    found, tried, cut = [], 0, False
    deadline = time.monotonic() + seconds
    for guess in guesses:
        if time.monotonic() > deadline:
            cut = True
            break
        tried += 1
        with np.errstate(all="ignore"):
            start = project_positions(system, guess, max_iter=30)[0]
        p = nearest_singular_configuration(system, start if np.all(np.isfinite(start)) else guess)
        if p is not None and all(np.linalg.norm(p - q) > 1e-6 for q in found):
            found.append(p)
    names = system.coordinate_names
    points = tuple({n: float(x) for n, x in zip(names, p)} for p in found)
    how = f"{tried} random starts (numeric search, bordered least squares{f'; cut at {seconds:g} s' if cut else ''})"
    if not found:
        return points, f"none found from {how}"
    pinned = [f"|{n}| = {abs(found[0][i]):.4g}" for i, n in enumerate(names)
              if len(found) > 1 and np.ptp(np.abs([p[i] for p in found])) < 1e-5 and abs(found[0][i]) > 1e-8]
    where = ("; at every one " + ", ".join(pinned)) if pinned else ""
    return points, f"{len(found)} found from {how}{where}"


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
    points, summary = (find_singular_configurations(system, np.random.default_rng(seed + 1), starts=12)
                       if system.m and singular_search else ((), ""))
    return ConstraintAnalysis(system.name, system.n, system.m, system.l, tuple(rows), growth, classification,
                              hidden, how, jac_rank, singular,
                              {name: float(val) for name, val in zip(system.coordinate_names, p0)},
                              label, tuple(notes), points, summary)


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

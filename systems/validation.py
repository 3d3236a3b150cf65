"""Validation of a system description: every problem collected, reported once.

Structural checks are symbolic (shapes, free symbols, velocity-free constraints — which may
depend on the time symbol — f affine in the multipliers); properties that need a value (symmetry of
M, rank of A, M positive definite on ker C, consistency of the default state at t = 0 and of the
embedding) are checked numerically at the default state and at random points. Dependent constraint
rows are not a problem: systems.redundancy(system) names them. Contacts: systems.contacts.check.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from .contacts import check as contact_problems
from .contacts import free_rows
from .state import normalize_blocks

_RNG_SEED = 20261122


def _names_ok(system, problems):
    syms = list(system.coordinates) + list(system.velocities)
    if not all(isinstance(s, sp.Symbol) for s in syms):
        problems.append("coordinates and velocities must be sympy Symbols")
        return False
    names = [s.name for s in syms]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        problems.append(f"names used twice among coordinates and velocities: {', '.join(dup)}")
    return True


def _shapes(system, problems):
    n_p, n_v = len(system.coordinates), len(system.velocities)
    m, l = system.Phi.shape[0], system.C_nh.shape[0]
    expected = {
        "A": (system.A.shape, (n_p, n_v)),
        "M": (system.M.shape, (n_v, n_v)),
        "d": (system.d.shape, (n_v, 1)),
        "f": (system.f.shape, (n_v, 1)),
        "C_nh": (system.C_nh.shape, (l, n_v)),
        "c_nh": (system.c_nh.shape, (l, 1)),
    }
    ok = True
    for name, (got, want) in expected.items():
        if got != want:
            problems.append(f"{name} has shape {got} but expected {want}")
            ok = False
    if n_p < n_v:
        problems.append(f"fewer coordinates ({n_p}) than velocities ({n_v})")
        ok = False
    if len(system.constraint_names) != m + l:
        problems.append(f"expected {m + l} constraint names (m = {m}, l = {l}) but got "
                        f"{len(system.constraint_names)}")
        ok = False
    elif len(set(system.constraint_names)) != len(system.constraint_names):
        problems.append("constraint names must be distinct")
    if len(system.multipliers) != m + l:
        problems.append(f"expected {m + l} multiplier symbols but got {len(system.multipliers)}")
        ok = False
    if len(system.default_p) != n_p or len(system.default_v) != n_v:
        problems.append(f"default state has {len(system.default_p)} coordinates and "
                        f"{len(system.default_v)} velocities but expected {n_p} and {n_v}")
        ok = False
    if len(system.parameter_values) != len(system.parameters):
        problems.append("parameter values and parameters differ in number")
        ok = False
    for block in system.unit_norm_blocks:
        if len(block) != 4 or any(not 0 <= i < n_p for i in block):
            problems.append(f"unit-norm block {block} must be 4 indices into p")
            ok = False
    return ok


def _symbols(system, problems):
    p, v = set(system.coordinates), set(system.velocities)
    params = {par.symbol for par in system.parameters}
    lam = set(system.multipliers)
    t = {system.time}
    allowed = {
        "A": p | params, "M": p | params, "d": p | v | params | t, "f": p | v | params | t | lam,
        "Phi": p | params | t, "C_nh": p | params | t, "c_nh": p | params | t, "potential": p | params,
    }
    for name, ok_syms in allowed.items():
        extra = getattr(system, name).free_symbols - ok_syms
        if extra:
            names = ", ".join(sorted(s.name for s in extra))
            hint = ""
            if name in ("Phi", "C_nh", "c_nh") and extra & v:
                hint = (" (constraints must be free of velocities: write C_nh as the matrix of C_nh v and c_nh as "
                        "its velocity-free term)")
            elif name in ("M", "A") and extra & v:
                hint = " (M and A depend on p only: the kinetic energy T must be quadratic in the velocities)"
            problems.append(f"{name} contains undeclared or disallowed symbols: {names}{hint}")
    _visual_symbols(system, p | params | t, problems)
    for name, expr in system.invariants:
        extra = expr.free_symbols - p - v - params
        if extra:
            problems.append(f"invariant {name!r} depends on {', '.join(sorted(s.name for s in extra))}, but an "
                            f"invariant may depend on p, v and the parameters only")
    for i, e in enumerate(list(system.default_p) + list(system.default_v)):
        if e.free_symbols - params:
            problems.append(f"default state entry {i} depends on non-parameters: "
                            f"{', '.join(sorted(s.name for s in e.free_symbols - params))}")
    if lam and system.f.free_symbols & lam:
        F = sp.Matrix(system.f).jacobian(list(lam))
        if any(sp.simplify(x) != 0 for x in F.reshape(len(F), 1).jacobian(list(lam))):
            problems.append("f must be affine in the multipliers (non-ideal constraints)")


def _visual_symbols(system, allowed, problems):
    """Visuals (systems.visuals.Visual) with unique names, posed by p, the parameters and t only."""
    from .visuals import Visual

    names = set()
    for i, vis in enumerate(system.visuals):
        if not isinstance(vis, Visual):
            problems.append(f"visuals[{i}] got {vis!r} but expected a systems.Visual")
            continue
        if vis.name in names:
            problems.append(f"visuals: two are named {vis.name!r}; give each its own name")
        names.add(vis.name)
        pieces = list(vis.position) + list(vis.rotation) + list(vis.sizes)
        extra = set().union(*(sp.sympify(e).free_symbols for e in pieces)) - allowed
        if vis.end is not None:  # a force's vector may depend on the multipliers as well
            forces = set(system.multipliers) if vis.kind == "arrow" else set()
            extra |= set().union(*(sp.sympify(e).free_symbols for e in vis.end)) - allowed - forces
        if extra:
            problems.append(f"visual {vis.name!r} depends on {', '.join(sorted(s.name for s in extra))}, but a pose "
                            f"may depend on p, the parameters and t only (an arrow's vector on the multipliers too)")


def _declared_units(system, problems):
    """Declared units name a coordinate, velocity or row and parse (systems.units.parse)."""
    from .units import parse

    names = set(system.coordinate_names) | set(system.velocity_names) | set(system.constraint_names)
    names |= {name for name, _ in system.invariants}
    if system.embedding is not None:
        names |= set(system.embedding.coordinate_names) | set(system.embedding.velocity_names)
    for name, unit in system.units.items():
        if name not in names:
            problems.append(f"units: {name!r} is not a coordinate, velocity, constraint row or invariant of the system")
        elif not isinstance(unit, str) or parse(unit) is None:
            problems.append(f"units: {name!r} got {unit!r} but expected a unit such as 'm', 'rad/s', 'N' or 'kg m^2' "
                            f"(of kg, m, s, N, J, W, Pa, Hz, rad, with ^ powers and one /)")


def _embedding(system, problems, rng):
    emb = system.embedding
    if emb is None:
        return
    n_p = len(system.coordinates)
    k_q = len(emb.coordinates)
    if emb.g.shape != (n_p, 1):
        problems.append(f"embedding g has shape {emb.g.shape} but expected ({n_p}, 1)")
        return
    if emb.inverse.shape != (k_q, 1):
        problems.append(f"embedding inverse has shape {emb.inverse.shape} but expected ({k_q}, 1)")
        return
    if len(emb.velocities) != system.k:
        problems.append(f"embedding has {len(emb.velocities)} reduced velocities but expected "
                        f"k = n - m = {system.k}")
        return
    if emb.A_q.shape != (k_q, system.k):
        problems.append(f"embedding A_q has shape {emb.A_q.shape} but expected ({k_q}, {system.k})")
        return
    params = {par.symbol for par in system.parameters}
    extra = (emb.g.free_symbols - {system.time} | emb.A_q.free_symbols) - set(emb.coordinates) - params
    extra |= emb.inverse.free_symbols - set(system.coordinates) - params - {system.time}
    if extra:
        problems.append(f"embedding contains undeclared symbols: {', '.join(sorted(s.name for s in extra))}")
        return
    num, par = system.numeric, system.params
    q0 = num.inverse(system.default_state()[0], par)
    for trial in range(3):
        t = 0.37 * trial  # a moving embedding p = g(q, t) is checked at several times
        q = normalize_blocks(q0 + 0.3 * rng.standard_normal(k_q) * (trial > 0), emb.unit_norm_blocks)
        g, g_q, A_q = num.embedding(q, par, t)
        res = np.max(np.abs(num.Phi(g, par, t)), initial=0.0)
        if res > 1e-9 * (1 + np.max(np.abs(g))):
            problems.append(f"embedding does not satisfy Phi(g(q)) = 0 (Phi(g(q, t), t) = 0): |Phi| = {res:.2e} "
                            f"at q = {np.round(q, 4)}, t = {t:g}")
            return
        back = num.embedding(num.inverse(g, par, t), par, t)[0]
        if np.max(np.abs(back - g)) > 1e-9 * (1 + np.max(np.abs(g))):
            problems.append(f"embedding inverse does not recover p: |g(h(g(q))) - g(q)| = "
                            f"{np.max(np.abs(back - g)):.2e} at q = {np.round(q, 4)}")
            return
        T = g_q @ A_q
        if np.linalg.matrix_rank(T) < system.k:
            problems.append(f"embedding Jacobian g_q A_q has rank {np.linalg.matrix_rank(T)} < k = {system.k} "
                            f"at q = {np.round(q, 4)}")
            return


def _numeric(system, problems, rng):
    num, par = system.numeric, system.params
    try:
        p0, v0 = system.default_state()
    except (TypeError, ValueError) as exc:
        problems.append(f"default state cannot be evaluated: {exc}")
        return
    bad = [n for n, x in zip(system.coordinate_names + system.velocity_names, np.concatenate([p0, v0]))
           if not np.isfinite(x)]
    if bad:
        problems.append(f"default state has non-finite entries ({', '.join(bad)}); expected finite numbers")
        return
    n = system.n
    c = system.m + system.l
    points = [(p0, v0)] + [(p0 + 0.2 * rng.standard_normal(p0.shape), rng.standard_normal(n)) for _ in range(2)]
    for p, v in points:
        M = num.dynamics(0.0, p, v, par).M
        if not np.all(np.isfinite(M)):
            continue
        if np.max(np.abs(M - M.T)) > 1e-10 * (1 + np.max(np.abs(M))):
            problems.append(f"M is not symmetric (max |M - M^T| = {np.max(np.abs(M - M.T)):.2e} at p = {np.round(p, 3)})")
            break
    A = num.A(p0, par)
    if np.linalg.matrix_rank(A) < n:
        problems.append(f"A does not have full column rank at the default state (rank {np.linalg.matrix_rank(A)} < {n})")
    with np.errstate(all="ignore"):  # rows that are not finite there are named below
        Phi, _, C, c_free = num.constraint_terms(p0, par, 0.0)  # the default state is the state at t = 0;
    # dependent rows are allowed: systems.redundancy(system) names them
    undefined = [name for i, name in enumerate(system.constraint_names)
                 if not (np.all(np.isfinite(C[i])) and np.isfinite(c_free[i]) and (i >= system.m or np.isfinite(Phi[i])))]
    if undefined:
        problems.append(f"constraint rows not finite at the default state (default_p = ({_where(system, p0)})): "
                        f"{', '.join(map(repr, undefined))}; a row's direction (its row of C = [Phi_p A; C_nh]) is "
                        f"undefined there: choose default_p where every row is defined")
        return
    for i, (p, v) in enumerate(points):  # at the default state, then (indefinite only) at the sample points
        if not _positive_definite(system, problems, p, at_default=i == 0):
            break
    scale_p = 1 + np.max(np.abs(p0))
    scale_v = 1 + np.max(np.abs(v0))
    Phi, Cv = free_rows(system, Phi, C @ v0 + c_free, 1e-9 * scale_p)  # contacts may start open or sliding
    if system.m and np.max(np.abs(Phi)) > 1e-9 * scale_p:
        problems.append(f"default state violates Phi = 0 at t = 0: |Phi| = {np.max(np.abs(Phi)):.2e}")
    if c and np.max(np.abs(Cv)) > 1e-9 * scale_v:
        problems.append(f"default state violates C v = 0 (the rows C v + c at t = 0): |C v + c| = "
                        f"{np.max(np.abs(Cv)):.2e}")
    for block in system.unit_norm_blocks:
        if abs(np.linalg.norm(p0[list(block)]) - 1) > 1e-9:
            problems.append(f"default state: quaternion block {block} is not of unit norm")
    _body_kinematics(system, problems, [p for p, _ in points])
    if not problems:
        _singular_default(system, problems, p0, rng)


def _where(system, p) -> str:
    return ", ".join(f"{n}={x:.4g}" for n, x in zip(system.coordinate_names, p))


def _positive_definite(system, problems, p, at_default) -> bool:
    """M positive definite on the null space of C at p: at the default state a singular or indefinite
    M is a problem, at a sample point near it an indefinite one (a negative eigenvalue beyond
    rounding). False where a problem was added."""
    num, par = system.numeric, system.params
    M = num.dynamics(0.0, p, np.zeros(system.n), par).M
    if not np.all(np.isfinite(M)):
        if at_default:
            problems.append("M is not finite at the default state")
        return not at_default
    scale = max(1.0, float(np.max(np.abs(M))))
    negative = float(np.min(np.linalg.eigvalsh((M + M.T) / 2)))
    if negative < -1e-9 * scale:
        where = "the default state" if at_default else "a configuration near the default state"
        problems.append(f"M is not positive definite at {where} (p = ({_where(system, p)})): it is indefinite "
                        f"(smallest eigenvalue {negative:.3g}), so the kinetic energy T = v^T M v / 2 is negative for "
                        f"some velocity; M must be positive semi-definite (massless coordinates, zero eigenvalues, "
                        f"are allowed)")
        return False
    C = num.constraint_terms(p, par, 0.0)[2]
    if not np.all(np.isfinite(C)):
        return True  # the rows' own check names them
    N = _null_space(C) if C.shape[0] else np.eye(system.n)
    lowest = float(np.min(np.linalg.eigvalsh(N.T @ M @ N))) if N.size else 1.0
    if lowest > (1e-12 if at_default else -1e-9) * scale:
        return True
    kind = "indefinite" if lowest < 0 else "singular"
    where = "the default state" if at_default else "a configuration near the default state"
    problems.append(f"M is not positive definite on the null space of C at {where} (p = ({_where(system, p)})): it "
                    f"is {kind} (smallest eigenvalue {lowest:.3g}); the kinetic energy (T, or the masses and "
                    f"inertias) must be positive for every admissible velocity at every configuration")
    return False


def _null_space(C):
    _, s, Vt = np.linalg.svd(C)
    return Vt[int(np.sum(s > 1e-12 * max(1.0, s.max(initial=0)))):].T


def _singular_default(system, problems, p0, rng):
    """The default configuration is not a singular one: where Phi_p has lower rank at p0 than at
    consistent configurations nearby (projected from a few perturbed points), p0 sits on a singular
    set (rows dependent everywhere, a redundant mechanism, are not a problem). The rows of contacts
    open at p0 do not count."""
    from .dependent_rows import independent_rows
    from .state import project_positions

    if not system.m:
        return
    num, par = system.numeric, system.params
    Phi0, Phi_p0 = num.constraints(p0, par, 0.0)[:2]
    gap_tol, names = 1e-9 * (1.0 + np.max(np.abs(p0))), system.constraint_names
    normals = [names.index(c.normal) for c in system.contacts]
    opened = {i for i in normals if i < system.m and -Phi0[i] > gap_tol}  # contacts open at p0 (gap > 0)
    kept = [i for i in range(system.m) if i not in opened]
    rank0 = independent_rows(Phi_p0[kept])[0]
    if rank0 == len(kept):
        return
    for _ in range(3):
        with np.errstate(all="ignore"):
            try:
                p, err, _ = project_positions(system, p0 + 0.05 * rng.standard_normal(p0.shape))
            except np.linalg.LinAlgError:
                continue
        if not (np.all(np.isfinite(p)) and err <= 1e-9 * (1 + np.max(np.abs(p)))):
            continue
        rank = independent_rows(num.constraints(p, par, 0.0)[1][kept])[0]
        if rank > rank0:
            problems.append(f"default_p got ({_where(system, p0)}), a singular configuration: Phi_p has rank {rank0} "
                            f"there but {rank} at consistent configurations nearby (e.g. p = ({_where(system, p)})), "
                            f"so the formulations in coordinates q cannot start there; expected a default state "
                            f"away from the singular set: choose default_p where Phi_p has full rank "
                            f"(systems.analyze_constraints(system, point=p) gives its rank)")
            return


def _body_indices(system, problems):
    """Body blocks: valid, disjoint indices; rotations among the unit-norm blocks."""
    n_p, n_v = len(system.coordinates), len(system.velocities)
    used_p, used_v = [], []
    for body in system.bodies:
        sizes = (len(body.rotation), len(body.position), len(body.angular), len(body.linear))
        if sizes != (4, 3, 3, 3) or any(not 0 <= i < n_p for i in body.coordinates) or any(
                not 0 <= i < n_v for i in body.velocities):
            problems.append(f"body {body.name!r}: expected 4 + 3 indices into p and 3 + 3 into v but got "
                            f"{body.rotation}, {body.position}, {body.angular}, {body.linear}")
            continue
        if body.velocity not in ("twist", "hybrid"):
            problems.append(f"body {body.name!r}: velocity got {body.velocity!r} but expected 'twist' or 'hybrid'")
        if body.rotation not in system.unit_norm_blocks:
            problems.append(f"body {body.name!r}: its rotation {body.rotation} is not among the unit-norm blocks")
        used_p += body.coordinates
        used_v += body.velocities
    if len(set(used_p)) != len(used_p) or len(set(used_v)) != len(used_v):
        problems.append("body blocks share coordinates or velocities")


def _body_kinematics(system, problems, points):
    """A(p) on every body block is the Euler-parameter and position kinematics it declares."""
    from .builders.rotations import quaternion_rates_matrix, rotation_matrix

    for body in system.bodies:
        for p in points:
            A = system.numeric.A(p, system.params)
            e = p[list(body.rotation)]  # as A is written: G linear, R quadratic in e
            want = np.zeros((7, A.shape[1]))
            want[:4, list(body.angular)] = quaternion_rates_matrix(e)
            want[4:, list(body.linear)] = rotation_matrix(e) if body.velocity == "twist" else np.eye(3)
            got = A[list(body.coordinates)]
            if np.max(np.abs(got - want)) > 1e-9 * (1 + np.max(np.abs(want))):
                problems.append(f"body {body.name!r}: A on its rows is not e' = G(e) omega, r' = "
                                f"{'R' if body.velocity == 'twist' else 'I'} linear (max difference "
                                f"{np.max(np.abs(got - want)):.2e} at p = {np.round(p, 3)})")
                break


def _parameter_values(system, problems):
    for par, value in zip(system.parameters, system.parameter_values):
        sym = par.symbol
        if not np.isfinite(value):
            problems.append(f"parameter {par.name} got {value} but expected a finite number")
        elif sym.is_positive and not value > 0:
            problems.append(f"parameter {par.name} got {value:g} but expected a positive value")
        elif sym.is_nonnegative and not value >= 0:
            problems.append(f"parameter {par.name} got {value:g} but expected a value >= 0")


def _independent_velocities(system, problems):
    names = system.independent_velocities
    if not names:
        return
    pool = set(system.velocity_names)
    if system.embedding is not None:
        pool |= set(system.embedding.velocity_names)
    unknown = [x for x in names if x not in pool]
    if unknown:
        problems.append(f"independent velocities {', '.join(unknown)} are neither velocities nor reduced velocities")
    if len(names) != system.r:
        problems.append(f"expected r = n - m - l = {system.r} independent velocities but got {len(names)}")


def speed_problem(expr, velocities, allowed) -> str:
    """What is wrong with a quasi-velocity ``expr`` meant as y v, linear in ``velocities`` with
    coefficients in the ``allowed`` symbols ('' where nothing is)."""
    unknown = sorted(str(s) for s in expr.free_symbols - set(allowed) - set(velocities))
    if unknown:
        return f"names {', '.join(unknown)}, which is not a coordinate, velocity or parameter"
    row = sp.Matrix([expr]).jacobian(list(velocities))
    if row.free_symbols & set(velocities) or sp.expand(expr - (row * sp.Matrix(velocities))[0]) != 0:
        return ("must be linear in the velocities, without a constant term, with coefficients in the coordinates "
                "and parameters")
    return ""


def _speeds(system, problems):
    """Each declared quasi-velocity: a new name, linear in v, coefficients in p and the parameters."""
    taken = set(system.coordinate_names) | set(system.velocity_names) | set(system.parameter_names)
    allowed = set(system.coordinates) | {par.symbol for par in system.parameters}
    for name, expr in system.speeds.items():
        if name in taken or not name.isidentifier():
            problems.append(f"speed {name!r} must be a new identifier, not a name of p, v or a parameter")
        elif why := speed_problem(expr, system.velocities, allowed):
            problems.append(f"speed {name!r} = {expr} {why}")


def validate(system) -> list:
    """Every problem of ``system`` as a list of messages (empty when the description is valid)."""
    problems: list = []
    if not _names_ok(system, problems) or not _shapes(system, problems):
        return problems
    _symbols(system, problems)
    _parameter_values(system, problems)
    _body_indices(system, problems)
    _declared_units(system, problems)
    problems += contact_problems(system)
    if problems:
        return problems
    _independent_velocities(system, problems)
    _speeds(system, problems)
    rng = np.random.default_rng(_RNG_SEED)
    try:
        _numeric(system, problems, rng)
        if not problems:
            _embedding(system, problems, rng)
    except (ValueError, TypeError, ZeroDivisionError, np.linalg.LinAlgError) as exc:
        problems.append(f"numeric evaluation failed: {type(exc).__name__}: {exc}")
    return problems

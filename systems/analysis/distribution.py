"""The distribution of admissible directions and its growth by Lie brackets (DESIGN section 4).

ker C (holonomic rows included, so the directions are tangent to Phi = 0) is spanned by fields
over the coordinates; brackets of the first-level fields with the newest level are added while
they raise the generic rank, which gives the growth vector (Bona, *Generalized coordinates and
constraints*; Bloch, *Nonholonomic Mechanics and Control*, the growth vector of a distribution).
Numeric ranks at random points decide; the symbolic proofs (an exact non-zero minor, brackets
annihilated by C) are tried where time remains. Every step runs within a shared TimeBudget.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from ..dependent_rows import independent_rows
from .bounded import TimeBudget
from .pfaffian_rows import NUMERIC, _is_zero


def _bracket(X, Y, x):
    return Y.jacobian(x) * X - X.jacobian(x) * Y


def _rank(values, tol=1e-8):
    s = np.linalg.svd(values, compute_uv=False)
    return int(np.sum(s > tol * max(1.0, s[0] if s.size else 1.0)))


def _nullspace_fields(C, A, sampler=None, clock=None, seconds=5.0):
    """Columns of A N with N a basis of ker C (sympy), the admissible directions p'.

    With a sampler, the echelon form of C decides whether a candidate pivot is zero by its value
    at the sampler's first point (30 digits; an expression that is not identically zero vanishes
    there with probability zero) instead of by simplification, and skips sympy's intermediate
    simplification of products; the entries of C before and of N after are cancelled and
    simplified (``seconds`` each, within ``clock``). On the car with three trailers this takes
    7 s instead of 30 s and leaves entries of 21 operations instead of 264, so the brackets that
    follow are cheap.
    """
    n = C.shape[1]
    if not C.shape[0]:
        return [sp.Matrix(A) * sp.eye(n)[:, i] for i in range(n)]
    if sampler is None:
        return [sp.Matrix(A) * col for col in C.nullspace(simplify=False)]
    from sympy.matrices.utilities import dotprodsimp

    at = {s: sp.Float(float(v), 30) for s, v in zip(sampler.x + sampler.params, sampler.points[0])}
    at.update({s: sp.Float(float(v), 30) for s, v in sampler.values.items()})

    def is_zero(e):
        if e.is_number:
            return bool(e.is_zero) if e.is_zero is not None else abs(complex(e.evalf(30))) < 1e-20
        value = complex(e.xreplace(at).evalf(30))
        return abs(value) < 1e-20

    clock = clock or TimeBudget(None)

    def tidy(e):
        e = clock.run(lambda: sp.cancel(e), seconds, default=e)
        return clock.run(lambda: sp.simplify(e), seconds, default=e)

    with dotprodsimp(False):
        N = C.applyfunc(tidy).nullspace(simplify=False, iszerofunc=is_zero)
    return [sp.Matrix(A) * col.applyfunc(tidy) for col in N]


def _involutive_symbolic(fields, C, x, seconds, clock):
    """True if every bracket of ``fields`` is annihilated by C (valid where ker C = span fields)."""
    for X, Y in itertools.combinations(fields, 2):
        Z = clock.run(lambda: C * _bracket(X, Y, x), seconds, label="the symbolic Frobenius test of the fields")
        if Z is None or not all(_is_zero(e, seconds, clock) for e in Z):
            return False
    return True


def _classify(growth, r, k, complete=True):
    """(classification, hidden holonomic) from the growth vector; "undetermined" where the time
    bound cut the growth below k."""
    if not growth:
        return "undetermined", 0
    final = growth[-1]
    if final >= k:
        return "completely nonholonomic", 0
    if not complete:
        return "undetermined", 0
    if final == r:
        return "holonomic", k - final
    return "partially nonholonomic", k - final


def _growth_how(growth, complete, where, count):
    if complete:
        return f"{NUMERIC}: generic rank at {count} random points{where}"
    if not growth:
        return "undecided: the fields were not evaluated within the time bound"
    return (f"undecided: the time bound was reached while the distribution grew (rank at least {growth[-1]}; "
            f"growth vector so far {growth})")


def _proved_rank(kept, P, system, rank, seconds, clock):
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
        piv = sorted(independent_rows(numeric[:, :rank])[1][:rank].tolist())  # a well-conditioned block
        minor = F.extract(piv, list(range(rank)))
        det = minor.det(method="berkowitz").evalf(40)
        return abs(det) > 1e-25

    return bool(clock.run(run, seconds * 4, default=False, label="the symbolic proof of the rank (an exact minor)"))

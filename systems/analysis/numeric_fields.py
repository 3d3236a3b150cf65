"""Numeric first: the growth vector and the per-row tests at random points, from lambdified matrices.

The matrices (C, A, the Pfaffian forms) are lambdified once and evaluated at complex points.
Derivatives are taken by the trapezoidal rule on a small circle in the complex plane (Lyness &
Moler, *Numerical differentiation of analytic functions*, 1967): for F analytic,
    D_v F(z) = 1/(N s) sum_k F(z + s w^k v) w^-k,   w = exp(2 pi i / N),
with an error of order s^N (the Taylor terms beyond N) and rounding of order eps / s, so brackets
of brackets (derivatives of derivatives) keep about ten digits to the sixth level, where real
finite differences lose several digits per level. The mean of the circle values is F(z) itself
to the same order, so a nested bracket needs N evaluations of the level below, not N + 1.

The fields of ker C at a base point are the smooth frame N = [-C_d^-1 C_f; I] (C_d: the pivot
columns of independent rows chosen at the base point), mapped by A; a bracket is a word of field
indices, [X_i, Z_w] = D Z_w . X_i - D X_i . Z_w.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp
from scipy.linalg import qr

from ..dependent_rows import independent_rows

NODES = 8        # points on the circle of each derivative
RADIUS = 0.02    # |s v|: the circle's radius in the coordinates
RANK_TOL = 1e-6  # singular values of the stacked unit columns below this count as zero
ZERO_COL = 1e-9  # a column shorter than this times the first level's largest is zero


def matrix_function(matrix, symbols):
    """f(Z (b, len(symbols)) complex) -> (b, rows, cols): ``matrix`` evaluated at b points."""
    matrix = sp.Matrix(matrix)
    rows, cols = matrix.shape
    fn = sp.lambdify(list(symbols), matrix.tolist(), modules="numpy", cse=True)

    def evaluate(Z):
        Z = np.asarray(Z, dtype=complex)
        out = np.empty((Z.shape[0], rows, cols), dtype=complex)
        with np.errstate(all="ignore"):
            values = fn(*Z.T)
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                out[:, i, j] = value
        return out

    return evaluate


def derivative(F, Z, V):
    """D_V F at points Z (b, d) along V (b, nx), nx <= d (the leading components move):
    (values at Z, derivatives), both F's output shape, by the circle rule (module docstring)."""
    b, nx = V.shape
    size = np.linalg.norm(V, axis=1)
    s = RADIUS / np.where(size > 0, size, 1.0)
    w = np.exp(2j * np.pi * np.arange(NODES) / NODES)
    shift = np.zeros((NODES, b, Z.shape[1]), dtype=complex)
    shift[:, :, :nx] = w[:, None, None] * (s[:, None] * V)[None]
    values = np.asarray(F((Z[None] + shift).reshape(NODES * b, -1)))
    values = values.reshape((NODES, b) + values.shape[1:])
    extra = (1,) * (values.ndim - 2)
    center = values.mean(axis=0)
    deriv = np.tensordot(w.conj(), values, axes=(0, 0)) / (NODES * s.reshape((b,) + extra))
    return center, np.where(size.reshape((b,) + extra) > 0, deriv, 0.0)


class Frame:
    """The fields A N of ker C near a base point z0: N = [-C_d^-1 C_f; I] with the rows and pivot
    columns chosen at z0 (so N is smooth near z0). fields(Z) -> (b, count, nx)."""

    def __init__(self, C_fn, A_fn, z0, nx):
        self.C_fn, self.A_fn, self.nx = C_fn, A_fn, nx
        C0 = C_fn(np.asarray(z0, dtype=complex)[None])[0].real
        self.ok = bool(np.all(np.isfinite(C0)))
        rank, order = independent_rows(C0) if self.ok and C0.shape[0] else (0, np.zeros(0, int))
        self.rows = np.sort(order[:rank])
        cols = qr(C0[self.rows], pivoting=True)[2] if rank else np.arange(C0.shape[1])
        self.pivots, self.free = cols[:rank], np.sort(cols[rank:])
        self.rank, self.count = rank, C0.shape[1] - rank

    def fields(self, Z):
        C, A = self.C_fn(Z)[:, self.rows], self.A_fn(Z)
        N = np.zeros((Z.shape[0], C.shape[2], self.count), dtype=complex)
        N[:, self.free, np.arange(self.count)] = 1.0
        if self.rank:
            N[:, self.pivots, :] = -np.linalg.solve(C[:, :, self.pivots], C[:, :, self.free])
        return np.einsum("bij,bjk->bki", A, N)[:, :, :self.nx]

    def word(self, word, Z):
        """Values (b, nx) of the bracket ``word`` = (i, j, ...) = [X_i, [X_j, ...]] at Z."""
        if len(word) == 1:
            return self.fields(Z)[:, word[0]]
        X = self.fields(Z)[:, word[0]]
        inner = lambda P: self.word(word[1:], P)  # noqa: E731
        W, dW = derivative(inner, Z, X)
        return dW - derivative(lambda P: self.fields(P)[:, word[0]], Z, W)[1]


def column_rank(columns, scale):
    """Rank of real columns (nx, c): columns shorter than ZERO_COL * scale are zero, the rest are
    made unit length; singular values above RANK_TOL count."""
    if not columns.size:
        return 0
    size = np.linalg.norm(columns, axis=0)
    keep = size > ZERO_COL * max(scale, 1e-300)
    if not np.any(keep):
        return 0
    unit = columns[:, keep] / size[keep]
    s = np.linalg.svd(unit, compute_uv=False)
    return int(np.sum(s > RANK_TOL * s[0]))


class NumericGrowth:
    """The growth vector of ker C (mapped by A) by brackets of numeric fields at base points.

    C_fn, A_fn: matrix functions over z = (x, params) (see :func:`matrix_function`); nx: the
    number of coordinates the fields live on; points: base points (count, len(z))."""

    def __init__(self, C_fn, A_fn, points, nx):
        frames = [Frame(C_fn, A_fn, z, nx) for z in points]
        frames = [(f, z) for f, z in zip(frames, points) if f.ok]
        top = max((f.rank for f, _ in frames), default=0)
        self.frames = [(f, np.asarray(z, dtype=complex)[None]) for f, z in frames if f.rank == top]
        self.count = self.frames[0][0].count if self.frames else 0
        self.values = {}
        first = [self._values((i,)) for i in range(self.count)]
        self.scale = max((float(np.max(np.abs(v))) for v in first if v.size), default=1.0)

    @property
    def points(self) -> int:
        return len(self.frames)

    def _values(self, word):
        if word not in self.values:
            self.values[word] = np.array([f.word(word, z)[0].real for f, z in self.frames])
        return self.values[word]

    def rank(self, words):
        """Generic rank of the brackets ``words``: the largest over the base points."""
        if not words or not self.frames:
            return 0
        stacks = [np.column_stack([self._values(w)[i] for w in words]) for i in range(self.points)]
        return max(column_rank(s, self.scale) if np.all(np.isfinite(s)) else 0 for s in stacks)

    def grow(self, target, clock, max_levels=None):
        """(growth vector, complete, kept words): brackets of the first level with the newest are kept where they
        raise the generic rank, until it stops or reaches target; complete False where cut by clock."""
        kept = [(i,) for i in range(self.count)]
        rank = self.rank(kept)
        growth, newest = [rank], list(kept)
        while rank < target and len(growth) < (max_levels or target + 1):
            added = []
            pairs = ([(i, (j,)) for i, j in itertools.combinations(range(self.count), 2)] if len(growth) == 1
                     else [(i, w) for i in range(self.count) for w in newest])
            level = f"the numeric growth of the distribution (level {len(growth) + 1})"
            for i, w in pairs:
                word = (i,) + w
                higher = clock.run(lambda: self.rank(kept + added + [word]), label=level)
                if higher is None:
                    return tuple(growth), False, kept
                if higher > rank + len(added):
                    added.append(word)
                    if rank + len(added) >= target:
                        break
            if not added:
                break
            kept += added
            rank += len(added)
            growth.append(rank)
            newest = added
        return tuple(growth), True, kept


def form_derivatives(a_fn, points, nx):
    """(a (count, l, nx), Da (count, l, nx, nx)) with Da[., r, i, k] = d a_ri / d x_k at the points."""
    Z = np.asarray(points, dtype=complex)
    a = a_fn(Z)
    Da = np.empty(a.shape + (nx,), dtype=complex)
    for k in range(nx):
        V = np.zeros((Z.shape[0], nx))
        V[:, k] = 1.0
        Da[..., k] = derivative(a_fn, Z, V)[1]
    return a.real, Da.real


def row_residuals(a, Da):
    """Per row: (curl values (count, pairs), Frobenius values (count, triples), scales) in the order
    of the pairs i < j and triples i < j < k of systems.analysis.pfaffian_rows."""
    nx = a.shape[2]
    out = []
    for r in range(a.shape[1]):
        A, D = a[:, r], Da[:, r]        # D[:, i, k] = d a_i / d x_k
        curl = np.stack([D[:, i, j] - D[:, j, i] for i, j in itertools.combinations(range(nx), 2)], axis=1) \
            if nx > 1 else np.zeros((a.shape[0], 0))
        frob = [A[:, i] * (D[:, k, j] - D[:, j, k]) + A[:, j] * (D[:, i, k] - D[:, k, i])
                + A[:, k] * (D[:, j, i] - D[:, i, j]) for i, j, k in itertools.combinations(range(nx), 3)]
        frob = np.stack(frob, axis=1) if frob else np.zeros((a.shape[0], 0))
        size_a = float(np.nanmax(np.abs(A), initial=0.0))
        size_d = float(np.nanmax(np.abs(D), initial=0.0))
        out.append((curl, frob, (1.0 + size_d, (1.0 + size_a) * (1.0 + size_d))))
    return out

"""Symbolic factorization of a matrix with a fixed sparsity pattern: the program of an LU
factorization without pivoting, in the given order, that touches only the structurally non-zero
entries and their fill-in (the analyse phase of sparse direct solvers, e.g. Davis, Direct Methods
for Sparse Linear Systems, ch. 6). formulations.kernels.sparse_linalg runs the program numerically.

For the saddle-point matrix K = [[M, C^T - F], [C, 0]] the order is M's rows first: for a
symmetric positive definite M and C of full rank every pivot is non-zero (the M block's are those
of M's Cholesky-like elimination, the last c those of the Schur complement -C M^-1 (C^T - F)), so
no pivoting is needed; a pivot that vanishes numerically sends the caller to the dense solve with
partial pivoting.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SparseLU:
    """The program of the LU factorization of an (s, s) matrix of a fixed pattern.

    The values live in a flat array ``vals`` (nnz,), at the positions ``entries``. Factoring:
    for each column j, the entries of L below the pivot (indices lower[lower_ptr[j]:lower_ptr[j+1]],
    rows lower_row) are divided by vals[pivot[j]], then vals[update_target] -= vals[update_left] *
    vals[update_right] over update_ptr[j]:update_ptr[j+1]. Back substitution uses the entries of U
    right of the pivot, row by row (upper[upper_ptr[j]:upper_ptr[j+1]], columns upper_col).
    """

    size: int
    nnz: int
    entries: tuple  # ((row, col), ...) of vals
    structural: frozenset  # the (row, col) of the pattern (the rest of entries: fill-in and zero diagonals)
    pivot: np.ndarray
    lower_ptr: np.ndarray
    lower: np.ndarray
    lower_row: np.ndarray
    update_ptr: np.ndarray
    update_target: np.ndarray
    update_left: np.ndarray
    update_right: np.ndarray
    upper_ptr: np.ndarray
    upper: np.ndarray
    upper_col: np.ndarray

    @property
    def operations(self) -> int:
        """Multiply-adds of one factorization."""
        return int(self.update_target.size + self.lower.size)


def symbolic_lu(pattern) -> SparseLU:
    """The program of the LU factorization without pivoting of a matrix whose structurally non-zero
    entries are ``pattern`` (s, s) booleans; every diagonal entry is taken as structural (a zero
    there is filled before it becomes a pivot, or the numeric pivot check fails)."""
    pattern = np.asarray(pattern, dtype=bool)
    s = pattern.shape[0]
    if pattern.shape != (s, s):
        raise ValueError(f"symbolic_lu got a pattern of shape {pattern.shape} but expected a square one")
    index: dict = {}
    entries = []

    def slot(i, j):
        key = (i, j)
        if key not in index:
            index[key] = len(entries)
            entries.append(key)
        return index[key]

    rows_of = [set() for _ in range(s)]  # column j: rows i > j with an entry
    cols_of = [set() for _ in range(s)]  # row i: columns k > i with an entry
    for i, j in zip(*np.nonzero(pattern | np.eye(s, dtype=bool))):
        slot(int(i), int(j))
        if i > j:
            rows_of[j].add(int(i))
        elif j > i:
            cols_of[i].add(int(j))
    pivot, lower_ptr, lower, lower_row = [], [0], [], []
    update_ptr, target, left, right = [0], [], [], []
    for j in range(s):
        pivot.append(slot(j, j))
        below, beyond = sorted(rows_of[j]), sorted(cols_of[j])
        for i in below:
            lower.append(index[(i, j)])
            lower_row.append(i)
            for k in beyond:
                target.append(slot(i, k))  # fill-in where (i, k) was empty
                left.append(index[(i, j)])
                right.append(index[(j, k)])
                if i > k:
                    rows_of[k].add(i)
                elif k > i:
                    cols_of[i].add(k)
        lower_ptr.append(len(lower))
        update_ptr.append(len(target))
    upper_ptr, upper, upper_col = [0], [], []
    for j in range(s):
        for k in sorted(cols_of[j]):
            upper.append(index[(j, k)])
            upper_col.append(k)
        upper_ptr.append(len(upper))
    arr = lambda x: np.asarray(x, dtype=np.int64)
    structural = frozenset((int(i), int(j)) for i, j in zip(*np.nonzero(pattern)))
    return SparseLU(s, len(entries), tuple(entries), structural, arr(pivot), arr(lower_ptr), arr(lower), arr(lower_row),
                    arr(update_ptr), arr(target), arr(left), arr(right), arr(upper_ptr), arr(upper),
                    arr(upper_col))


def block_pattern(nonzero, offset: int, rows: int, cols: int) -> np.ndarray:
    """The (rows, cols) booleans of a matrix stored row-major at ``offset`` of a flat output whose
    structural non-zeros are the indices ``nonzero`` (NumericModel.nonzero)."""
    return np.array([[offset + i * cols + j in nonzero for j in range(cols)] for i in range(rows)],
                    dtype=bool).reshape(rows, cols)

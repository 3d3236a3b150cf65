"""The numeric side of formulations.kernels.sparse_pattern: an LU factorization and solve without
pivoting that run a precomputed program over the non-zero entries only (numba; imported by
the compiled formulation modules). The program's arrays are a SparseLU's, which the models carry."""
from __future__ import annotations

import math

import numba
import numpy as np

# a pivot below this share of the largest sends the caller to the dense solve with partial pivoting
SPARSE_PIVOT_RTOL = 1e-10


@numba.njit(cache=True)
def sparse_factor(vals, pivot, lower_ptr, lower, lower_row, update_ptr, update_target, update_left, update_right,
           upper_ptr, upper, upper_col):
    """vals overwritten by the LU factors (L's multipliers below the diagonal); False where a pivot
    is not finite or falls below SPARSE_PIVOT_RTOL times the largest one."""
    big = 0.0
    for j in range(pivot.size):
        d = vals[pivot[j]]
        a = abs(d)
        if not (a > SPARSE_PIVOT_RTOL * big) or not math.isfinite(d):
            return False
        if a > big:
            big = a
        inv = 1.0 / d
        for e in range(lower_ptr[j], lower_ptr[j + 1]):
            vals[lower[e]] *= inv
        for e in range(update_ptr[j], update_ptr[j + 1]):
            vals[update_target[e]] -= vals[update_left[e]] * vals[update_right[e]]
    return True


@numba.njit(cache=True)
def sparse_solve(vals, x, pivot, lower_ptr, lower, lower_row, update_ptr, update_target, update_left, update_right,
          upper_ptr, upper, upper_col):
    """x overwritten by the solution of K x = x for the factors in vals (sparse_factor); False where the
    solution is not finite."""
    s = pivot.size
    for j in range(s):
        xj = x[j]
        if xj != 0.0:
            for e in range(lower_ptr[j], lower_ptr[j + 1]):
                x[lower_row[e]] -= vals[lower[e]] * xj
    for j in range(s - 1, -1, -1):
        acc = x[j]
        for e in range(upper_ptr[j], upper_ptr[j + 1]):
            acc -= vals[upper[e]] * x[upper_col[e]]
        acc /= vals[pivot[j]]
        if not math.isfinite(acc):
            return False
        x[j] = acc
    return True


@numba.njit(cache=True)
def sparse_mv(buf, rows, index, cols, x, out):
    """out = X x for X given by its non-zero entries buf[index[e]] at (rows[e], cols[e])
    (formulations.kernels.dependent.dependent_model); out (r,) overwritten."""
    out[:] = 0.0
    for e in range(index.size):
        out[rows[e]] += buf[index[e]] * x[cols[e]]


@numba.njit(cache=True)
def sparse_solve_columns(vals, X, pivot, lower_ptr, lower, lower_row, update_ptr, update_target, update_left,
                  update_right, upper_ptr, upper, upper_col):
    """X (s, k) overwritten by the solution of K X = X, column by column as sparse_solve; False where it
    is not finite."""
    x = np.empty(X.shape[0])
    for c in range(X.shape[1]):
        for i in range(X.shape[0]):
            x[i] = X[i, c]
        if not sparse_solve(vals, x, pivot, lower_ptr, lower, lower_row, update_ptr, update_target, update_left,
                     update_right, upper_ptr, upper, upper_col):
            return False
        for i in range(X.shape[0]):
            X[i, c] = x[i]
    return True

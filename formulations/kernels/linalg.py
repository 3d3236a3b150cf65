"""Small dense linear algebra in numba for the compiled formulation modules: products, solves by
Gaussian elimination with partial pivoting, determinants and the resolved reactions.

Plain loops rather than numpy's BLAS/LAPACK bindings: the matrices of one evaluation are small
(tens of rows), where call overhead dominates, and loops compile in a fraction of the time. What
needs an SVD (minimum-norm least squares, pseudo-inverses, singular values) is LAPACK's, called by
formulations.kernels.lapack. Imported by compiled code only (it needs numba);
compiled once and cached by numba.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from formulations.kernels.lapack import least_squares


@numba.njit(cache=True)
def copy_into(dst, src):
    """dst[:, :] = src for 2-d arrays of one shape (ValueError otherwise), by loops: numba's slice
    assignment of a 2-d array compiles a shape-error message, some 4 s per process."""
    if dst.shape[0] != src.shape[0] or dst.shape[1] != src.shape[1]:
        raise ValueError("copy_into: the arrays differ in shape")
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]



@numba.njit(cache=True)
def put(dst, src):
    """dst[:] = src for 1-d arrays of one length (ValueError otherwise), by a loop: numba's slice
    assignment of an array compiles a shape-error message, seconds per process (see copy_into)."""
    if dst.shape[0] != src.shape[0]:
        raise ValueError("put: the arrays differ in length")
    for i in range(src.shape[0]):
        dst[i] = src[i]


@numba.njit(cache=True)
def mv(A, x):
    """A x for A (r, c), x (c,)."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        out[i] = acc
    return out


@numba.njit(cache=True)
def tmv(A, x):
    """A^T x for A (r, c), x (r,)."""
    out = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(A.shape[1]):
                out[j] += A[i, j] * xi
    return out


@numba.njit(cache=True)
def mm(A, B):
    """A B for A (r, k), B (k, c)."""
    out = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            a = A[i, k]
            if a != 0.0:
                for j in range(B.shape[1]):
                    out[i, j] += a * B[k, j]
    return out


@numba.njit(cache=True)
def tmm(A, B):
    """A^T B for A (k, r), B (k, c)."""
    out = np.zeros((A.shape[1], B.shape[1]))
    for k in range(A.shape[0]):
        for i in range(A.shape[1]):
            a = A[k, i]
            if a != 0.0:
                for j in range(B.shape[1]):
                    out[i, j] += a * B[k, j]
    return out


@numba.njit(cache=True)
def _pivot(LU, j):
    """The row of the largest |LU[i, j]|, i >= j, or -1 where the column is zero."""
    piv, big = j, abs(LU[j, j])
    for i in range(j + 1, LU.shape[0]):
        a = abs(LU[i, j])
        if a > big:
            big, piv = a, i
    return piv if big > 0.0 else -1


@numba.njit(cache=True)
def _swap_rows(X, i, j):
    for c in range(X.shape[1]):
        tmp = X[i, c]
        X[i, c] = X[j, c]
        X[j, c] = tmp


@numba.njit(cache=True)
def solve(K, B):
    """(X, ok): K X = B for K (n, n), B (n, k) by Gaussian elimination with partial pivoting; ok
    False where a pivot vanishes or X is not finite. K and B are not changed."""
    n = K.shape[0]
    LU = np.empty((n, n))
    copy_into(LU, K)
    X = np.empty((n, B.shape[1]))
    copy_into(X, B)
    perm = np.empty(n, np.int64)
    if not lu_in_place(LU, perm):
        return X, False
    return X, lu_solve(LU, perm, X)


@numba.njit(cache=True)
def solve1(K, b):
    """(x, ok): K x = b for a vector b (as solve)."""
    LU = np.empty(K.shape)
    copy_into(LU, K)
    x = b.copy()
    return x, solve_in_place(LU, x)


@numba.njit(cache=True)
def solve_in_place(K, x):
    """K x = b with b given in x, by Gaussian elimination with partial pivoting; K is overwritten by
    its factors and x by the solution (no allocation: for work arrays). False where a pivot vanishes
    or x is not finite."""
    n = K.shape[0]
    for j in range(n):
        piv = _pivot(K, j)
        if piv < 0:
            return False
        if piv != j:
            _swap_rows(K, j, piv)
            tmp = x[j]
            x[j] = x[piv]
            x[piv] = tmp
        inv = 1.0 / K[j, j]
        for i in range(j + 1, n):
            factor = K[i, j] * inv
            if factor != 0.0:
                for c in range(j + 1, n):
                    K[i, c] -= factor * K[j, c]
                x[i] -= factor * x[j]
    for j in range(n - 1, -1, -1):
        acc = x[j]
        for i in range(j + 1, n):
            acc -= K[j, i] * x[i]
        x[j] = acc / K[j, j]
    return finite(x)


@numba.njit(cache=True)
def mv_into(A, x, out):
    """out = A x for A (r, c), x (c,), out (r,) (no allocation)."""
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        out[i] = acc


@numba.njit(cache=True)
def all_finite(X):
    """Whether every entry of the 2-d array X is finite (no allocation)."""
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if not math.isfinite(X[i, j]):
                return False
    return True


@numba.njit(cache=True)
def finite(x):
    """Whether every entry of the 1-d array x is finite (no allocation)."""
    for value in x:
        if not math.isfinite(value):
            return False
    return True


@numba.njit(cache=True)
def det(K):
    """det K (K square), by elimination with partial pivoting."""
    n = K.shape[0]
    LU = np.empty((n, n))
    copy_into(LU, K)
    out = 1.0
    for j in range(n):
        piv = _pivot(LU, j)
        if piv < 0:
            return 0.0
        if piv != j:
            _swap_rows(LU, j, piv)
            out = -out
        out *= LU[j, j]
        for i in range(j + 1, n):
            factor = LU[i, j] / LU[j, j]
            for c in range(j + 1, n):
                LU[i, c] -= factor * LU[j, c]
    return out


# as formulations.linalg.SADDLE_RTOL: a pivot below this share of the largest marks K rank-deficient
SADDLE_RTOL = 1e-12


@numba.njit(cache=True)
def solve_min_norm_in_place(K, x, spare):
    """(ok, rank_deficient): K x = b with b given in x, K (n, n) overwritten by its LU factors; where
    a pivot falls below SADDLE_RTOL times the largest (dependent constraint rows), x is instead the
    minimum-norm least-squares solution (LAPACK gelsd, singular values below SADDLE_RTOL times the
    largest cut), as formulations.linalg.solve_saddle. spare: n * n + n floats of workspace."""
    n = K.shape[0]
    Kc = spare[:n * n].reshape((n, n))
    xc = spare[n * n:n * n + n]
    copy_into(Kc, K)
    put(xc[:], x)
    perm = np.empty(n, np.int64)
    if lu_in_place(K, perm):
        big, small = 0.0, np.inf
        for j in range(n):
            a = abs(K[j, j])
            big = max(big, a)
            small = min(small, a)
        if small > SADDLE_RTOL * big:
            return lu_solve(K, perm, x), False
    if not (all_finite(Kc) and finite(xc)):
        return False, True
    put(x[:], least_squares(Kc, xc, SADDLE_RTOL))
    return finite(x), True


@numba.njit(cache=True)
def solve1_min_norm(K, b):
    """(x, ok): K x = b as solve1, by least squares (minimum norm) where K is rank-deficient."""
    n = K.shape[0]
    x = b.copy()
    LU = np.empty((n, n))
    copy_into(LU, K)
    ok, _ = solve_min_norm_in_place(LU, x, np.empty(n * n + n))
    return x, ok


@numba.njit(cache=True)
def resolved(Cm, residual):
    """lambda with C^T lambda = residual in the least-squares sense, (C C^T) lambda = C residual
    (minimum norm where C has dependent rows): the resolved reactions. C (c, n), residual (n,)."""
    if Cm.shape[0] == 0:
        return np.zeros(0), True
    return solve1_min_norm(mm(Cm, Cm.T), mv(Cm, residual))


@numba.njit(cache=True)
def unit_blocks(x, blocks):
    """Every index block of x (Euler parameters) scaled to unit norm, in place."""
    for i in range(blocks.shape[0]):
        norm = 0.0
        for j in range(blocks.shape[1]):
            norm += x[blocks[i, j]] ** 2
        for j in range(blocks.shape[1]):
            x[blocks[i, j]] /= math.sqrt(norm)


@numba.njit(cache=True)
def lu_in_place(K, perm):
    """K overwritten by its LU factors with partial pivoting (the multipliers below the diagonal),
    perm[j] the row swapped with row j at step j; False where a pivot vanishes. The same operations
    as solve, so lu_solve after it gives solve's result."""
    n = K.shape[0]
    for j in range(n):
        piv = _pivot(K, j)
        if piv < 0:
            return False
        perm[j] = piv
        if piv != j:
            _swap_rows(K, j, piv)
        inv = 1.0 / K[j, j]
        for i in range(j + 1, n):
            factor = K[i, j] * inv
            K[i, j] = factor
            if factor != 0.0:
                for c in range(j + 1, n):
                    K[i, c] -= factor * K[j, c]
    return True


@numba.njit(cache=True)
def lu_solve(LU, perm, X):
    """X overwritten by the solution of K X = X for the factors of lu_in_place; X (n,) or (n, k).
    False where X is not finite."""
    n = LU.shape[0]
    Y = X.reshape((n, -1))
    k = Y.shape[1]
    for j in range(n):  # the row swaps first: the multipliers moved with their rows
        piv = perm[j]
        if piv != j:
            for c in range(k):
                tmp = Y[j, c]
                Y[j, c] = Y[piv, c]
                Y[piv, c] = tmp
    for j in range(n):
        for i in range(j + 1, n):
            factor = LU[i, j]
            if factor != 0.0:
                for c in range(k):
                    Y[i, c] -= factor * Y[j, c]
    for j in range(n - 1, -1, -1):
        for c in range(k):
            acc = Y[j, c]
            for i in range(j + 1, n):
                acc -= LU[j, i] * Y[i, c]
            Y[j, c] = acc / LU[j, j]
    return all_finite(Y)


@numba.njit(cache=True)
def mm_into(A, B, out):
    """out = A B for A (r, k), B (k, c), out (r, c) (no allocation; zeros of A skipped)."""
    out[:, :] = 0.0
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            a = A[i, k]
            if a != 0.0:
                for j in range(B.shape[1]):
                    out[i, j] += a * B[k, j]


@numba.njit(cache=True)
def tmm_into(A, B, out):
    """out = A^T B for A (k, r), B (k, c), out (r, c) (no allocation; zeros of A skipped)."""
    out[:, :] = 0.0
    for k in range(A.shape[0]):
        for i in range(A.shape[1]):
            a = A[k, i]
            if a != 0.0:
                for j in range(B.shape[1]):
                    out[i, j] += a * B[k, j]


@numba.njit(cache=True)
def tmv_into(A, x, out):
    """out = A^T x for A (r, c), x (r,), out (c,) (no allocation)."""
    out[:] = 0.0
    for i in range(A.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(A.shape[1]):
                out[j] += A[i, j] * xi


@numba.njit(cache=True)
def max_abs(X):
    """max |X_ij| of a 2-d array (0 for an empty one; NaN where an entry is NaN)."""
    big = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            a = abs(X[i, j])
            if not a <= big:
                big = a
    return big


@numba.njit(cache=True)
def any_nonzero(X):
    """Whether a 2-d array has an entry other than 0."""
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] != 0.0:
                return True
    return False

"""LAPACK's SVD-based solvers for the compiled formulation modules, called directly through numba's
own entry points (``numba_ez_gelsd``, ``numba_ez_gesdd``: the routines numpy's and numba's
``np.linalg.lstsq``, ``pinv`` and ``svd`` call). numba's generic ``np.linalg`` implementations cost
5-7 s of compiling in every module that uses them; these, a second. Failures are NaN results, not
exceptions: the callers test for finite values. The exported Python of a formulation
(formulations.workbench.derivation.export) writes numpy's functions in their place.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.np.linalg import F_INT_nbtype, F_INT_nptype, ensure_lapack

ensure_lapack()  # scipy's LAPACK, which numba's entry points call
_DOUBLE = types.CPointer(types.float64)
# info = gelsd(kind, m, n, nrhs, a, lda, b, ldb, s, rcond, rank): a, b in Fortran order
_GELSD = types.ExternalFunction("numba_ez_gelsd", types.intc(
    types.char, types.intp, types.intp, types.intp, _DOUBLE, types.intp, _DOUBLE, types.intp, _DOUBLE, types.float64,
    types.CPointer(F_INT_nbtype)))
# info = gesdd(kind, jobz, m, n, a, lda, s, u, ldu, vt, ldvt): a, u, vt in Fortran order
_GESDD = types.ExternalFunction("numba_ez_gesdd", types.intc(
    types.char, types.char, types.intp, types.intp, _DOUBLE, types.intp, _DOUBLE, _DOUBLE, types.intp, _DOUBLE,
    types.intp))
_REAL, _ALL, _NONE = ord("d"), ord("A"), ord("N")


@numba.njit(cache=True)
def _finite_matrix(A):
    return np.isfinite(A).all()


@numba.njit(cache=True)
def least_squares_columns(A, B, rcond):
    """X (n, k) minimum-norm least-squares solution of A X = B, A (m, n), B (m, k), by LAPACK gelsd:
    singular values at or below rcond times the largest count as zero (rcond < 0: machine
    precision), as np.linalg.lstsq(A, B, rcond)[0]. NaN where A or B is not finite or gelsd fails."""
    m, n, k = A.shape[0], A.shape[1], B.shape[1]
    X = np.full((n, k), np.nan)
    if not (_finite_matrix(A) and _finite_matrix(B)):
        return X
    if m == 0 or n == 0:
        X[:, :] = 0.0
        return X
    rows = max(m, n)
    a = _fortran(A, m)
    b = _fortran(B, rows)
    s = np.empty(min(m, n))
    rank = np.empty(1, F_INT_nptype)
    if _GELSD(_REAL, m, n, k, a.ctypes, m, b.ctypes, rows, s.ctypes, rcond, rank.ctypes) == 0:
        for i in range(n):
            for j in range(k):
                X[i, j] = b[j, i]
    return X


@numba.njit(cache=True)
def _fortran(A, rows):
    """A (m, n) in Fortran order with leading dimension rows >= m (zeros below A): a C array (n, rows).
    Loops, where a slice assignment of a transposed view costs seconds of compiling per type."""
    out = np.zeros((A.shape[1], rows))
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[j, i] = A[i, j]
    return out


@numba.njit(cache=True)
def least_squares(A, b, rcond):
    """The minimum-norm least-squares x of A x = b, A (m, n), b (m,) (LAPACK gelsd; singular values
    at or below rcond times the largest cut, rcond < 0: machine precision), as
    np.linalg.lstsq(A, b, rcond)[0]; NaN where A or b is not finite."""
    return least_squares_columns(A, b.reshape((b.size, 1)), rcond)[:, 0].copy()


@numba.njit(cache=True)
def pseudo_inverse(A):
    """np.linalg.pinv(A) (singular values at or below 1e-15 times the largest cut), as the
    least-squares solution of A X = I; NaN where A is not finite."""
    return least_squares_columns(A, np.eye(A.shape[0]), 1e-15)


@numba.njit(cache=True)
def _svd(A, jobz):
    """(s, Vt, ok) of A = U diag(s) Vt (m, n) by LAPACK gesdd, s descending; Vt (n, n) with jobz 'A',
    (0, 0) with 'N' (singular values only). ok False where A is not finite or gesdd fails."""
    m, n = A.shape
    s = np.zeros(min(m, n))
    if not _finite_matrix(A):
        return s, np.zeros((0, 0)), False
    columns = n if jobz == _ALL else 0
    vt = np.zeros((columns, columns))
    if m == 0 or n == 0:
        return s, np.eye(columns), True
    a = _fortran(A, m)
    u = np.zeros((m if jobz == _ALL else 1, m if jobz == _ALL else 1))
    vt_f = np.zeros((max(columns, 1), max(columns, 1)))
    info = _GESDD(_REAL, jobz, m, n, a.ctypes, m, s.ctypes, u.ctypes, u.shape[0], vt_f.ctypes, vt_f.shape[0])
    for i in range(columns):
        for j in range(columns):
            vt[i, j] = vt_f[j, i]
    return s, vt, info == 0


@numba.njit(cache=True)
def singular_values(A):
    """(s, Vt) of A = U diag(s) Vt (m, n), singular values descending, Vt (n, n), as
    np.linalg.svd(A)[1:]; NaN where A is not finite or the SVD does not converge."""
    s, Vt, ok = _svd(A, _ALL)
    if not ok:
        s[:] = np.nan
        Vt = np.full((A.shape[1], A.shape[1]), np.nan)
    return s, Vt


@numba.njit(cache=True)
def sigma_ratio(A):
    """sigma_min / sigma_max of A (r, c) with r <= c, by LAPACK gesdd (0 for A = 0, NaN where A is
    not finite)."""
    if A.shape[0] == 0:
        return 1.0
    s, _, ok = _svd(A, _NONE)
    if not ok:
        return np.nan
    if s[0] <= 0.0:
        return 0.0
    return s[-1] / s[0]

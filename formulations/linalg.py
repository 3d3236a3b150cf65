"""The one linear solve behind every formulation.

Each formulation parametrizes the accelerations as v' = T a + tau, with a its own acceleration
unknowns (dependent: T = I, a = v'; reduced: T = D, a = w'; minimal: T = D D_bar, a = u'), and
keeps some constraint rows G a = b that its parametrization does not satisfy by itself.

Ideal constraints (f independent of lambda) give the projected (textbook) form
    [[T^T M T, G^T], [G, 0]] [a; mu] = [T^T (f0 - d - M tau); b],
whose mu are the multipliers of the kept rows. Non-ideal constraints, f = f0 + F lambda, need all
multipliers at once, so the unprojected dynamics is solved together with the kept rows:
    [[M T, C^T - F], [G, 0]] [a; lambda] = [f0 - d - M tau; b]      (square: n + rows(G)).
The reactions of every row follow in resolved form from C^T lambda = f - d - M v' (Blajer).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dgesv as _gesv


class SingularMatrixError(np.linalg.LinAlgError):
    """A matrix of the equations of motion is singular; names the matrix."""

    def __init__(self, quantity: str, detail: str = ""):
        self.quantity = quantity
        super().__init__(f"{quantity} is singular{': ' + detail if detail else ''}")


def _solve(K, rhs, quantity):
    """K x = rhs by LAPACK's gesv directly (numpy's wrapper costs more than the solve here)."""
    _, _, x, info = _gesv(K, rhs)
    if info > 0:
        raise SingularMatrixError(quantity, f"zero pivot {info}")
    if info < 0 or not np.isfinite(x).all():
        raise SingularMatrixError(quantity, "non-finite solution")
    return x


# a saddle-point matrix whose LU factors have a pivot below SADDLE_RTOL times their largest is
# taken as rank-deficient (dependent constraint rows, or a singular configuration passed through):
# it is then solved by least squares (SVD, singular values below SADDLE_RTOL times the largest cut),
# which gives the unique accelerations and the minimum-norm multipliers
SADDLE_RTOL = 1e-12


def solve_saddle(K, rhs, quantity="the augmented matrix"):
    """(x, rank_deficient): K x = rhs for a saddle-point matrix K = [[M, C^T], [C, 0]] (or the
    forms of :func:`saddle_system`). Where C has dependent rows (rank C < rows) K is singular but
    the system consistent: then x is the minimum-norm solution, i.e. v' (unique where M is positive
    definite on ker C) with the minimum-norm multipliers, and rank_deficient is True."""
    lu, _, x, info = _gesv(K, rhs)
    pivots = np.abs(np.diag(lu))
    if info == 0 and np.isfinite(x).all() and pivots.min(initial=np.inf) > SADDLE_RTOL * pivots.max(initial=0.0):
        return x, False
    if not (np.isfinite(K).all() and np.isfinite(rhs).all()):
        raise SingularMatrixError(quantity, "non-finite entries")
    return np.linalg.lstsq(K, rhs, rcond=SADDLE_RTOL)[0], True


def minimum_norm_multipliers(C, lam):
    """The minimum-norm lambda' with C^T lambda' = C^T lambda (the same constraint force), C (c, n);
    for dependent rows of C, where every lambda + ker C^T gives that force."""
    return np.linalg.lstsq(C.T, C.T @ lam, rcond=SADDLE_RTOL)[0]


def saddle_system(M, h, T, tau, G, b, *, F=None, C=None):
    """(K, rhs, na): the square system K [a; mu_or_lambda] = rhs of the module docstring.

    M (n, n), h = f0 - d (n,), T (n, na) or None for the identity (then tau is ignored),
    tau (n,), G (g, na), b (g,). With F (n, c) non-zero, C (c, n) is needed and the unknowns
    after a are all c multipliers (the first n rows of K are then the unprojected dynamics);
    otherwise they are the multipliers of the g kept rows (the first na rows are the projected
    dynamics). The last g rows are always the kept constraint rows.
    """
    nonideal = F is not None and F.size and F.any()
    g = G.shape[0]
    if T is None and not nonideal:  # the dependent form: [[M, G^T], [G, 0]]
        n = M.shape[0]
        K = np.empty((n + g, n + g))
        K[:n, :n], K[:n, n:], K[n:, :n], K[n:, n:] = M, G.T, G, 0.0
        return K, np.concatenate([h, b]), n
    if T is None:
        T, tau = np.eye(M.shape[0]), np.zeros(M.shape[0])
    na = T.shape[1]
    if nonideal:
        n, c = M.shape[0], C.shape[0]
        K = np.zeros((n + g, na + c))
        K[:n, :na], K[:n, na:], K[n:, :na] = M @ T, C.T - F, G
        return K, np.concatenate([h - M @ tau, b]), na
    K = np.zeros((na + g, na + g))
    K[:na, :na], K[:na, na:], K[na:, :na] = T.T @ (M @ T), G.T, G
    return K, np.concatenate([T.T @ (h - M @ tau), b]), na


def solve_accelerations(M, h, T, tau, G, b, *, F=None, C=None, quantity="the system matrix"):
    """(a, v', mu_or_lambda) for v' = T a + tau, G a = b; arguments as in :func:`saddle_system`."""
    K, rhs, na = saddle_system(M, h, T, tau, G, b, F=F, C=C)
    sol = _solve(K, rhs, quantity)
    a = sol[:na]
    return a, (a if T is None else T @ a + tau), sol[na:]


def solve_square(K, rhs, quantity="a matrix of the geometry"):
    """K x = rhs for a small square K (rhs a vector or a matrix), via LAPACK gesv."""
    return _solve(K, rhs, quantity)


def resolved_reactions(C, residual_force):
    """lambda with C^T lambda = residual_force (least squares: the resolved form), shape (c,)."""
    if C.shape[0] == 0:
        return np.zeros(0)
    return np.linalg.lstsq(C.T, residual_force, rcond=None)[0]


def null_space(C, rank=None):
    """Orthonormal basis of ker C, shape (n, n - rank)."""
    n = C.shape[1]
    if C.shape[0] == 0:
        return np.eye(n)
    _, s, Vt = np.linalg.svd(C)
    if rank is None:
        rank = int(np.sum(s > 1e-12 * max(1.0, s[0])))
    return Vt[rank:].T

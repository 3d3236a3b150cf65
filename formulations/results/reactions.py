"""Constraint reactions at a state, in Blajer's resolved form.

The accelerations come from the minimal form written with an orthonormal basis N of ker C as
independent velocities (so no embedding or choice is needed): v' = N a + tau with C tau = -xi,
(N^T M N) a = N^T (f - d - M tau). Then C^T lambda = f - d - M v' is solved for lambda (least
squares on C^T; where C has dependent rows, the minimum-norm lambda, with a
NonUniqueReactionsWarning naming the dependent rows). Non-ideal constraints (f affine in lambda)
are solved together.
"""
from __future__ import annotations

import warnings

import numpy as np

from systems.arguments import real, state_pair
from systems.catalogue import as_system
from systems.dependent_rows import independent_rows
from systems.errors import ArgumentError, InconsistentStateError
from systems.state import renormalize

from ..linalg import null_space, resolved_reactions, solve_accelerations
from .trajectory import NamedValues


def reactions(system, t, p, v, *, as_dict=True, tol=1e-6):
    """Multipliers lambda at (t, p, v): the constraint reactions in resolved form.

    The accelerations are solved for first, then C^T lambda = f - d - M v' for lambda; the force of
    the constraints on the system is -C^T lambda. With the catalogue's physical rows these are forces
    (N) or moments (N m) on the system (e.g. a contact's normal force, positive when pushing).

    Parameters
    ----------
    system : System or str
        A System or a catalogue name.
    t : float
        The time, in s.
    p, v : ndarray
        The coordinates, shape (n_p,), and velocities, shape (n,) (arrays or lists), consistent with
        the constraints; unit-norm blocks of p are renormalized.
    as_dict : bool, optional
        True (default): a dict by constraint name; False: an array.
    tol : float, optional
        A state that violates the constraints by more than ``tol`` times its scale (1 + max ``abs(p)``,
        1 + max ``abs(v)``) is refused; ``tol=numpy.inf`` skips the check. Default 1e-6.

    Returns
    -------
    dict or ndarray
        {constraint name: value}, in the order of ``system.constraint_names``; an unknown name raises
        systems.UnknownNameError (a KeyError too) listing the names. With ``as_dict=False`` an ndarray,
        shape (m + l,).

    Raises
    ------
    systems.InconsistentStateError
        For a state that violates the constraints (beyond ``tol``), listing the residuals: the
        reactions of such a state are not those of any motion of the system.
    systems.ArgumentError
        Where a piece of the model (M, d, f, F_lambda, C, xi) is not finite at the state.

    Warns
    -----
    formulations.results.reactions.NonUniqueReactionsWarning
        Where the rows of C are dependent: the minimum-norm lambda, naming the dependent rows.

    See Also
    --------
    formulations.Trajectory : ``traj.reactions``, the reactions along a run.

    Examples
    --------
    >>> import systems, formulations
    >>> system = systems.load("rolling_disc")
    >>> p, v = system.default_state()
    >>> lam = formulations.reactions(system, 0.0, p, v)
    >>> list(lam) == list(system.constraint_names), round(lam["contact normal force"], 3)
    (True, 7.728)
    >>> formulations.reactions(system, 0.0, p, v, as_dict=False).shape
    (3,)
    """
    system = as_system(system)
    t = real("t", t, expected="a time in s")
    p, v = state_pair(system, (p, v), argument="state")
    p = renormalize(system, p) if system.unit_norm_blocks else p
    _check_consistent(system, t, p, v, tol)
    with np.errstate(all="ignore"):
        pieces = system.numeric.dynamics(t, p, v, system.params)
    M, d, f0, F, C, xi, _, _ = pieces
    _check_finite(system, t, pieces)
    lam = _resolved(M, f0 - d, F, C, xi)
    _warn_if_dependent(system, C)
    if not as_dict:
        return lam
    return NamedValues(f"reaction of system {system.name!r}", zip(system.constraint_names, lam.tolist()), "reactions")


class NonUniqueReactionsWarning(UserWarning):
    """The constraint rows are dependent, so the reactions are one (the minimum-norm) choice of many."""


def _warn_if_dependent(system, C):
    rank, order = independent_rows(C)
    if rank < C.shape[0]:
        names = ", ".join(system.constraint_names[int(i)] for i in sorted(order[rank:]))
        warnings.warn(f"system {system.name!r}: the constraint rows are dependent here (rank C = {rank} < "
                      f"{C.shape[0]} rows; dependent: {names}), so the reactions are not unique: these are the "
                      f"minimum-norm ones (any multiple of a null vector of C^T can be added)",
                      NonUniqueReactionsWarning, stacklevel=3)


def _check_consistent(system, t, p, v, tol):
    Phi, Cv = system.residuals(p, v, t)
    scale_p, scale_v = 1 + np.max(np.abs(p), initial=0.0), 1 + np.max(np.abs(v), initial=0.0)
    bad = [f"{name}: {val:.3e}" for name, val in zip(system.holonomic_names, Phi) if not abs(val) <= tol * scale_p]
    bad += [f"{name} (velocity): {val:.3e}" for name, val in zip(system.constraint_names, Cv)
            if not abs(val) <= tol * scale_v]
    if bad:
        raise InconsistentStateError(
            f"system {system.name!r}: reactions got a state that violates the constraints ({'; '.join(bad)}); expected "
            f"a consistent state: system.consistent_state(p, v) gives the nearest one (tol=numpy.inf skips this check)")


def _check_finite(system, t, pieces):
    names = ("the mass matrix M is", "the inertia terms d are", "the forces f are",
             "the multiplier part of the forces F_lambda is", "the constraint rows C are",
             "the constraint acceleration terms xi are")
    for label, value in zip(names, pieces):
        if not np.all(np.isfinite(value)):
            raise ArgumentError(f"system {system.name!r}: {label} not finite at t = {t:.6g} and this state, so the "
                                f"reactions are undefined there")


def _resolved(M, h, F, C, xi):
    if C.shape[0] == 0:
        return np.zeros(0)
    N = null_space(C)
    tau = -np.linalg.lstsq(C, xi, rcond=None)[0]
    if N.shape[1] == 0:  # the rows fix the motion: v' = tau, and C^T lambda (less F lambda) balances the rest
        return np.linalg.lstsq(C.T - (F if F is not None and F.size else 0.0), h - M @ tau, rcond=None)[0]
    _, vdot, lam = solve_accelerations(M, h, N, tau, np.zeros((0, N.shape[1])), np.zeros(0), F=F, C=C,
                                       quantity="the projected mass matrix N^T M N")
    if F is not None and F.size and np.any(F):
        return lam
    return resolved_reactions(C, h - M @ vdot)

"""Consistent states: projections onto the constraint manifold and maps through the embedding.

The projections follow Blajer, *Elimination of constraint violation and accuracy aspects in
numerical simulation of multibody systems* (Multibody Syst. Dyn. 7, 2002): positions by Newton
iteration in the kinetic-energy metric, velocities by the M-orthogonal projection
    v <- v - M^-1 C^T (C M^-1 C^T)^-1 (C v + c),
affine where the rows have a velocity-free term c = [Phi_t; c_nh] (rheonomic or affine rows; both
projections then take the time t, in s).
"""
from __future__ import annotations

import numpy as np

from .arguments import real, vector
from .errors import ArgumentTypeError, InconsistentStateError


def normalize_blocks(x, blocks):
    """A copy of x with each index block (a unit quaternion) scaled back to unit norm."""
    x = np.array(x, dtype=float)
    for block in blocks:
        idx = list(block)
        x[idx] /= np.linalg.norm(x[idx])
    return x


def renormalize(system, p):
    """Unit quaternion blocks of p scaled back to unit norm (a copy)."""
    return normalize_blocks(p, system.unit_norm_blocks)


def position_metric(A, M):
    """Kinetic-energy metric in p-space, W = A^+T M A^+ + (I - A A^+), shape (n_p, n_p)."""
    A_pinv = np.linalg.pinv(A)
    return A_pinv.T @ M @ A_pinv + (np.eye(A.shape[0]) - A @ A_pinv)


def _weighted_correction(J, W, residual, free):
    """delta minimizing delta^T W delta / 2 with J delta = -residual and delta zero off ``free``."""
    if not (np.all(np.isfinite(J)) and np.all(np.isfinite(W)) and np.all(np.isfinite(residual))):
        raise np.linalg.LinAlgError("the constraint Jacobian, the residual or the metric is not finite")
    delta = np.zeros(J.shape[1])
    Js = J[:, free]
    Ws = W[np.ix_(free, free)]
    WinvJt = np.linalg.solve(Ws, Js.T)
    S = Js @ WinvJt
    mult = np.linalg.lstsq(S, residual, rcond=None)[0]
    delta[free] = -WinvJt @ mult
    return delta


def project_positions(system, p, fix_idx=(), tol=1e-13, max_iter=50, t=0.0):
    """Newton projection of p onto Phi(p, t) = 0 holding p[fix_idx]. Returns (p, |Phi|_inf, iters)."""
    num, par = system.numeric, system.params
    p = renormalize(system, p)
    if system.m == 0:
        return p, 0.0, 0
    free = [i for i in range(len(p)) if i not in set(fix_idx)]
    v0 = np.zeros(system.n)
    W = None
    err = np.inf
    m = system.m
    for it in range(max_iter + 1):
        # with Euler parameters the unit norms join the constraint set, so that a step does not
        # move along |e| (which Phi depends on) only to be undone by renormalization
        Phi, Phi_p, _ = num.holonomic_chart(p, np.zeros(len(p)), par, t) if system.unit_norm_blocks else \
            num.constraints(p, par, t)
        err = float(np.max(np.abs(Phi[:m])))
        if err <= tol:
            return p, err, it
        if it == max_iter or not free:
            break
        if W is None:  # the metric is frozen at the first iterate (a modified Newton method)
            M = num.dynamics(0.0, p, v0, par).M
            W = position_metric(num.A(p, par), M)
        p = renormalize(system, p + _weighted_correction(Phi_p, W, Phi, free))
    return p, err, max_iter


def project_velocities(system, p, v, fix_idx=(), t=0.0):
    """M-orthogonal projection of v onto C(p, t) v + c(p, t) = 0 holding v[fix_idx]. Returns
    (v, |C v + c|_inf)."""
    num, par = system.numeric, system.params
    v = np.array(v, dtype=float)
    _, _, C, c = num.constraint_terms(p, par, t)
    if C.shape[0] == 0:
        return v, 0.0
    free = [i for i in range(len(v)) if i not in set(fix_idx)]
    if free:
        M = num.dynamics(t, p, v, par).M
        v = v + _weighted_correction(C, M, C @ v + c, free)
    return v, float(np.max(np.abs(C @ v + c)))


def consistent_state(system, p_guess, v_guess, fix=(), tol=1e-13, t=0.0):
    """See :meth:`systems.System.consistent_state`."""
    try:
        p_guess = np.asarray(p_guess, dtype=float).ravel()
        v_guess = np.asarray(v_guess, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"system {system.name!r}: consistent_state got p_guess {_show(p_guess)}, v_guess "
                                f"{_show(v_guess)} but expected arrays of numbers", "p_guess") from None
    if p_guess.shape != (len(system.coordinates),) or v_guess.shape != (system.n,):
        raise InconsistentStateError(
            f"system {system.name!r}: state shapes got p {p_guess.shape}, v {v_guess.shape} but "
            f"expected p ({len(system.coordinates)},), v ({system.n},)")
    _check_guess(system, p_guess, v_guess)
    if isinstance(fix, str):
        fix = (fix,)
    fix_p, fix_v = [], []
    for name in fix:
        kind, i = system.index_of(name)
        (fix_p if kind == "p" else fix_v).append(i)
    scale = 1.0 + float(np.max(np.abs(p_guess), initial=0.0))
    v, err_v = np.full(system.n, np.nan), np.nan
    try:
        with np.errstate(all="ignore"):
            p, err_p, _ = project_positions(system, p_guess, fix_p, tol=tol * scale, t=t)
            if np.all(np.isfinite(p)):
                v, err_v = project_velocities(system, p, v_guess, fix_v, t=t)
    except np.linalg.LinAlgError as exc:
        raise InconsistentStateError(
            f"system {system.name!r}: the projection onto the constraints failed at the guess p = "
            f"({_where(system.coordinate_names, p_guess)}): {exc}. The constraint Jacobian or the mass matrix is "
            f"singular or not finite there (a singular configuration); start from a guess away from it") from None
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(v))):
        raise InconsistentStateError(
            f"system {system.name!r}: the projection onto the constraints left the state non-finite from the guess "
            f"p = ({_where(system.coordinate_names, p_guess)}): the model is singular there; start from another "
            f"guess")
    if not err_p <= tol * scale * 10:
        raise InconsistentStateError(
            f"system {system.name!r}: no configuration satisfies the holonomic constraints with "
            f"{', '.join(system.coordinate_names[i] for i in fix_p) or 'nothing'} held; remaining "
            f"|Phi| = {err_p:.3e} ({', '.join(system.holonomic_names)}). "
            + ("Hold fewer coordinates." if fix_p else "Start from a guess nearer the constraints and away from "
               "singular configurations."))
    vscale = 1.0 + float(np.max(np.abs(v_guess), initial=0.0))
    if not err_v <= tol * vscale * 1e3:
        raise InconsistentStateError(
            f"system {system.name!r}: no velocity satisfies C v + c = 0 with "
            f"{', '.join(system.velocity_names[i] for i in fix_v)} held at t = {t:g}; remaining |C v| = {err_v:.3e} "
            f"(with the velocity-free term c). "
            f"Hold fewer velocities.")
    return p, v


def on_constraints(system, p, v, t=0.0, rounding=1e-12):
    """(p, v) as they are where their residuals at time t are within ``rounding`` x (1 + max |p, v|),
    else the nearest consistent state (consistent_state: p onto Phi = 0, then the M-orthogonal
    projection of v)."""
    Phi, Cv = system.residuals(p, v, t)
    scale = rounding * (1.0 + float(np.max(np.abs(np.concatenate([p, v])), initial=0.0)))
    if float(np.max(np.abs(np.concatenate([Phi, Cv])), initial=0.0)) <= scale:
        return p, v
    return consistent_state(system, p, v, t=t)


def _show(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(names, x):
    return ", ".join(f"{n}={val:.6g}" for n, val in zip(names, x))


def _check_guess(system, p, v):
    """A finite guess, with Euler-parameter blocks of non-zero norm."""
    bad = [n for n, x in zip(system.coordinate_names, p) if not np.isfinite(x)]
    bad += [n for n, x in zip(system.velocity_names, v) if not np.isfinite(x)]
    if bad:
        raise InconsistentStateError(f"system {system.name!r}: the guess has non-finite entries ({', '.join(bad)}); "
                                     f"expected finite numbers")
    for block in system.unit_norm_blocks:
        if np.linalg.norm(p[list(block)]) < 1e-8:
            names = ", ".join(system.coordinate_names[i] for i in block)
            raise InconsistentStateError(
                f"system {system.name!r}: the Euler parameters ({names}) of the guess have zero norm, so they give no "
                f"orientation; expected a quaternion of non-zero norm, e.g. (1, 0, 0, 0)")


def embedding_velocity_terms(system, q, t=0.0):
    """(p, D, d_0) at (q, t): p = g(q, t), D = A^+ g_q A_q, shape (n_v, k), and d_0 = A^+ g_t (n_v,),
    so that v = D w + d_0 (d_0 = 0 for a fixed embedding)."""
    num, par = system.numeric, system.params
    q = np.asarray(q, float)
    g, g_q, A_q = num.embedding(q, par, t)
    A = num.A(g, par)
    D, d_0 = np.split(np.linalg.lstsq(A, np.column_stack([g_q @ A_q, num.embedding_rate(q, par, t)]), rcond=None)[0],
                      [A_q.shape[1]], axis=1)
    return g, D, d_0[:, 0]


def state_from_q(system, q, w, t=0.0):
    """(p, v) from reduced coordinates q and reduced velocities w at time t (v = D(q) w + d_0)."""
    if system.embedding is None:
        raise ValueError(f"system {system.name!r} has no embedding p = g(q); use consistent_state")
    emb = system.embedding
    q = vector("q", np.ravel(q) if isinstance(q, np.ndarray) else q, len(emb.coordinates), emb.coordinate_names)
    w = vector("qdot", np.ravel(w) if isinstance(w, np.ndarray) else w, len(emb.velocities), emb.velocity_names)
    t = real("t", t, expected="a time in s")
    p, D, d_0 = embedding_velocity_terms(system, q, t)
    return p, D @ w + d_0


def q_from_state(system, p, v, t=0.0):
    """(q, w) from a consistent dependent state at time t through q = h(p, t) and w = D^+ (v - d_0)."""
    q = normalize_blocks(system.numeric.inverse(np.asarray(p, float), system.params, t),
                         system.embedding.unit_norm_blocks)
    _, D, d_0 = embedding_velocity_terms(system, q, t)
    w = np.linalg.lstsq(D, np.asarray(v, float) - d_0, rcond=None)[0]
    return q, w

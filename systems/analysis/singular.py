"""Singular configurations: where the Jacobian Phi_p of the holonomic constraints loses rank.

Found by solving the bordered system Phi_a(p) = 0, Phi_p(p)^T mu = 0, |mu| = 1 (Phi_a holds Phi and
the unit norms of Euler parameters), whose solutions are exactly the singular configurations: a
unit mu in the left null space of Phi_p exists only where Phi_p has lost rank (Haug & Pavesic,
*Mechanical system kinematics and dynamics on differentiable manifolds*, section 2.4, describe the
singular sets that split a configuration space into domains of functionality).
"""
from __future__ import annotations

import time

import numpy as np


def _bordered_residual(num, par, p_size):
    """r(x) of the bordered system whose solutions are the singular configurations: x = (p, mu),
    r = [Phi_a(p); Phi_p(p)^T mu; (|mu|^2 - 1) / 2]. A solution has Phi_a = 0 and a unit mu in the
    left null space of Phi_p, so Phi_p has lost rank there (Phi_a holds Phi and the unit norms of
    Euler parameters)."""
    zeros = np.zeros(p_size)

    def residual(x):
        p, mu = x[:p_size], x[p_size:]
        Phi_a = num.holonomic_chart(p, zeros, par)[0]
        Phi_p = num.constraints(p, par)[1]
        return np.concatenate([Phi_a, Phi_p.T @ mu, [(mu @ mu - 1.0) / 2]])

    return residual


def rank_ratio(system, p) -> float:
    """sigma_min / sigma_max of Phi_p at p (0 where Phi_p vanishes)."""
    s = np.linalg.svd(system.numeric.constraints(p, system.params)[1], compute_uv=False)
    return float(s[-1] / s[0]) if s.size and s[0] > 0 else 0.0


def nearest_singular_configuration(system, p, *, tol=1e-9):
    """A configuration p* near p with Phi(p*) = 0 where Phi_p loses rank (sigma_min / sigma_max <= 1e-7),
    found by solving the bordered system from p (trust-region least squares); None where the
    iteration ends elsewhere. ``tol`` bounds |Phi(p*)|."""
    from scipy.optimize import least_squares

    from ..state import renormalize

    num, par = system.numeric, system.params
    p = np.asarray(p, float)
    with np.errstate(all="ignore"):
        Phi_p = num.constraints(p, par)[1]
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(Phi_p))):
            return None
        mu0 = np.linalg.svd(Phi_p)[0][:, -1]
        try:
            res = least_squares(_bordered_residual(num, par, len(p)), np.concatenate([p, mu0]), method="trf",
                                xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=50 * (len(p) + system.m))
        except (ValueError, np.linalg.LinAlgError):
            return None
        found = renormalize(system, res.x[:len(p)])
        ok = (np.all(np.isfinite(found)) and np.max(np.abs(num.Phi(found, par)), initial=0.0) <= tol
              and rank_ratio(system, found) <= 1e-7)
    return found if ok else None


def find_singular_configurations(system, rng, starts=12, seconds=60.0):
    """Configurations on Phi = 0 where Phi_p loses rank, found numerically.

    From ``starts`` random consistent configurations (a fixed sequence of ``rng``), the bordered
    system Phi_a(p) = 0, Phi_p(p)^T mu = 0, |mu| = 1 is solved by trust-region least squares
    (:func:`nearest_singular_configuration`), started at mu = the left singular vector of the
    smallest singular value of Phi_p. Its solution set is exactly the singular set, so a start that
    converges lands on it; a point is kept when |Phi| <= 1e-9 and sigma_min / sigma_max <= 1e-7
    there. The number of starts, not the clock, bounds the work; ``seconds`` is only a safety bound,
    named in the summary when it cuts the search. Returns (points as {name: value}, summary text).
    """
    from ..state import project_positions, renormalize

    p0 = system.default_state()[0]
    guesses = [renormalize(system, p0 + rng.normal(0.0, 0.7 if i % 2 == 0 else 2.0, p0.shape)) for i in range(starts)]
    found, tried, cut = [], 0, False
    deadline = time.monotonic() + seconds
    for guess in guesses:
        if time.monotonic() > deadline:
            cut = True
            break
        tried += 1
        with np.errstate(all="ignore"):
            start = project_positions(system, guess, max_iter=30)[0]
        p = nearest_singular_configuration(system, start if np.all(np.isfinite(start)) else guess)
        if p is not None and all(np.linalg.norm(p - q) > 1e-6 for q in found):
            found.append(p)
    names = system.coordinate_names
    points = tuple({n: float(x) for n, x in zip(names, p)} for p in found)
    how = f"{tried} random starts (numeric search, bordered least squares{f'; cut at {seconds:g} s' if cut else ''})"
    if not found:
        return points, f"none found from {how}"
    pinned = [f"|{n}| = {abs(found[0][i]):.4g}" for i, n in enumerate(names)
              if len(found) > 1 and np.ptp(np.abs([p[i] for p in found])) < 1e-5 and abs(found[0][i]) > 1e-8]
    where = ("; at every one " + ", ".join(pinned)) if pinned else ""
    return points, f"{len(found)} found from {how}{where}"

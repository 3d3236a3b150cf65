"""The check after every accepted step that the holonomic constraints keep full rank."""
from __future__ import annotations

import numpy as np

from systems.analysis.constraints import nearest_singular_configuration
from systems.dependent_rows import independent_rows

from ..errors import SINGULAR, StopRun


def rank_monitor(formulation, p0, t0=0.0):
    """monitor(t, y) raising StopRun where Phi_p of ``formulation``'s system loses rank, or None for a
    system without holonomic constraints.

    Rank loss shows as sigma_min / sigma_max of Phi_p falling below formulation.singular_ratio times
    its value at p0, or — when a step goes right through it, as steps usually do — as a sign change
    of det(Phi_p(p_k) Phi_p(p_k-1)^T), on an independent set of the rows at p0 (QR with column
    pivoting, systems.dependent_rows). None where the formulation goes through singular
    configurations (dependent, singular="pass"). The StopRun carries a function that locates
    either within the step, and names the singular configuration nearest to the step's end (solved for, see
    systems.analysis.singular.nearest_singular_configuration).
    """
    system, num, par = formulation.system, formulation.num, formulation.par
    if not system.m or not formulation.stop_at_singular:
        return None
    rows = _independent(num.constraints(p0, par, t0)[1])
    if not rows.size:  # Phi_p vanishes at the start (a singular configuration): no rank to lose
        return None

    def jacobian(p, t):
        Phi_p = num.constraints(p, par, t)[1][rows]
        s = np.linalg.svd(Phi_p, compute_uv=False)
        return Phi_p, (s[-1] / s[0] if s[0] > 0 else 0.0)

    def position(y, t):
        return formulation.state_at(y, t)[0]

    previous, start = jacobian(p0, t0)
    threshold = formulation.singular_ratio * start
    previous = [previous]

    def monitor(t, y):
        p = position(y, t)
        Phi_p, ratio = jacobian(p, t)
        before = previous[0]
        crossed = np.linalg.det(Phi_p @ before.T) <= 0
        previous[0] = Phi_p
        if not (crossed or ratio < threshold):
            return
        if crossed:  # det(Phi_p(p(s)) Phi_p(p_k-1)^T) > 0 at the step's start, <= 0 at its end
            def locate(s, y_s):
                return np.linalg.det(num.constraints(position(y_s, s), par, s)[1][rows] @ before.T)
        else:
            def locate(s, y_s):
                return jacobian(position(y_s, s), s)[1] - threshold
        raise StopRun(singular_message(system, p, crossed, ratio), quantity="Phi_p", locate=locate)

    return monitor


def _independent(Phi_p):
    """Indices of an independent set of the rows of Phi_p (all rows where they are independent): rows
    dependent from the start (a redundant mechanism) are not a rank loss along the run."""
    rank, order = independent_rows(Phi_p)
    return np.arange(Phi_p.shape[0]) if rank == Phi_p.shape[0] else np.sort(order[:rank])


def stopped_at_singular(traj) -> bool:
    """Whether the run ``traj`` ended where Phi_p loses rank (the rank watch here, or a chart that
    cannot reach through it, formulations.coordinates.charts)."""
    return traj.status < 0 and SINGULAR in traj.message


def singular_message(system, p, crossed, ratio):
    """Names the step's configuration and the singular configuration nearest to it."""
    def where(x):
        return ", ".join(f"{n}={val:.6g}" for n, val in zip(system.coordinate_names, x))

    how = "passed through a rank loss" if crossed else f"is losing rank (sigma_min / sigma_max = {ratio:.2e})"
    singular = nearest_singular_configuration(system, p)
    near = "" if singular is None else f"; Phi_p loses rank at p* = ({where(singular)})"
    return f"{SINGULAR}Phi_p {how} in the step to p = ({where(p)}){near}"

"""Checks of an optimal control solution by simulation: the optimal inputs re-applied by
``simulate`` from the solution's initial state (does the system reach the final conditions?), and
the collocation error of each mesh interval (one interval simulated from the collocated state at
its start, compared with the collocated state at its end)."""
from __future__ import annotations

import dataclasses

import numpy as np

from .. import registry
from ..base import create
from ..configuration import parse_configuration
from ..results.optimal_control import Resimulation
from ..results.status import Status

MISS_SHARE = 1e-3  # a re-simulation that misses the final conditions by more than this share of the move: WARNED


def input_functions(result):
    """{input name: u(t, p, v)} interpolating the solution's inputs as its scheme does: linearly
    between nodes (trapezoidal), by the quadratic through node, midpoint, node (Hermite-Simpson)."""
    t, U = result.t, result.inputs
    quadratic = result.scheme == "hermite-simpson"

    def make(column):
        values = U[:, column]
        if not quadratic:
            return lambda s, p, v: float(np.interp(s, t, values))

        def u(s, p, v):
            k = min(max(int(np.searchsorted(t[::2], s, side="right")) - 1, 0), (len(t) - 1) // 2 - 1)
            t0, tm, t1 = t[2 * k], t[2 * k + 1], t[2 * k + 2]
            u0, um, u1 = values[2 * k], values[2 * k + 1], values[2 * k + 2]
            return float(u0 * (s - tm) * (s - t1) / ((t0 - tm) * (t0 - t1))
                         + um * (s - t0) * (s - t1) / ((tm - t0) * (tm - t1))
                         + u1 * (s - t0) * (s - tm) / ((t1 - t0) * (t1 - tm)))
        return u
    return {name: make(i) for i, name in enumerate(result.input_names)}


def _formulation(system, result):
    """The solution's formulation for simulate, on the numpy backend (no compile step for a check)."""
    base = parse_configuration(result.formulation, "formulation").formulation
    projects = "projection" in registry.piece("optimal control", base).stabilizations and system.m + system.l
    return create(base + ("+projection" if projects else ""), system, backend="numpy")


def resimulate(result, system, final: dict, rtol=1e-10):
    """The Resimulation of ``result``: the inputs applied from its first point over its horizon."""
    form = _formulation(system, result)
    traj = form.simulate((result.t[0], result.t[-1]), (result.p[0], result.v[0]), rtol=rtol, atol=rtol,
                         inputs=input_functions(result), check_initial=False)
    reached = {name: float(traj.p[-1][system.coordinate_names.index(name)]) if name in system.coordinate_names
               else float(traj.v[-1][system.velocity_names.index(name)]) for name in final}
    miss = {name: reached[name] - value for name, value in final.items()}
    start = {name: float(result.state(name)[0]) for name in final}
    scale = max([abs(final[name] - start[name]) for name in final] + [1e-12])
    largest = max([abs(x) for x in miss.values()] + [0.0])
    if traj.status < 0:
        largest = float("inf")
    return Resimulation(form.label(), rtol, miss, largest, scale, traj.message if traj.status < 0 else "", traj)


def with_resimulation(result, system, prob, rtol=1e-10):
    """``result`` with its Resimulation; status WARNED where the miss exceeds MISS_SHARE of the move."""
    check = resimulate(result, system, prob.final, rtol)
    status, message = result.status, result.message
    if not check.largest_miss <= MISS_SHARE * check.scale:
        status = Status.WARNED
        message = (f"{message}; but the optimal inputs re-simulated ({check.formulation}, rtol {rtol:g}) miss the "
                   f"final conditions by {check.largest_miss:.3g} (move {check.scale:.3g}): refine the mesh "
                   f"(nodes, scheme='hermite-simpson'){' - ' + check.failure if check.failure else ''}")
    return dataclasses.replace(result, status=status, message=message, resimulation=check)


def interval_errors(result, system, rtol=1e-10):
    """The collocation error of each mesh interval (N,): the largest difference of p and v at its end
    between the solution and a simulation of the interval from the solution's state at its start."""
    form = _formulation(system, result)
    functions = input_functions(result)
    step = 2 if result.scheme == "hermite-simpson" else 1
    nodes = range(0, len(result.t) - 1, step)
    out = np.empty(len(nodes))
    for j, k in enumerate(nodes):
        e = k + step
        traj = form.simulate((result.t[k], result.t[e]), (result.p[k], result.v[k]), rtol=rtol, atol=rtol,
                             inputs=functions, check_initial=False)
        out[j] = max(np.max(np.abs(traj.p[-1] - result.p[e])), np.max(np.abs(traj.v[-1] - result.v[e]))) \
            if traj.status >= 0 else np.inf
    return out

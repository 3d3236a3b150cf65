"""Munthe-Kaas Runge-Kutta on SE(3) or SO(3) x R^3 in machine code: the steps of
formulations.solvers.lie (LieStepper) for the dependent formulation on the compiled backend, without
events or a post-step hook: the loop is formulations.solvers.machine.lie, the same for every
system and compiled once per machine; this module prepares its arguments. The recorded states are
evaluated after the run by the compiled pass of the loops (compiled_rk.recorded_run).
"""
from __future__ import annotations

import numpy as np


def _lie_run():
    """The loop in machine code (formulations.solvers.machine.lie), compiled or loaded on first use."""
    from .machine.lie import lie_run

    return lie_run


def applies(problem) -> bool:
    """True where the run can go in machine code: the compiled backend, a formulation whose Python
    loops call its compiled rhs (compiled_rk.machine_code_rhs), no events and no post-step hook."""
    from ..forms import COMPILED_ODE

    formulation = problem.formulation
    return (formulation.backend == "compiled" and formulation.compiled_python_rhs
            and formulation.gives(COMPILED_ODE) is None and not problem.events and problem.post_step is None)


def run(problem, states, adaptive, step, max_steps):
    """The RunRecord of an RKMK run in machine code; ``states`` the BodyStates of the method's group."""
    from ..results.status import LoopStop
    from .base import equal_steps
    from .compiled_rk import compiled_module, recorded_run, run_constants
    from .interrupts import run_interruptible

    formulation = problem.formulation
    t0, t1 = float(problem.t_span[0]), float(problem.t_span[1])
    grid = None if problem.t_eval is None else np.asarray(problem.t_eval, float)
    stops = [t1] if grid is None else sorted(set(grid[(grid > t0) & (grid < t1)]) | {t1})
    if adaptive:
        targets = np.array(stops, float)
        recorded = np.ones(targets.size, bool) if grid is None else np.isin(targets, grid)
    else:
        targets, recorded = equal_steps(t0, stops, step)
    module = compiled_module(formulation)
    address = module.loop_form()[1]
    params, extra = run_constants(formulation)
    first = float(problem.first_step) if problem.first_step else 0.0
    y0 = np.asarray(problem.y0, float)
    (ts, ys, status, t_reached, steps, rejected, evaluations), interrupted = run_interruptible(
        _lie_run(), address, module.stored_model(), params, extra, np.zeros(int(module.WORK)), states.n_p,
        np.ascontiguousarray(states.rot, np.int64), np.ascontiguousarray(states.pos, np.int64),
        np.ascontiguousarray(states.vel, np.int64), np.ascontiguousarray(states.world_linear, np.bool_),
        bool(states.group_world), bool(adaptive), t0, y0, targets, recorded, grid is None, float(problem.rtol),
        float(problem.atol), float(problem.max_step), first, int(max_steps))
    if grid is not None:  # only the requested points (t0 and t1 where the grid has them)
        wanted = np.isin(ts, grid)
        ts, ys = ts[wanted], ys[wanted]
    what = {0: "the integration reached the end of the interval",
            1: f"non-finite accelerations or {formulation.system_matrix} singular in a stage of the step from t = "
               f"{t_reached:.6g}",
            2: "step size fell below the spacing of t",
            3: LoopStop.MAX_STEPS.message(max_steps=max_steps),
            4: "interrupted"}[int(status)]
    message = what if status in (0, 4) else f"stopped at t = {t_reached:.6g}: {what}"
    return recorded_run(formulation, module, t0, [(ts, ys, extra)], -1 if status in (1, 2, 3) else 0, message,
                        int(steps), int(rejected), int(evaluations), interrupted=interrupted or status == 4)

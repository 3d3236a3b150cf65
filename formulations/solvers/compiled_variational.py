"""DLA and NH-RATTLE in machine code: the steps of formulations.solvers.variational for a formulation
on the compiled backend, the whole run in one call.

The pieces of the discrete Lagrangian (A, its derivatives, M, its derivatives, grad V, Phi, Phi_p,
C_nh, and a gauge term's grad S and its derivatives) and the forces f are two kernels of the system
(systems.numeric.codegen, symbolic in the parameters, so one per system structure); the loop takes
them as first-class functions, so its module (formulations.solvers.machine.variational) is the
same for every system and is compiled once per machine. It takes the steps of the Python stepper —
the same unknowns, predictor, difference Jacobian (factored, where the Python stepper inverts it),
convergence test and second stage — and records the states at the planned output steps; v', the multipliers and the checks of those states
come afterwards from the dependent formulation's compiled pass
(formulations.solvers.compiled_rk.recorded_run), as for the other compiled loops. Nothing returns
to Python per step; Ctrl-C sets the loop's stop flag (formulations.solvers.interrupts).

Status of a run: 0 finished, -1 Newton's method did not converge (info: time, residual, increment),
-4 non-finite values, -5 stopped by the flag, -7 a singular matrix (info[3]: 1 A, 2 M,
3 C M^-1 C^T, 4 the first stage's Jacobian).
"""
from __future__ import annotations

import numpy as np


def _loop():
    """The loop in machine code (formulations.solvers.machine.variational), compiled or loaded on first use."""
    from .machine.variational import run as loop

    return loop


def applies(problem) -> bool:
    """Whether the run goes to machine code: the formulation is on the compiled backend and nothing
    needs Python between steps (events)."""
    return getattr(problem.formulation, "backend", "numpy") == "compiled" and not problem.events


def kernels(model):
    """(pieces, force) kernels of a DiscreteLagrangian ``model`` (force: a kernel writing nothing where
    the system is conservative), made once per model and kept on it."""
    found = getattr(model, "compiled_kernels", None)
    if found is not None:
        return found
    from systems.numeric.codegen import compile_kernel

    system = model.system
    p, v = list(system.coordinates), list(system.velocities)
    params = [par.symbol for par in system.parameters]
    pieces = compile_kernel("variational_pieces", [("p", p), ("params", params)], model.entries)
    force = compile_kernel("variational_force", [("t", system.time), ("p", p), ("v", v), ("params", params)],
                           model.force_entries if model.forced else [])
    model.compiled_kernels = (pieces, force)
    return pieces, force


def run(stepper, problem, tolerance, round_off, slow, max_iterations):
    """The RunRecord of ``stepper``'s method (a VariationalStepper, which gives the plan and the
    model) on ``problem``, integrated in machine code."""
    from .compiled_rk import compiled_module, recorded_run
    from .interrupts import run_interruptible

    formulation, model = problem.formulation, stepper.model
    t0, t1 = float(problem.t_span[0]), float(problem.t_span[1])
    times = np.concatenate([[t0], stepper.plan(t0, t1)])
    if problem.t_eval is None:
        recorded = np.ones(times.size, np.int64)
    else:
        recorded = np.isin(times, np.asarray(problem.t_eval, float)).astype(np.int64)
    pieces, force = kernels(model)
    params = np.asarray(formulation.par, float)
    y0 = np.asarray(problem.y0, float)
    (ys, status, steps, counts, info), interrupted = run_interruptible(
        _loop(), pieces.compiled, force.compiled, bool(model.forced), bool(model.identity_A),
        stepper.rattle, model.n, model.m, model.l, model.offsets, params, times, recorded, y0, tolerance, round_off,
        slow, max_iterations)
    stepper.newton_iterations, stepper.jacobians = int(counts[2]), int(counts[1])
    ts = times[recorded.astype(bool)][:len(ys)]
    message = "the integration reached the end of the interval"
    if status == -5:
        status = 0  # recorded_run writes the interruption's message
    elif status < 0:
        status, message = -1, f"stopped at t = {info[0]:.6g}: {_failure(stepper, status, info)}"
    module = compiled_module(formulation)
    extra = np.asarray(formulation.compiled_arguments(), float)
    return recorded_run(formulation, module, t0, [(ts, ys, extra)], status, message, int(steps), 0, int(counts[0]),
                        interrupted=interrupted)


_SINGULAR = {1: "A (p' = A v)", 2: "the mass matrix M", 3: "C M^-1 C^T (the rows at the step's end)",
             4: "the first stage's Jacobian"}


def _failure(stepper, status, info) -> str:
    """Why the compiled loop stopped, worded as the Python stepper's StepFailure (which reports
    non-finite iterates as a step that did not converge)."""
    name, method = stepper.system.name, stepper.method
    if status == -1:
        return (f"{method} on system {name!r}: Newton's method did not converge in the step from t = {info[0]:.6g} "
                f"(largest residual {info[1]:.3g}, last increment {info[2]:.3g}); try a smaller step")
    if status == -4:
        return f"{method} on system {name!r}: non-finite values in the step from t = {info[0]:.6g}; try a smaller step"
    return (f"{method} on system {name!r}: {_SINGULAR.get(int(info[3]), 'a matrix')} is singular in the step from "
            f"t = {info[0]:.6g}")


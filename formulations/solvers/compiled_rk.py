"""Runs on the compiled backend: a formulation's compiled module (formulations.kernels; its
``evaluate``, ``rhs``, ``post_step`` and the passes over recorded points), the machine-code loops
that integrate it (formulations.solvers.machine: Dormand-Prince 5(4), DOP853, the classical
Runge-Kutta method) and the record of a run made from their output.

The loops are the same for every formulation and system, compiled once per machine; they call the
formulation module's entry points ``rhs_at`` and ``post_step_at`` through their addresses, with the
address of the formulation's model in memory (``BoundModule.loop_form``,
formulations.kernels.by_address). What is recorded per output point (accelerations, reactions,
errors) is computed after the run, by one compiled pass. Where a loop stops for a new chart
(tangent-space charts), run_compiled goes on from the state the formulation gives on the new chart.
"""
from __future__ import annotations

import functools
import time
import weakref

from systems.numeric.compiling import compiled_seconds

from ..forms import StepChange
from ..results.status import LoopStop

_MODULES = weakref.WeakKeyDictionary()  # formulation -> its module: the source is written once per instance


def compiled_module(formulation):
    """The formulation's compiled functions with its system's model bound (formulations.kernels.bound),
    compiled by numba on first use and cached on disk (and, per formulation instance, in memory: its
    model is fixed when it is created)."""
    formulation = formulation.origin  # a run's copy shares the module of the formulation it copies
    module = _MODULES.get(formulation)
    if module is None:
        from systems.numeric.codegen import require_numba

        from ..errors import CapabilityError
        from ..kernels.bound import BoundModule

        require_numba()
        made = formulation.compiled_model()
        if made is None:
            raise CapabilityError(f"formulation {formulation.name!r} has no compiled right-hand side")
        module = _MODULES[formulation] = BoundModule(*made)
    return module


def machine_loop(name):
    """The machine-code loop ``name`` ("integrate": Dormand-Prince 5(4), "integrate_rk4",
    "integrate853": DOP853; formulations.solvers.machine), compiled or loaded on first use."""
    from .machine import dop853, runge_kutta

    return getattr(dop853 if name == "integrate853" else runge_kutta, name)


def run_constants(formulation):
    """(params, extra): the run-time constants of the formulation's compiled module for a run, as
    float arrays (the system's parameters, and Formulation.compiled_arguments)."""
    import numpy as np

    return np.asarray(formulation.par, float), np.asarray(formulation.compiled_arguments(), float)


def machine_code_rhs(formulation):
    """y' = F(t, y) as one call into the formulation's compiled module (rhs through the stored model,
    some microseconds), for the Python and scipy loops on the compiled backend (events, Lie groups,
    implicit methods); None where the formulation does not allow it: another backend, a configuration
    its module does not serve, or run-time constants that change during a run (charts, a re-chosen
    set of independent velocities). A singular matrix or a non-finite piece raises
    SingularMatrixError, as the Python evaluation does."""
    import numpy as np

    from ..forms import COMPILED_ODE
    from ..linalg import SingularMatrixError

    if formulation.backend != "compiled" or not formulation.compiled_python_rhs or formulation.gives(COMPILED_ODE):
        return None
    module = compiled_module(formulation)
    rhs_at, where = module.module.rhs_at, module.stored_model()
    params, extra = run_constants(formulation)
    work = np.zeros(int(module.WORK))  # one per run: a formulation may run in several threads at once

    def rhs(t, y, module=module):  # the module holds the memory at ``where``
        out = np.empty(len(y))
        if not rhs_at(where, float(t), np.array(y, float), params, extra, out, work):
            raise SingularMatrixError(formulation.system_matrix, "a zero pivot or non-finite entries")
        return out

    return rhs


def run_compiled(problem, max_steps, loop="integrate"):
    """Integrate problem (form COMPILED_ODE) with the compiled loop; the accelerations and
    multipliers of the output points come from one compiled pass after the run, and the monitor is
    applied to the output points in order (a run that it stops ends at the last point before)."""
    import numpy as np

    from .base import StateChanges
    from .interrupts import held_back, run_interruptible

    formulation = problem.formulation
    module = compiled_module(formulation)
    run = functools.partial(machine_loop(loop), module.loop_form())  # the module holds what it points into
    params = np.asarray(formulation.par, float)
    changes = StateChanges()
    (stretches, status, message, evaluations, steps, rejected), interrupted = run_interruptible(
        _stretches, module, run, problem, params, max_steps, changes)
    if formulation.stabilization.projects:  # one per accepted step, as the Python loop's
        changes.projections = int(steps)
    with held_back() as caught:  # a signal inside numba's conversion of results would be a SystemError
        if problem.t_eval is not None and formulation.stabilization.projects:
            for ts_, ys_, extra_ in stretches:  # dense output interpolates unprojected states
                module.project_all(ts_, ys_, params, extra_)
    return recorded_run(formulation, module, problem.t_span[0], stretches, status, message, int(steps),
                        int(rejected), int(evaluations), changes, interrupted or bool(caught))


def recorded_run(formulation, module, t0, stretches, status, message, steps, rejected, evaluations, changes=None,
                 interrupted=False, t_events=()):
    """The RunRecord of states recorded by a loop in machine code (or by IDA on a compiled residual)
    from t0: ``stretches`` [(ts, ys, extra)], evaluated by one compiled pass (y', v', lambda; constraint
    errors, energy and rank measures), cut at the first point where Phi_p loses rank (the rank
    monitor of formulations.solvers.monitor, on the rows; not where rows are dependent from the
    start) or where the formulation's own watch stops it; status and message as the loop ended;
    ``t_events`` the (t, index) of the events located, those after the last point kept dropped."""
    import numpy as np

    from .base import RunRecord, StateChanges, interruption_message
    from .interrupts import held_back
    from .monitor import singular_message

    params = np.asarray(formulation.par, float)
    with held_back() as caught:  # a signal inside numba's conversion of results would be a SystemError
        parts = [module.evaluate_all(ts_, ys_, params, extra_) for ts_, ys_, extra_ in stretches]
        ts, ys = (np.concatenate([part[i] for part in stretches]) for i in (0, 1))
        ydot, lam, ok, ps, vs, vdots = (np.concatenate([part[i] for part in parts]) for i in range(6))
        checks = module.check_all(ts, ps, vs, vdots, ok, params)
    interrupted = interrupted or bool(caught)
    end = len(ts)
    # the rank monitor of formulations.solvers.monitor, on the rows (not where rows are dependent from the start)
    watch = formulation.stop_at_singular and not formulation.system.redundant_constraints
    if formulation.system.m and len(ts) and watch:
        threshold = formulation.singular_ratio * checks[0, 4]
        bad = np.flatnonzero((checks[1:, 5] <= 0) | (checks[1:, 4] < threshold))
        if bad.size:
            k = int(bad[0]) + 1
            crossed = bool(checks[k, 5] <= 0)
            status, end = -1, k
            message = f"stopped at t = {ts[k]:.6g}: {singular_message(formulation.system, ps[k], crossed, checks[k, 4])}"
    offset = 0
    for ts_, ys_, extra_ in stretches:  # the formulation's own watch, stretch by stretch
        stop = formulation.compiled_stop(module, ys_[:end - offset], params, extra_, ts_[:end - offset]) \
            if end > offset else None
        if stop is not None:
            kept, why = stop
            end = offset + kept
            status, message = -1, f"stopped at t = {ts[end - 1]:.6g}: {why}"
            break
        offset += len(ys_)
    if interrupted:
        status, message = -1, interruption_message(ts[:end], t0)
    missing = ~ok[:end]
    vdots, lam = vdots[:end], lam[:end]
    vdots[missing], lam[missing] = np.nan, np.nan
    kept_events = [e for e in t_events if end and e[0] <= ts[end - 1]]
    return RunRecord(ts[:end].tolist(), None, status, message, steps, kept_events, rejected=rejected,
                     evaluations=evaluations, checks=checks[:end, :4], kinematic_ratio=checks[:end, 6],
                     interrupted=interrupted, columns=(ys[:end], ps[:end], vs[:end], vdots, lam),
                     changes=changes if changes is not None else StateChanges())


def _stretches(module, loop, problem, params, max_steps, changes, stop):
    """(stretches, status, message, evaluations, steps, rejected): the compiled loop from t0, and
    where it stops for a new chart (status 1), again from the state the formulation gives on the
    new chart (``compiled_restart``) with the step size it had reached; each stretch (ts, ys,
    extra) keeps its own ``extra`` (its chart) for the pass over its points. Runs on the loop's
    thread (formulations.solvers.interrupts); ``stop`` is its Ctrl-C flag. The new charts are
    counted into ``changes`` (a StateChanges)."""
    import numpy as np

    from ..errors import StopRun

    formulation = problem.formulation
    t_eval = np.empty(0) if problem.t_eval is None else np.asarray(problem.t_eval, float)
    first = float(problem.first_step) if problem.first_step else 0.0
    t1 = float(problem.t_span[1])
    y, t_start = np.asarray(problem.y0, float), float(problem.t_span[0])
    stretches = []
    evaluations = steps = rejected = 0
    message = "the integration reached the end of the interval"
    while True:
        extra = np.asarray(formulation.compiled_arguments(), float)
        grid = t_eval[t_eval > t_start] if stretches else t_eval
        ts, ys, status, t_stop, n_eval, n_steps, n_rejected, y_end, h_end = loop(
            t_start, t1, y, params, extra, float(problem.rtol), float(problem.atol), float(problem.max_step), first,
            grid, int(max_steps - steps), stop)
        if stretches and not t_eval.size:  # the first point is the last of the chart before
            ts, ys = ts[1:], ys[1:]
        stretches.append((ts, ys, extra))
        evaluations, steps, rejected = evaluations + n_eval, steps + n_steps, rejected + n_rejected
        if status < 0:
            what = LoopStop(status).message(formulation.system_matrix, max_steps)
            if status == -2 and problem.explain is not None:  # what grew, as the Python loop says it
                what = problem.explain(t_stop, y_end)
            return stretches, -1, f"stopped at t = {t_stop:.6g}: {what}", evaluations, steps, rejected
        if status == 0 or t_stop >= t1 or stop[0] != 0:
            return stretches, 0, message, evaluations, steps, rejected
        started, compiling = time.perf_counter(), compiled_seconds()
        try:
            y = np.asarray(formulation.compiled_restart(module, t_stop, y_end, params, extra), float)
        except StopRun as exc:
            return stretches, -1, f"stopped at t = {t_stop:.6g}: {exc}", evaluations, steps, rejected
        changes.count(StepChange(y, charted=True), time.perf_counter() - started - (compiled_seconds() - compiling))
        t_start, first = float(t_stop), float(h_end)

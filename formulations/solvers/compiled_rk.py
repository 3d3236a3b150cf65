"""The Dormand-Prince 5(4) loop in machine code, for formulations that give a compiled right-hand
side (formulations.forms COMPILED_ODE: ``Formulation.compiled_rhs_source``).

Both loops (this one and DOP853's, formulations.solvers.compiled_dop853) form one module, the same
for every formulation and system, compiled by numba once per machine and cached on disk
(systems.numeric.codegen.compile_module). Its ``rhs(t, y, params, extra, out, work) -> bool``
(False: a singular matrix; work from workspace(), one per run) and ``post_step`` call the
formulation module's entry points ``rhs_at`` and ``post_step_at`` through their addresses, with the
address of the formulation's model in memory (formulations.kernels.by_address; ``compiled_loops``
binds them). Same tableau, controller,
initial step and FSAL as the Python ``dopri5`` (formulations.solvers.explicit_rk); output at every
accepted step, or on t_eval from the step's cubic Hermite interpolant. Nothing returns to Python
per step and a step allocates nothing; what is recorded per output point (accelerations, reactions, errors) is computed after
the run. After every accepted step the module's ``post_step(t, y, params, extra, work)`` says 0
(nothing), 2 (y projected in place: the loop records it and evaluates y' anew), 1 (a new chart is
wanted, on tangent-space charts: the loop returns with status 1 at that step, and run_compiled
goes on from the new chart) or -1 (the projection failed). Where the module's REJECT_FAILED_STAGES is
True, a trial stage whose evaluation fails (a chart that cannot reach it) shrinks the step instead
of ending the run. Status: 1 new chart, 0 finished, -1 singular matrix, -2 step size underflow, -3
too many steps, -4 non-finite values, -5 stopped by the ``stop`` flag (Ctrl-C: the loop runs on a
thread, see formulations.solvers.interrupts), -6 a failed projection.
"""
from __future__ import annotations

import dataclasses
import functools
import time
import weakref

from systems.numeric.compiling import compiled_seconds

from ..forms import StepChange
from ..results.status import LoopStop

LOOP = '''

_C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
_A = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
               [1 / 5, 0.0, 0.0, 0.0, 0.0, 0.0],
               [3 / 40, 9 / 40, 0.0, 0.0, 0.0, 0.0],
               [44 / 45, -56 / 15, 32 / 9, 0.0, 0.0, 0.0],
               [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0.0, 0.0],
               [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0.0],
               [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]])
_E = np.array([71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])


@numba.njit(cache=True)
def rms(x):
    return math.sqrt(np.mean(x * x)) if x.size else 0.0


@numba.njit(cache=True)
def hermite(t0, y0, f0, t1, y1, f1, t, out):
    """The cubic Hermite interpolant of the step (t0, t1) at t, into out."""
    h = t1 - t0
    s = (t - t0) / h
    c0, c1, c2, c3 = 2 * s**3 - 3 * s**2 + 1, (s**3 - 2 * s**2 + s) * h, -2 * s**3 + 3 * s**2, (s**3 - s**2) * h
    for i in range(y0.size):
        out[i] = c0 * y0[i] + c1 * f0[i] + c2 * y1[i] + c3 * f1[i]


@numba.njit(cache=True)
def first_point(t0, y, t_eval):
    """(ts, ys, count, next_eval): output arrays (t_eval's size, or 256 rows to grow) holding the
    initial point where it is wanted."""
    grid = t_eval.size > 0
    cap = t_eval.size if grid else 256
    ts = np.empty(cap)
    ys = np.empty((cap, y.size))
    if grid and t_eval[0] != t0:
        return ts, ys, 0, 0
    ts[0] = t0
    ys[0] = y
    return ts, ys, 1, 1 if grid else 0


@numba.njit(cache=True)
def append(ts, ys, count, t, y):
    """(ts, ys) with (t, y) stored at row count, doubled in size where full."""
    if count == ts.size:
        ts2 = np.empty(2 * ts.size)
        ys2 = np.empty((2 * ts.size, y.size))
        ts2[:count] = ts[:count]
        ys2[:count] = ys[:count]
        ts, ys = ts2, ys2
    ts[count] = t
    ys[count] = y
    return ts, ys


@numba.njit(cache=True)
def stage(y, h, a, K, s, out):
    """out = y + h sum_(j < s) a[j] K[j], a Runge-Kutta stage's argument (no allocation)."""
    for i in range(y.size):
        acc = 0.0
        for j in range(s):
            acc += a[j] * K[j, i]
        out[i] = y[i] + h * acc


@numba.njit(cache=True)
def _initial_step(t, y, f, t1, rtol, atol, max_step, params, extra, order, work):
    """(h, ok): the initial step of Hairer, Norsett & Wanner II.4 for an error estimate of ``order``
    (as scipy's select_initial_step); one evaluation, ok False where it fails."""
    scale = atol + rtol * np.abs(y)
    d0, d1 = rms(y / scale), rms(f / scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, abs(t1 - t))
    f1 = np.empty(y.size)
    if not rhs(t + h0, y + h0 * f, params, extra, f1, work):
        return h0, False
    d2 = rms((f1 - f) / scale) / h0
    h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else (0.01 / max(d1, d2)) ** (1 / (order + 1))
    return min(100 * h0, h1, abs(t1 - t), max_step), True


@numba.njit(cache=True)
def _prologue(t0, t1, y, t_eval, params, extra, rtol, atol, max_step, first_step, order, f, work):
    """(ts, ys, count, next_eval, h, evaluations, ok) of both loops: the output arrays holding the
    initial point where wanted, f = y'(t0) and the first step (first_step, else chosen for an error
    estimate of ``order``); ok False where an evaluation failed (count 0 where the first did)."""
    ts, ys, count, next_eval = first_point(t0, y, t_eval)
    if not rhs(t0, y, params, extra, f, work):
        return ts, ys, 0, next_eval, 0.0, 1, False
    if first_step > 0:
        return ts, ys, count, next_eval, first_step, 1, True
    h, ok = _initial_step(t0, y, f, t1, rtol, atol, max_step, params, extra, order, work)
    return ts, ys, count, next_eval, h if ok else 0.0, 2, ok


@numba.njit(cache=True)
def _after_step(t, y, params, extra, work, ys, count, grid, f):
    """(code, evaluations) of both loops after an accepted step to (t, y), f = y'(t): the
    formulation's post-step action. code 0 go on, 1 a new chart wanted at y, -6 the projection
    failed, -1 the derivative of a projected state failed; a projected y replaces its output row
    (every-step output) and f is evaluated anew."""
    action = post_step(t, y, params, extra, work)
    if action == 1:
        return 1, 0
    if action < 0:
        return -6, 0
    if action == 2:
        if not grid:
            ys[count - 1] = y
        if not rhs(t, y, params, extra, f, work):
            return -1, 1
        return 0, 1
    return 0, 0


@numba.njit(cache=True)
def _output(t, y, f, t_new, y_new, f_new, grid, t_eval, next_eval, ts, ys, count):
    """(ts, ys, count, next_eval) after an accepted step (t, y) -> (t_new, y_new) with derivatives f,
    f_new at its ends: the t_eval points it passes, from its cubic Hermite interpolant, or (no
    grid) its end."""
    if not grid:
        ts, ys = append(ts, ys, count, t_new, y_new)
        return ts, ys, count + 1, next_eval
    while next_eval < t_eval.size and t_eval[next_eval] <= t_new:
        ts[count] = t_eval[next_eval]
        hermite(t, y, f, t_new, y_new, f_new, t_eval[next_eval], ys[count])
        count += 1
        next_eval += 1
    return ts, ys, count, next_eval


@numba.njit(cache=True, nogil=True)
def integrate(t0, t1, y0, params, extra, rtol, atol, max_step, first_step, t_eval, max_steps, stop):
    """(ts, ys, status, t_stop, evaluations, steps, rejected, y, h): the output (t_eval empty: every
    accepted step), the state y at t_stop and the next step size h. One work array serves every
    evaluation; a step allocates nothing (output rows grow by doubling)."""
    n = y0.size
    grid = t_eval.size > 0
    work = workspace()
    y = y0.copy()
    y_new = np.empty(n)
    t = t0
    K_store = np.empty((7, n))
    K = borrowed(K_store)  # its rows, the stages' outputs, without reference counting
    ts, ys, count, next_eval, h, evaluations, ok = _prologue(t0, t1, y, t_eval, params, extra, rtol, atol, max_step,
                                                             first_step, 4, K[0], work)
    if not ok:
        return ts[:count], ys[:count], -1, t, evaluations, 0, 0, y, 0.0
    steps = 0
    rejected = 0
    while t < t1:
        if steps >= max_steps:
            return ts[:count], ys[:count], -3, t, evaluations, steps, rejected, y, h
        if stop[0] != 0:  # set by the calling thread on Ctrl-C
            return ts[:count], ys[:count], -5, t, evaluations, steps, rejected, y, h
        h = min(h, max_step, t1 - t)
        while True:
            if h < 10 * np.spacing(abs(t) + 1.0):
                return ts[:count], ys[:count], -2, t, evaluations, steps, rejected, y, h
            ok = True
            for i in range(1, 7):  # the last stage's argument is the new state (FSAL)
                stage(y, h, _A[i], K, i, y_new)
                evaluations += 1
                ok = rhs(t + _C[i] * h, y_new, params, extra, K[i], work)
                if not ok:
                    break
            if not ok:
                if REJECT_FAILED_STAGES:  # a trial stage the chart cannot reach: a shorter step
                    rejected += 1
                    h *= 0.2
                    continue
                return ts[:count], ys[:count], -1, t, evaluations, steps, rejected, y, h
            acc = 0.0
            for i in range(n):
                e = 0.0
                for j in range(7):
                    e += _E[j] * K[j, i]
                e = h * e / (atol + rtol * max(abs(y[i]), abs(y_new[i])))
                acc += e * e
            err = math.sqrt(acc / n) if n else 0.0
            if not np.isfinite(err):
                if not finite(y_new):
                    return ts[:count], ys[:count], -4, t, evaluations, steps, rejected, y, h
                rejected += 1
                h *= 0.2
                continue
            if err <= 1.0:
                factor = 10.0 if err == 0 else min(10.0, 0.9 * err ** -0.2)
                break
            rejected += 1
            h *= max(0.2, 0.9 * err ** -0.2)
        t_new = t + h
        steps += 1
        ts, ys, count, next_eval = _output(t, y, K[0], t_new, y_new, K[6], grid, t_eval, next_eval, ts, ys, count)
        t = t_new
        y[:] = y_new
        K[0] = K[6]
        h = h * factor
        code, more = _after_step(t, y, params, extra, work, ys, count, grid, K[0])
        evaluations += more
        if code != 0:
            return ts[:count], ys[:count], code, t, evaluations, steps, rejected, y, h
    hold(K_store)  # alive up to here: K borrows it
    return ts[:count], ys[:count], 0, t, evaluations, steps, rejected, y, h


_RK4_A = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
_RK4_C = np.array([0.0, 0.5, 0.5, 1.0])


@numba.njit(cache=True, nogil=True)
def integrate_rk4(t0, t1, y0, params, extra, rtol, atol, max_step, first_step, t_eval, max_steps, stop):
    """As integrate, for the classical Runge-Kutta method with the fixed step first_step (the last
    step shortened to land on t1): the steps of formulations.solvers.fixed_step's RungeKutta4, with
    its cubic Hermite output; rtol, atol and max_step are not used, and the step it returns is
    first_step."""
    n = y0.size
    grid = t_eval.size > 0
    work = workspace()
    y = y0.copy()
    y_new = np.empty(n)
    t = t0
    K_store = np.empty((5, n))  # the four stages' outputs, then y' at the step's end
    K = borrowed(K_store)
    ts, ys, count, next_eval = first_point(t0, y, t_eval)
    evaluations, steps = 1, 0
    if not rhs(t0, y, params, extra, K[0], work):
        return ts[:0], ys[:0], -1, t, evaluations, 0, 0, y, first_step
    while t < t1:
        if steps >= max_steps:
            return ts[:count], ys[:count], -3, t, evaluations, steps, 0, y, first_step
        if stop[0] != 0:
            return ts[:count], ys[:count], -5, t, evaluations, steps, 0, y, first_step
        h = min(first_step, t1 - t)
        for i in range(1, 5):  # the stages, then y' at the new state
            if i < 4:
                stage(y, h, _RK4_A[i], K, i, y_new)
            else:
                for j in range(n):
                    y_new[j] = y[j] + h / 6 * (K[0, j] + 2 * K[1, j] + 2 * K[2, j] + K[3, j])
            evaluations += 1
            if not rhs(t + _RK4_C[i] * h if i < 4 else t + h, y_new, params, extra, K[i], work):
                return ts[:count], ys[:count], -1, t, evaluations, steps, 0, y, first_step
        if not finite(y_new):
            return ts[:count], ys[:count], -4, t, evaluations, steps, 0, y, first_step
        t_new = t + h
        steps += 1
        ts, ys, count, next_eval = _output(t, y, K[0], t_new, y_new, K[4], grid, t_eval, next_eval, ts, ys, count)
        t = t_new
        y[:] = y_new
        K[0] = K[4]
        code, more = _after_step(t, y, params, extra, work, ys, count, grid, K[0])
        evaluations += more
        if code != 0:
            return ts[:count], ys[:count], code, t, evaluations, steps, 0, y, first_step
    hold(K_store)
    return ts[:count], ys[:count], 0, t, evaluations, steps, 0, y, first_step
'''


# what the loops call: the formulation module's entry points (rhs_at, post_step_at) with the address
# of its stored model, which BoundModule.loop_constants() gives per formulation instance
LOOPS_HEADER = '''import math

import numba
import numpy as np

from formulations.kernels.borrowed import borrowed, hold
from formulations.kernels.by_address import call_post_step_at, call_rhs_at
from formulations.kernels.linalg import finite

LINALG = "{LINALG}"
MODEL_ADDRESS = 0
ADDRESS_RHS_AT = 0
ADDRESS_POST_STEP_AT = 0
WORK = 0
REJECT_FAILED_STAGES = False


@numba.njit(cache=True)
def workspace():
    """The work array of rhs (WORK zeros): one per run, reused by every evaluation."""
    return np.zeros(WORK)


@numba.njit(cache=True)
def rhs(t, y, params, extra, out, work):
    """The formulation's y' (False: a singular matrix)."""
    return call_rhs_at(ADDRESS_RHS_AT, (MODEL_ADDRESS, t, y, params, extra, out, work))


@numba.njit(cache=True)
def post_step(t, y, params, extra, work):
    """The formulation's action after an accepted step (formulations.kernels.common.passes)."""
    return call_post_step_at(ADDRESS_POST_STEP_AT, (MODEL_ADDRESS, t, y, params, extra, work))
'''

_MODULES = weakref.WeakKeyDictionary()  # formulation -> its module: the source is written once per instance


def compiled_module(formulation):
    """The formulation's generated module, compiled by numba on first use and cached on disk (and,
    per formulation instance, in memory: its source is fixed when it is created)."""
    module = _MODULES.get(formulation)
    if module is None:
        from systems.numeric.codegen import compile_module

        from ..kernels.generic import BoundModule, generic_module

        generic = generic_module(formulation.compiled_rhs_source())
        module = _MODULES[formulation] = BoundModule(compile_module(generic.text), generic)
    return module


@functools.lru_cache(maxsize=1)
def _loops_module():
    """Both loops (integrate: Dormand-Prince 5(4); integrate853: DOP853) as one generic module, the
    same for every formulation and system: compiled once per machine."""
    from systems.numeric.codegen import compile_module

    from ..kernels.common import LINALG
    from ..kernels.generic import generic_module
    from .compiled_dop853 import LOOP853

    generic = generic_module(LOOPS_HEADER.replace("{LINALG}", LINALG) + LOOP + LOOP853, by_address=False)
    return compile_module(generic.text), generic


def compiled_loops(module):
    """The loops bound to a formulation's compiled module (compiled_module): ``loops.integrate853(t0,
    ...)`` runs them on its right-hand side and post-step. They hold the module (their model holds
    addresses into it)."""
    if module.loops is None:
        from ..kernels.generic import BoundModule

        compiled, generic = _loops_module()
        constants = module.loop_constants()
        bound = dataclasses.replace(generic, values=tuple(constants[name] for name in generic.fields))
        module.loops = BoundModule(compiled, bound, owner=module)
    return module.loops


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
    loops = compiled_loops(module)
    params = np.asarray(formulation.par, float)
    changes = StateChanges()
    (stretches, status, message, evaluations, steps, rejected), interrupted = run_interruptible(
        _stretches, module, getattr(loops, loop), problem, params, max_steps, changes)
    if formulation.stabilization.projects:  # one per accepted step, as the Python loop's
        changes.projections = int(steps)
    with held_back() as caught:  # a signal inside numba's conversion of results would be a SystemError
        if problem.t_eval is not None and formulation.stabilization.projects:
            for ts_, ys_, extra_ in stretches:  # dense output interpolates unprojected states
                module.project_all(ts_, ys_, params, extra_)
    return recorded_run(formulation, module, problem.t_span[0], stretches, status, message, int(steps),
                        int(rejected), int(evaluations), changes, interrupted or bool(caught))


def recorded_run(formulation, module, t0, stretches, status, message, steps, rejected, evaluations, changes=None,
                 interrupted=False):
    """The RunRecord of states recorded by a loop in machine code (or by IDA on a compiled residual)
    from t0: ``stretches`` [(ts, ys, extra)], evaluated by one compiled pass (y', v', lambda; constraint
    errors, energy and rank measures), cut at the first point where Phi_p loses rank (the rank
    monitor of formulations.solvers.monitor, on the rows; not where rows are dependent from the
    start) or where the formulation's own watch stops it; status and message as the loop ended."""
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
    return RunRecord(ts[:end].tolist(), None, status, message, steps, [], rejected=rejected,
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

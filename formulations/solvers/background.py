"""The background compile's child process: it compiles the machine code of each job it is handed
(systems.numeric.background) by a short run on the compiled backend, one job at a time under the
cache folder's lock, and marks it ready. ``python -m formulations.solvers.background REQUEST``."""
from __future__ import annotations

import contextlib
import os
import pathlib
import pickle
import sys
import time

import numpy as np

from systems.numeric import background

from ..base import create
from ..errors import CapabilityError
from ..forms import COMPILED_ODE
from .base import solver_class
from .compiled_rk import compiled_module

SHORT_RUN = 1e-3     # s of motion in the compiling run
FIXED_STEP = 2.5e-4  # s: the compiling run's step, for the fixed-step methods without the run's own


def compile_job(job):
    """Compile (or load) the machine code of ``job`` by a short run on the compiled backend from the
    job's state, recorded at three points (the passes over recorded points compile too), then on
    tangent-space charts a new chart at its end, and mark it ready. Returns the run's Trajectory; RuntimeError naming the job where the run failed."""
    form = create(job.formulation, job.system, stabilization=job.stabilization, backend="compiled",
                  **dict(job.options))
    state = job.state or job.system.default_state()
    step = job.step if job.step is not None else (FIXED_STEP if solver_class(job.method).fixed_step else None)
    span = (job.t0, job.t0 + max(SHORT_RUN, 4 * (step or 0.0)))
    traj = form.simulate(span, state, method=job.method, step=step, t_eval=np.linspace(*span, 3), check_initial=False)
    if traj.status < 0 or traj.stats.backend != "compiled":
        raise RuntimeError(f"{job.label()}: the short run failed on backend {traj.stats.backend!r} ({traj.message})")
    if form.on_charts and form.gives(COMPILED_ODE) is None:  # a short run takes no new chart: take one
        run = form.for_run()  # the run's chart was its own copy's: a chart at its end state, then a new one
        y = run.own_state(traj.p[-1], traj.v[-1], traj.t[-1])
        with contextlib.suppress(CapabilityError):
            run.compiled_restart(compiled_module(run), traj.t[-1], y, np.asarray(run.par, float),
                                 run.compiled_arguments())
    background.mark_ready(job)
    return traj


def compile_logged(job):
    """compile_job with its outcome in the log; a failure recorded (then runs of the job stay on numpy
    and say why), the claim released either way."""
    if background.ready(job):
        background.release(job)
        return
    started, cpu = time.perf_counter(), time.process_time()
    try:
        compile_job(job)
        background.log(f"ready {job.key()} {job.label()}: {time.perf_counter() - started:.1f} s "
                       f"({time.process_time() - cpu:.1f} s CPU)")
    except Exception as exc:  # noqa: BLE001  (recorded: the runs stay on numpy and say why)
        reason = f"{type(exc).__name__}: {exc}"
        background.log(f"failed {job.key()} {job.label()}: {reason}")
        with contextlib.suppress(OSError):
            background.write(background.folder() / "ready" / f"{job.key()}.failed", reason)
    finally:
        background.release(job)


def main(argv=None) -> int:
    """Compile the jobs of the request file argv[0], one at a time under the folder's lock, at a
    lower priority than the user's runs; then remove the request."""
    request = pathlib.Path((sys.argv[1:] if argv is None else argv)[0])
    with contextlib.suppress(OSError):
        os.nice(10)
    try:
        jobs = pickle.loads(request.read_bytes())
        with background.folder_lock():
            for job in jobs:
                compile_logged(job)
    finally:
        with contextlib.suppress(OSError):
            request.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tiered execution: on the backend "auto", a run goes ahead on numpy now where the machine code it
needs is not ready, while a background process compiles that code for the next run
(systems.numeric.background); where it is ready, the run is compiled. Nobody waits for a compile.
backend="compiled" still compiles in the foreground; backend="numpy" never compiles."""
from __future__ import annotations

from systems.numeric import background, codegen

from ..base import create
from ..errors import CapabilityError
from .base import solver_class

NUMPY_NOW = "numpy now; the machine code is being prepared in the background, for the next run"
NUMPY_OFF = (f"numpy: the machine code is not ready and background compiling is off "
             f"(${background.ENVIRONMENT}=0)")
NUMPY_NOT_STARTED = ("numpy: the machine code is not ready, and no background compile could be started here "
                     "(see background.log in the cache folder; `pfaff cache warm` compiles ahead)")
COMPILED_READY = "compiled: the machine code was ready"


def note_for(jobs, started) -> str:
    """What runs on numpy say: the machine code is being prepared, or why not."""
    reasons = [reason for reason in (background.failed(job) for job in jobs) if reason]
    if reasons:
        return f"numpy: the machine code could not be prepared ({reasons[0]})"
    if not background.enabled():
        return NUMPY_OFF
    if started or any(background.claimed(job) for job in jobs):
        return NUMPY_NOW
    return NUMPY_NOT_STARTED


def _compiled_ready(job) -> bool:
    """Whether ``job``'s machine code is ready and numba imports here (an installed numba built for
    another numpy does not: then runs stay on numpy)."""
    return background.ready(job) and codegen.importable()


def for_run(formulation, method, step=None, state=None, t0=0.0, inputs=False):
    """(the formulation to run, a note on its backend or None) for a run of ``formulation`` with
    ``method``: the formulation itself unless it was created with backend "auto", else the same
    formulation on "compiled" where the run's machine code is ready and on "numpy" where it is not
    (then the machine code is submitted to the background compile). Runs with inputs that vary stay
    on the backend chosen at creation (their evaluation is in Python either way)."""
    if formulation.requested_backend != "auto" or not background.available() or not _known(method):
        return formulation, None  # an unknown method: the run refuses it, naming the methods
    job = formulation.job(method, step, state, t0)
    if _compiled_ready(job):
        return twin(formulation, "compiled"), COMPILED_READY
    if inputs:
        return formulation, None
    started = background.submit([job])
    return twin(formulation, "numpy"), note_for([job], started)


def _known(method) -> bool:
    """Whether ``method`` names a registered solver (or is a solver or its settings object)."""
    if not isinstance(method, str):
        return True
    try:
        solver_class(method)
    except CapabilityError:
        return False
    return True


def twin(formulation, backend):
    """``formulation`` on ``backend``: itself where it runs there, else the same formulation created
    anew on it (kept on the formulation for its next runs)."""
    if formulation.backend == backend:
        return formulation
    twins = formulation.__dict__.setdefault("_twins", {})
    if backend not in twins:
        stabilization, options = formulation.creation
        twins[backend] = create(formulation.name, formulation.system, stabilization=stabilization,
                                backend=backend, **options)
    return twins[backend]


def shared_backend(jobs) -> tuple:
    """(backend, the jobs not ready) of several runs that share one backend (a comparison's rows):
    "compiled" where every run's machine code is ready, else "numpy" for all."""
    if not background.available():
        return "numpy", []
    missing = [job for job in jobs if not _compiled_ready(job)]
    return ("numpy" if missing else "compiled"), missing


def prepare(missing) -> str | None:
    """The note of runs that share a backend, after the machine code of ``missing`` (shared_backend)
    is handed to one background process."""
    if not background.available():
        return None
    return note_for(missing, background.submit(missing)) if missing else COMPILED_READY


def choose(jobs) -> tuple:
    """(backend, note) shared by several runs: shared_backend, then prepare."""
    backend, missing = shared_backend(list(jobs))
    return backend, prepare(missing)

"""Time spent compiling, told apart from time spent computing, and a line on stderr while it lasts.

numba compiles a function at its first call for new argument types unless its machine code is in the
cache, and a system's kernels (numba cfuncs, systems.numeric.cache.cfunc) when their module is first
imported. ``compiled_seconds()`` is the time this process has spent on such compiles so far (the
outermost ones: a function's callees compile inside it), counted from numba's compile events and
from the kernels' own compiles; ``watch_compiling()`` takes the difference over a block, so that a
run can report its wall time without it. The count is per process: runs in several threads of one
process at once share it. While a watch with ``announce`` is on, the start of a compile of one of a
generated module's larger functions (systems.numeric.cache) is said on stderr: those take seconds,
once per machine.
"""
from __future__ import annotations

import atexit
import contextlib
import gc
import sys
import threading
import time

# what a first compile of a compiled module's function took on a 2-core machine, for the functions
# that are said: the integration loops and the formulations' evaluations, post-steps and passes (once
# per machine, for every system); the others take a second or less and are not said
TYPICAL_SECONDS = {"integrate": "5-10 s", "integrate853": "5-10 s", "evaluate": "5-15 s", "evaluate_reduced": "10-30 s",
                   "evaluate_minimal": "10-30 s", "evaluate_chart": "10-30 s", "choice_all": "3-8 s",
                   "post_step": "2-8 s", "post_step_chart": "2-8 s",
                   "check_all": "2-4 s", "evaluate_all": "1-2 s", "dae_residual_at": "2-6 s",
                   "dae_jacobian_at": "2-6 s", "al_run_at": "10-15 s", "lie_run": "20-30 s"}
# compiled by `pfaff cache warm` only with the method that uses them
WARMED_WITH = {"dae_residual_at": "IDA", "dae_jacobian_at": "IDA", "al_run_at": "augmented_lagrangian",
               "lie_run": "RKMK45-SE3"}

_LOCK = threading.Lock()
_TOTAL = [0.0]            # seconds compiled in this process, any thread
_ANNOUNCING = [0]         # watches on that announce
_LOCAL = threading.local()  # per thread: the depth of nested compile events and when the outermost began
_INSTALLED = []


def compiled_seconds() -> float:
    """Seconds this process has spent compiling machine code (outermost compiles), so far. numba is
    not imported for it: before numba is imported nothing has compiled (the compiled backend imports
    it through systems.numeric.codegen.require_numba, which installs the count)."""
    if "numba" in sys.modules:
        _install()
    with _LOCK:
        return _TOTAL[0]


def note_compile(seconds: float):
    """Count a compile that numba reports no event for (a cfunc's)."""
    with _LOCK:
        _TOTAL[0] += seconds


class CompileWatch:
    """seconds: the compile time while the watch was on (in any thread of the process)."""

    def __init__(self):
        self.start, self.seconds = compiled_seconds(), 0.0


@contextlib.contextmanager
def watch_compiling(announce: bool = True):
    """A CompileWatch over the block; ``announce``: a line on stderr as a generated module's function
    starts compiling."""
    watch = CompileWatch()
    if announce:
        with _LOCK:
            _ANNOUNCING[0] += 1
    try:
        yield watch
    finally:
        if announce:
            with _LOCK:
                _ANNOUNCING[0] -= 1
        watch.seconds = compiled_seconds() - watch.start


def _install():
    """numba's compile events counted into the total, once per process (nothing without numba). And
    at exit every object is frozen (gc.freeze): the interpreter's last collections would otherwise
    pass over numba's many objects, which took about 0.45 s of a 2.4 s process (the rolling disc,
    warm); the memory goes back to the system with the process."""
    if _INSTALLED:
        return
    with _LOCK:
        if _INSTALLED:
            return
        _INSTALLED.append(True)
    try:
        from numba.core import event
    except ImportError:
        return
    atexit.register(gc.freeze)

    class Count(event.Listener):
        def on_start(self, ev):
            depth = getattr(_LOCAL, "depth", 0)
            _LOCAL.depth = depth + 1
            if depth:
                return
            _LOCAL.started = time.perf_counter()
            name = _function_name(ev)
            if name in TYPICAL_SECONDS and _ANNOUNCING[0]:
                method = f" --method {WARMED_WITH[name]}" if name in WARMED_WITH else ""
                ahead = f"; `pfaff cache warm --system NAME{method}` does it ahead"
                print(f"pfaff: compiling {name} into machine code, once per machine for every system (typically "
                      f"{TYPICAL_SECONDS[name]}{ahead})...", file=sys.stderr, flush=True)

        def on_end(self, ev):
            _LOCAL.depth -= 1
            if _LOCAL.depth == 0:
                note_compile(time.perf_counter() - _LOCAL.started)

    event.register("numba:compile", Count())


# the ordinary modules of compiled code (formulations.solvers.machine, formulations.kernels.compiled):
# one machine code for every system
SHARED_MODULES = ("formulations.solvers.machine.", "formulations.kernels.compiled.")


def _function_name(ev):
    """The name of the function being compiled where it is one of pfaff's compiled modules', else None."""
    dispatcher = (ev.data or {}).get("dispatcher")
    function = getattr(dispatcher, "py_func", None)
    module = getattr(function, "__module__", "") or ""
    return function.__name__ if module.startswith(SHARED_MODULES) else None

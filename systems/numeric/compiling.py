"""Time spent compiling, told apart from time spent computing, and a line on stderr while it lasts.

numba compiles a function at its first call for new argument types unless its machine code is in the
cache; ``watch_compiling()`` measures the seconds of those compiles (the outermost ones: a
function's callees compile inside it) so that a run can report its wall time without them, and says
on stderr what is being compiled where it is one of the generated modules (systems.numeric.cache),
which take tens of seconds once per machine.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

# the seconds a first compile of a generated module's entry point took on a quiet 2-core machine
# (the integration loops with the formulation's evaluation; the recording passes take less)
TYPICAL_SECONDS = "20-60 s"


class CompileWatch:
    """seconds: the time spent compiling while the watch was on; functions: the names compiled
    (outermost calls only)."""

    def __init__(self, announce: bool):
        self.seconds, self.functions, self.announce = 0.0, [], announce
        self._depth, self._started, self._lock = 0, 0.0, threading.Lock()

    def on_start(self, event):
        with self._lock:
            self._depth += 1
            if self._depth > 1:
                return
            self._started = time.perf_counter()
        name = _function_name(event)
        self.functions.append(name)
        if self.announce and name is not None:
            print(f"pfaff: compiling {name} into machine code, once per machine for this kind of system "
                  f"(typically {TYPICAL_SECONDS}; `pfaff cache warm` does it ahead)...", file=sys.stderr, flush=True)

    def on_end(self, event):
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._started


def _function_name(event):
    """The name of the function being compiled where it is a generated module's; None otherwise."""
    dispatcher = (event.data or {}).get("dispatcher")
    function = getattr(dispatcher, "py_func", None)
    if function is None or not function.__module__.startswith("pfaff_kernel_"):
        return None
    return function.__name__


@contextlib.contextmanager
def watch_compiling(announce: bool = True):
    """A CompileWatch over the block: the compile time of the functions numba compiles meanwhile (on
    any thread); ``announce``: a line on stderr as a generated module's function starts compiling."""
    watch = CompileWatch(announce)
    try:
        from numba.core import event
    except ImportError:  # numba not installed: nothing compiles
        yield watch
        return
    listener = _Listener(watch, event.Listener)
    with event.install_listener("numba:compile", listener):
        yield watch


def _Listener(watch, base):
    """numba's Listener forwarding to ``watch``."""

    class Forward(base):
        def on_start(self, event):
            watch.on_start(event)

        def on_end(self, event):
            watch.on_end(event)

    return Forward()

"""Run a sympy computation with a time bound (Unix alarm in the main thread, unbounded elsewhere)."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class TimeBoundExceeded(Exception):
    pass


@contextmanager
def time_bound(seconds: float):
    """Raise TimeBoundExceeded inside the block after ``seconds`` (main thread on Unix only)."""
    usable = (seconds and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def handler(signum, frame):
        raise TimeBoundExceeded()

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bounded(fn, seconds: float, default=None):
    """fn() or ``default`` when it takes longer than ``seconds``."""
    try:
        with time_bound(seconds):
            return fn()
    except TimeBoundExceeded:
        return default

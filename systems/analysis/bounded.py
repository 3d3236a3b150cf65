"""Run a sympy computation with a time bound, and share one overall bound between many steps.

In the main thread on Unix a step is interrupted by an interval timer (SIGALRM): the handler
raises inside the running Python code, which sympy is, so the step ends within milliseconds of
its bound. Signals reach only the main thread; elsewhere a step runs in a forked child process
that is killed at the bound (about 30 ms of overhead per step; the result comes back pickled).
Where neither exists the step runs unbounded and only the overall bound, checked between
steps, limits the work.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time
import warnings
from contextlib import contextmanager


class TimeBoundExceeded(BaseException):
    """Raised inside a bounded step at its bound (a BaseException so that library code catching
    Exception does not swallow it)."""


def _alarm_usable(seconds) -> bool:
    return bool(seconds and seconds > 0 and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread())


_active: list[float] = []  # ends (time.monotonic) of the bounds open in the main thread, outermost first


def _handler(signum, frame):
    raise TimeBoundExceeded()


@contextmanager
def time_bound(seconds: float):
    """Raise TimeBoundExceeded inside the block after ``seconds`` (main thread on Unix only).

    Bounds nest: an inner block never outlives an outer one, and the outer timer is re-armed on exit.
    """
    if not _alarm_usable(seconds):
        yield
        return
    now = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _handler) if not _active else None
    _active.append(now + seconds)
    signal.setitimer(signal.ITIMER_REAL, max(min(_active) - now, 1e-4))
    try:
        yield
    finally:
        _active.pop()
        if _active:
            signal.setitimer(signal.ITIMER_REAL, max(min(_active) - time.monotonic(), 1e-4))
        else:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _in_child(fn, seconds, default):
    """fn() computed in a forked child killed after ``seconds``; exceptions are raised here."""
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork of a threaded process
        pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running the parent's clean-up
        os.close(read_end)
        try:
            try:
                data = pickle.dumps((True, fn()))
            except Exception as exc:  # noqa: BLE001 - sent to the parent, which raises it
                data = pickle.dumps((False, exc))
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
        finally:
            os._exit(0)
    os.close(write_end)
    end = time.monotonic() + seconds
    chunks = []
    try:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                return default
            ready, _, _ = select.select([read_end], [], [], left)
            if ready:
                chunk = os.read(read_end, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    if not chunks:
        return default
    ok, value = pickle.loads(b"".join(chunks))
    if not ok:
        raise value
    return value


def bounded(fn, seconds: float, default=None):
    """fn() or ``default`` when it takes longer than ``seconds`` (see the module docstring)."""
    if seconds is not None and seconds <= 0:
        return default
    if not seconds or _alarm_usable(seconds):
        try:
            with time_bound(seconds):
                return fn()
        except TimeBoundExceeded:
            if _active and min(_active) <= time.monotonic():
                raise  # an enclosing bound has run out too: it ends there
            return default
    if hasattr(os, "fork"):
        return _in_child(fn, seconds, default)
    return fn()


class TimeBudget:
    """One overall time bound shared by the steps of an analysis.

    ``step(seconds)`` is the bound of the next step, min(seconds, time left); ``run(fn, seconds)``
    runs fn bounded by it and records a cut step under ``label`` in ``cut`` (what stayed undecided).
    ``limit=None`` means no overall bound. The steps end a little before the limit (5 %, at most
    1 s), which is kept for what a step overruns inside compiled code and for assembling the report.
    """

    def __init__(self, limit: float | None):
        if limit is not None and not limit > 0:
            raise ValueError(f"time_limit got {limit!r} but expected a positive number of seconds (or None)")
        self.limit = limit
        self.reserve = 0.0 if limit is None else min(1.0, 0.05 * limit)
        self.start = time.monotonic()
        self.cut: list[str] = []

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def left(self) -> float:
        return float("inf") if self.limit is None else self.limit - self.reserve - self.elapsed()

    @property
    def expired(self) -> bool:
        return self.left() <= 0

    def step(self, seconds: float | None) -> float:
        left = self.left()
        return left if seconds is None else min(seconds, left)

    def run(self, fn, seconds: float | None = None, default=None, label: str = ""):
        """fn() bounded by step(seconds), or ``default`` (noting ``label`` as cut) when it does not finish."""
        bound = self.step(seconds)
        if bound <= 0:
            if label:
                self._note(f"{label}: not attempted, the overall bound of {self.limit:g} s was used up")
            return default
        sentinel = object()
        out = bounded(fn, None if bound == float("inf") else bound, sentinel)
        if out is sentinel:
            if label:
                why = ("the overall bound of " f"{self.limit:g} s was reached" if self.left() <= 1e-3
                       else f"it did not finish within its {bound:g} s step bound")
                self._note(f"{label}: {why}")
            return default
        return out

    def _note(self, text):
        if text not in self.cut:
            self.cut.append(text)

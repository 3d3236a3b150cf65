"""Ctrl-C (SIGINT) around machine code.

Python runs a signal handler only between bytecodes of the main thread, so a compiled loop that
runs for minutes would not see Ctrl-C until it returned, and a signal that arrives while numba
converts its results to Python objects ends in a SystemError. ``run_interruptible`` runs the loop
(compiled with nogil=True) on a worker thread (one, kept for the process) while the main thread waits; Ctrl-C then reaches the main
thread, which sets the loop's ``stop`` flag, and the loop returns what it computed at its next
step. ``held_back`` defers SIGINT over a short compiled pass and says whether one came.
"""
from __future__ import annotations

import contextlib
import queue
import signal
import threading

import numpy as np


def run_interruptible(loop, *args):
    """(loop(*args, stop), interrupted): ``loop`` on the worker thread, ``stop`` a flag array (int64,
    (1,)) that is set to 1 on Ctrl-C; the loop is expected to return soon after (at its next step)."""
    stop = np.zeros(1, dtype=np.int64)
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return loop(*args, stop), False  # signals reach the main thread only, and an ignored one not at all
    result, failure, done = [], [], threading.Event()

    def work():
        try:
            result.append(loop(*args, stop))
        except BaseException as exc:  # noqa: BLE001  (raised again in the calling thread)
            failure.append(exc)
        finally:
            done.set()

    _worker().put(work)
    interrupted = False
    while not done.is_set():  # an Event, not Thread.join: an interrupted join may mark the thread ended
        try:
            done.wait(0.1)
        except KeyboardInterrupt:
            stop[0] = 1
            interrupted = True
    if failure:
        raise failure[0]
    return result[0], interrupted


_JOBS: list = []  # the worker thread's queue, made on first use (starting a thread per run costs ~0.1-2 ms)
_JOBS_LOCK = threading.Lock()


def _worker() -> queue.SimpleQueue:
    """The queue of the one daemon thread that runs compiled loops, one job at a time."""
    with _JOBS_LOCK:
        if not _JOBS:
            jobs = queue.SimpleQueue()

            def serve():
                while True:
                    jobs.get()()

            threading.Thread(target=serve, name="pfaff-compiled-loop", daemon=True).start()
            _JOBS.append(jobs)
    return _JOBS[0]


@contextlib.contextmanager
def held_back():
    """Hold SIGINT back for the block; yields a list that holds True if one came (the caller
    decides what to do with it). Outside the main thread, nothing is held back."""
    caught = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield caught
    finally:
        signal.signal(signal.SIGINT, previous)

"""One BLAS thread while a run computes.

A run makes many small LAPACK and BLAS calls (the compiled projection's pseudo-inverse, dense
fallback solves, the recording pass's eigenvalues; numpy's solves on the Python path). OpenBLAS
runs them on a pool of threads, one per core, that spin while they wait for work: where the other
cores are busy (a test suite, a second run, any other process) each call waits for those threads
to be scheduled, and a run of the 20-link pendulum that takes 0.7 s took 22-127 s (on 2 cores
with a load of 3.7). Matrices this small gain nothing from more threads, so a run holds every BLAS
library of the process at one thread (threadpoolctl) and gives the setting back when it ends.
"""
from __future__ import annotations

import contextlib

_CONTROLLER: list = []  # the ThreadpoolController, made once (it lists the loaded libraries: ~3 ms)


def one_blas_thread():
    """A context in which the process's BLAS libraries use one thread (none where threadpoolctl is
    missing); entering and leaving costs about 15 microseconds."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return contextlib.nullcontext()
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")

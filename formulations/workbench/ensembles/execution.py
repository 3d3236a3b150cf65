"""Where an ensemble's members run: in this process, on a local process pool, or on Dask.

Members go out in chunks (``run_members(job, indices)``), at most ``IN_FLIGHT`` chunks per worker
at a time, so that a Ctrl-C waits only for the chunks under way and memory holds only the
summaries. ``deliver(rows)`` receives each finished chunk in the order chunks finish; the caller
sorts by member. Workers ignore SIGINT: the parent decides what stops.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from systems.errors import ArgumentError, ArgumentTypeError

from .members import run_members

IN_FLIGHT = 2


def available_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover  (not Linux)
        return os.cpu_count() or 1


def chunks(indices, size):
    return [indices[i:i + size] for i in range(0, len(indices), size)]


def run_serial(job, parts, deliver):
    for part in parts:
        deliver(run_members(job, part))


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


PRELOAD = ["formulations.workbench.ensembles.members", "numba"]


def pool_context():
    """Workers forked from a fork server that has imported pfaff (and numba, where installed)
    once: they start in a fraction of a second, and the fork server has no threads, unlike this
    process may have (a progress bar, a Dask client), so forking is safe. Spawn where there is no
    fork server (not POSIX)."""
    try:
        context = multiprocessing.get_context("forkserver")
    except ValueError:  # pragma: no cover  (Windows)
        return multiprocessing.get_context("spawn")
    import importlib.util

    context.set_forkserver_preload([m for m in PRELOAD if importlib.util.find_spec(m) is not None])
    return context


def start_early():
    """Start the pool's fork server now (pool_context): it imports pfaff and numba on another core
    while this process prepares the job and runs the first members, so that the pool's workers
    fork from it at once. Nothing where there is no fork server."""
    context = pool_context()
    if context.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def run_pool(job, parts, deliver, workers):
    """On ``workers`` local processes (pool_context)."""
    context = pool_context()
    pending = list(reversed(parts))
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_sigint) as pool:
        running = set()
        try:
            while pending or running:
                while pending and len(running) < IN_FLIGHT * workers:
                    running.add(pool.submit(run_members, job, pending.pop()))
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    deliver(future.result())
        except KeyboardInterrupt:  # keep the chunks that were under way: they finish in moments
            for future in running:
                future.cancel()
            for future in running:
                if not future.cancelled():
                    try:
                        deliver(future.result())
                    except Exception:  # noqa: BLE001  (a chunk lost to the interruption is recomputed on resume)
                        pass
            raise


def dask_client(scheduler):
    """A dask.distributed Client: ``scheduler`` itself, or a new one connected to that address."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise ArgumentError("an ensemble on Dask needs dask.distributed: pip install \"pfaff[dask]\"",
                            "client") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str):
        raise ArgumentTypeError(f"client got {type(scheduler).__name__}; expected a dask.distributed.Client or a "
                                f"scheduler address such as 'tcp://127.0.0.1:8786'", "client")
    try:
        return Client(scheduler, timeout=30), True
    except OSError as exc:
        raise ArgumentError(f"client could not reach the Dask scheduler at {scheduler!r}: {exc}", "client") from None


def run_dask(job, parts, deliver, scheduler):
    """On a dask.distributed cluster: the job goes to every worker once (scatter), chunks follow."""
    from dask.distributed import as_completed

    client, own = dask_client(scheduler)
    try:
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        shared = client.scatter(job, broadcast=True)
        pending = list(reversed(parts))
        first = [client.submit(run_members, shared, pending.pop(), pure=False)
                 for _ in range(min(len(pending), IN_FLIGHT * workers))]
        flow = as_completed(first)
        try:
            for future in flow:
                deliver(future.result())
                if pending:
                    flow.add(client.submit(run_members, shared, pending.pop(), pure=False))
        except KeyboardInterrupt:
            client.cancel(list(flow.futures))
            raise
    finally:
        if own:
            client.close()

"""Machine code prepared in a background process, so that no run waits for a compile.

A *job* is what one run needs compiled: a system's structure, a formulation with its stabilization
and options, and an integration method. Its machine code is *ready* once a process has compiled it
by a short run on the compiled backend (the background process, or ``pfaff cache warm``): a marker file in the
cache folder (systems.numeric.cache.cache_dir()/background/ready/KEY) says so, where KEY hashes the job and the
source of the compiled code (a change of pfaff or numba makes new keys). numba's cache then holds
the machine code, and a later process loads it instead of compiling.

``submit(jobs)`` hands the jobs that are neither ready nor already claimed to one detached child
process (``python -m formulations.solvers.background REQUEST``) and returns at once. The claims are
files created exclusively (pending/KEY, holding the child's process id), so two processes that start
the same first run at once start one compile; a claim whose process is gone (a compile killed half
way) is taken over by the next run. Children of one cache folder compile one at a time, under a lock
on the folder, at a lower priority than the user's own runs. What a child did is appended to
background.log in the cache folder: per job its key, what it is, the seconds and the outcome.

$PFAFF_BACKGROUND_COMPILE=0 turns the background compile off (continuous integration, tests): runs
on the backend "auto" then stay on numpy until ``pfaff cache warm`` has made their machine code ready.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import os
import pathlib
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass


ENVIRONMENT = "PFAFF_BACKGROUND_COMPILE"
CHILD = "formulations.solvers.background"  # the module the child runs: it compiles by a short run
CLAIM_GRACE = 60.0  # s: a claim this young whose child has not written its id yet is still starting


@dataclass(frozen=True)
class Job:
    """What one run needs compiled: the system, the formulation's name, its stabilization (as given
    to create, and its name) and options (sorted (name, value) pairs), the method and its fixed step
    (None: adaptive), and the state the run starts from ((p, v) arrays, or None for the system's
    default) at time t0: the compiling run starts there (formulations.solvers.background)."""

    system: object
    formulation: str
    stabilization: object
    stabilization_name: str
    options: tuple
    method: str
    step: float | None = None
    state: tuple | None = None
    t0: float = 0.0

    @classmethod
    def make(cls, system, formulation, stabilization, stabilization_name, options, method="DOP853", step=None,
             state=None, t0=0.0) -> "Job":
        """The job of a run: ``options`` a mapping (backend left out), ``method`` a name or a solver's
        settings object, ``state`` (p, v) or None."""
        import numpy as np

        method = method if isinstance(method, str) else getattr(method, "name", None) or getattr(method, "method")
        return cls(system, formulation, stabilization, stabilization_name,
                   tuple(sorted((k, v) for k, v in options.items() if k != "backend")), method,
                   None if step is None else float(step),
                   None if state is None else tuple(np.array(x, float) for x in state), float(t0))

    def label(self) -> str:
        stabilization = self.stabilization_name
        options = "".join(f"[{k}={v!r}]" for k, v in self.options)
        text = self.formulation + options + ("" if stabilization == "none" else f"+{stabilization}")
        return f"{getattr(self.system, 'name', 'system')}: {text}@{self.method}"

    def key(self) -> str:
        """The job's hash: the system's structure, the formulation and method as compiled, the code
        (worked out once per job: every marker, claim and log line names it)."""
        key = self.__dict__.get("_key")
        if key is None:
            from systems.numeric.model import structure_hash

            text = repr((code_version(), structure_hash(self.system), self.formulation, self.stabilization_name,
                         self.options, self.method))
            key = hashlib.sha256(text.encode()).hexdigest()[:24]
            object.__setattr__(self, "_key", key)  # frozen: the cache is not a field
        return key


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the source of pfaff's compiled code and the versions of numba and Python."""
    root = pathlib.Path(__file__).resolve().parents[2]
    files = sorted([*(root / "formulations" / "kernels").glob("*.py"), *(root / "systems" / "numeric").glob("*.py"),
                    *(root / "formulations" / "solvers").glob("compiled_*.py"),
                    *(root / "formulations" / "solvers" / "machine").glob("*.py"),
                    *(root / "formulations" / "kernels" / "compiled").glob("*.py")])
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.name.encode() + f.read_bytes())
    try:
        numba_version = importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        numba_version = "none"
    digest.update(f"{numba_version} {sys.version}".encode())
    return digest.hexdigest()[:16]


def enabled() -> bool:
    """Whether runs may start a background compile ($PFAFF_BACKGROUND_COMPILE, default on)."""
    return os.environ.get(ENVIRONMENT, "1").strip().lower() not in ("0", "false", "no", "off")


def available() -> bool:
    """Whether numba is installed (found, not imported: importing it costs half a second)."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def folder() -> pathlib.Path:
    """The background compile's folder: ready/ and pending/ markers, requests/, the lock and the log."""
    from systems.numeric.cache import cache_dir

    return cache_dir() / "background"  # inside the cache folder: cleared and pruned with it


def ready(job: Job) -> bool:
    """Whether the machine code of ``job`` is ready in this cache."""
    return (folder() / "ready" / job.key()).exists()


FAILED_FOR = 86400.0  # s: a job whose compile failed is tried again after a day (or with new code)


def failed(job: Job) -> str | None:
    """Why an earlier background compile of ``job`` failed, within the last FAILED_FOR seconds (then
    its runs stay on numpy and say why), or None."""
    path = folder() / "ready" / f"{job.key()}.failed"
    try:
        if time.time() - path.stat().st_mtime > FAILED_FOR:
            return None
        return path.read_text().strip() or "no reason recorded"
    except OSError:
        return None


def mark_ready(job: Job):
    """Record that the machine code of ``job`` is ready (after a compile or a run on the compiled backend)."""
    path = folder() / "ready" / job.key()
    if path.exists():
        return
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, job.label())


def write(path: pathlib.Path, text: str):
    """``text`` into ``path`` atomically (a temporary file moved into place)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def _stat(pid: int) -> list | None:
    """The fields of /proc/PID/stat after the command's name (None without /proc)."""
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def identity(pid: int) -> str:
    """``pid`` with its start time where /proc tells it ("pid:start"): a process id used again by
    another process later does not pass for the first."""
    fields = _stat(pid)
    return f"{pid}:{fields[19]}" if fields and len(fields) > 19 else str(pid)


def _alive(claim: str) -> bool:
    """Whether the process of ``claim`` ("pid" or "pid:start") runs (a zombie, ended but not yet
    reaped, does not; nor a later process with the same id)."""
    pid, _, start = claim.partition(":")
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat(int(pid))
    if fields is None:
        return True  # no /proc: the signal's answer stands
    return fields[0] not in ("Z", "X") and (not start or (len(fields) > 19 and fields[19] == start))


def _claim(job: Job) -> bool:
    """Claim ``job`` for a new child (pending/KEY created exclusively); False where another process
    holds a live claim. A claim whose child has ended without marking the job ready is taken over."""
    path = folder() / "pending" / job.key()
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if not _stale(path):
                return False
            aside = path.with_name(f".{path.name}.{os.getpid()}.stale")
            try:  # atomic: of two processes that found it stale, one moves it aside and claims the job
                os.rename(path, aside)
            except OSError:
                return False
            with contextlib.suppress(OSError):
                aside.unlink()
            continue
        os.close(descriptor)
        return True
    return False


def _stale(path: pathlib.Path) -> bool:
    """Whether the claim at ``path`` belongs to no live process (its child ended or never started)."""
    try:
        text, age = path.read_text().strip(), time.time() - path.stat().st_mtime
    except OSError:
        return False  # removed meanwhile: the job is done
    if not text:
        return age > CLAIM_GRACE
    return not _alive(text)


def submit(jobs) -> list:
    """Start one background process that compiles those of ``jobs`` that are not ready, not failed
    before and not claimed by another process; returns the jobs it took (empty: nothing to start,
    or background compiling is off or numba missing)."""
    if not (enabled() and available()) or os.name != "posix":
        return []
    unique = {job.key(): job for job in jobs}
    try:
        todo = [job for key, job in unique.items() if not ready(job) and failed(job) is None and _claim(job)]
    except OSError:
        return []
    if not todo:
        return []
    base = folder()
    request = base / "requests" / f"{os.getpid()}-{time.time_ns()}.pickle"
    try:
        request.parent.mkdir(parents=True, exist_ok=True)
        request.write_bytes(pickle.dumps(todo))
        child = _spawn(request)
    except Exception as exc:  # noqa: BLE001  (a system that does not pickle, no process to start: stay on numpy)
        for job in todo:
            release(job)
        log(f"not started: {exc!r} ({', '.join(job.label() for job in todo)})")
        return []
    for job in todo:
        with contextlib.suppress(OSError):
            write(base / "pending" / job.key(), identity(child))
    return todo


# run by a short-lived launcher (python -S -c): it starts the child in a session of its own with its
# output to the log (argv[1]), prints the child's id and exits, so that the child is nobody's to wait for
# (the caller would otherwise hold a process it never waits for, and be warned about it)
_LAUNCH = ("import subprocess, sys\n"
           "with open(sys.argv[1], 'a') as log:\n"
           "    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log, stderr=log,\n"
           "                             start_new_session=True, close_fds=True)\n"
           "print(child.pid)\n")


def _spawn(request: pathlib.Path) -> int:
    """Start the detached child compiling ``request`` (its own session, no terminal, output to the
    log); its process id."""
    root = pathlib.Path(__file__).resolve().parents[2]  # where systems/ and formulations/ are: the child's first path
    environment = {k: v for k, v in os.environ.items() if k != "PFAFF_BACKEND"}
    launched = subprocess.run([sys.executable, "-S", "-c", _LAUNCH, str(folder() / "background.log"), sys.executable,
                               "-m", CHILD, str(request.resolve())], cwd=root, env=environment, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60, check=True)
    return int(launched.stdout.strip())


def release(job: Job):
    with contextlib.suppress(OSError):
        (folder() / "pending" / job.key()).unlink()


def log(line: str):
    with contextlib.suppress(OSError):
        folder().mkdir(parents=True, exist_ok=True)
        with open(folder() / "background.log", "a") as stream:
            stream.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {line}\n")


def claimed(job: Job) -> bool:
    """Whether a live process (or one still starting) has claimed ``job``."""
    path = folder() / "pending" / job.key()
    return path.exists() and not _stale(path)


def pending() -> list:
    """Process ids of the live background compiles of this cache folder."""
    ids = set()
    for path in (folder() / "pending").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            claim = path.read_text().strip()
            if claim and _alive(claim):
                ids.add(int(claim.partition(":")[0]))
    return sorted(ids)


def wait(timeout: float | None = None) -> bool:
    """Wait until no background compile of this cache folder is running (at most ``timeout`` s);
    True where none is left."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while pending():
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


@contextlib.contextmanager
def folder_lock():
    """The lock of the cache folder's background compiles: one compiles at a time."""
    import fcntl

    path = folder() / "compile.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

"""The on-disk cache of generated modules and their compiled machine code.

Generated source goes to one module per hash in the cache folder (``cache_dir()``: $PFAFF_CACHE_DIR,
else ~/.cache/pfaff), imported from there; numba's ``cache=True`` keeps the machine code beside it,
so a second process loads instead of compiling. ``clear_cache()`` empties the folder (``pfaff cache
clear``). The folder is bounded: past $PFAFF_CACHE_MAX_MB (default 1024) the modules used least
recently are removed, with their machine code (``prune_cache``).

Each module is written atomically (a temporary file moved into place), so processes sharing the
folder see a whole file or none, and begins with the sha256 of the rest, checked before it runs: a
truncated or altered module, or one that fails to import, is written again with a warning naming it,
and its machine code removed. numba's index (.nbi) and data (.nbc) files that cannot be read
(numba itself raises on them) are removed with a warning and the function is compiled again.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import pathlib
import shutil
import sys
import tempfile
import threading
import time
import warnings

VERSION = "4"  # part of every module's hash: a change of the generator or of the file layout makes new files

def cache_dir() -> pathlib.Path:
    """The folder of generated kernels and their compiled code ($PFAFF_CACHE_DIR, else ~/.cache/pfaff)."""
    root = os.environ.get("PFAFF_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "pfaff")
    return pathlib.Path(root) / "kernels"


def cache_size() -> tuple:
    """(files, bytes) in the cache folder."""
    folder = cache_dir()
    if not folder.exists():
        return 0, 0
    files = [f for f in folder.rglob("*") if f.is_file()]
    return len(files), sum(f.stat().st_size for f in files)


def cache_limit() -> int:
    """The bound of the cache folder in bytes ($PFAFF_CACHE_MAX_MB, default 1024 MiB)."""
    try:
        megabytes = float(os.environ.get("PFAFF_CACHE_MAX_MB", "1024"))
    except ValueError:
        raise ValueError(f"PFAFF_CACHE_MAX_MB got {os.environ['PFAFF_CACHE_MAX_MB']!r} but expected a number of MiB")
    return int(megabytes * 2**20)


def prune_cache(max_bytes: int | None = None) -> int:
    """Remove the least recently used modules (with their machine code) until the folder holds at
    most ``max_bytes`` (default cache_limit()); modules loaded in this process stay. Returns the
    number of files removed."""
    folder = cache_dir()
    if not folder.exists():
        return 0
    limit = cache_limit() if max_bytes is None else max_bytes
    stale_files = 0
    if cache_size()[1] > limit:  # first the machine code of other versions (systems.numeric.machine_cache)
        for stale in _stale_stamped_folders(folder / "machine") + _stale_stamped_folders(folder / "systems"):
            stale_files += sum(1 for f in stale.rglob("*") if f.is_file())
            shutil.rmtree(stale, ignore_errors=True)
    groups: dict = {}
    for f in folder.rglob("pfaff_kernel_*"):
        if f.is_file() and not _in_flight(f):
            groups.setdefault(f.name.split(".")[0], []).append(f)
    total = sum(f.stat().st_size for files in groups.values() for f in files)
    removed = 0

    def last_used(stem):
        for marker in (folder / f"{stem}.used", folder / f"{stem}.py"):
            if marker.exists():
                return marker.stat().st_mtime
        return 0.0

    for stem in sorted(groups, key=last_used):
        if total <= limit:
            break
        if stem in sys.modules:
            continue
        for f in groups[stem]:
            try:
                size = f.stat().st_size
                f.unlink()
            except OSError:
                continue
            total -= size
            removed += 1
    if removed:  # the markers of machine code ready to load (formulations.solvers.background) no longer hold
        shutil.rmtree(folder / "background" / "ready", ignore_errors=True)
    return removed + stale_files


def _stale_stamped_folders(root) -> list:
    """The stamped folders in ``root`` (``<name>-<stamp>``: machine code, systems.numeric.machine_cache;
    stored systems, systems.numeric.stored) other than the one of each name written to last: those
    of other versions of pfaff, numba, sympy or Python."""
    if not root.exists():
        return []
    latest: dict = {}
    for stamped in root.iterdir():
        if stamped.is_dir():
            written = max((f.stat().st_mtime for f in stamped.iterdir()), default=stamped.stat().st_mtime)
            latest.setdefault(stamped.name.rsplit("-", 1)[0], []).append((written, stamped))
    return [stamped for versions in latest.values() for _, stamped in sorted(versions)[:-1]]


def _in_flight(f) -> bool:
    """True for a temporary file numba may be writing now (one left for an hour is stale)."""
    try:
        return ".tmp" in f.name and f.stat().st_mtime > time.time() - 3600
    except OSError:
        return True


def clear_cache() -> int:
    """Remove every generated kernel and its compiled code; returns the number of files removed."""
    files = cache_size()[0]
    shutil.rmtree(cache_dir(), ignore_errors=True)
    return files


_LOCK = threading.RLock()  # one thread writes and imports a module at a time; numba compiles outside it
CHECKSUM = "# sha256 of the lines below: "  # the first line of every generated module


def _module(key_text, make_source):
    """The module of ``key_text``: imported from the cache folder if its file is whole, else
    (re)written from make_source() first; damaged files are rebuilt with a warning."""
    digest = hashlib.sha256((VERSION + key_text).encode()).hexdigest()[:20]
    module_name = f"pfaff_kernel_{digest}"
    with _LOCK:
        module = sys.modules.get(module_name)
        if module is not None:
            return module
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        if str(folder) not in sys.path:  # generated modules import each other by name
            sys.path.append(str(folder))
        path = folder / f"{module_name}.py"
        data, damage, written = _source(path, make_source)
        try:
            module = _execute(module_name, path, data)
        except (SyntaxError, ImportError, ValueError) as exc:
            if written:  # a whole file that does not import: rebuilding would not help
                raise
            damage = f"{type(exc).__name__} on import: {exc}"
            data = _write(path, make_source())
            module = _execute(module_name, path, data)
        if damage:
            removed = _discard_machine_code(module)
            warnings.warn(f"the cached module {path} was damaged ({damage}); rebuilt it"
                          + (f" and removed its {removed} machine-code files" if removed else ""), stacklevel=2)
        _guard_machine_code(vars(module), set())
        try:  # its use, for prune_cache (not the source's stamp: numba's cache index checks that)
            (folder / f"{module_name}.used").touch()
        except OSError:
            pass
        if written:
            prune_cache()
        return module


def _source(path, make_source):
    """(bytes, damage, written) of the module file ``path``: its content where its checksum holds,
    else make_source() written there (damage says what was wrong with the file, or is None)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return _write(path, make_source()), None, True
    damage = _damage(data)
    if damage is None:
        return data, None, False
    return _write(path, make_source()), damage, True


def _damage(data: bytes):
    """What is wrong with a module file's content (None: its checksum line matches the rest)."""
    head, _, body = data.partition(b"\n")
    if not head.startswith(CHECKSUM.encode()):
        return f"no checksum line, {len(data)} bytes"
    if head[len(CHECKSUM):].decode(errors="replace") != hashlib.sha256(body).hexdigest():
        return f"its content does not match its checksum, {len(data)} bytes"
    return None


def _write(path, source: str) -> bytes:
    """Write ``source`` under its checksum line to ``path`` atomically (a temporary file moved over
    it: a reader sees the old file or the new one, never a part); returns the bytes written."""
    data = (CHECKSUM + hashlib.sha256(source.encode()).hexdigest() + "\n" + source).encode()
    handle, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return data


def _execute(module_name, path, data: bytes):
    """The module ``module_name`` run from ``data`` (the checked content of ``path``, which stays its
    file for numba's cache and inspect); registered before it runs: numba's cache finds the module by
    name when it loads, and is removed again where running fails."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        exec(compile(data, str(path), "exec"), vars(module))
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _dispatchers(namespace):
    from numba.core.ccallback import CFunc
    from numba.core.dispatcher import Dispatcher

    return [value for value in list(namespace.values()) if isinstance(value, (Dispatcher, CFunc))]


def _python_function(compiled):
    return getattr(compiled, "py_func", None) or compiled._pyfunc


def cfunc(signature):
    """numba.cfunc(signature, cache=True) with the machine-code guard of this cache: the kernels of
    a system (systems.numeric.codegen) are first-class functions, compiled (or loaded) when their
    module is imported."""
    def make(function):
        from numba.core import sigutils
        from numba.core.ccallback import CFunc

        # error_model "numpy": a division by zero gives inf or NaN, as numpy's kernels do, which the
        # callers' finiteness checks catch (a C callback cannot raise; with "python" it would print
        # the error and return zeros)
        compiled = CFunc(function, sigutils.normalize_signature(signature), locals={},
                         options={"error_model": "numpy"})
        compiled.enable_caching()
        cache_file = getattr(compiled._cache, "_cache_file", None)
        checked = _checked_cache_file()
        if type(cache_file) is checked.__base__:
            cache_file.__class__ = checked
        started = time.perf_counter()
        compiled.compile()
        if not compiled._cache_hits:  # compiled, not loaded: the time counts as compiling
            from .compiling import note_compile

            note_compile(time.perf_counter() - started)
        return compiled

    return make


def _discard_machine_code(module) -> int:
    """Remove numba's index and data files of the functions of ``module`` (its own, not the ones it
    imports); returns the number of files removed."""
    removed = 0
    for folder in {getattr(getattr(d, "_cache", None), "_cache_path", None) for d in _dispatchers(vars(module))
                   if _python_function(d).__module__ == module.__name__} - {None}:
        for f in pathlib.Path(folder).glob(f"{module.__name__}.*.nb[ic]"):
            with contextlib.suppress(OSError):
                f.unlink()
                removed += 1
    return removed


def _guard_machine_code(namespace, seen):
    """Make numba's cache of every compiled function in ``namespace`` (and in the modules those
    functions come from) treat an unreadable index or data file as missing: removed, with a warning,
    and compiled again. numba itself raises on a truncated .nbi or .nbc (an unpickling error)."""
    if id(namespace) in seen:
        return
    seen.add(id(namespace))
    checked = _checked_cache_file()
    for dispatcher in _dispatchers(namespace):
        cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
        if type(cache_file) is checked.__base__:
            cache_file.__class__ = checked
        _guard_machine_code(_python_function(dispatcher).__globals__, seen)


@functools.lru_cache(maxsize=1)
def _checked_cache_file():
    from numba.core.caching import IndexDataCacheFile

    class CheckedCacheFile(IndexDataCacheFile):
        """numba's index and data files of one function; one that cannot be read is removed and
        taken as missing (numba then compiles the function and writes them again)."""

        def _load_index(self):
            try:
                return super()._load_index()
            except OSError:
                raise
            except Exception as exc:  # a truncated or garbled pickle
                _drop_machine_code(self._index_path, exc)
                return {}

        def _load_data(self, name):
            try:
                return super()._load_data(name)
            except OSError:
                raise
            except Exception as exc:
                _drop_machine_code(self._data_path(name), exc)
                return None

    return CheckedCacheFile


def _drop_machine_code(path, exc):
    with contextlib.suppress(OSError):
        os.unlink(path)
    warnings.warn(f"numba's cached machine code {path} was damaged ({type(exc).__name__}: {exc}); removed it, "
                  "the function is compiled again", stacklevel=2)

"""Symbolic work kept between processes: catalogue systems, and the numpy functions of a structure.

Building a catalogue system is a sympy derivation (0.3-4 s: the bicycle's is the longest); reading
it back pickled takes some tens of milliseconds. ``stored_build`` keeps each build in the cache
folder (systems.numeric.cache.cache_dir(), so ``pfaff cache clear`` and a test's temporary cache
cover it), under ``systems/catalogue-<stamp>``: the stamp hashes the sources of the systems
package (every builder and catalogue module, and the generator of the numeric model) and the
versions of sympy and Python, so any change builds anew. The functions a System works out on demand are not stored
(System.__getstate__); the source that sympy's lambdify writes for the numpy backend's primitives
(common subexpressions found, then printed: 0.1-2 s per structure) is, by ``stored_source``, and run
again by the next process. Every file is written atomically under the sha256 of its content; one
that is damaged, or does not load, is made again with a warning.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pathlib
import pickle
import sys
import tempfile
import warnings

HEADER = b"# sha256 "  # the first line of a stored file: HEADER + the hexdigest of the rest


@functools.lru_cache(maxsize=1)
def stamp() -> str:
    """The hash of the sources of the systems package and of the versions of sympy and Python."""
    import sympy

    root = pathlib.Path(__file__).parent.parent
    digest = hashlib.sha256(f"{sympy.__version__} {sys.version}".encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def folder() -> pathlib.Path:
    """Where this version's stored systems are (the folder may not exist yet)."""
    from .cache import cache_dir

    return cache_dir() / "systems" / f"catalogue-{stamp()}"


def stored_build(name: str, options: dict, build, kind, built=None):
    """build(**options), an instance of ``kind`` (System), for catalogue system ``name``: read from
    the cache folder where a process stored it, else built, stored, and handed to built(system) once
    it knows its key (a folder that cannot be written only costs the next process the build)."""
    key = f"{name}-{hashlib.sha256(repr((name, sorted(options.items()))).encode()).hexdigest()[:16]}"
    path = folder() / f"{key}.pickle"
    body = _read(path)
    system = None
    if body is not None:
        try:
            system = pickle.loads(body)
        except Exception as exc:  # noqa: BLE001 - any failure to unpickle means: build it again
            _damaged(path, f"{type(exc).__name__}: {exc}")
        else:
            if not isinstance(system, kind):
                _damaged(path, f"it holds a {type(system).__name__}, not a {kind.__name__}")
                system = None
    if system is not None:
        object.__setattr__(system, "stored_as", key)  # its numpy functions are stored under this key too
        return system
    system = build(**options)
    try:
        _write(path, pickle.dumps(system, protocol=pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return system  # a system holding something that does not pickle is built in every process
    object.__setattr__(system, "stored_as", key)
    if built is not None:
        built(system)
    return system


def stored_source(key: str, write) -> str:
    """The source text stored under ``key`` (a stored system's key and a function's name), else
    write() stored and returned."""
    path = folder() / "numpy" / f"{key}.py"
    body = _read(path)
    if body is not None:
        try:
            return body.decode()
        except UnicodeDecodeError as exc:
            _damaged(path, str(exc))
    source = write()
    _write(path, source.encode())
    return source


def _read(path):
    """The content of ``path`` where its checksum holds; None where there is no such file (or a
    damaged one, with a warning)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, _, body = data.partition(b"\n")
    if head == HEADER + hashlib.sha256(body).hexdigest().encode():
        return body
    _damaged(path, "its checksum does not match")
    return None


def _damaged(path, problem):
    warnings.warn(f"the stored file {path} was damaged ({problem}); made it again", RuntimeWarning, stacklevel=4)


def _write(path, body: bytes):
    """``body`` under its checksum line to ``path``, atomically; a folder that cannot be written
    only costs the next process the work."""
    data = HEADER + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(tmp, path)  # a reader sees the whole file or none
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)

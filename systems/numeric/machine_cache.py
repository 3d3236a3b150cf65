"""Where numba keeps the machine code of pfaff's compiled modules (ordinary Python modules of
``@numba.njit(cache=True)`` functions, such as formulations.solvers.machine), and when it is stale.

numba's own cache goes beside a module's file (or under $NUMBA_CACHE_DIR) and is valid while the
module's file is unchanged. A compiled function, though, carries the machine code of every function
it calls, from other modules too: a change there would leave stale code in use. A folder registered
here (``register``) has its functions' machine code kept in pfaff's cache folder
(systems.numeric.cache.cache_dir, so ``pfaff cache clear`` and the tests' temporary caches cover
it), under a *stamp*: the hash of the folder's sources, the files it names as dependencies, and the
versions of numba and Python. Any change to one of them makes new machine code; two installations
of different versions sharing a cache folder each keep their own (``machine/<folder>-<stamp>``;
systems.numeric.cache.prune_cache removes the ones not written to last first).
"""
from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import sys

_FOLDERS: dict = {}  # folder (absolute path) -> the dependency files of its modules


def register(folder, dependencies=()):
    """Keep the machine code of the modules in ``folder`` in pfaff's cache folder, stamped with the
    hash of their sources and of ``dependencies`` (paths of the modules whose functions they call).
    Must run before those modules are imported (numba picks a function's cache when it is decorated)."""
    _FOLDERS[str(pathlib.Path(folder).resolve())] = tuple(str(pathlib.Path(d).resolve()) for d in dependencies)
    _install()


@functools.lru_cache(maxsize=None)
def stamp(folder: str) -> str:
    """The hash of the sources of ``folder`` (a registered one) and of its dependencies, with the
    versions of numba and Python: the freshness of its modules' machine code."""
    import numba

    files = sorted(pathlib.Path(folder).glob("*.py")) + [pathlib.Path(d) for d in _FOLDERS[folder]]
    digest = hashlib.sha256(f"{numba.__version__} {sys.version}".encode())
    for f in files:
        digest.update(f.name.encode() + f.read_bytes())
    return digest.hexdigest()[:16]


def machine_folder(folder: str) -> pathlib.Path:
    """The folder of the machine code of the registered ``folder``'s modules, in the cache folder."""
    from .cache import cache_dir

    return cache_dir() / "machine" / f"{pathlib.Path(folder).name}-{stamp(folder)}"


@functools.lru_cache(maxsize=1)
def _install():
    """Put the locator first among numba's cache locators (once per process)."""
    from numba.core import caching
    from numba.core.caching import _CacheLocator

    implementation = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # _CacheImpl in older numba

    class PackageLocator(_CacheLocator):
        """numba's cache locator for the functions of a registered folder: their machine code in
        machine_folder(folder), fresh while stamp(folder) holds."""

        def __init__(self, py_func, py_file, folder):
            self._folder = folder
            self._py_file = py_file  # numba names it in its warning about a function it cannot cache
            self._lineno = py_func.__code__.co_firstlineno
            self._path = str(machine_folder(folder))

        def get_cache_path(self):
            return self._path

        def get_source_stamp(self):
            return stamp(self._folder)

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            folder = os.path.dirname(os.path.abspath(py_file))
            if folder not in _FOLDERS:
                return None
            locator = cls(py_func, py_file, folder)
            try:
                locator.ensure_cache_path()
            except OSError:  # not writable: numba's own locators decide
                return None
            return locator

    implementation._locator_classes.insert(0, PackageLocator)
    return PackageLocator

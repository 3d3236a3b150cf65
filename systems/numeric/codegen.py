"""Compiled kernels of the primitive pieces: CSE'd Python source generated from sympy, compiled with
numba and cached on disk.

A kernel evaluates a list of expressions into a flat output array: ``kernel(t, p, v, params, out)``
(or the argument groups of its piece), writing only the structurally non-zero entries; the caller
passes ``out`` filled with zeros, so the sparsity pattern is kept and nothing else is written. The
source is one small module per kernel, named by the hash of its expressions, in the cache folder
(``cache_dir()``: $PFAFF_CACHE_DIR, else ~/.cache/pfaff), compiled with ``numba.njit(cache=True)``
so that a second process loads the machine code instead of compiling it. ``clear_cache()`` empties
the folder (``pfaff cache clear``). The folder is bounded: past $PFAFF_CACHE_MAX_MB (default 1024)
the modules used least recently are removed, with their machine code (``prune_cache``).
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import pathlib
import shutil
import sys
import tempfile

import numpy as np
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

VERSION = "1"  # part of every kernel's hash: a change of the generator makes new files


class MissingCompilerError(ImportError):
    """numba is not installed; says how to install it."""


def require_numba():
    try:
        import numba
    except ImportError as exc:
        raise MissingCompilerError('backend "compiled" needs the optional package numba, which is not installed; '
                                   'install it with: pip install "pfaff[compiled]" (or pip install numba)') from exc
    return numba


def available() -> bool:
    """True where numba can be imported."""
    try:
        require_numba()
    except MissingCompilerError:
        return False
    return True


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
    groups: dict = {}
    for f in folder.rglob("pfaff_kernel_*"):
        if f.is_file():
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
        shutil.rmtree(folder / "warm", ignore_errors=True)  # what was warm may need compiling again
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
    return removed


def mark_warm(tag: str):
    """Note that the compiled code of ``tag`` (a formulation of a system structure) is in the cache."""
    folder = cache_dir() / "warm"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / tag).touch()
    except OSError:
        pass


def is_warm(tag: str) -> bool:
    """True where ``tag`` was noted by mark_warm and the cache has not been pruned or cleared since."""
    return (cache_dir() / "warm" / tag).exists()


def importable() -> bool:
    """True where numba is installed (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def clear_cache() -> int:
    """Remove every generated kernel and its compiled code; returns the number of files removed."""
    files = cache_size()[0]
    shutil.rmtree(cache_dir(), ignore_errors=True)
    return files


class _Printer(PythonCodePrinter):
    """Plain ``math`` calls, which numba compiles."""

    def __init__(self):
        super().__init__({"fully_qualified_modules": True, "standard": "python3"})


def kernel_source(name: str, groups, entries) -> str:
    """Source of ``def name(<groups>, out)`` writing the non-zero ``entries`` into out.

    groups: (argument name, symbol or sequence of symbols) per argument, in order; a sequence is
    an array argument, a symbol a scalar. Every symbol becomes a local named after its argument and
    index, so any symbol names are safe.
    """
    subs, unpack = {}, []
    for arg, symbols in groups:
        if isinstance(symbols, sp.Basic):
            subs[symbols] = sp.Symbol(f"{arg}_s", real=True)
            continue
        for i, s in enumerate(symbols):
            local = sp.Symbol(f"{arg}_{i}", real=True)
            subs[s] = local
            unpack.append(f"    {local} = {arg}[{i}]")
    nonzero = [(i, sp.sympify(e).xreplace(subs)) for i, e in enumerate(entries)]
    nonzero = [(i, e) for i, e in nonzero if e != 0]
    replacements, reduced = sp.cse([e for _, e in nonzero], symbols=sp.numbered_symbols("x_"), order="none")
    printer = _Printer()
    used = set().union(*(e.free_symbols for _, e in replacements), *(e.free_symbols for e in reduced)) \
        if nonzero else set()
    lines = [line for line in unpack if line.split(" = ")[0].strip() in {str(s) for s in used}]
    lines += [f"    {s} = {printer.doprint(e)}" for s, e in replacements]
    lines += [f"    out[{i}] = {printer.doprint(e)}" for (i, _), e in zip(nonzero, reduced)]
    args = ", ".join(arg if not isinstance(symbols, sp.Basic) else f"{arg}_s" for arg, symbols in groups)
    header = ["@numba.njit(cache=True)", f"def {name}({args}, out):",
              f'    """{len(nonzero)} non-zero entries of {len(entries)}; arguments: '
              f'{", ".join(a for a, _ in groups)}."""']
    return "\n".join(header + (lines or ["    pass"])) + "\n"


def compile_kernel(name: str, groups, entries):
    """The numba kernel of ``entries`` (see kernel_source), generated once and cached on disk."""
    require_numba()
    key_text = VERSION + name + repr([(a, sp.srepr(s) if isinstance(s, sp.Basic) else [sp.srepr(x) for x in s])
                                      for a, s in groups]) + repr([sp.srepr(sp.sympify(e)) for e in entries])
    return getattr(_module(key_text, lambda: "import math\n\nimport numba\n\n\n" +
                           kernel_source(name, groups, entries)), name)


def compile_module(source: str):
    """A module of numba functions from ``source``, written once to the cache folder under the hash
    of its text and imported from there (its functions' machine code is cached beside it)."""
    require_numba()
    return _module(source, lambda: source)


def _module(key_text, make_source):
    digest = hashlib.sha256((VERSION + key_text).encode()).hexdigest()[:20]
    module_name = f"pfaff_kernel_{digest}"
    module = sys.modules.get(module_name)
    if module is not None:
        return module
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if str(folder) not in sys.path:  # generated modules import each other by name
        sys.path.append(str(folder))
    path = folder / f"{module_name}.py"
    if not path.exists():
        handle, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(handle, "w") as f:
            f.write(make_source())
        os.replace(tmp, path)  # atomic: concurrent writers leave one whole file
        prune_cache()
    try:  # its use, for prune_cache (not the source's stamp: numba's cache index checks that)
        (folder / f"{module_name}.used").touch()
    except OSError:
        pass
    # registered before it runs: numba's cache finds the module by name when it loads
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def structural_nonzero(entries) -> frozenset:
    """Indices of the entries that are not identically zero: the flat pattern a generated function
    writes (the same test kernel_source applies)."""
    return frozenset(i for i, e in enumerate(entries) if sp.sympify(e) != 0)


def flat_kernel(name, groups, exprs, shapes):
    """call(*args) -> list of arrays of ``shapes`` from one compiled kernel (the compiled
    counterpart of systems.numeric.model's lambdified functions)."""
    entries = [e for m in exprs for e in (m if isinstance(m, sp.MatrixBase) else [m])]
    kernel = compile_kernel(name, groups, entries)
    total = len(entries)
    sizes = [int(np.prod(s)) for s in shapes]
    bounds = np.cumsum([0] + sizes).tolist()
    pieces = [(slice(lo, hi), tuple(s)) for lo, hi, s in zip(bounds[:-1], bounds[1:], shapes)]
    scalar = [isinstance(s, sp.Basic) for _, s in groups]

    def call(*args):
        out = np.zeros(total)
        kernel(*[float(a) if sc else np.ascontiguousarray(a, dtype=float) for a, sc in zip(args, scalar)], out)
        return [out[sl] if len(sh) == 1 else out[sl].reshape(sh) for sl, sh in pieces]

    call.kernel = kernel
    call.nonzero = structural_nonzero(entries)
    return call

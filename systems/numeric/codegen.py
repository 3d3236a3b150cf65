"""Compiled kernels of the primitive pieces: CSE'd Python source generated from sympy and compiled
with numba, kept in the on-disk cache of systems.numeric.cache.

A kernel evaluates a list of expressions into a flat output array: ``kernel(t, p, v, params, out)``
(or the argument groups of its piece), writing only the structurally non-zero entries; the caller
passes ``out`` filled with zeros, so the sparsity pattern is kept and nothing else is written. The
source is one small module per kernel, named by the hash of its expressions, compiled with
``numba.cfunc(signature, cache=True)``: a first-class function, which the generated formulation
modules' models hold (formulations.kernels.compiled) and Python calls through the
trampolines of systems.numeric.calls, all of them compiled once per machine, not per system. The cache's functions (cache_dir, clear_cache, prune_cache, ...) are
reachable here too.
"""
from __future__ import annotations

import functools
import importlib.util

import numpy as np
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from .cache import VERSION, _module, cache_dir, cache_limit, cache_size, clear_cache, prune_cache  # noqa: F401


class MissingCompilerError(ImportError):
    """numba is not installed; says how to install it."""


def require_numba():
    try:
        import numba
    except ImportError as exc:
        raise MissingCompilerError('backend "compiled" needs numba, a dependency of pfaff, which cannot be imported '
                                   f'here ({exc}); install it with: pip install numba, or use backend="numpy"') from exc
    from .compiling import compiled_seconds

    compiled_seconds()  # numba's compile events counted from now on (systems.numeric.compiling)
    return numba


def available() -> bool:
    """True where numba can be imported."""
    try:
        require_numba()
    except MissingCompilerError:
        return False
    return True


@functools.lru_cache(maxsize=1)
def importable() -> bool:
    """True where numba can be imported (tried once per process: an installed numba that does not
    import, say for a numpy it was not built for, counts as missing)."""
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        import numba  # noqa: F401
    except Exception:  # noqa: BLE001  (any failure to import means: not usable)
        return False
    return True


def resolve_backend(requested=None) -> str:
    """``requested`` ("auto", "numpy" or "compiled"; None: the environment variable PFAFF_BACKEND,
    else "auto") checked; "auto" resolves here to "compiled" wherever numba can be imported, "numpy"
    otherwise. A formulation's "auto" is finer: compiled only where the machine code of its run is
    ready (formulations.base.Formulation._first_backend, formulations.solvers.tiers)."""
    import os

    from systems.errors import ArgumentError

    requested = requested or os.environ.get("PFAFF_BACKEND") or "auto"
    if requested == "auto":
        return "compiled" if importable() else "numpy"
    if requested not in ("numpy", "compiled"):
        raise ArgumentError(f"backend got {requested!r} but expected one of: auto, numpy, compiled", "backend")
    return requested


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
    header = [f"@cfunc({kernel_signature(groups)})", f"def {name}({args}, out):",
              f'    """{len(nonzero)} non-zero entries of {len(entries)}; arguments: '
              f'{", ".join(a for a, _ in groups)}."""']
    return "\n".join(header + (lines or ["    pass"])) + "\n"


def kernel_signature(groups) -> str:
    """The numba signature of a kernel over ``groups``: float64 for a scalar, a C-contiguous float64
    array for an array argument and for ``out``; nothing returned."""
    kinds = ["types.float64" if isinstance(s, sp.Basic) else "types.float64[::1]" for _, s in groups]
    return f"types.void({', '.join(kinds + ['types.float64[::1]'])})"


def compile_kernel(name: str, groups, entries):
    """The numba kernel of ``entries`` (see kernel_source), generated once and cached on disk."""
    require_numba()
    key_text = VERSION + name + repr([(a, sp.srepr(s) if isinstance(s, sp.Basic) else [sp.srepr(x) for x in s])
                                      for a, s in groups]) + repr([sp.srepr(sp.sympify(e)) for e in entries])
    prelude = "import math\n\nfrom numba import types\n\nfrom systems.numeric.cache import cfunc\n\n\n"
    sizes = [None if isinstance(s, sp.Basic) else len(s) for _, s in groups] + [len(entries)]
    return Kernel(getattr(_module(key_text, lambda: prelude + kernel_source(name, groups, entries)), name), sizes)


class Kernel:
    """A compiled kernel: ``kernel(*args, out)`` from Python (through the trampolines of
    systems.numeric.calls, by the kernel's address); ``kernel.compiled`` the first-class function
    (numba cfunc) that the generated modules call. Arguments are converted to the kernel's types
    (floats, C-contiguous float64 arrays); ``out`` must be a writable C-contiguous float64 array.
    sizes: the length of each array argument and of ``out`` (None for a scalar); the kernel reads and
    writes without bounds checks, so shorter arrays are refused."""

    def __init__(self, compiled, sizes):
        from numba import types

        from .calls import CALLS

        self.compiled = compiled
        self.__name__ = compiled._pyfunc.__name__
        self.__module__ = compiled._pyfunc.__module__
        self._scalar = [kind == types.float64 for kind in compiled._sig.args]
        self._sizes = sizes
        self._call = CALLS[len(self._scalar) - 1]
        self._address = None  # compiled (or loaded) at the first call

    def __call__(self, *args):
        if len(args) != len(self._scalar):
            raise TypeError(f"kernel {self.__name__!r} got {len(args)} arguments but expected {len(self._scalar)}")
        out = args[-1]
        if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.ndim == 1
                and out.flags.c_contiguous and out.flags.writeable and out.size >= self._sizes[-1]):
            raise TypeError(f"kernel {self.__name__!r} got an output {type(out).__name__} "
                            f"{getattr(out, 'shape', '')} but expected a writable C-contiguous float64 array of "
                            f"shape ({self._sizes[-1]},)")
        if self._address is None:
            self._address = self.compiled.address
        values = [float(a) if scalar else np.ascontiguousarray(a, dtype=np.float64)
                  for a, scalar in zip(args[:-1], self._scalar)]
        for position, (value, size) in enumerate(zip(values, self._sizes)):
            if size is not None and (value.ndim != 1 or value.size < size):
                raise TypeError(f"kernel {self.__name__!r} got argument {position} of shape {value.shape} but "
                                f"expected shape ({size},)")
        self._call(self._address, *values, out)


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

    def call(*args):
        out = np.zeros(total)
        kernel(*args, out)
        return [out[sl] if len(sh) == 1 else out[sl].reshape(sh) for sl, sh in pieces]

    call.kernel = kernel
    call.nonzero = structural_nonzero(entries)
    return call

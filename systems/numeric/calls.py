"""Calls of a system's compiled kernels from Python: one trampoline per number of arguments, each
taking the kernel as a first-class function (numba compiles a trampoline once per signature of the
kernels it calls, and caches it: not once per system)."""
from __future__ import annotations

import warnings

import numba
from numba.core.errors import NumbaExperimentalFeatureWarning

# numba marks its first-class functions experimental; pfaff relies on them (and tests them) for
# compiling the formulations once per machine. Only that note is silenced, not numba's other ones.
warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)


@numba.njit(cache=True)
def call2(kernel, a, out):
    kernel(a, out)


@numba.njit(cache=True)
def call3(kernel, a, b, out):
    kernel(a, b, out)


@numba.njit(cache=True)
def call4(kernel, a, b, c, out):
    kernel(a, b, c, out)


@numba.njit(cache=True)
def call5(kernel, a, b, c, d, out):
    kernel(a, b, c, d, out)


@numba.njit(cache=True)
def call6(kernel, a, b, c, d, e, out):
    kernel(a, b, c, d, e, out)


CALLS = {1: call2, 2: call3, 3: call4, 4: call5, 5: call6}

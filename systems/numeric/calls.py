"""Calls of a system's compiled kernels from Python: one trampoline per number of arguments, each
taking the kernel's address (an int) and calling it with the C calling convention of numba's
``cfunc``. numba compiles a trampoline once per signature of the kernels it calls, and caches it:
not once per system. Typing an int costs numba's dispatch nothing, where typing the kernel as a
first-class function object costs some 10 microseconds at every call. Only codegen.Kernel calls the
trampolines: it checks the arguments' types and sizes, which the address cannot carry."""
from __future__ import annotations

import warnings

import numba
from numba import types
from numba.core import cgutils
from numba.core.errors import NumbaExperimentalFeatureWarning, TypingError
from numba.extending import intrinsic

# numba marks its first-class functions experimental; pfaff relies on them (and tests them) for
# compiling the formulations once per machine. Only that note is silenced, not numba's other ones.
warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)


def _kernel_argument(kind) -> bool:
    """True for the argument types a kernel takes (codegen.kernel_signature): float64 scalars and
    one-dimensional C-contiguous float64 arrays."""
    if kind == types.float64:
        return True
    return isinstance(kind, types.Array) and kind.dtype == types.float64 and kind.ndim == 1 and kind.layout == "C"


@intrinsic
def call_kernel(typingctx, address, arguments):
    """kernel(*arguments) for the cfunc at ``address`` (nothing returned). Only a kernel's argument
    types are accepted: the address carries no signature to check against."""
    if not isinstance(address, types.Integer) or not isinstance(arguments, types.BaseTuple):
        raise TypingError(f"call_kernel got ({address}, {arguments}) but expected (an address, a tuple)")
    wrong = [kind for kind in arguments.types if not _kernel_argument(kind)]
    if wrong:
        raise TypingError(f"call_kernel got argument types {wrong} but expected float64 scalars and "
                          f"C-contiguous one-dimensional float64 arrays")

    def codegen(context, builder, signature, values):
        prototype = types.FunctionPrototype(types.void, tuple(arguments.types))
        pointer = builder.inttoptr(values[0], context.get_value_type(prototype))
        builder.call(pointer, cgutils.unpack_tuple(builder, values[1]))
        return context.get_dummy_value()

    return types.void(address, arguments), codegen


@numba.njit(cache=True)
def call2(address, a, out):
    call_kernel(address, (a, out))


@numba.njit(cache=True)
def call3(address, a, b, out):
    call_kernel(address, (a, b, out))


@numba.njit(cache=True)
def call4(address, a, b, c, out):
    call_kernel(address, (a, b, c, out))


@numba.njit(cache=True)
def call5(address, a, b, c, d, out):
    call_kernel(address, (a, b, c, d, out))


@numba.njit(cache=True)
def call6(address, a, b, c, d, e, out):
    call_kernel(address, (a, b, c, d, e, out))


CALLS = {1: call2, 2: call3, 3: call4, 4: call5, 5: call6}

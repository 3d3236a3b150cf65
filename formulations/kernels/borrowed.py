"""Views of arrays without reference counts, for the generated modules' hot paths (numba).

numba counts references to an array's memory with atomic increments and decrements; every slice
or reshape of an array makes and drops one. In an evaluation of a few hundred nanoseconds that
take a dozen views, those atomic operations cost more than the arithmetic. A view made from the
data pointer alone (numba.carray) carries no count, and neither do its slices.
"""
from __future__ import annotations

import numba
from numba.core import types
from numba.extending import intrinsic


@intrinsic
def _data_pointer(typingctx, array):
    """The data pointer of a C-contiguous array (for borrowed)."""
    if not (isinstance(array, types.Array) and array.layout == "C"):
        return None
    signature = types.CPointer(array.dtype)(array)

    def codegen(context, builder, sig, args):
        return context.make_array(sig.args[0])(context, builder, args[0]).data

    return signature, codegen


@numba.njit(cache=True)
def borrowed(a):
    """The C-contiguous array ``a`` seen through a view without a reference count: neither it nor
    its slices touch the count (two atomic operations per slice otherwise, which dominate a small
    evaluation). Only for the duration of a call that holds ``a``: the view does not keep it alive."""
    return numba.carray(_data_pointer(a), a.shape)


@numba.njit(cache=True)
def hold(a):
    """Nothing but a use of ``a``: an array that a borrowed view reads stays alive up to this call."""
    return a.size

"""Views of arrays without reference counts, for the compiled modules' hot paths (numba).

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


@intrinsic
def borrowed_items(typingctx, items):
    """The tuple ``items`` with each C-contiguous array in it seen as borrowed (no reference count,
    see borrowed): a model (formulations.kernels.compiled) passed on from call to call, as from a
    loop to an evaluation called through its address, then costs no atomic operations. Only while
    the caller holds the original."""
    if not isinstance(items, types.BaseTuple):
        return None

    def codegen(context, builder, sig, args):
        from numba.np.arrayobj import populate_array

        values = []
        for i, kind in enumerate(items.types):
            value = builder.extract_value(args[0], i)
            if isinstance(kind, types.Array) and kind.layout == "C":
                original = context.make_array(kind)(context, builder, value)
                view = context.make_array(kind)(context, builder)
                populate_array(view, data=original.data, shape=original.shape, strides=original.strides,
                               itemsize=original.itemsize, meminfo=None)
                value = view._getvalue()
            values.append(value)
        return context.make_tuple(builder, items, values)

    return items(items), codegen

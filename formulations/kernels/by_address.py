"""Calls between compiled functions through an address known at run time, so that the caller's
machine code does not contain the callee's, and models stored in memory, so that a caller need not
know a model's type.

numba links a callee's code into every caller and optimizes and translates it again there, so a
formulation's evaluation, called from a dozen places of an integration loop, used to be compiled a
dozen times. ``call_rhs(address, (model, arguments...))`` (and ``call_evaluate``,
``call_post_step``) calls the function at ``address`` with numba's own calling convention instead:
the callee is compiled once, for the argument types of ``SIGNATURES`` (formulations.kernels.bound
puts its address in the model), and the caller's machine code, which holds no address, is cached
like any other.

The integration loops go one step further: they are compiled once per machine for every
formulation (formulations.solvers.compiled_rk). They hold a model's memory address (``where``, from
``store_model``) and call a formulation module's ``rhs_at(where, ...)`` and
``post_step_at(where, ...)``, which read the model back (``load_model``) and call ``rhs`` and
``post_step``: ``call_rhs_at`` and ``call_post_step_at``.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from .borrowed import borrowed_items

_ARRAY = types.Array(types.float64, 1, "C")

# the functions of a formulation module called through their address: name -> (result, argument
# types after the model); every caller passes exactly these (C-contiguous float64 vectors)
SIGNATURES = {
    "evaluate": (types.boolean, (types.float64, *[_ARRAY] * 8, types.boolean, _ARRAY)),
    "rhs": (types.boolean, (types.float64, *[_ARRAY] * 5)),
    "post_step": (types.int64, (types.float64, *[_ARRAY] * 4)),
}
# the entry points of a formulation module for the shared loops: name -> (result, all argument types,
# the model's address first)
ENTRY_POINTS = {
    "rhs_at": (types.boolean, (types.int64, *SIGNATURES["rhs"][1])),
    "post_step_at": (types.int64, (types.int64, *SIGNATURES["post_step"][1])),
}


def address(dispatcher, model_type=None, name=None) -> int:
    """The address of the machine code of ``dispatcher`` (a formulation module's function named in
    SIGNATURES, compiled for a model of ``model_type``, or in ENTRY_POINTS; ``name``: the name it
    serves there, default its own), compiled or loaded from numba's cache on first use, in numba's
    calling convention. Raises TypeError where the compiled function returns another type than its
    callers read."""
    name = name or dispatcher.py_func.__name__
    result, arguments = ENTRY_POINTS[name] if name in ENTRY_POINTS else SIGNATURES[name]
    arguments = arguments if name in ENTRY_POINTS else (model_type, *arguments)
    dispatcher.compile(arguments)
    compiled = dispatcher.overloads[tuple(arguments)]
    returned = types.unliteral(compiled.signature.return_type)  # a literal 0 is an int64 0 in memory
    if returned != result:
        raise TypeError(f"{name} returns {returned}; its callers through the address read {result}")
    return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)


def _caller(name: str, result_type, expected, skip: int):
    """The intrinsic ``call_<name>(address, (arguments...))``: the function at ``address``, which is
    ``name`` compiled for ``expected`` (the arguments after the first ``skip``), called with numba's
    calling convention; an error status of the callee is passed on as the caller's. Its typing
    refuses other argument types (the callee would read them wrongly)."""

    def typer(typingctx, where, arguments):
        if not isinstance(where, types.Integer) or not isinstance(arguments, types.BaseTuple):
            raise TypingError(f"call_{name}(address, (arguments...))")
        argument_types = list(arguments.types)
        if tuple(argument_types[skip:]) != expected:
            raise TypingError(f"{name} is called through its address with {argument_types[skip:]}; it is "
                              f"compiled for {list(expected)}")

        def codegen(context, builder, sig, args):
            target, packed = args
            values = [builder.extract_value(packed, i) for i in range(len(argument_types))]
            function_type = context.call_conv.get_function_type(result_type, argument_types)
            pointer = builder.inttoptr(target, function_type.as_pointer())
            status, value = context.call_conv.call_function(builder, pointer, result_type, argument_types, values)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return value

        return result_type(where, arguments), codegen

    typer.__name__ = f"call_{name}"
    return intrinsic(typer)


call_evaluate, call_rhs, call_post_step = (_caller(name, *SIGNATURES[name], skip=1)
                                           for name in ("evaluate", "rhs", "post_step"))
call_rhs_at, call_post_step_at = (_caller(name, *ENTRY_POINTS[name], skip=0) for name in ("rhs_at", "post_step_at"))


@intrinsic
def load_model(typingctx, where, model_type):
    """The model of type ``model_type`` (a numba type, given as a value) stored at ``where``."""
    kind = model_type.instance_type

    def codegen(context, builder, sig, args):
        pointer = builder.inttoptr(args[0], context.get_value_type(kind).as_pointer())
        return builder.load(pointer)

    return kind(where, model_type), codegen


@intrinsic
def _store(typingctx, memory, model):
    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        builder.store(args[1], builder.bitcast(data, context.get_value_type(model).as_pointer()))
        return context.get_dummy_value()

    return types.none(memory, model), codegen


@numba.njit(cache=True)
def _store_borrowed(memory, model):
    _store(memory, borrowed_items(model))


def store_model(model, model_type) -> tuple:
    """(memory, where): ``model`` (of numba type ``model_type``) written into a new array, its arrays
    without reference counts, and the array's address for load_model. The model's arrays and the
    memory must outlive every use of ``where``."""
    from numba.core.registry import cpu_target

    for kind in model_type.types:  # borrowed_items takes the counts off C-contiguous arrays only
        if isinstance(kind, types.Array) and kind.layout != "C" or isinstance(kind, types.BaseTuple):
            raise TypeError(f"a stored model holds numbers, C-contiguous arrays and functions; it has {kind}")
    context = cpu_target.target_context
    size = context.get_abi_sizeof(context.get_value_type(model_type))
    memory = np.zeros(max(1, -(-size // 8)))  # float64 items: the model's fields aligned to 8 bytes
    _store_borrowed(memory, model)
    return memory, memory.ctypes.data


__all__ = ["ENTRY_POINTS", "SIGNATURES", "address", "call_evaluate", "call_post_step", "call_post_step_at",
           "call_rhs", "call_rhs_at", "load_model", "store_model"]

"""Calls between compiled functions through an address known at run time, so that the caller's
machine code does not contain the callee's.

numba links a callee's code into every caller and optimizes and translates it again there, so a
formulation's evaluation, called from a dozen places of an integration loop, used to be compiled a
dozen times. ``call_rhs(address, (model, arguments...))`` (and ``call_evaluate``,
``call_post_step``) calls the function at ``address`` with numba's own calling convention instead: the callee is compiled once, for the argument types
named in ``SIGNATURES`` (formulations.kernels.generic passes its address in the model), and the
caller's machine code, which holds no address, is cached like any other.
"""
from __future__ import annotations

from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

_ARRAY = types.Array(types.float64, 1, "C")

# the functions of a generated module called through their address: name -> (result, argument
# types after the model); every caller passes exactly these (C-contiguous float64 vectors)
SIGNATURES = {
    "evaluate": (types.boolean, (types.float64, *[_ARRAY] * 8, types.boolean, _ARRAY)),
    "rhs": (types.boolean, (types.float64, *[_ARRAY] * 5)),
    "post_step": (types.int64, (types.float64, *[_ARRAY] * 4)),
}


def signature(name: str, model_type) -> tuple:
    """The argument types ``name`` is compiled for, the model's type first."""
    return (model_type, *SIGNATURES[name][1])


def address(dispatcher, argument_types) -> int:
    """The address of ``dispatcher``'s machine code for ``argument_types`` (compiled, or loaded from
    numba's cache, on first use), in numba's calling convention."""
    dispatcher.compile(argument_types)
    compiled = dispatcher.overloads[tuple(argument_types)]
    return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)


def _caller(name: str):
    """The intrinsic ``call_<name>(address, (model, arguments...))``: the function at ``address``, which
    is ``name`` compiled for SIGNATURES[name], called with numba's calling convention; an error status
    of the callee is passed on as the caller's. Its typing refuses other argument types (the callee
    would read them wrongly)."""
    result_type, expected = SIGNATURES[name]

    def typer(typingctx, where, arguments):
        if not isinstance(where, types.Integer) or not isinstance(arguments, types.BaseTuple):
            raise TypingError(f"call_{name}(address, (model, arguments...))")
        argument_types = list(arguments.types)
        if tuple(argument_types[1:]) != expected:
            raise TypingError(f"{name} is called through its address with {argument_types[1:]}; it is compiled "
                              f"for {list(expected)}")

        def codegen(context, builder, sig, args):
            address, packed = args
            values = [builder.extract_value(packed, i) for i in range(len(argument_types))]
            function_type = context.call_conv.get_function_type(result_type, argument_types)
            pointer = builder.inttoptr(address, function_type.as_pointer())
            status, value = context.call_conv.call_function(builder, pointer, result_type, argument_types, values)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return value

        return result_type(where, arguments), codegen

    typer.__name__ = f"call_{name}"
    return intrinsic(typer)


call_evaluate, call_rhs, call_post_step = (_caller(name) for name in ("evaluate", "rhs", "post_step"))

__all__ = ["SIGNATURES", "address", "call_evaluate", "call_post_step", "call_rhs", "signature"]

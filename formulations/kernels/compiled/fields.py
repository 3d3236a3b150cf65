"""What the compiled formulation modules share: the numba types of their models' fields, the program
fields of a sparse LU (formulations.kernels.sparse_pattern.symbolic_lu) and the views of the
dynamics kernel's output (formulations.kernels.layout.Layout)."""
import numba
from numba.core import types

INT, FLAG = types.int64, types.boolean
INDEX, BLOCKS, VECTOR = types.Array(types.int64, 1, "C"), types.Array(types.int64, 2, "C"), types.float64[::1]

LU_FIELDS = ("PIVOT", "LOWER_PTR", "LOWER", "LOWER_ROW", "UPDATE_PTR", "UPDATE_TARGET", "UPDATE_LEFT", "UPDATE_RIGHT",
             "UPPER_PTR", "UPPER", "UPPER_COL")


def kernel(*scalars_first):
    """The numba type of a system kernel (systems.numeric.codegen): float64 scalars and vectors, the
    output last."""
    return types.FunctionType(types.void(*[types.float64 if s else VECTOR for s in scalars_first], VECTOR))


# the kernels every model holds: dynamics (t, p, v, params), constraints (p, params, t), energy (p, v, params)
PRIMITIVES = (("DYNAMICS", kernel(True, False, False, False)), ("CONSTRAINTS", kernel(False, False, True)),
              ("ENERGY", kernel(False, False, False)))
ADDRESSES = (("ADDRESS_EVALUATE", INT), ("ADDRESS_RHS", INT), ("ADDRESS_POST_STEP", INT))


@numba.njit(cache=True, inline="always")
def views(md, buf):
    """M, d, f0, F, C, xi, A, pdd2: the views of the dynamics output buf."""
    N, C, N_P, at = md.N, md.C, md.N_P, md.DYN_AT
    return (buf[at[0]:at[1]].reshape((N, N)), buf[at[1]:at[2]], buf[at[2]:at[3]], buf[at[3]:at[4]].reshape((N, C)),
            buf[at[4]:at[5]].reshape((C, N)), buf[at[5]:at[6]], buf[at[6]:at[7]].reshape((N_P, N)), buf[at[7]:at[8]])

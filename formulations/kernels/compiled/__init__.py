"""Formulations' evaluations in machine code, as ordinary modules of numba functions (their models
built by formulations.kernels.dependent and .embedded):

    passes       the right-hand side y' alone, and the passes over recorded points (projection,
                 evaluation, constraint errors, energy and rank measures), for any formulation's model
    dependent    the dependent formulation: the saddle-point solve, the projection (dependent_steps:
                 IDA's residual and Jacobian and the augmented Lagrangian's steps)
    embedded     the reduced and minimal formulations through an embedding or the identity, and the
                 reduced formulation on tangent-space charts (the chart's Newton solve, its test after
                 a step and a new chart)
    fields       the numba types of the models' fields and the views of the dynamics output

Every function takes the formulation's *model* first: a named tuple of its system's sizes, flags,
sparse programs and kernels (numba first-class functions), the same numba type for every system, so that
each module is compiled once per machine. The evaluation, right-hand side and post-step are called
through their addresses (formulations.kernels.by_address), which the model carries. Their machine
code is kept in pfaff's cache folder under a stamp of their source and of the modules they call
(systems.numeric.machine_cache).
"""
import pathlib as _pathlib

from systems.numeric.machine_cache import register as _register

_KERNELS = _pathlib.Path(__file__).resolve().parent.parent
_register(_pathlib.Path(__file__).resolve().parent,
          [_KERNELS / name for name in ("linalg.py", "lapack.py", "sparse_linalg.py", "borrowed.py", "by_address.py")])

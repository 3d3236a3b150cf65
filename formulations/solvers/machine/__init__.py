"""The integration loops in machine code: ordinary modules of numba functions, the same for every
formulation and system, compiled once per machine.

    runge_kutta   Dormand-Prince 5(4) and the classical Runge-Kutta method, with the helpers both
                  DOP853 loops share (output, stages, initial step, the post-step action)
    dop853        Dormand-Prince 8(5,3) with its 7th-order dense output
    lie           Munthe-Kaas Runge-Kutta on SE(3) or SO(3) x R^3
    variational   the discrete Lagrange-d'Alembert steps (Newton on the step's equations)

A loop reaches the formulation it integrates through addresses (formulations.kernels.by_address):
its first argument ``form`` = (where, rhs_at, post_step_at, work, reject_failed_stages) holds where
the formulation's model is stored, the addresses of its module's entry points ``rhs_at`` and
``post_step_at``, the size of the work array of one run, and whether a failed trial stage shortens
the step (charts) instead of ending the run. Their machine code is kept in pfaff's cache folder
under a stamp of their source and of the compiled modules they call (systems.numeric.machine_cache).
"""
import pathlib as _pathlib

from systems.numeric.machine_cache import register as _register

_KERNELS = _pathlib.Path(__file__).resolve().parents[2] / "kernels"
_register(_pathlib.Path(__file__).resolve().parent,
          [_KERNELS / name for name in ("linalg.py", "lapack.py", "sparse_linalg.py", "borrowed.py", "by_address.py")])

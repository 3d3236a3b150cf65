"""Generated numba source of whole formulation evaluations, for the COMPILED_ODE form (backend
"compiled"): the formulation's primitives (systems.numeric.codegen kernels), its matrices and solves in
one function, and compiled passes over recorded points. The solver appends its loop
(formulations.solvers.compiled_rk) and compiles the module.

Every module defines, for y the formulation's own state and ``extra`` its run-time constants
(formulation.compiled_arguments(): gains, the choice of independent velocities), as written; the
system's constants and kernels then become the first argument ``model`` of every function
(formulations.kernels.generic), so that the compiled module serves every system of its kind:

    evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work) -> bool   y' into out,
                  and the dependent state (p, v), v' and (where multipliers) lambda; False where a
                  matrix is singular; work (EVAL_WORK,) zeros, reused from call to call
    workspace() -> (WORK,) zeros                                   one per run
    rhs(t, y, params, extra, out, work) -> bool                    y' only, no allocation in the
                  dependent formulation
    evaluate_all(ts, ys, params, extra) -> (y', lambda, ok, p, v, v')   at recorded points
    check_all(ts, ps, vs, vdots, ok, params) -> (N, 7)             errors, energy, rank measures
"""
from .dependent import dependent_source
from .embedded import minimal_source, reduced_source

__all__ = ["dependent_source", "minimal_source", "reduced_source"]

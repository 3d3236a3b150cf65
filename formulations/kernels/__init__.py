"""Whole formulation evaluations in machine code, for the COMPILED_ODE form (backend "compiled"): the
formulation's primitives (systems.numeric.codegen kernels), its matrices and solves in one function,
and compiled passes over recorded points. The integration loops are modules of their own, shared by
every formulation (formulations.solvers.machine), which call a formulation module's ``rhs_at`` and
``post_step_at``.

They are ordinary modules of numba functions (formulations.kernels.compiled: the dependent
formulation's, and the reduced and minimal formulations' through an embedding or on a chart), their
models built by formulations.kernels.dependent and formulations.kernels.embedded. The system's
constants, flags and kernels are the first argument ``model`` of every function, so that one compiled
module serves every system; every module defines, for y the formulation's own state and ``extra`` its
run-time constants (formulation.compiled_arguments(): gains, the choice of independent velocities):

    evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work) -> bool   y' into out,
                  and the dependent state (p, v), v' and (where multipliers) lambda; False where a
                  matrix is singular; work (EVAL_WORK,) zeros, reused from call to call
    workspace() -> (WORK,) zeros                                   one per run
    rhs(t, y, params, extra, out, work) -> bool                    y' only, no allocation in the
                  dependent formulation
    post_step(t, y, params, extra, work) -> int                    after an accepted step: 0
                  nothing, 2 y projected in place, 1 a new chart wanted, -1 failed
    rhs_at(where, t, y, ...), post_step_at(where, t, y, ...)       rhs and post_step of the model
                  stored at the address ``where`` (formulations.kernels.by_address), for the loops
    project_all(ts, ys, params, extra)                             post_step's projection of
                  recorded rows, in place
    evaluate_all(ts, ys, params, extra) -> (y', lambda, ok, p, v, v')   at recorded points
    check_all(ts, ps, vs, vdots, ok, params) -> (N, 7)             errors, energy, rank measures

evaluate, rhs and post_step are compiled once each and called through their addresses
(formulations.kernels.by_address), not linked into every caller.
"""

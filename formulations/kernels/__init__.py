"""Generated numba source of whole formulation evaluations, for the COMPILED_ODE form (backend
"compiled"): the formulation's primitives (systems.numeric.codegen kernels), its matrices and solves in
one function, and compiled passes over recorded points. The solver appends its loop
(formulations.solvers.compiled_rk) and compiles the module.

Every module defines, for y the formulation's own state and ``extra`` its run-time constants
(formulation.compiled_arguments(): gains, the choice of independent velocities):

    evaluate(t, y, params, extra, out, lam, p, v, vdot, multipliers, work) -> bool   y' into out,
                  and the dependent state (p, v), v' and (where multipliers) lambda; False where a
                  matrix is singular; work (EVAL_WORK,) zeros, reused from call to call
    workspace() -> (WORK,) zeros                                   one per run
    rhs(t, y, params, extra, out, work) -> bool                    y' only, no allocation in the
                  dependent formulation
    evaluate_all(ts, ys, params, extra) -> (y', lambda, ok, p, v, v')   at recorded points
    check_all(ts, ps, vs, vdots, ok, params) -> (N, 7)             errors, energy, rank measures
"""
import functools
import hashlib
import pathlib

from .dependent import dependent_source
from .embedded import minimal_source, reduced_source

__all__ = ["dependent_source", "generator_hash", "minimal_source", "reduced_source"]


@functools.lru_cache(maxsize=1)
def generator_hash() -> str:
    """A hash of the code that writes the compiled modules (this package, the compiled loops and
    systems.numeric.codegen and .cache): compiled code noted as warm under another hash is not taken for this one."""
    root = pathlib.Path(__file__).resolve().parent.parent.parent
    files = (sorted((root / "formulations" / "kernels").glob("*.py"))
             + sorted((root / "formulations" / "solvers").glob("compiled_*.py"))
             + [root / "systems" / "numeric" / "codegen.py", root / "systems" / "numeric" / "cache.py"])
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.read_bytes())
    return digest.hexdigest()[:12]

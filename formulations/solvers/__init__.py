"""Solvers: one module per family, behind the interface of formulations.solvers.base.

    scipy_ivp            RK23, RK45, DOP853, Radau, BDF, LSODA (scipy's solve_ivp methods)
    explicit_rk          dopri5 (our Dormand-Prince 5(4), post-step hook)
    fixed_step           rk4
    ida                  IDA (SUNDIALS, index-1 and GGL residuals; optional extra ``dae``)
    augmented_lagrangian augmented_lagrangian (index 3, fixed step)
    lie                  RKMK4-SE3, RKMK4-SO3xR3, RKMK45-SE3, RKMK45-SO3xR3 (Munthe-Kaas on the bodies' groups)

``simulate(formulation, t_span, ...)`` matches a formulation with a solver and records the run.
"""
from .. import base as _formulation_base
# registration, in the order methods are listed: scipy's, ours, Lie-group, DAE, index 3
from . import scipy_ivp, explicit_rk, fixed_step, lie, ida, augmented_lagrangian, variational  # noqa: F401, I001
from .base import Event, Problem, RunRecord, Solver, StepFailure, create, names, register, solver_class
from .driver import SteppingSolver
from .ida import MissingDependencyError
from .simulate import match, simulate

_formulation_base.install_simulator(simulate)


def order(method) -> int:
    """The order of accuracy of ``method`` (a registered name)."""
    return solver_class(method).order_of(method)


__all__ = ["Solver", "SteppingSolver", "Problem", "RunRecord", "Event", "StepFailure", "MissingDependencyError",
           "create", "names", "register", "simulate", "match", "order"]

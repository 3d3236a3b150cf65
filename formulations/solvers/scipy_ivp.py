"""scipy's solve_ivp methods, stepped one step at a time by the driver: ``RK23``, ``RK45``,
``DOP853`` (explicit Runge-Kutta; they accept a post-step change of the state, their stored
derivative being recomputed), ``Radau``, ``BDF``, ``LSODA`` (implicit or multistep: they keep a
history that a post-step change would break). Their dense output serves t_eval and events.
"""
from __future__ import annotations

import numpy as np
import scipy.integrate as si

from ..errors import CapabilityError
from ..forms import ADAPTIVE, COMPILED_ODE, DENSE_OUTPUT, EVENTS, EXPLICIT_ODE, POST_STEP, STATE_UPDATE
from .base import StepFailure, register
from .driver import SteppingSolver

_EXPLICIT_RK = {"RK23": 3, "RK45": 6, "DOP853": 12}  # stages per attempted step (FSAL)
TINY_STEPS = 50
_ORDER = {"RK23": 3, "RK45": 5, "DOP853": 8, "Radau": 5, "BDF": 5, "LSODA": 12}


class ScipyStepper:
    """One of scipy's OdeSolver classes, stepped by the driver."""

    def __init__(self, method):
        self.method = method
        self.supports_post_step = method in _EXPLICIT_RK
        self.rejected = 0 if self.supports_post_step else None

    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.fun = fun
        self.count = [0]

        def counted(t, y):
            self.count[0] += 1
            return fun(t, y)

        kwargs = dict(rtol=rtol, atol=atol, max_step=max_step)
        if first_step is not None:
            kwargs["first_step"] = first_step
        self.solver = getattr(si, self.method)(counted, t0, np.array(y0, float), t_bound, **kwargs)
        self._counted = counted
        self.t_bound = t_bound
        # scipy's floor is the spacing at t itself, some 1e-323 s near t = 0: a run whose steps collapse
        # there crawls for hours. TINY_STEPS accepted steps in a row finer than the resolution of t_span
        # end the run (fewer: a start whose first steps are tiny and then grow, as scipy's often are)
        self.min_step = 10 * np.spacing(max(abs(t0), abs(t_bound)))
        self.tiny = 0

    @property
    def t(self):
        return self.solver.t

    @property
    def y(self):
        return self.solver.y

    def step(self):
        before, t_before = self.count[0], self.solver.t
        message = self.solver.step()
        if self.solver.status == "failed":
            raise StepFailure(message or "step failed")
        tiny = abs(self.solver.t - t_before) < self.min_step and self.solver.t != self.t_bound
        self.tiny = self.tiny + 1 if tiny else 0
        if self.tiny >= TINY_STEPS:
            raise StepFailure(f"{TINY_STEPS} steps in a row fell below the spacing of floating-point numbers over "
                              f"t_span ({self.min_step:.1e})")
        if self.rejected is not None:
            attempts = (self.count[0] - before) // _EXPLICIT_RK[self.method]
            self.rejected += max(0, attempts - 1)
        return self.solver.t, self.solver.y

    def interpolant(self):
        return self.solver.dense_output()

    def replace_state(self, y):
        if not self.supports_post_step:
            raise CapabilityError(f"method {self.method!r} cannot change its state after a step")
        self.solver.y = np.array(y, float)
        self.solver.f = self._counted(self.solver.t, self.solver.y)

    @property
    def step_size(self):
        return getattr(self.solver, "h_abs", None)



@register("RK23", "RK45")
class ScipyExplicitRK(SteppingSolver):
    """scipy's explicit Runge-Kutta pairs: adaptive, dense output, events, post-step hook."""

    offers = frozenset({ADAPTIVE, DENSE_OUTPUT, EVENTS, POST_STEP, STATE_UPDATE})

    @classmethod
    def order_of(cls, method):
        return _ORDER[method]

    def stepper(self, problem):
        return ScipyStepper(self.method)


@register("DOP853")
class ScipyDOP853(ScipyExplicitRK):
    """scipy's DOP853; in machine code, with scipy's steps, where the formulation gives a compiled
    right-hand side (backend "compiled", formulations.solvers.machine.dop853) and the run needs no
    events or post-step hook (a new tangent-space chart is taken inside it)."""

    forms = (COMPILED_ODE, EXPLICIT_ODE)
    max_steps = 10**7

    def offers_for(self, form):
        return frozenset({ADAPTIVE, DENSE_OUTPUT, STATE_UPDATE}) if form == COMPILED_ODE else self.offers

    def integrate(self, problem):
        if problem.form != COMPILED_ODE:
            return super().integrate(problem)
        from .compiled_rk import run_compiled

        return run_compiled(problem, self.max_steps, loop="integrate853")


@register("Radau", "BDF", "LSODA")
class ScipyImplicit(ScipyExplicitRK):
    """scipy's implicit and multistep methods: no post-step hook (they keep a history)."""

    offers = frozenset({ADAPTIVE, DENSE_OUTPUT, EVENTS})

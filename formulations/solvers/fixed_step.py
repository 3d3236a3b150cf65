"""The classical fourth-order Runge-Kutta method with a fixed step h, for teaching and for
convergence studies (``rk4``, ``step=`` sets h; the last step is shortened to land on t_end)."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..forms import COMPILED_ODE, DENSE_OUTPUT, EVENTS, EXPLICIT_ODE, POST_STEP, STATE_UPDATE
from .base import register
from .driver import SteppingSolver
from .explicit_rk import hermite


class RungeKutta4:
    """The classical Runge-Kutta method with a fixed step h."""

    method = "rk4"
    supports_post_step = True

    def __init__(self, step):
        self.h = float(step)
        self.rejected = 0

    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.fun, self.t, self.y, self.t_bound = fun, float(t0), np.array(y0, float), t_bound
        self.direction = np.sign(t_bound - t0) or 1.0
        self.f = fun(self.t, self.y)

    def step(self):
        t, y = self.t, self.y
        h = self.direction * min(self.h, abs(self.t_bound - t))
        k1 = self.f
        k2 = self.fun(t + h / 2, y + h / 2 * k1)
        k3 = self.fun(t + h / 2, y + h / 2 * k2)
        k4 = self.fun(t + h, y + h * k3)
        y_new = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        f_new = self.fun(t + h, y_new)
        self._last = (t, y, k1, t + h, y_new, f_new)
        self.t, self.y, self.f = t + h, y_new, f_new
        return self.t, self.y

    def interpolant(self):
        return hermite(*self._last)

    def replace_state(self, y):
        self.y = np.array(y, float)
        self.f = self.fun(self.t, self.y)

    step_size = property(lambda self: self.h)



@register("rk4")
class FixedStepRK4(SteppingSolver):
    """``rk4``: classical Runge-Kutta, fixed step; in machine code where the formulation gives a
    compiled right-hand side and the run needs no events or post-step hook
    (formulations.solvers.machine.runge_kutta.integrate_rk4, the same steps; its rank watch sees the
    recorded points, as the other compiled loops')."""

    forms = (COMPILED_ODE, EXPLICIT_ODE)
    offers = frozenset({DENSE_OUTPUT, EVENTS, POST_STEP, STATE_UPDATE})
    order = 4
    fixed_step = True
    max_steps = 10**7

    def offers_for(self, form):
        return frozenset({DENSE_OUTPUT, STATE_UPDATE}) if form == COMPILED_ODE else self.offers

    def stepper(self, problem):
        return RungeKutta4(self.step)

    def integrate(self, problem):
        if problem.form != COMPILED_ODE:
            return super().integrate(problem)
        from .compiled_rk import run_compiled

        return run_compiled(dataclasses.replace(problem, first_step=self.step), self.max_steps, loop="integrate_rk4")

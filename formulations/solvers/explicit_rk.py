"""Our explicit Runge-Kutta method ``dopri5``: the Dormand-Prince 5(4) pair with the usual
step-size controller (Hairer, Norsett & Wanner, Solving ODEs I, II.4 and II.5), local
extrapolation and FSAL; its state may be changed after a step (projection, re-charting).
"""
from __future__ import annotations

import numpy as np

from ..forms import ADAPTIVE, COMPILED_ODE, DENSE_OUTPUT, EVENTS, EXPLICIT_ODE, POST_STEP, STATE_UPDATE
from .base import StepFailure, register
from .driver import SteppingSolver


def rms(x):
    """Root mean square of an array (0 for an empty one)."""
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


def hermite(t0, y0, f0, t1, y1, f1):
    """The cubic Hermite interpolant of one step, from its end values and derivatives."""
    h = t1 - t0

    def interp(t):
        s = (t - t0) / h
        h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
        h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
        return h00 * y0 + h10 * h * f0 + h01 * y1 + h11 * h * f1

    return interp



# Dormand-Prince 5(4) tableau (also the RKMK45 methods' tableau)
C = np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1])
A = [np.array([]), np.array([1 / 5]), np.array([3 / 40, 9 / 40]), np.array([44 / 45, -56 / 15, 32 / 9]),
      np.array([19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]),
      np.array([9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]),
      np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84])]
B = A[6]
E = np.array([71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])


class DormandPrince54:
    """Adaptive Dormand-Prince 5(4) with FSAL and the standard controller (own implementation)."""

    method = "dopri5"
    supports_post_step = True
    safety, min_factor, max_factor = 0.9, 0.2, 10.0

    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.fun, self.t, self.y = fun, float(t0), np.array(y0, float)
        self.t_bound, self.rtol, self.atol, self.max_step = t_bound, rtol, atol, max_step
        self.direction = np.sign(t_bound - t0) or 1.0
        self.f = fun(self.t, self.y)
        self.rejected = 0
        self.h = first_step if first_step else self._initial_step()
        self._last = None

    def _scale(self, y0, y1):
        return self.atol + self.rtol * np.maximum(np.abs(y0), np.abs(y1))

    def _initial_step(self):
        sc = self._scale(self.y, self.y)
        d0, d1 = rms(self.y / sc), rms(self.f / sc)
        h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        h0 = min(h0, abs(self.t_bound - self.t))
        y1 = self.y + self.direction * h0 * self.f
        d2 = rms((self.fun(self.t + self.direction * h0, y1) - self.f) / sc) / h0
        h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else (0.01 / max(d1, d2)) ** (1 / 5)
        return min(100 * h0, h1, self.max_step)

    def step(self):
        t, y, f = self.t, self.y, self.f
        h = min(self.h, self.max_step, abs(self.t_bound - t))
        while True:
            if h < 10 * np.spacing(abs(t) + 1.0):
                raise StepFailure(f"step size {h:.3e} fell below the spacing of t = {t:.6g}")
            hs = self.direction * h
            K = np.empty((7, y.size))
            K[0] = f
            for i in range(1, 7):
                K[i] = self.fun(t + C[i] * hs, y + hs * (A[i] @ K[:i]))
            y_new = y + hs * (B @ K[:6])
            err = rms(hs * (E @ K) / self._scale(y, y_new))
            if not np.isfinite(err):
                self.rejected += 1
                h *= self.min_factor
                continue
            if err <= 1.0:
                factor = self.max_factor if err == 0 else min(self.max_factor, self.safety * err ** -0.2)
                self._last = (t, y, f, t + hs, y_new, K[6])
                self.t, self.y, self.f = t + hs, y_new, K[6]
                self.h = h * factor
                return self.t, self.y
            self.rejected += 1
            h *= max(self.min_factor, self.safety * err ** -0.2)

    def interpolant(self):
        return hermite(*self._last)

    def replace_state(self, y):
        self.y = np.array(y, float)
        self.f = self.fun(self.t, self.y)

    @property
    def step_size(self):
        return self.h




@register("dopri5")
class DormandPrince(SteppingSolver):
    """``dopri5``: adaptive Dormand-Prince 5(4), our own implementation; in machine code where the
    formulation gives a compiled right-hand side (backend "compiled", formulations.solvers.compiled_rk)
    and the run needs no events or post-step hook (a new tangent-space chart is taken inside it)."""

    forms = (COMPILED_ODE, EXPLICIT_ODE)
    offers = frozenset({ADAPTIVE, DENSE_OUTPUT, EVENTS, POST_STEP, STATE_UPDATE})
    order = 5
    max_steps = 10**7

    def offers_for(self, form):
        return frozenset({ADAPTIVE, DENSE_OUTPUT, STATE_UPDATE}) if form == COMPILED_ODE else self.offers

    def stepper(self, problem):
        return DormandPrince54()

    def integrate(self, problem):
        if problem.form != COMPILED_ODE:
            return super().integrate(problem)
        from .compiled_rk import run_compiled

        return run_compiled(problem, self.max_steps)

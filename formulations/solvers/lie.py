"""Munthe-Kaas Runge-Kutta (RKMK) integration of rigid-body systems on SE(3) or SO(3) x R^3.

For the dependent formulation (index 1: p' = A v with v' and lambda from the saddle-point system)
of a system whose coordinates and velocities are all rigid-body blocks
(:class:`systems.description.BodyBlock`). Each body's configuration g = (R, r) is kept as a group
element and its velocity w as a vector in the Lie algebra, left-trivialized:

    SE(3):        w = (omega, R^T r'),  the body-fixed twist;     g exp(X) = (R exp(omega~), r + R dexp_omega v)
    SO(3) x R^3:  w = (omega, r'),      the hybrid velocity;      g exp(X) = (R exp(omega~), r + v)

A step from (g_n, w_n) solves Theta' = dexp^-1_{-Theta}(w), w' = a(g_n exp(Theta), w) with a
Runge-Kutta tableau and sets g_{n+1} = g_n exp(Theta_1) (A. Mueller, *Is there an optimal choice of
configuration space for Lie group integration schemes applied to constrained MBS?*, section 4;
H. Munthe-Kaas, *Runge-Kutta methods on Lie groups*, BIT 38, 1998; Hairer, Lubich & Wanner,
Geometric Numerical Integration, IV.8). With the exact dexp^-1 of formulations.solvers.groups the method
has the order of its tableau. R stays orthogonal to round-off: the Euler parameters handed to the
formulation are those of R, of unit norm without renormalization.

Methods: ``RKMK4-SE3`` and ``RKMK4-SO3xR3`` (classical RK4 tableau, fixed step), ``RKMK45-SE3``
and ``RKMK45-SO3xR3`` (Dormand-Prince 5(4) tableau with its embedded error estimate in the
algebra, adaptive step, FSAL). The velocities of the system may be twists or hybrid velocities
(BodyBlock.velocity) whatever the group: they are converted per body,
u_world = R u_body, d/dt u_world = R (omega x u_body + u_body').
"""
from __future__ import annotations

import numpy as np

from ..errors import CapabilityError
from ..forms import ADAPTIVE, DENSE_OUTPUT, EVENTS, LIE_GROUP, POST_STEP, STATE_UPDATE, not_made_of_bodies
from .base import StepFailure, equal_steps, register
from .driver import SteppingSolver
from .explicit_rk import A as _A, B as _B, C as _C, E as _E, hermite, rms
from .groups import quaternion_from_rotation, rotation_from_quaternion, se3_dexpinv, se3_exp, so3_dexpinv, so3_exp

METHODS = ("RKMK4-SE3", "RKMK4-SO3xR3", "RKMK45-SE3", "RKMK45-SO3xR3")

GROUPS = ("SE3", "SO3xR3")
_RK4 = (np.array([0.0, 0.5, 0.5, 1.0]), [np.array([]), np.array([0.5]), np.array([0.0, 0.5]),
                                         np.array([0.0, 0.0, 1.0])], np.array([1 / 6, 1 / 3, 1 / 3, 1 / 6]))


def is_lie_method(method) -> bool:
    return isinstance(method, str) and method in METHODS


class BodyStates:
    """Maps between the dependent state y = (p, v) of a system made of body blocks and the group
    state: rotations R (N, 3, 3), positions r (N, 3), algebra velocities w (N, 6) of ``group``."""

    def __init__(self, system, group):
        if group not in GROUPS:
            raise CapabilityError(f"Lie integration got group {group!r} but expected one of {', '.join(GROUPS)}")
        bodies = system.bodies
        if not system.made_of_bodies:
            raise CapabilityError(not_made_of_bodies(system))
        self.system, self.group, self.bodies = system, group, bodies
        self.n_p = len(system.coordinates)
        self.rot = np.array([b.rotation for b in bodies])
        self.pos = np.array([b.position for b in bodies])
        self.vel = np.array([b.angular + b.linear for b in bodies])
        self.world_linear = np.array([b.velocity == "hybrid" for b in bodies])  # the system's linear velocities
        self.group_world = group == "SO3xR3"

    def split(self, y):
        """(R, r, w, e) of y = (p, v); e the Euler parameters as given (for sign continuity)."""
        p, v = y[:self.n_p], y[self.n_p:]
        e = p[self.rot]
        R = np.array([rotation_from_quaternion(ei / np.linalg.norm(ei)) for ei in e])
        w = v[self.vel].copy()
        for i, world in enumerate(self.world_linear):
            if world != self.group_world:
                w[i, 3:] = R[i] @ w[i, 3:] if self.group_world else R[i].T @ w[i, 3:]
        return R, p[self.pos].copy(), w, e

    def join(self, R, r, w, like):
        """y = (p, v) of a group state; Euler parameters with the sign closest to ``like`` (N, 4)."""
        y = np.empty(self.n_p + self.system.n)
        v = y[self.n_p:]
        for i in range(len(self.bodies)):
            y[self.rot[i]] = quaternion_from_rotation(R[i], like[i])
            y[self.pos[i]] = r[i]
            lin = w[i, 3:]
            if self.world_linear[i] != self.group_world:
                lin = R[i].T @ lin if self.group_world else R[i] @ lin
            v[self.vel[i, :3]] = w[i, :3]
            v[self.vel[i, 3:]] = lin
        return y

    def acceleration(self, R, w, vdot):
        """w' (N, 6) of the group from the system's v' (n,) at the group state (R, w)."""
        wd = vdot[self.vel].copy()
        for i, world in enumerate(self.world_linear):
            if world == self.group_world:
                continue
            omega = w[i, :3]
            if self.group_world:  # the system has body axes: w_lin = R u, w_lin' = R (omega x u + u')
                u = R[i].T @ w[i, 3:]
                wd[i, 3:] = R[i] @ (np.cross(omega, u) + wd[i, 3:])
            else:  # the system has world axes: w_lin = R^T u, w_lin' = R^T u' - omega x w_lin
                wd[i, 3:] = R[i].T @ wd[i, 3:] - np.cross(omega, w[i, 3:])
        return wd

    def compose(self, R, r, Theta):
        """g exp(Theta) per body: (R', r')."""
        R_new = np.empty_like(R)
        r_new = np.empty_like(r)
        for i in range(len(R)):
            if self.group_world:
                R_new[i], r_new[i] = R[i] @ so3_exp(Theta[i, :3]), r[i] + Theta[i, 3:]
            else:
                dR, dr = se3_exp(Theta[i])
                R_new[i], r_new[i] = R[i] @ dR, r[i] + R[i] @ dr
        return R_new, r_new

    def dexpinv_neg(self, Theta, w):
        """dexp^-1_{-Theta} w per body, (N, 6)."""
        out = np.empty_like(w)
        for i in range(len(w)):
            if self.group_world:
                out[i, :3] = so3_dexpinv(-Theta[i, :3]) @ w[i, :3]
                out[i, 3:] = w[i, 3:]
            else:
                out[i] = se3_dexpinv(-Theta[i]) @ w[i]
        return out


class LieStepper:
    """RKMK on the bodies' group, behind the stepping interface of formulations.solvers.driver.

    ``stops``: times the steps must land on (the output grid), so that output points are step
    points and never interpolated; between stops a fixed-step method takes equal steps of at most
    ``step``.
    """

    supports_post_step = True
    safety, min_factor, max_factor = 0.9, 0.2, 10.0

    def __init__(self, system, method, step=None):
        if not is_lie_method(method):
            raise CapabilityError(f"Lie integration got method {method!r} but expected one of {', '.join(METHODS)}")
        scheme, group = method.split("-")
        self.method = method
        self.adaptive = scheme == "RKMK45"
        if self.adaptive and step is not None:
            raise CapabilityError(f"method {method!r} chooses its own steps: got step={step!r} but expected none "
                                  f"(for a fixed step use RKMK4-{group})")
        if not self.adaptive and (step is None or not step > 0):
            raise CapabilityError(f"method {method!r} needs a fixed step: got step={step!r} but expected step > 0 "
                                  f"(simulate(..., step=1e-3) or the configuration '...@{method}:1e-3')")
        self.states = BodyStates(system, group)
        if self.adaptive:
            self.c, self.a, self.b, self.e = _C, _A, _B, _E
        else:
            self.c, self.a, self.b = _RK4
            self.e = None
        self.step_max = None if step is None else float(step)
        self.rejected = 0
        self.stops = None

    # -- the stepping interface ------------------------------------------------------------------
    def start(self, fun, t0, y0, t_bound, rtol, atol, max_step, first_step):
        self.fun, self.t, self.t_bound = fun, float(t0), float(t_bound)
        self.rtol, self.atol, self.max_step = rtol, atol, max_step
        if t_bound < t0:
            raise CapabilityError("Lie integration runs forward in time: expected t_span[1] > t_span[0]")
        self._set_state(np.array(y0, float))
        grid = np.asarray(self.stops if self.stops is not None else [], float)
        self.targets = sorted(set(grid[(grid > t0) & (grid < t_bound)]) | {float(t_bound)})
        self.wd = self._field(self.t, self.R, self.r, self.w, self.like)
        self.h = first_step if first_step is not None else self._initial_step()
        self._plan = []

    def _set_state(self, y):
        self.R, self.r, self.w, self.like = self.states.split(y)
        self.y = self.states.join(self.R, self.r, self.w, self.like)

    def _field(self, t, R, r, w, like):
        """w' (N, 6) at a group state."""
        y = self.states.join(R, r, w, like)
        ydot = self.fun(t, y)
        vdot = ydot[self.states.n_p:]
        if not np.all(np.isfinite(vdot)):
            raise StepFailure(f"non-finite accelerations at t = {t:.6g}")
        return self.states.acceleration(R, w, vdot)

    def _stages(self, h):
        """((w_new, R_new, r_new), K, Wd) of one RKMK step of size h; K and Wd (stages, N, 6) are the
        stage values of dexp^-1 w and w'. The embedded pair's extra stage sits at the new state (FSAL)."""
        fsal = self.e is not None
        stages = len(self.b) + (1 if fsal else 0)
        K, Wd = np.zeros((stages, len(self.w), 6)), np.zeros((stages, len(self.w), 6))
        K[0], Wd[0] = self.w, self.wd
        for i in range(1, stages):
            Theta = h * np.tensordot(self.a[i], K[:i], axes=1)
            W = self.w + h * np.tensordot(self.a[i], Wd[:i], axes=1)
            R_i, r_i = self.states.compose(self.R, self.r, Theta)
            Wd[i] = self._field(self.t + self.c[i] * h, R_i, r_i, W, self.like)
            K[i] = self.states.dexpinv_neg(Theta, W)
        if fsal:
            return (W, R_i, r_i), K, Wd
        Theta = h * np.tensordot(self.b, K, axes=1)
        R_new, r_new = self.states.compose(self.R, self.r, Theta)
        return (self.w + h * np.tensordot(self.b, Wd, axes=1), R_new, r_new), K, Wd

    def _error(self, h, K, Wd, r_new, w_new):
        """RMS of the embedded error estimate in the algebra, scaled by the tolerances."""
        err_x, err_w = h * np.tensordot(self.e, K, axes=1), h * np.tensordot(self.e, Wd, axes=1)
        size_r = np.maximum(np.max(np.abs(self.r), axis=1), np.max(np.abs(r_new), axis=1))[:, None]
        scale_x = np.hstack([np.full((len(K[0]), 3), self.atol + self.rtol), self.atol + self.rtol * np.repeat(size_r, 3, 1)])
        scale_w = self.atol + self.rtol * np.maximum(np.abs(self.w), np.abs(w_new))
        return rms(np.concatenate([(err_x / scale_x).ravel(), (err_w / scale_w).ravel()]))

    def _initial_step(self):
        scale = self.atol + self.rtol * np.abs(self.w)
        d0, d1 = rms(self.w / scale), rms(self.wd / scale)
        h = 0.01 * d0 / d1 if d0 > 1e-5 and d1 > 1e-5 else 1e-6
        return min(h, self.max_step, 0.1 * (self.t_bound - self.t))

    def _next_fixed_time(self):
        """The end of the next fixed step: equal steps of at most ``step`` up to the next stop."""
        if not self._plan:
            target = next(x for x in self.targets if x > self.t)
            self._plan = list(equal_steps(self.t, [target], self.step_max)[0])
        return float(self._plan.pop(0))

    def step(self):
        t = self.t
        target = next(x for x in self.targets if x > t)
        if not self.adaptive:
            t_new = self._next_fixed_time()
            (w_new, R_new, r_new), _, _ = self._stages(t_new - t)
        else:
            h = min(self.h, self.max_step, target - t)
            while True:
                if h < 10 * np.spacing(abs(t) + 1.0):
                    raise StepFailure(f"step size {h:.3e} fell below the spacing of t = {t:.6g}")
                try:
                    (w_new, R_new, r_new), K, Wd = self._stages(h)
                    err = self._error(h, K, Wd, r_new, w_new)
                except StepFailure:
                    err = np.inf
                if err <= 1.0:
                    factor = self.max_factor if err == 0 else min(self.max_factor, self.safety * err ** -0.2)
                    reached = h >= target - t
                    t_new = target if reached else t + h
                    self.h = max(self.h, h * factor) if reached else h * factor  # a step cut to land on a stop
                    break
                self.rejected += 1
                h *= self.min_factor if not np.isfinite(err) else max(self.min_factor, self.safety * err ** -0.2)
        y_old = self.y
        self.t, self.R, self.r, self.w = float(t_new), R_new, r_new, w_new
        self.y = self.states.join(R_new, r_new, w_new, self.like)
        self.like = self.y[self.states.rot]
        self.wd = Wd[-1] if self.adaptive else self._field(self.t, R_new, r_new, w_new, self.like)
        self._last = (t, y_old, self.t, self.y)
        return self.t, self.y

    def interpolant(self):
        """Step ends exactly; in between (events only) a cubic Hermite interpolant of y."""
        t0, y0, t1, y1 = self._last
        cache = {}

        def interp(t):
            if t == t1:
                return y1
            if t == t0:
                return y0
            if "h" not in cache:
                cache["h"] = hermite(t0, y0, self.fun(t0, y0), t1, y1, self.fun(t1, y1))
            return cache["h"](t)

        return interp

    def replace_state(self, y):
        self._set_state(np.array(y, float))
        self.like = self.y[self.states.rot]
        self.wd = self._field(self.t, self.R, self.r, self.w, self.like)

    @property
    def step_size(self):
        return self.step_max if not self.adaptive else self.h


class _Lie(SteppingSolver):
    """On the compiled backend, without events or a post-step hook, the steps run in machine code
    (formulations.solvers.compiled_lie), the same steps as LieStepper's."""

    forms = (LIE_GROUP,)
    max_steps = 10**7

    def stepper(self, problem):
        stepper = LieStepper(problem.formulation.system, self.method, self.step)
        stepper.stops = problem.t_eval
        return stepper

    def integrate(self, problem):
        from . import compiled_lie

        if not compiled_lie.applies(problem):
            return super().integrate(problem)
        stepper = self.stepper(problem)  # checks the method and its step
        if problem.t_span[1] < problem.t_span[0]:
            raise CapabilityError("Lie integration runs forward in time: expected t_span[1] > t_span[0]")
        return compiled_lie.run(problem, stepper.states, stepper.adaptive, stepper.step_max, self.max_steps)


@register("RKMK4-SE3", "RKMK4-SO3xR3")
class RKMK4(_Lie):
    """Munthe-Kaas RK4 on SE(3) or SO(3) x R^3, fixed step; output points are step points."""

    step_hint = "or the configuration '...@RKMK4-SE3:1e-3'"

    offers = frozenset({DENSE_OUTPUT, EVENTS, POST_STEP, STATE_UPDATE})
    order = 4
    fixed_step = True


@register("RKMK45-SE3", "RKMK45-SO3xR3")
class RKMK45(_Lie):
    """Munthe-Kaas Dormand-Prince 5(4) on SE(3) or SO(3) x R^3, adaptive, landing on the output grid."""

    offers = frozenset({ADAPTIVE, DENSE_OUTPUT, EVENTS, POST_STEP, STATE_UPDATE})
    order = 5
    step_hint = "for a fixed step use RKMK4-SE3 or RKMK4-SO3xR3"

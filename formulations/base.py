"""The common interface of the formulations and their registry.

Every formulation maps a consistent dependent state (p, v) of a system to its own state y and
back, and evaluates y' together with the accelerations v' and the multipliers lambda:

    dependent  y = (p, v)   p' = A v;  [[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]
    reduced    y = (q, w)   q' = A_q w;  v = D w, v' = D w' + gamma,  D = A^+ g_q A_q  (n, k)
                            [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]
                            M_bar = D^T M D, d_bar = D^T (M gamma + d), f_bar = D^T f, C_bar_nh = C_nh D
    minimal    y = (q, u)   w = D_bar u,  w' = D_bar u' + gamma_bar,  C_bar_nh D_bar = 0  (k, r)
                            M_barbar u' + d_barbar = f_barbar,  M_barbar = D_bar^T M_bar D_bar  (r, r)

(Blajer, *A geometrical framework for modeling and simulation of nonholonomic mechanical
systems*.) Where f depends on lambda (non-ideal constraints) each solves for its accelerations and
all multipliers together (see formulations.linear). Reactions not carried by a formulation's own
multipliers follow in resolved form from C^T lambda = f - d - M v'.

A new formulation is one module: subclass Formulation, set ``name`` and ``numeric_form``, and
decorate it with ``@register``.
"""
from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from systems.analysis import nearest_singular_configuration
from systems.errors import InconsistentStateError, UnknownNameError
from systems.state import renormalize

from .integrators import CapabilityError, Event, StopRun, make_stepper, run
from .charts import Atlas, ChartError
from .linear import SingularMatrixError
from .augmented_lagrangian import as_method as augmented_lagrangian, run_augmented_lagrangian
from .dae import require_ida, run_ida
from .lie import LieStepper, is_lie_method
from .stabilization import GGL, ConstraintDynamics, NoStabilization, Projection, as_strategy
from .trajectory import ConstraintErrors, Stats, Trajectory, frozen

_REGISTRY: dict = {}


def fastest_rate(rhs, t, y) -> float:
    """max |eigenvalue| of d rhs / d y at (t, y) by central differences, in 1/s."""
    J = np.empty((y.size, y.size))
    for j in range(y.size):
        h = 1e-6 * (1.0 + abs(y[j]))
        e = np.zeros(y.size)
        e[j] = h
        J[:, j] = (rhs(t, y + e) - rhs(t, y - e)) / (2 * h)
    return float(np.max(np.abs(np.linalg.eigvals(J)), initial=0.0))


def register(cls):
    """Class decorator: make a formulation available by its ``name``."""
    _REGISTRY[cls.name] = cls
    return cls


def names() -> tuple:
    """Names of the registered formulations."""
    return tuple(_REGISTRY)


def create(name: str, system, **options):
    """An instance of formulation ``name`` for ``system`` (options as the formulation documents)."""
    if name not in _REGISTRY:
        raise UnknownNameError("formulation", name, names())
    return _REGISTRY[name](system, **options)


@dataclass(frozen=True)
class Evaluation:
    """y' (n_y,), v' (n,) and multipliers lambda (m + l,) at one state."""

    ydot: np.ndarray
    vdot: np.ndarray
    lam: np.ndarray


@dataclass(frozen=True)
class Saddle:
    """The square system of one state: K [a; mu] = rhs (formulations.linear.saddle_system).

    kinematics: the position part of y' (n_q,); na: number of acceleration unknowns a (the
    velocity part of y' is a); velocity: the velocity part of y (na,), on which the kept rows act
    (G velocity = 0 for scleronomic constraints); rows: number of kept constraint rows, the last
    rows of K; T, tau: v' = T a + tau (T None: v' = a); extra: what the formulation needs after the
    solve (dynamics pieces).
    """

    kinematics: np.ndarray
    K: np.ndarray
    rhs: np.ndarray
    na: int
    velocity: np.ndarray
    rows: int
    T: object
    tau: object
    extra: tuple = ()


class Formulation(ABC):
    """One way of writing and integrating the equations of motion of a system."""

    name: ClassVar[str]
    numeric_form: ClassVar[str]          # PyDy-style name of the numeric form produced
    stabilizations: ClassVar[tuple] = ("none",)
    options: ClassVar[tuple] = ()        # extra keyword options of the subclass
    geometry = None                      # reduced coordinates: an embedding Geometry or an Atlas of charts

    def __init__(self, system, *, stabilization=None, **options):
        self.system = system
        self.stabilization = as_strategy(stabilization)
        self.requested_stabilization = self.stabilization  # as asked for; ``stabilization`` is as run
        if self.stabilization.name not in self.stabilizations:
            raise CapabilityError(
                f"formulation {self.name!r} got stabilization {self.stabilization.label()!r} but expected one of: "
                f"{', '.join(self.stabilizations)}")
        unknown = set(options) - set(self.options)
        if unknown:
            raise TypeError(f"formulation {self.name!r} got unknown options {sorted(unknown)}; "
                            f"expected some of {list(self.options) or 'none'}")
        self.num = system.numeric
        self.par = system.params
        self.nonideal = system.is_nonideal
        self.projections = 0
        self._configure(**options)

    def _configure(self, **options):
        """Subclass hook for its options."""

    # -- the contract --------------------------------------------------------------------------
    @abstractmethod
    def state_names(self) -> tuple:
        """Names of the formulation's own state variables."""

    @abstractmethod
    def initial_state(self, p, v) -> np.ndarray:
        """Own state from a consistent dependent state."""

    @abstractmethod
    def dependent_state(self, y):
        """(p, v) from the own state."""

    def evaluate(self, t, y) -> Evaluation:
        """y', v' and lambda at (t, y)."""
        return Evaluation(*self._evaluate(t, y))

    @abstractmethod
    def _evaluate(self, t, y, multipliers=True) -> tuple:
        """(y', v', lambda) at (t, y): the hot path of the integration. With multipliers=False the
        multipliers a formulation does not need for y' may be left out (None)."""

    def _saddle(self, t, y) -> Saddle:
        """The saddle-point system at (t, y), for the DAE forms (formulations.dae); formulations
        that do not offer it raise CapabilityError."""
        raise CapabilityError(f"formulation {self.name!r} cannot be solved as a DAE (method 'IDA'); "
                              f"expected formulation 'dependent' or 'reduced'")

    def _gains(self):
        """(alpha, beta) of a feedback stabilization (Baumgarte, constraint dynamics), or None."""
        gains = getattr(self.stabilization, "gains", None)
        return gains() if gains is not None else None

    def _rhs(self, t, y):
        return self._evaluate(t, y, False)[0]

    @abstractmethod
    def equations(self, expanded: bool = False):
        """The symbolic pieces, named as in DESIGN section 2 (expanded forms on request)."""

    def project(self, t, y):
        """The state moved back onto the constraints (stabilization Projection); default: unchanged."""
        return y

    def post_step(self, t, y):
        """Called after every accepted step; returns a changed state or None."""
        if isinstance(self.stabilization, Projection):
            self.projections += 1
            return self.project(t, y)
        return None

    @property
    def uses_post_step(self) -> bool:
        return isinstance(self.stabilization, Projection)

    @property
    def reject_singular_stages(self) -> bool:
        """True where a singular matrix at a trial stage should shrink the step instead of ending
        the run (the post-step hook then repairs the cause, e.g. by a new choice of u)."""
        return False

    def label(self) -> str:
        stab = self.stabilization
        return self.name if isinstance(stab, NoStabilization) else f"{self.name}+{stab.label()}"

    # -- helpers for subclasses ----------------------------------------------------------------
    def _dynamics(self, t, p, v):
        p = renormalize(self.system, p) if self.system.unit_norm_blocks else p
        return p, self.num.dynamics(t, p, v, self.par)

    # -- simulation ----------------------------------------------------------------------------
    def check_state(self, p, v, tol=1e-8):
        """Raise InconsistentStateError listing the residuals when (p, v) violates the constraints."""
        Phi, Cv = self.system.residuals(p, v)
        scale_p = 1 + np.max(np.abs(p))
        scale_v = 1 + np.max(np.abs(v))
        bad = [f"{name}: {val:.3e}" for name, val in zip(self.system.holonomic_names, Phi) if abs(val) > tol * scale_p]
        bad += [f"{name} (velocity): {val:.3e}" for name, val in zip(self.system.constraint_names, Cv)
                if abs(val) > tol * scale_v]
        if bad:
            raise InconsistentStateError(
                f"system {self.system.name!r}: the initial state violates the constraints ({'; '.join(bad)}). "
                f"Use system.consistent_state(p, v, fix=...) or simulate(..., project_initial=True).")

    def simulate(self, t_span, state0=None, *, rtol=1e-8, atol=1e-8, method="DOP853", max_step=np.inf,
                 t_eval=None, events=(), step=None, first_step=None, project_initial=False,
                 check_initial=True) -> Trajectory:
        """Integrate from the dependent state ``state0`` = (p, v) (default: the system's).

        method: one of formulations.integrators.METHODS: scipy's and our Runge-Kutta methods, the
        Munthe-Kaas methods "RKMK4-SE3", "RKMK4-SO3xR3" (fixed ``step``), "RKMK45-SE3", "RKMK45-SO3xR3"
        (adaptive) for the dependent formulation of rigid-body systems (formulations.lie), "IDA"
        (SUNDIALS, a DAE solver; optional extra ``dae``; see formulations.dae), or
        "augmented_lagrangian" (index-3, trapezoidal, fixed step; an AugmentedLagrangian instance
        sets its penalty; see formulations.augmented_lagrangian). ``step`` is the fixed step of
        "rk4" and "augmented_lagrangian".
        events: Event objects or callables g(t, p, v) (terminal, both directions).
        check_initial=False starts from a state that violates the constraints (to watch a feedback
        stabilization pull it back); by default such a state is refused.
        A failed step or singular matrix ends the run with status -1 and a message naming the
        system, the time and the quantity; the trajectory computed so far is kept.
        """
        if not (np.isscalar(rtol) and rtol > 0 and np.isscalar(atol) and atol > 0):
            raise ValueError(f"tolerances got rtol={rtol!r}, atol={atol!r} but expected positive numbers")
        if len(t_span) != 2 or not np.all(np.isfinite(t_span)):
            raise ValueError(f"t_span got {t_span!r} but expected (t0, t1) finite")
        started = time.perf_counter()
        p0, v0 = self.system.default_state() if state0 is None else (np.asarray(state0[0], float),
                                                                      np.asarray(state0[1], float))
        if project_initial:
            p0, v0 = self.system.consistent_state(p0, v0)
        if check_initial:
            self.check_state(p0, v0)
        ida = method == "IDA"
        al = augmented_lagrangian(method)
        self._check_method(method, events)
        if ida or al:
            stepper = None
        elif is_lie_method(method):
            stepper = LieStepper(self.system, method, step)
            stepper.stops = t_eval
        else:
            stepper = make_stepper(method, step)
        self._prepare(p0, v0, stepper)
        atlas = isinstance(self.geometry, Atlas)
        if atlas:
            self.geometry.charts, self.geometry.chart_seconds = 0, 0.0
        y0 = self.initial_state(p0, v0)
        self._resolve_stabilization(t_span, y0)
        events = tuple(e if isinstance(e, Event) else Event(e) for e in events)
        self.projections = 0
        self.rechoices = 0
        counter = [0]

        rhs = self._rhs

        def fun(t, y):
            counter[0] += 1
            if not self.reject_singular_stages:
                return rhs(t, y)
            try:
                return rhs(t, y)
            except (SingularMatrixError, ChartError):  # a trial stage failed: reject the step, shrink it
                return np.full(len(y), np.nan)

        project_samples = isinstance(self.stabilization, Projection)

        def record(t, y, interpolated):
            """Everything about an output point, evaluated now: own states are only meaningful in the
            chart and choice of independent velocities that is current when they are produced."""
            if interpolated and project_samples:  # dense output interpolates unprojected states
                y = self.project(t, y)
            p, v = self.dependent_state(y)
            try:
                ev = self._evaluate(t, y)
                vdot, lam = ev[1], ev[2]
            except (np.linalg.LinAlgError, StopRun):
                vdot, lam = None, None
            return np.array(y, float), p, v, vdot, lam

        def event_values(t, y):
            p, v = self.dependent_state(y)
            return np.array([ev.function(t, p, v) for ev in events], dtype=float)

        setup = time.perf_counter() - started
        if ida:
            form = "ggl" if isinstance(self.stabilization, GGL) else "index1"
            result, counter[0] = run_ida(self, t_span, y0, form=form, rtol=rtol, atol=atol, max_step=max_step,
                                         first_step=first_step, t_eval=t_eval, record=record,
                                         monitor=self._rank_monitor(p0))
        elif al:
            result, counter[0] = run_augmented_lagrangian(self, t_span, y0, step=step, settings=al, t_eval=t_eval,
                                                          record=record, monitor=self._rank_monitor(p0))
        else:
            result = run(stepper, fun, t_span, y0, rtol=rtol, atol=atol, max_step=max_step, first_step=first_step,
                         t_eval=t_eval, post_step=self.post_step if self.uses_post_step else None, events=events,
                         event_values=event_values, record=record, monitor=self._rank_monitor(p0))
        wall = time.perf_counter() - started
        message = result.message
        if result.status < 0:
            message = f"system {self.system.name!r}, formulation {self.label()!r}: {result.message}"
        charts = self.geometry.charts if atlas else 0
        share = self.geometry.chart_seconds / wall if atlas and wall > 0 else 0.0
        stats = Stats(wall_time=wall, rhs_evaluations=counter[0], steps=result.steps,
                      rejected=None if stepper is None else stepper.rejected,
                      projections=self.projections, rechoices=self.rechoices, setup_time=setup, charts=charts,
                      chart_time_share=share)
        settings = dict(method=al.name if al else method, rtol=rtol, atol=atol, stabilization=self.stabilization.label(),
                        formulation=self.name, step=step)
        return self._trajectory(result, stats, message, settings)

    singular_ratio = 1e-3  # stop where sigma_min / sigma_max of Phi_p falls below this share of its start value

    def _rank_monitor(self, p0):
        """A check after every accepted step that Phi_p keeps full rank; a singular configuration ends
        the run. Rank loss shows as a small sigma_min / sigma_max, or — when a step goes right through
        it, as steps usually do — as a sign change of det(Phi_p(p_k) Phi_p(p_k-1)^T)."""
        if not self.system.m:
            return None

        def jacobian(p):
            Phi_p = self.num.constraints(p, self.par)[1]
            s = np.linalg.svd(Phi_p, compute_uv=False)
            return Phi_p, (s[-1] / s[0] if s[0] > 0 else 0.0)

        previous, start = jacobian(p0)
        threshold = self.singular_ratio * start

        def monitor(t, y):
            p = self.dependent_state(y)[0]
            Phi_p, ratio = jacobian(p)
            before = previous[0]
            crossed = np.linalg.det(Phi_p @ before.T) <= 0
            previous[0] = Phi_p
            if crossed or ratio < threshold:
                if crossed:  # det(Phi_p(p(s)) Phi_p(p_k-1)^T) > 0 at the step's start, <= 0 at its end
                    def locate(s, y_s):
                        return np.linalg.det(self.num.constraints(self.dependent_state(y_s)[0], self.par)[1] @ before.T)
                else:
                    def locate(s, y_s):
                        return jacobian(self.dependent_state(y_s)[0])[1] - threshold
                raise StopRun(self._singular_message(p, crossed, ratio), quantity="Phi_p", locate=locate)

        previous = [previous]
        return monitor

    def _singular_message(self, p, crossed, ratio):
        """Names the step's configuration and the singular configuration nearest to it (solved for)."""
        names = self.system.coordinate_names

        def where(x):
            return ", ".join(f"{n}={val:.6g}" for n, val in zip(names, x))

        how = "passed through a rank loss" if crossed else f"is losing rank (sigma_min / sigma_max = {ratio:.2e})"
        singular = nearest_singular_configuration(self.system, p)
        near = "" if singular is None else f"; Phi_p loses rank at p* = ({where(singular)})"
        return f"singular configuration: Phi_p {how} in the step to p = ({where(p)}){near}"

    def _check_method(self, method, events):
        """CapabilityError where the integrator cannot serve this formulation and stabilization."""
        stab = self.stabilization
        if method == "IDA":
            if isinstance(stab, Projection):
                raise CapabilityError("method 'IDA' got stabilization 'projection' but expected none, baumgarte, "
                                      "constraint_dynamics or ggl (IDA keeps a history that a projection would break)")
            if events:
                raise CapabilityError("method 'IDA' got events but does not locate them here; expected no events "
                                      "(use an ODE method such as DOP853)")
            require_ida()
        elif augmented_lagrangian(method):
            if not isinstance(stab, NoStabilization):
                raise CapabilityError(f"method 'augmented_lagrangian' got stabilization {stab.name!r} but expected "
                                      f"'none' (the method enforces the constraints itself)")
            if events:
                raise CapabilityError("method 'augmented_lagrangian' got events but does not locate them; expected "
                                      "no events")
        elif is_lie_method(method) and self.name != "dependent":
            raise CapabilityError(f"method {method!r} got formulation {self.name!r} but expected 'dependent' (Lie-group "
                                  f"integration updates the bodies' configurations, the dependent coordinates)")
        elif isinstance(stab, GGL):
            raise CapabilityError(f"stabilization 'ggl' got method {method!r} but expected method 'IDA' "
                                  f"(the GGL form is a DAE)")

    def _position_constraints(self, y_pos):
        """(Psi, Psi_y): the position constraints on the own coordinates, for the GGL form."""
        raise CapabilityError(f"formulation {self.name!r} has no GGL form")

    def _resolve_stabilization(self, t_span, y0):
        """Constraint dynamics without a frequency: omega twice the fastest rate of the motion at y0 (the
        largest |eigenvalue| of the unstabilized formulation's Jacobian, central differences), and at
        least ten cycles over t_span. Faster constraint dynamics makes explicit integrators take
        steps for stability (benchmarks/enforcement_methods.py measures the trade)."""
        if not isinstance(self.requested_stabilization, ConstraintDynamics):
            self.requested_stabilization = self.stabilization  # set after construction (a subclass's own)
        requested = self.requested_stabilization
        if not isinstance(requested, ConstraintDynamics) or requested.frequency is not None:
            return
        self.stabilization = NoStabilization()
        try:
            rate = fastest_rate(self._rhs, t_span[0], y0)
        finally:
            self.stabilization = requested
        omega = max(2.0 * rate, 2 * np.pi * 10.0 / abs(t_span[1] - t_span[0]))
        self.stabilization = replace(requested, frequency=omega / (2 * np.pi))

    def _prepare(self, p0, v0, stepper=None):
        """Subclass hook run once before integration (e.g. choosing independent velocities)."""

    def _trajectory(self, result, stats, message, settings) -> Trajectory:
        sysm = self.system
        N, n, c = len(result.t), sysm.n, sysm.m + sysm.l
        ys = np.array([r[0] for r in result.y]) if N else np.zeros((0, len(self.state_names())))
        ps = np.array([r[1] for r in result.y]) if N else np.zeros((0, len(sysm.coordinates)))
        vs = np.array([r[2] for r in result.y]) if N else np.zeros((0, n))
        vdot, lam = np.full((N, n), np.nan), np.full((N, c), np.nan)
        err_p, err_v, err_a, energy = (np.full(N, np.nan) for _ in range(4))
        for i, (t, rec) in enumerate(zip(result.t, result.y)):
            _, p, v, a, multipliers = rec
            Phi, _, C = self.num.constraints(p, self.par)
            err_p[i] = np.max(np.abs(Phi), initial=0.0)
            err_v[i] = np.max(np.abs(C @ v), initial=0.0)
            with np.errstate(invalid="ignore", divide="ignore"):  # NaN where V is undefined, e.g. past a singularity
                energy[i] = self.num.energy(p, v, self.par)
            if a is None:
                continue
            vdot[i], lam[i] = a, multipliers
            xi = self._dynamics(t, p, v)[1][5]
            err_a[i] = np.max(np.abs(C @ a + xi), initial=0.0)
        return Trajectory(sysm.name, self.label(), frozen(result.t), frozen(ps), frozen(vs), frozen(ys),
                          self.state_names(), frozen(vdot), frozen(lam), sysm.constraint_names,
                          ConstraintErrors(frozen(err_p), frozen(err_v), frozen(err_a)), frozen(energy), stats,
                          result.status, message, tuple(result.t_events), settings)

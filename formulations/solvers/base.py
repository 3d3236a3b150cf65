"""The solver interface and the solver registry.

A solver integrates one form of the equations (formulations.forms) and declares what it offers:

    @register("name", ...)      the method names users pass (simulate(..., method=name))
    class Solver:
        forms       the forms it integrates, in order of preference
        offers      capabilities: ADAPTIVE, DENSE_OUTPUT, EVENTS, POST_STEP, STATE_UPDATE
        order       the order of accuracy (for step scaling in sweeps and convergence tests)
        integrate(problem) -> RunRecord

Configuration lives in the instance (a fixed step, a penalty), the evolving state in the run; an
instance can be reused. Adding a solver is one module: subclass Solver (or SteppingSolver for a
method that takes one step at a time and lets the shared driver handle output, events, post-step
hooks and monitors) and decorate it with ``@register("name", ...)``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Callable, ClassVar

import numpy as np

from ..errors import CapabilityError

_REGISTRY: dict = {}


class StepFailure(RuntimeError):
    """The integrator could not take a step (step size underflow, non-finite values)."""


@dataclass(frozen=True)
class Event:
    """A function g(t, p, v) whose zero crossing is reported (and stops the run if terminal).

    direction: +1 only upward crossings, -1 only downward, 0 both.
    """

    function: object
    terminal: bool = True
    direction: int = 0
    name: str = ""


@dataclass
class StateChanges:
    """The post-step changes of one run, counted by its loop: projections onto the constraints, new
    choices of independent velocities, new charts, and the seconds spent in the post-steps that took
    a new chart (formulations.forms.StepChange)."""

    projections: int = 0
    rechoices: int = 0
    charts: int = 0
    chart_seconds: float = 0.0

    def count(self, change, seconds=0.0):
        """Add one StepChange that took ``seconds``."""
        self.projections += change.projected
        self.rechoices += change.rechosen
        if change.charted:
            self.charts += 1
            self.chart_seconds += seconds


@dataclass
class RunRecord:
    """What a solver produced: output times, the recorded rows (whatever ``Problem.record`` returns),
    status (0 finished, 1 terminal event, -1 failed or interrupted), message, accepted steps, event crossings
    (t, index of the event) in order (a bare t: the event of index 0), rejected
    steps (None where the method does not report them), evaluations of the formulation (None:
    counted by ``Problem.fun``) and, from a compiled run, the constraint errors, energy and
    conditioning of A per row."""

    t: list
    y: list
    status: int
    message: str
    steps: int
    t_events: list
    rejected: int | None = None
    evaluations: int | None = None
    checks: object = None  # (N, 4) max |Phi|, max |C v|, max |C v' + xi|, energy per row, where a compiled pass made them
    kinematic_ratio: object = None  # (N,) sigma_min / sigma_max of A per row (signed by det A where A is square), where a compiled pass made them
    interrupted: bool = False  # ended by Ctrl-C (status -1): simulate raises RunInterrupted with the trajectory
    columns: object = None  # (y, p, v, v', lambda) as arrays of rows, in place of the rows y, where a compiled pass made them (v', lambda NaN where not evaluated)
    changes: StateChanges = field(default_factory=StateChanges)  # what the post-steps did


@dataclass
class Problem:
    """One run handed to a solver.

    formulation: the formulation object (its methods serve the form the solver integrates); form:
    the form chosen; fun(t, y) -> y' the counted right-hand side of the explicit ODE; y0 the
    formulation's initial state; record(t, y, interpolated) -> a row for the output; events,
    event_values(t, y) -> g values; monitor(t, y) after every accepted step (may raise StopRun);
    post_step(t, y) -> a StepChange or None (the hook itself None: the formulation needs none); explain(t, y) -> what a step
    size below the spacing of floating-point numbers at (t, y) means, naming the quantity that grew.
    """

    formulation: object
    form: str
    fun: Callable
    t_span: tuple
    y0: np.ndarray
    rtol: float
    atol: float
    record: Callable
    max_step: float = np.inf
    first_step: float | None = None
    t_eval: np.ndarray | None = None
    events: tuple = ()
    event_values: Callable | None = None
    monitor: Callable | None = None
    post_step: Callable | None = None
    evaluations: list = field(default_factory=lambda: [0])
    explain: Callable | None = None  # explain(t, y) -> text for a step size below the spacing of t


def equal_steps(t0, targets, step):
    """(times (k,), recorded (k,) bool): the ends of the equal steps of at most ``step`` from t0
    through each target in turn (the fixed-step methods' plan), and which of them are targets."""
    times, recorded, t = [], [], t0
    for target in targets:
        n = max(1, int(np.ceil((target - t) / step - 1e-9)))
        ends = np.linspace(t, target, n + 1)[1:]
        times.extend(ends)
        recorded.extend(ends == target)
        t = float(ends[-1])
    return np.array(times, float), np.array(recorded, bool)


def interruption_message(ts, t0) -> str:
    """The message of a run ended by Ctrl-C whose output reached ``ts[-1]`` (``t0`` if none)."""
    reached = ts[-1] if len(ts) else t0
    return f"interrupted (Ctrl-C) at t = {reached:.6g}: the trajectory up to there is kept"


class Solver(ABC):
    """An integration method; see the module docstring."""

    forms: ClassVar[tuple] = ()
    offers: ClassVar[frozenset] = frozenset()
    order: ClassVar[int] = 0
    fixed_step: ClassVar[bool] = False   # True: needs ``step``; False: refuses one
    step_hint: ClassVar[str] = ""        # added to the message about a missing or unwanted step
    max_steps: int | None = None         # a loop that counts its own accepted steps: its bound (set per run)

    def __init__(self, method: str, step: float | None = None):
        self.method = method
        if step is not None and (isinstance(step, (str, bytes, bool)) or not np.isscalar(step)):
            raise CapabilityError(f"method {method!r} got step={step!r} but expected a step size in s (a number)")
        if self.fixed_step and (step is None or not step > 0):
            raise CapabilityError(f"method {method!r} needs a fixed step: got step={step!r} but expected a fixed step "
                                  f"size > 0 in s (simulate(..., step=1e-3){' ' + self.step_hint if self.step_hint else ''})")
        if not self.fixed_step and step is not None:
            fixed = ", ".join(n for n, c in _REGISTRY.items() if c.fixed_step)
            raise CapabilityError(f"method {method!r} chooses its own steps: got step={step!r} but expected none "
                                  f"({self.step_hint or 'fixed-step methods: ' + fixed})")
        self.step = None if step is None else float(step)

    @abstractmethod
    def integrate(self, problem: Problem) -> RunRecord:
        """Integrate ``problem`` over its t_span."""

    def offers_for(self, form: str) -> frozenset:
        """The capabilities offered when integrating ``form`` (default: ``offers`` for every form)."""
        return self.offers

    @classmethod
    def order_of(cls, method: str) -> int:
        """The order of accuracy of ``method`` (one of the names the class is registered under)."""
        return cls.order

    def __repr__(self):
        return f"{type(self).__name__}({self.method!r}{'' if self.step is None else f', step={self.step:g}'})"


def register(*names):
    """Class decorator: make a solver available under ``names`` (its method names)."""
    def decorate(cls):
        for name in names:
            _REGISTRY[name] = cls
        return cls
    return decorate


def names() -> tuple:
    """Method names of the registered solvers."""
    return tuple(_REGISTRY)


def solver_class(method):
    """The class registered under ``method``, or CapabilityError listing the methods."""
    if not isinstance(method, str) or method not in _REGISTRY:
        raise CapabilityError(f"integrator got method={method!r} but expected one of: {', '.join(_REGISTRY)}")
    return _REGISTRY[method]


def create(method, step=None) -> Solver:
    """A solver for ``method``: a name, a Solver instance (returned as it is), or a settings object
    whose ``name`` is a registered method (e.g. AugmentedLagrangian(penalty=1e6)), with the fixed
    step ``step`` where the method takes one."""
    if isinstance(method, Solver):
        if step is not None and step != method.step:
            raise CapabilityError(f"got the solver {method!r} and step={step!r}: expected the step in one place "
                                  f"(the solver's own, or a method name with step=)")
        return method
    name = getattr(method, "name", None)
    if not isinstance(method, str) and isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name](name, step, settings=method)
    return solver_class(method)(method, step)

"""The result of a simulation: an immutable trajectory in dependent variables."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, NamedTuple

import numpy as np
from scipy.integrate import cumulative_simpson

from systems.contact_phases import label as mode_label
from systems.errors import UnknownKeyError
from systems.state import on_constraints

from .status import Status

SUCCESS, EVENT, WARNED, FAILED = Status.SUCCESS, Status.EVENT, Status.WARNED, Status.FAILED


class EventRecord(NamedTuple):
    """One zero crossing of an event function: the time, the event's name (its ``name``, or
    "event <index>") and its index in the ``events`` passed to simulate."""

    t: float
    name: str
    index: int


class ContactEvent(NamedTuple):
    """A contact changing state (formulations.simulate_contacts): the time; name "<kind> <contact>";
    index -1; kind "opens", "impact", "closes", "bounces", "slides" or "rolls"; the contact's name;
    the state (p, v) just before and just after (they differ in v at an impact). An event of one's own
    (``events=``) has kind "event", its name, no contact and, where the run recorded it, its state."""

    t: float
    name: str
    index: int
    kind: str
    constraint: str
    before: tuple = ()
    after: tuple = ()


class Mode(NamedTuple):
    """One phase of a run with contacts: its interval and the contacts open and sliding in it (the
    others closed and sticking or rolling)."""

    start: float
    end: float
    open: tuple
    sliding: tuple

    @property
    def label(self) -> str:
        """'open: a; sliding: b' (systems.contact_phases.label)."""
        return mode_label(self.open, self.sliding)


def _html(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cumulative_work(t, P, simpson=True) -> np.ndarray:
    """The integral of the power P (N,) over t (N,) from t[0], (N,): composite Simpson (non-uniform
    spacing allowed) where simpson and N >= 3, else the trapezoidal rule."""
    if simpson and t.size >= 3:
        return cumulative_simpson(P, x=t, initial=0.0)
    return np.concatenate([[0.0], np.cumsum(np.diff(t) * (P[1:] + P[:-1]) / 2)])


class NamedValues(dict):
    """A dict of values by name whose ``[]`` of an unknown name raises UnknownKeyError (a KeyError)
    listing the names it holds and the nearest ones."""

    def __init__(self, kind: str, items, argument: str = ""):
        super().__init__(items)
        self.kind, self.argument = kind, argument

    def __missing__(self, key):
        raise UnknownKeyError(self.kind, key, tuple(self), self.argument)


def frozen(array) -> np.ndarray:
    """A read-only float copy of ``array``."""
    out = np.array(array, dtype=float)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class ConstraintErrors:
    """Constraint residuals over time, max-norm over rows: abs(Phi), abs(C v), abs(C v' + xi), each (N,).

    One entry per output point of the run: the largest absolute residual over the rows there, in
    the units of the rows (0 without rows; NaN where a piece is undefined or not recorded).

    Attributes
    ----------
    position : ndarray, shape (N,)
        max abs(Phi(p, t)) over the m holonomic rows (m or rad for most rows).
    velocity : ndarray, shape (N,)
        max abs(C v + c) over the m + l rows, c the velocity-free term (m/s or rad/s for most rows).
    acceleration : ndarray, shape (N,)
        max abs(C v' + xi) over the m + l rows (m/s^2 or rad/s^2 for most rows).

    Examples
    --------
    >>> import formulations
    >>> run = formulations.create("minimal", "rolling_disc").simulate((0.0, 0.5))
    >>> run.constraint_errors.velocity.shape == run.t.shape
    True
    >>> errors = run.constraint_errors.max()
    >>> sorted(errors), bool(errors["velocity"] < 1e-10)
    (['acceleration', 'position', 'velocity'], True)
    """

    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray

    def max(self) -> dict:
        """The largest residual of each kind over the run.

        Returns
        -------
        dict
            {"position": float, "velocity": float, "acceleration": float}; 0.0 for a run without
            points.
        """
        return {name: float(np.max(getattr(self, name), initial=0.0))
                for name in ("position", "velocity", "acceleration")}


@dataclass(frozen=True)
class Stats:
    """Cost of a run: times, evaluations, steps and what the post-steps changed.

    rejected is None where the integrator does not report it. wall_time (s) is the run's own time:
    compiling machine code on first use (compile_time) is not in it.

    Attributes
    ----------
    wall_time : float
        The run's own time in s, from the call to the end (setup included, compiling not).
    rhs_evaluations : int
        Evaluations of the right-hand side (the formulation's equations).
    steps : int
        Accepted steps.
    rejected : int or None
        Rejected steps; None where the integrator does not report them.
    projections : int
        Post-step projections onto the constraints (a projection stabilization).
    rechoices : int
        New choices of the independent velocities during the run.
    setup_time : float
        Time in s before the integration (checks, preparing the formulation), part of wall_time.
    charts : int
        Tangent-space charts used (manifold runs; the first, taken before the run, included).
    chart_time_share : float
        Share of wall time spent re-charting, in [0, 1].
    backend : str
        Numeric backend of the primitives: "numpy" or "compiled".
    compile_time : float
        Time in s spent compiling machine code during the run (not in wall_time).

    Examples
    --------
    >>> import formulations
    >>> stats = formulations.create("minimal", "rolling_disc").simulate((0.0, 0.5)).stats
    >>> stats.steps > 0, stats.rhs_evaluations >= stats.steps, stats.wall_time > 0.0
    (True, True, True)
    >>> sorted(stats.as_dict())[:3]
    ['backend', 'chart_time_share', 'charts']
    """

    wall_time: float = 0.0
    rhs_evaluations: int = 0
    steps: int = 0
    rejected: int | None = 0
    projections: int = 0
    rechoices: int = 0
    setup_time: float = 0.0
    charts: int = 0                # tangent-space charts used (manifold runs)
    chart_time_share: float = 0.0  # share of wall time spent re-charting
    backend: str = "numpy"         # numeric backend of the primitives: "numpy" or "compiled"
    compile_time: float = 0.0      # s spent compiling machine code during the run (not in wall_time)

    def as_dict(self) -> dict:
        """The fields as a dict {name: value} (a copy, JSON-friendly)."""
        return dict(self.__dict__)


_SCENE: list = []  # the scene maker that formulations.workbench.scene installs (results import no workbench)


def install_scene(function):
    """Called once by formulations.workbench.scene: the function behind Trajectory.show."""
    _SCENE[:] = [function]


@dataclass(frozen=True)
class Trajectory:
    """The result of a run: an immutable trajectory in dependent variables, with its reactions.

    t (N,), p (N, n_p), v (N, n), the formulation's own state (N, n_y), accelerations v' (N, n),
    multipliers (N, m + l) with ``reactions`` naming them by constraint row, constraint errors,
    energy (N,), stats, status, message, events and warnings. Every formulation gives the same
    fields, so runs compare one to one.

    Attributes
    ----------
    system_name, formulation : str
        The system's name and the formulation's label (with its stabilization).
    t : ndarray, shape (N,)
        Output times, in s.
    p : ndarray, shape (N, n_p)
        Coordinates at the output times (units: ``unit_of``, m or rad for most).
    v : ndarray, shape (N, n)
        Velocities (m/s or rad/s for most).
    state : ndarray, shape (N, n_y)
        The formulation's own state, its columns named by ``state_names`` (tuple of str).
    vdot : ndarray, shape (N, n)
        Accelerations v' (NaN where the run did not record them).
    multipliers : ndarray, shape (N, m + l)
        lambda, in the order of ``constraint_names`` (tuple of str); the constraint force is
        -C^T lambda (NaN where missing).
    reactions : mapping
        {constraint name: multiplier history (N,)}.
    constraint_errors : ConstraintErrors
        Residuals abs(Phi), abs(C v), abs(C v' + xi) over time, each (N,).
    energy : ndarray, shape (N,)
        Energy v^T M v / 2 + V, in J.
    constraint_power : ndarray, shape (N,), or None
        Power of the constraint forces -C^T lambda, -lambda^T C v in W (lambda^T c on the
        constraints: zero for scleronomic homogeneous rows; NaN where lambda is missing), whose
        integral ``constraint_work`` closes the energy balance E(t) - E(t0) = constraint work + work of
        the applied non-conservative forces (``energy_balance`` where the latter are absent,
        systems.energy).
    stats : Stats
        Cost of the run: times, evaluations, steps.
    status : int
        0 finished over t_span; 1 stopped by a terminal event; 2 finished, but a check of the result
        failed (the message and ``warnings`` say which: a constraint residual or an energy drift
        (conservative systems) beyond what the tolerance allows, an end short of t_span, values that
        are not finite, a singular kinematic matrix A on the way); -1 failed (the message names the
        system, the time and the quantity; the points computed before are kept). See
        formulations.Status.
    success : bool
        True for status 0 and 1.
    message, warnings : str, tuple of str
        What ended the run, and what its checks found.
    events : tuple of EventRecord
        EventRecord (t, name, index) per zero crossing, in order (ContactEvent, with the kind, the
        contact and the states before and after, in a run of formulations.simulate_contacts);
        ``t_events`` their times.
    modes : tuple of Mode
        Mode per phase of such a run (which contacts are open, sliding).
    settings : mapping
        The run's settings, read-only: method, rtol, atol, stabilization, formulation, step ...
    system : System or None
        The System the run used (not compared, not printed); ``show()`` draws its visuals.

    See Also
    --------
    formulations.simulate : The run that makes a Trajectory.
    formulations.reactions : The reactions at one state.

    Examples
    --------
    >>> import systems, formulations
    >>> disc = systems.load("rolling_disc")
    >>> run = formulations.create("minimal", disc).simulate((0.0, 0.5))
    >>> run.success, run.status, float(run.t[-1])
    (True, 0, 0.5)
    >>> run.p.shape == (run.t.size, 6), run.state_names[:3]
    (True, ('x', 'y', 'psi'))
    >>> list(run.reactions)
    ['contact normal force', 'longitudinal friction force', 'lateral friction force']
    >>> print(round(float(run.reactions["contact normal force"][0]), 2), run.unit_of("contact normal force"))
    7.73 N
    >>> bool(run.energy_drift < 1e-6)
    True
    """

    system_name: str
    formulation: str
    t: np.ndarray
    p: np.ndarray
    v: np.ndarray
    state: np.ndarray
    state_names: tuple
    vdot: np.ndarray
    multipliers: np.ndarray
    constraint_names: tuple
    constraint_errors: ConstraintErrors
    energy: np.ndarray
    stats: Stats
    status: int = SUCCESS
    message: str = ""
    events: tuple = ()
    settings: Mapping = field(default_factory=dict)
    warnings: tuple = ()
    constraint_power: np.ndarray | None = None
    system: object = field(default=None, compare=False, repr=False)  # the System it ran on (for show())
    modes: tuple = ()  # Mode per phase of a run with contacts (formulations.simulate_contacts)

    def __post_init__(self):
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))
        object.__setattr__(self, "events", tuple(e if isinstance(e, (EventRecord, ContactEvent)) else EventRecord(
            float(e), "event 0", 0) for e in self.events))
        object.__setattr__(self, "modes", tuple(self.modes))
        object.__setattr__(self, "warnings", tuple(self.warnings))

    @property
    def success(self) -> bool:
        """True where the run finished (status 0) or a terminal event stopped it (status 1)."""
        return Status(self.status).success

    def show(self, trails=(), path=None, system=None):
        """The run as a 3D scene: one self-contained HTML page, shown inline in Jupyter.

        The bodies' shapes (the system's visuals) at the recorded states, a time slider, play/pause
        and an orbiting camera (formulations.workbench.scene).

        Parameters
        ----------
        trails : sequence of str, optional
            Names of visuals whose centre path is drawn.
        path : str or path-like, optional
            Where the page is written, if given.
        system : System, optional
            The System the run used; default the one it records.

        Returns
        -------
        Scene
            The page: ``html`` its text, ``save(path)`` writes it.

        Raises
        ------
        RuntimeError
            formulations.workbench.scene is not loaded (import formulations first).
        ValueError
            The trajectory does not hold its system and none is given.

        Examples
        --------
        >>> import formulations
        >>> run = formulations.create("minimal", "rolling_disc").simulate((0.0, 0.5))
        >>> scene = run.show(trails=["disc"])
        >>> scene.html.startswith("<!DOCTYPE html>")
        True
        """
        if not _SCENE:
            raise RuntimeError("the 3D scene lives in formulations.workbench.scene: import formulations first")
        return _SCENE[0](self, system=system, trails=trails, path=path)

    @property
    def t_events(self) -> tuple:
        """Times of the events' zero crossings (see ``events`` for which event crossed)."""
        return tuple(e.t for e in self.events)

    def __repr__(self):
        span = f"t = {self.t[0]:g} .. {self.t[-1]:g}" if self.t.size else "no points"
        message = self.message if len(self.message) <= 300 else self.message[:297] + "..."
        return (f"<Trajectory {self.system_name} {self.formulation}: {self.t.size} points, {span}, "
                f"status {self.status}: {message}>")

    def _repr_html_(self):
        """A compact summary for notebooks: span, status, constraint errors, energy drift, cost."""
        errors = self.constraint_errors.max()
        span = f"t = {self.t[0]:g} .. {self.t[-1]:g} s, {self.t.size} points" if self.t.size else "no points"
        rows = [("system, formulation", f"{self.system_name}, {self.formulation}"), ("span", span),
                ("status", f"{self.status}: {_html(self.message[:300])}"),
                ("max |Φ|, |C v|, |C v̇ + ξ|", ", ".join(f"{errors[k]:.1e}" for k in ("position", "velocity",
                                                                                   "acceleration"))),
                ("energy drift", f"{self.energy_drift:.1e} J"),
                ("cost", f"{self.stats.steps} steps, {self.stats.rhs_evaluations} evaluations, "
                         f"{self.stats.wall_time:.3f} s")]
        rows += [("warnings", _html("; ".join(self.warnings)[:300]))] if self.warnings else []
        body = "".join(f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>"
                       for k, v in rows)
        return f"<table>{body}</table>"

    def plot(self, names=None, ax=None):
        """A small plot over time of state columns, or of the constraint errors and the energy drift.

        By default the constraint errors abs(Φ), abs(C v) and the energy drift abs(E - E(0)) in J on a
        log scale (exact zeros on the lower edge, formulations.results.plotting.log_series).

        Parameters
        ----------
        names : sequence of str, optional
            Columns of the formulation's own state to plot (from ``state_names``), with their units.
        ax : matplotlib Axes, optional
            Where to draw; default a new Figure.

        Returns
        -------
        matplotlib Axes
            The axes drawn on (time in s on the horizontal axis).

        Raises
        ------
        KeyError
            A name that is not in ``state_names``.

        Examples
        --------
        >>> import formulations
        >>> run = formulations.create("minimal", "rolling_disc").simulate((0.0, 0.5))
        >>> ax = run.plot()
        >>> ax = run.plot(["theta", "phi_dot"])
        >>> ax.get_legend_handles_labels()[1]
        ['theta [rad]', 'phi_dot [rad/s]']
        """
        import matplotlib.pyplot as plt

        from .plotting import legend, log_series

        if ax is None:
            ax = plt.subplots(figsize=(6.4, 2.6), layout="constrained")[1]
        if names is not None:
            unknown = [n for n in names if n not in self.state_names]
            if unknown:
                raise KeyError(f"trajectory of {self.system_name} ({self.formulation}) has no state {unknown}; "
                               f"expected names from {self.state_names}")
            units = [self.unit_of(name) for name in names]
            for name, unit in zip(names, units):
                ax.plot(self.t, self.state[:, self.state_names.index(name)], label=f"{name} [{unit}]")
            ax.set_ylabel(f"value [{units[0]}]" if len(set(units)) == 1 else "value (units in the legend)")
        else:
            log_series(ax, self.t, self.constraint_errors.position, label="|Φ| in m or rad")
            log_series(ax, self.t, self.constraint_errors.velocity, label="|C v| in m/s or rad/s")
            if self.energy.size:
                log_series(ax, self.t, np.abs(self.energy - self.energy[0]), label="|E - E(0)| in J")
            ax.set_ylabel("error (units in the legend)")
        ax.set_xlabel("t in s")
        ax.set_title(f"{self.system_name}, {self.formulation}", fontsize=9)
        legend(ax, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)  # beside the data
        return ax

    @property
    def invariants(self) -> dict:
        """The invariants the system declares (System.invariants) along the run, {name: values (N,)}.

        Empty where it declares none or the trajectory does not carry its system."""
        return self.system.invariant_values(self.p, self.v) if self.system is not None else {}

    def unit_of(self, name: str) -> str:
        """The unit of a state or reaction name, from the system's description (System.unit_of);
        "?" where the trajectory does not carry its system."""
        return self.system.unit_of(name) if self.system is not None else "?"

    @property
    def reactions(self) -> Mapping:
        """The multipliers by constraint row, {constraint name: history (N,)}, read-only.

        Physical forces (N) or moments (N m) where rows are physical; an unknown name raises a
        KeyError listing the names."""
        columns = ((name, self.multipliers[:, i]) for i, name in enumerate(self.constraint_names))
        return MappingProxyType(NamedValues(f"reaction of system {self.system_name!r}", columns, "reactions"))

    @property
    def contact_margins(self) -> Mapping:
        """How far inside their limits the contacts stayed, {contact name: systems.contacts.Margin}.

        For each contact the system declares: the normal force (N,) and mu x normal - ‖friction
        forces‖ (N,), negative where the contact would open or slide; empty without contacts (or
        without the system)."""
        if self.system is None or not self.system.contacts:
            return MappingProxyType({})
        from systems.contacts import margins

        return MappingProxyType(margins(self.system, self.multipliers))

    def plot_contacts(self, ax=None):
        """The contacts' margins over time: each normal force and each friction margin.

        The friction margin is mu x normal - ‖friction‖, in the unit of the normal row; the zero
        line is drawn, below it (shaded) the contact would open or slide.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default a new Figure.

        Returns
        -------
        matplotlib Axes
            The axes drawn on (time in s on the horizontal axis).

        Raises
        ------
        ValueError
            The system declares no contacts (systems.Contact).

        Examples
        --------
        >>> import formulations
        >>> run = formulations.create("minimal", "rolling_disc").simulate((0.0, 0.5))
        >>> ax = run.plot_contacts()
        >>> ax.get_legend_handles_labels()[1][:2]
        ['ground: normal force', 'ground: mu x normal - |friction|']
        """
        import matplotlib.pyplot as plt

        from .plotting import legend

        margins = self.contact_margins
        if not margins:
            raise ValueError(f"system {self.system_name!r} declares no contacts (systems.Contact); there are no "
                             f"margins to plot")
        if ax is None:
            ax = plt.subplots(figsize=(6.4, 2.6), layout="constrained")[1]
        for name, margin in margins.items():
            line, = ax.plot(self.t, margin.normal, label=f"{name}: normal force")
            if margin.friction is not None:
                ax.plot(self.t, margin.friction, linestyle="--", color=line.get_color(),
                        label=f"{name}: mu x normal - |friction|")
        ax.axhline(0.0, color="black", linewidth=0.8)
        low = min(ax.get_ylim()[0], -0.05 * abs(ax.get_ylim()[1]))
        ax.axhspan(low, 0.0, color="tab:red", alpha=0.08, linewidth=0, label="opens or slides")
        ax.set_ylim(bottom=low)
        unit = self.unit_of(self.system.contacts[0].normal)
        ax.set_ylabel(f"margin [{unit}]")
        ax.set_xlabel("t in s")
        ax.set_title(f"{self.system_name}, {self.formulation}: contact margins", fontsize=9)
        legend(ax, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
        return ax

    @property
    def constraint_work(self) -> np.ndarray:
        """Work of the constraint forces since t[0], (N,) in J: the integral of ``constraint_power``
        over the recorded points by the composite Simpson rule (trapezoidal below three points; zeros
        where no power was recorded). Its quadrature error shrinks as h^4 with the spacing h of the
        points: ask for a dense t_eval where the balance should close to a tight tolerance."""
        P = self.constraint_power
        if P is None or not self.t.size:
            return np.zeros(self.t.size)
        return cumulative_work(self.t, P)

    @property
    def energy_balance(self) -> np.ndarray:
        """E(t) - E(t0) - (work of the constraint forces), (N,) in J: zero where only the constraints
        do work (systems.energy.only_constraints_work), up to the integration and quadrature errors."""
        if not self.energy.size:
            return np.zeros(0)
        return self.energy - self.energy[0] - self.constraint_work

    @property
    def energy_drift(self) -> float:
        """The largest abs(E(t) - E(0)) over the run, in J (0 without points)."""
        return float(np.max(np.abs(self.energy - self.energy[0]), initial=0.0)) if self.energy.size else 0.0

    def final_state(self):
        """The state (p, v) at the end of the run, the state to continue it from.

        ``simulate((t1, t2), run.final_state())`` continues the run. Where the last point is off the
        constraints by more than rounding (DLA's velocity is its discrete momentum, off the velocity
        rows by O(h) by design; an unstabilized run drifts at its tolerance), it is moved onto them as
        system.consistent_state does: p onto Phi = 0, then v by the M-orthogonal projection. That
        changes the momentum only along the rows, which the impulses of a next DLA step absorb: a DLA
        run continued from here takes the positions of one longer run.

        Returns
        -------
        p : ndarray, shape (n_p,)
            Coordinates at t[-1] (as recorded where the trajectory does not carry its system).
        v : ndarray, shape (n,)
            Velocities at t[-1].

        Examples
        --------
        >>> import formulations
        >>> minimal = formulations.create("minimal", "rolling_disc")
        >>> run = minimal.simulate((0.0, 0.5))
        >>> more = minimal.simulate((0.5, 1.0), run.final_state())
        >>> float(more.t[0]), float(more.t[-1]), more.success
        (0.5, 1.0, True)
        """
        if self.system is None:
            return self.p[-1], self.v[-1]
        return on_constraints(self.system, self.p[-1], self.v[-1], float(self.t[-1]))

    def summary(self) -> dict:
        """JSON-friendly summary: final state, constraint errors, energy drift, stats, status."""
        return {
            "system": self.system_name, "formulation": self.formulation, "settings": dict(self.settings),
            "status": self.status, "message": self.message, "t_final": float(self.t[-1]) if self.t.size else None,
            "p_final": self.p[-1].tolist() if self.p.size else None,
            "v_final": self.v[-1].tolist() if self.v.size else None,
            "constraint_errors": self.constraint_errors.max(), "energy_drift": self.energy_drift,
            "reactions_final": {k: float(val[-1]) for k, val in self.reactions.items()} if self.t.size else {},
            "stats": self.stats.as_dict(), "t_events": [float(x) for x in self.t_events],
            "events": [{"t": float(e.t), "name": e.name, "index": e.index}
                       | ({"kind": e.kind, "contact": e.constraint} if isinstance(e, ContactEvent) else {})
                       for e in self.events],
            "modes": [{"start": m.start, "end": m.end, "mode": m.label} for m in self.modes],
            "warnings": list(self.warnings),
        }

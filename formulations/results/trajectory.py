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
    the state (p, v) just before and just after (they differ in v at an impact)."""

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
    """Constraint residuals over time, max-norm over rows: |Phi|, |C v|, |C v' + xi|, each (N,)."""

    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray

    def max(self) -> dict:
        return {name: float(np.max(getattr(self, name), initial=0.0))
                for name in ("position", "velocity", "acceleration")}


@dataclass(frozen=True)
class Stats:
    """Cost of a run. rejected is None where the integrator does not report it. wall_time (s) is the
    run's own time: compiling machine code on first use (compile_time) is not in it."""

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
        return dict(self.__dict__)


_SCENE: list = []  # the scene maker that formulations.workbench.scene installs (results import no workbench)


def install_scene(function):
    """Called once by formulations.workbench.scene: the function behind Trajectory.show."""
    _SCENE[:] = [function]


@dataclass(frozen=True)
class Trajectory:
    """t (N,), p (N, n_p), v (N, n), the formulation's own state (N, n_y), accelerations v' (N, n),
    multipliers (N, m + l) with ``reactions`` naming them by constraint row, constraint errors,
    energy (N,), stats, status, message, events and warnings; constraint_power (N,) the power of
    the constraint forces -C^T lambda, -lambda^T C v in W (lambda^T c on the constraints: zero for
    scleronomic homogeneous rows; NaN where lambda is missing), whose integral ``constraint_work``
    closes the energy balance E(t) - E(t0) = constraint work + work of the applied non-conservative
    forces (``energy_balance`` where the latter are absent, systems.energy).

    status: 0 finished over t_span; 1 stopped by a terminal event; 2 finished, but a check of the
    result failed (the message and ``warnings`` say which: a constraint residual or an energy drift
    (conservative systems) beyond what the tolerance allows, an end short of t_span, values that are
    not finite, a singular kinematic matrix A on the way); -1 failed (the message names the system,
    the time and the quantity; the points computed before are kept). ``success`` is True for 0 and 1.
    events: EventRecord (t, name, index) per zero crossing, in order (ContactEvent, with the kind,
    the contact and the states before and after, in a run of formulations.simulate_contacts);
    ``t_events`` their times. modes: Mode per phase of such a run (which contacts are open, sliding).
    system: the System the run used (not compared, not printed); ``show()`` draws its visuals.
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
        """The run as a 3D scene: one self-contained HTML page with the bodies' shapes (the system's
        visuals) at the recorded states, a time slider, play/pause and an orbiting camera; shown
        inline in Jupyter, written to ``path`` where given. trails: names of visuals whose centre
        path is drawn. See formulations.workbench.scene."""
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
        """A small plot over time: the named columns of the formulation's own state (``names`` from
        ``state_names``), or by default the constraint errors |Φ|, |C v| and the energy drift on a
        log scale (exact zeros on the lower edge, formulations.results.plotting.log_series). Returns the
        matplotlib Axes."""
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
        """{name: values (N,)} of the invariants the system declares (System.invariants), along the
        run; empty where it declares none or the trajectory does not carry its system."""
        return self.system.invariant_values(self.p, self.v) if self.system is not None else {}

    def unit_of(self, name: str) -> str:
        """The unit of a state or reaction name, from the system's description (System.unit_of);
        "?" where the trajectory does not carry its system."""
        return self.system.unit_of(name) if self.system is not None else "?"

    @property
    def reactions(self) -> Mapping:
        """{constraint name: multiplier history (N,)} — physical forces where rows are physical."""
        columns = ((name, self.multipliers[:, i]) for i, name in enumerate(self.constraint_names))
        return MappingProxyType(NamedValues(f"reaction of system {self.system_name!r}", columns, "reactions"))

    @property
    def contact_margins(self) -> Mapping:
        """{contact name: systems.contacts.Margin} for the contacts the system declares: the normal
        force (N,) and mu x normal - |friction forces| (N,), negative where the contact would open or
        slide; empty without contacts (or without the system)."""
        if self.system is None or not self.system.contacts:
            return MappingProxyType({})
        from systems.contacts import margins

        return MappingProxyType(margins(self.system, self.multipliers))

    def plot_contacts(self, ax=None):
        """The contacts' margins over time: each normal force and each friction margin
        mu x normal - |friction|, in the unit of the normal row, with the zero line below which the
        contact would open or slide (shaded). Returns the matplotlib Axes."""
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
        """max |E(t) - E(0)| over the run."""
        return float(np.max(np.abs(self.energy - self.energy[0]), initial=0.0)) if self.energy.size else 0.0

    def final_state(self):
        """(p, v) at the end of the run, the state to continue it from: ``simulate((t1, t2),
        run.final_state())``. Where the last point is off the constraints by more than rounding (DLA's
        velocity is its discrete momentum, off the velocity rows by O(h) by design; an unstabilized
        run drifts at its tolerance), it is moved onto them as system.consistent_state does: p onto
        Phi = 0, then v by the M-orthogonal projection. That changes the momentum only along the rows,
        which the impulses of a next DLA step absorb: a DLA run continued from here takes the
        positions of one longer run."""
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

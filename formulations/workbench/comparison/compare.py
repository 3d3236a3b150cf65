"""Side-by-side comparison of formulation x stabilization x integrator configurations.

Every configuration starts from the same consistent state and is sampled on the same time grid,
so that its deviation from a reference run (the dependent formulation with projection at a tight
tolerance, 1e-13 unless given) and the deviation of its reactions can be measured point by point.
A tolerance sweep repeats every configuration over a range of tolerances and gives work-precision
data: deviation from the reference, constraint errors and energy drift against wall time. A
fixed-step configuration (``dependent@augmented_lagrangian:1e-3``) has no tolerance: in a sweep its
step is scaled with the tolerance as h = h0 (tol / rtol)^(1 / order), so that its points cover the
same range of accuracy.
"""
from __future__ import annotations

import html
import json
import os
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping, Sequence

import numpy as np

import warnings

from systems.arguments import state_pair, time_span, whole
from systems.catalogue import as_system
from systems.errors import ArgumentError, ArgumentTypeError, UnknownNameError
from systems.numeric import background

from ... import registry
from ...base import create, names
from ...configuration import option_text, parse_configuration
from ...dependent import Dependent
from ...errors import ComparisonInterrupted, RunInterrupted
from ...results.trajectory import Trajectory
from ...solvers import order, solver_class, tiers
from ...solvers.options import relative_tolerance, tolerances
from ...stabilization import STRATEGIES, as_strategy, compiled_like
from .timing import Timing, measure_seconds, repeated

LIE_CONFIGURATIONS = (f"{Dependent.name}@RKMK45-SE3", f"{Dependent.name}@RKMK45-SO3xR3")


def default_configurations(system) -> tuple:
    """The configurations of every registered formulation that applies to ``system`` (its class's
    ``comparison``; manifold needs holonomic constraints), and for systems of rigid-body blocks the
    Lie-group integration on SE(3) and on SO(3) x R^3."""
    lie = LIE_CONFIGURATIONS if system.bodies else ()
    return tuple(config for cls in _applying(system) for config in cls.comparison) + lie


def _applying(system) -> list:
    """The registered formulation classes that can run ``system`` by its structure (Formulation.refusal)."""
    classes = [registry.formulation_class(name) for name in registry.names()]
    return [cls for cls in classes if cls.refusal(system) is None]


def enforcement_configurations(system, step=1e-3) -> tuple:
    """Every constraint-enforcement method that applies to ``system``: the dependent formulation with
    no stabilization, Baumgarte, constraint dynamics and projection; index 1 and GGL by IDA (where
    scikit-sundae is installed); the augmented Lagrangian at fixed step ``step``; and the
    other registered formulations (manifold with holonomic constraints) in their plain form."""
    name = Dependent.name
    configs = [name if s == "none" else f"{name}+{s}" for s in Dependent.stabilizations if STRATEGIES[s].kind != "dae"]
    try:
        import sksundae  # noqa: F401
        configs += [f"{name}@IDA"] + [f"{name}+{s}@IDA" for s in Dependent.stabilizations if STRATEGIES[s].kind == "dae"]
    except ImportError:
        warnings.warn("scikit-sundae is not installed: the IDA configurations are left out (pip install "
                      "\"pfaff[dae]\")", stacklevel=2)
    configs.append(f"{name}@augmented_lagrangian:{step:g}")
    return tuple(configs + [cls.name for cls in _applying(system) if cls.name != Dependent.name])


@dataclass(frozen=True)
class Configuration:
    """One run to compare: formulation, stabilization (name or strategy), integrator, its fixed step
    (for "rk4" and "augmented_lagrangian"; None for adaptive methods) and options.

    ``Configuration.parse("dependent+projection@RK45")`` reads
    formulation[[option=value,...]][+stabilization][@method[:step]] (formulations.configuration).
    """

    formulation: str
    stabilization: object = "none"
    method: str = "DOP853"
    options: Mapping = field(default_factory=dict)
    label: str = ""
    step: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        if self.step is not None and not self.step > 0:
            raise ValueError(f"configuration got step={self.step!r} but expected a positive step size in s")
        if not self.label:
            stab = as_strategy(self.stabilization)
            name = self.formulation + option_text({k: v for k, v in self.options.items() if k != "backend"})
            text = name if stab.name == "none" else f"{name}+{stab.name}"
            method = self.method if self.step is None else f"{self.method}:{self.step:g}"
            object.__setattr__(self, "label", text if self.method == "DOP853" else f"{text}@{method}")

    def __reduce__(self):  # picklable (a mappingproxy is not), for ensembles on worker processes
        return (type(self), (self.formulation, self.stabilization, self.method, dict(self.options), self.label,
                             self.step))

    @classmethod
    def parse(cls, spec) -> "Configuration":
        if isinstance(spec, Configuration):
            return spec
        if isinstance(spec, Mapping):
            return cls(**spec)
        parts = parse_configuration(spec)
        return cls(parts.formulation, parts.stabilization or "none", parts.method or "DOP853", dict(parts.options),
                   step=parts.step)

    def step_for(self, tol, rtol):
        """The fixed step at tolerance ``tol`` of a sweep whose base tolerance is ``rtol`` (None if adaptive)."""
        if self.step is None:
            return None
        return self.step * (tol / rtol) ** (1.0 / order(self.method))

    def job(self, system):
        """What a run of this configuration on ``system`` needs compiled (systems.numeric.background)."""
        like = compiled_like(self.stabilization)
        return background.Job.make(system, self.formulation, like, like.name, self.options, self.method, self.step)

    def build(self, system, backend=None):
        """The formulation of this configuration for ``system``; ``backend`` unless the options name one."""
        options = {"backend": backend, **self.options} if backend is not None else self.options
        return create(self.formulation, system, stabilization=self.stabilization, **options)


@dataclass(frozen=True)
class ComparisonRow:
    """Measurements of one configuration (errors are max-norms over the run; energy in J)."""

    label: str
    formulation: str
    stabilization: str
    method: str
    rtol: float
    atol: float
    status: int
    message: str
    wall_time: float
    rhs_evaluations: int
    steps: int
    rejected: int | None
    projections: int
    position_error: float
    velocity_error: float
    acceleration_error: float
    energy_drift: float
    deviation: float               # max |p - p_ref|, |v - v_ref| on the common grid
    reaction_deviation: float      # max |lambda - lambda_ref| on the common grid
    backend: str = "numpy"         # the numeric backend the run used (traj.stats.backend)
    compile_time: float = 0.0      # s spent compiling machine code on first use (not in wall_time)
    wall_low: float = float("nan")   # the fastest and the slowest of the repeated runs, s (comparison.timing)
    wall_high: float = float("nan")
    repeats: int = 1               # runs whose median is wall_time

    @property
    def timing(self) -> Timing:
        """The wall times of the row's runs: median, range and count (comparison.timing.Timing)."""
        low = self.wall_time if np.isnan(self.wall_low) else self.wall_low
        high = self.wall_time if np.isnan(self.wall_high) else self.wall_high
        return Timing(self.wall_time, low, high, self.repeats)

    @property
    def spread(self) -> str:
        """The range of the wall times, s, and the number of runs, as the table shows it: "0.08–0.106 (7)"."""
        t = self.timing
        return f"{t.low:.3g}–{t.high:.3g} ({t.repeats})" if t.repeated else "one run"


@dataclass(frozen=True)
class SweepPoint:
    """One run of a sweep: errors are max-norms over the run, energy drift in J; step for fixed-step
    methods (None for adaptive ones); status < 0 for a failed run, and the run's message; wall_time
    the median of ``repeats`` runs (comparison.timing), wall_low and wall_high their range, s."""

    label: str
    tol: float
    wall_time: float
    rhs_evaluations: int
    deviation: float
    position_error: float
    velocity_error: float = float("nan")
    energy_drift: float = float("nan")
    step: float | None = None
    status: int = 0
    message: str = ""
    wall_low: float = float("nan")   # the fastest and the slowest of the repeated runs, s
    wall_high: float = float("nan")
    repeats: int = 1


COLUMNS = [("configuration", "label", "{}"), ("backend", "backend", "{}"), ("wall s (median)", "wall_time", "{:.3g}"),
           ("wall range s (runs)", "spread", "{}"), ("RHS evals", "rhs_evaluations", "{}"),
           ("steps", "steps", "{}"), ("max abs(Phi)", "position_error", "{:.1e}"),
           ("max abs(C v)", "velocity_error", "{:.1e}"), ("max abs(C v' + xi)", "acceleration_error", "{:.1e}"),
           ("energy drift J", "energy_drift", "{:.1e}"), ("deviation from reference", "deviation", "{:.1e}"),
           ("reaction deviation N", "reaction_deviation", "{:.1e}")]


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: one row per configuration, the trajectories, the reference.

    Every configuration ran from the same consistent state and was sampled on the same time grid as
    the reference run. ``row(label)`` and ``trajectory(label)`` look a configuration up by its label;
    ``to_markdown()`` (the table a notebook shows), ``as_dict()`` and ``to_json()`` (NaN and
    infinities as null) write it out; ``reading()`` states the findings in short sentences.

    Attributes
    ----------
    system_name : str
        The system's name.
    t_span : tuple of float
        (t0, t1), in s.
    rtol, atol : float
        The tolerances of the rows.
    reference_tol : float
        The tolerance of the reference run (rtol = atol).
    rows : tuple of ComparisonRow
        One per configuration, in order: label, formulation, stabilization, method, rtol, atol, status,
        message, wall_time (s: the median of the row's runs, compiling left out: ``compile_time``, s;
        ``wall_low``, ``wall_high`` and ``repeats`` the range and the count), rhs_evaluations, steps,
        rejected, projections, position_error, velocity_error and acceleration_error (max-norms over the
        run of Phi, C v and C v' + xi), energy_drift (J), deviation (max ``abs(p - p_ref)``,
        ``abs(v - v_ref)`` on the common grid), reaction_deviation (max ``abs(lambda - lambda_ref)``, N
        or N m) and backend (the numeric backend the run used).
    trajectories : tuple of Trajectory
        The runs, in the order of ``rows`` (each row's first run: its ``stats.wall_time`` is that run's).
    reference : Trajectory
        The reference run.
    sweep : tuple of SweepPoint
        The work-precision data of a tolerance sweep, one point per configuration and tolerance: label,
        tol, wall_time (the median, as in ``rows``), rhs_evaluations, deviation, position_error,
        velocity_error, energy_drift (J), step (fixed-step methods, else None), status (< 0 for a failed
        run), message, wall_low, wall_high and repeats; empty without a sweep.
    parameters : dict
        The system's parameter values.
    reference_label : str
        The reference's configuration (run at reference_tol with DOP853), by default
        ``"dependent+projection"``.
    backend_note : str
        On the backend "auto": the backend the rows share, and why (None otherwise).

    See Also
    --------
    formulations.compare

    Examples
    --------
    >>> import formulations
    >>> comparison = formulations.compare("rolling_disc", ["dependent+projection", "minimal"], (0.0, 0.5), samples=51)
    >>> [row.label for row in comparison.rows], comparison.reference_label
    (['dependent+projection', 'minimal'], 'dependent+projection')
    >>> comparison.row("minimal").status, comparison.trajectory("minimal").t.shape
    (0, (51,))
    >>> bool(comparison.row("minimal").deviation < 1e-5)
    True
    """

    system_name: str
    t_span: tuple
    rtol: float
    atol: float
    reference_tol: float
    rows: tuple
    trajectories: tuple
    reference: Trajectory
    sweep: tuple = ()
    parameters: Mapping = field(default_factory=dict)
    reference_label: str = f"{Dependent.name}+projection"  # the reference's configuration (at reference_tol, DOP853)
    backend_note: str | None = None  # on the backend "auto": the backend the rows share, and why

    def row(self, label) -> ComparisonRow:
        for r in self.rows:
            if r.label == label:
                return r
        raise KeyError(f"no configuration {label!r}; have {[r.label for r in self.rows]}")

    def trajectory(self, label) -> Trajectory:
        return self.trajectories[[r.label for r in self.rows].index(label)]

    def fastest(self):
        """(the fastest row that finished, the rows within its timing noise): rows whose ranges of
        repeated runs overlap the fastest's (see comparison.timing); (None, ()) where none finished."""
        ok = [r for r in self.rows if r.status in (0, 1) and np.isfinite(r.deviation) and np.isfinite(r.wall_time)]
        if not ok:
            return None, ()
        cheap = min(ok, key=lambda r: r.wall_time)
        return cheap, tuple(r for r in ok if r is not cheap and r.timing.overlaps(cheap.timing))

    def _cells(self) -> list:
        """The table's cells, row by row (shared by the Markdown and the HTML table): the fastest
        marked where its runs were repeated, the rows within its noise with "≈"."""
        cheap, close = self.fastest()
        table = []
        for r in self.rows:
            cells = []
            for _, attr, fmt in COLUMNS:
                value = getattr(r, attr)
                cells.append("—" if value is None or (isinstance(value, float) and not np.isfinite(value))
                             else fmt.format(value))
                if attr == "spread" and r.timing.repeated and (r is cheap or r in close):
                    cells[-1] += ", fastest" if r is cheap else ", ≈ fastest"
            if r.status < 0:
                cells[0] += " (failed)"
            elif r.status == 2:
                cells[0] += " (checks failed)"
            table.append(cells)
        return table

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(c[0] for c in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(cells) + " |" for cells in self._cells()]
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self):
        return self.to_markdown()

    def _repr_html_(self):
        head = "".join(f"<th>{html.escape(c[0])}</th>" for c in COLUMNS)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in cells) + "</tr>"
                       for cells in self._cells())
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def as_dict(self) -> dict:
        return {"system": self.system_name, "t_span": list(self.t_span), "rtol": self.rtol, "atol": self.atol,
                "reference_tol": self.reference_tol, "reference": self.reference_label, "backend": self.backend_note,
                "parameters": dict(self.parameters),
                "rows": [asdict(r) for r in self.rows], "sweep": [asdict(s) for s in self.sweep]}

    def to_json(self, **kwargs) -> str:
        return json.dumps(finite(self.as_dict()), **kwargs)

    def reading(self) -> list:
        """Short statements on the results: most accurate per unit time, drift, failures."""
        ok = [r for r in self.rows if r.status in (0, 1) and np.isfinite(r.deviation)]
        notes = []
        if ok:
            best = min(ok, key=lambda r: r.deviation)
            cheap, close = self.fastest()
            score = min(ok, key=lambda r: max(r.deviation, 1e-16) * r.wall_time)
            notes.append(f"Most accurate: {best.label} (deviation {best.deviation:.1e} from the reference in "
                         f"{best.wall_time:.3f} s).")
            notes.append(f"Fastest: {cheap.label} ({cheap.timing.describe()}, deviation {cheap.deviation:.1e}).")
            if close:
                notes.append(f"Within the timing noise of {cheap.label} (the ranges of their repeated runs overlap, "
                             f"marked ≈ in the table): {', '.join(r.label for r in close)}; none is measurably "
                             f"faster than {cheap.label}.")
            notes.append(f"Best accuracy per unit time (smallest deviation x wall time): {score.label}.")
            drift = [r for r in ok if max(r.position_error, r.velocity_error) > 10 * self.rtol]
            if drift:
                worst = max(drift, key=lambda r: max(r.position_error, r.velocity_error))
                notes.append("Constraint drift above ten times the tolerance: " + ", ".join(
                    f"{r.label} (position {r.position_error:.1e}, velocity {r.velocity_error:.1e})" for r in drift)
                    + f"; worst {worst.label}.")
            else:
                notes.append(f"No configuration let the constraints drift beyond ten times rtol = {self.rtol:g}.")
            energy = max(ok, key=lambda r: r.energy_drift)
            notes.append(f"Largest energy drift: {energy.label} ({energy.energy_drift:.1e} J).")
        if self.backend_note:
            notes.append(f"Backend: {self.backend_note}.")
        compiled = sum(r.compile_time for r in self.rows)
        if compiled > 0:
            notes.append(f"Compiling machine code on first use took {compiled:.1f} s, left out of the wall times "
                         f"(once per machine for each formulation, for every system; a new system compiles only its own "
                         f"kernels).")
        for r in self.rows:
            if r.status < 0:
                notes.append(f"{r.label} failed: {r.message}")
            elif r.status == 2:
                notes.append(f"{r.label} {r.message}")
        return notes

    def __repr__(self):
        rows = ", ".join(f"{r.label} (status {r.status}, deviation {r.deviation:.1e})" for r in self.rows[:12])
        more = f", ... {len(self.rows) - 12} more" if len(self.rows) > 12 else ""
        return (f"<Comparison {self.system_name} over t = {self.t_span[0]:g} .. {self.t_span[1]:g}, rtol = "
                f"{self.rtol:g}: {len(self.rows)} configurations: {rows}{more}; {len(self.sweep)} sweep points>")


def finite(obj):
    """``obj`` with NaN and infinities as None, through dicts, lists and tuples (valid JSON)."""
    if isinstance(obj, float):
        return obj if np.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def _max_dev(a, b):
    n = min(len(a), len(b))
    if n == 0:
        return float("nan")
    return float(np.nanmax(np.abs(a[:n] - b[:n])))


def _row(config, traj, ref, rtol, atol, timing: Timing) -> ComparisonRow:
    """The row of one configuration's run ``traj`` against the reference run ``ref``, its wall time
    the median of ``timing`` (the run and its repeats)."""
    errs = traj.constraint_errors.max()
    dev = max(_max_dev(traj.p, ref.p), _max_dev(traj.v, ref.v))
    if len(traj.t) < len(ref.t):
        dev = max(dev, float("inf")) if traj.status >= 0 else dev
    st = traj.stats
    return ComparisonRow(config.label, config.formulation, traj.settings.get("stabilization", "none"), config.method,
                         rtol, atol, traj.status, traj.message, timing.median, st.rhs_evaluations, st.steps,
                         st.rejected, st.projections, errs["position"], errs["velocity"], errs["acceleration"],
                         traj.energy_drift, dev, _max_dev(traj.multipliers, ref.multipliers), st.backend,
                         st.compile_time, timing.low, timing.high, timing.repeats)


def _sequence(argument, value):
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ArgumentTypeError(f"{argument} got {value!r} but expected a sequence, e.g. [1e-6, 1e-8]", argument)
    return list(value)


def _configurations(system, configurations) -> list:
    """Configuration objects from ``configurations`` (one spec or a sequence), each checked before any run:
    its formulation, stabilization and method named with the valid ones."""
    if configurations is None or (hasattr(configurations, "__len__") and not len(configurations)):
        configurations = default_configurations(system)
    if isinstance(configurations, (str, Mapping, Configuration)):
        configurations = [configurations]
    configs = []
    for i, spec in enumerate(configurations):
        config = _checked(spec, f"configurations[{i}]")
        if any(c.label == config.label for c in configs):
            raise ArgumentError(f"compare got configurations[{i}] with the label {config.label!r} of an earlier one: "
                                f"expected each configuration once, or a dict with its own 'label'", "configurations")
        configs.append(config)
    return configs


def _checked(spec, where) -> Configuration:
    """The Configuration of ``spec``, its formulation, stabilization and method checked; errors name
    ``where`` ("configurations[2]", "reference") and the valid names."""
    try:
        config = Configuration.parse(spec)
        if config.formulation not in names():
            raise UnknownNameError("formulation", config.formulation, names())
        as_strategy(config.stabilization)
        solver_class(config.method)
    except UnknownNameError as exc:
        raise UnknownNameError(exc.kind, exc.name, exc.valid, argument=f"compare {where}") from None
    except TypeError as exc:
        raise ArgumentTypeError(f"compare got {where} = {spec!r}: {exc}", where.split("[")[0]) from None
    except ValueError as exc:
        raise ArgumentError(f"compare got {where} = {spec!r}: {exc}", where.split("[")[0]) from None
    return config


REFERENCE = Configuration(Dependent.name, "projection")  # the reference run of every comparison
REFERENCE_TOL = 1e-13                                 # its tolerance (rtol = atol)


@dataclass(frozen=True)
class Prepared:
    """The configurations of a comparison checked and each created once for ``system``, with the
    reference: what ``compare`` runs (a formulation keeps its compiled module between runs)."""

    system: object
    configurations: tuple
    formulations: tuple
    reference: object
    reference_label: str = f"{Dependent.name}+projection"
    backend_note: str | None = None  # on the backend "auto": which backend the rows share, and why

    def __len__(self):
        return len(self.configurations)


def prepare(system, configurations=None, backend=None, reference=None) -> Prepared:
    """The configurations of ``compare`` checked and created (see compare for what they may be), with
    ``backend`` ("auto", "compiled", "numpy"; None: each formulation's default) where a
    configuration's options name none; ``reference`` the configuration of the reference run
    (default REFERENCE, the dependent formulation with projection)."""
    system = as_system(system)
    if isinstance(configurations, Prepared):
        if reference is not None:
            raise ArgumentError("compare got configurations already prepared and a reference: expected the "
                                "reference given to prepare", "reference")
        if configurations.system is not system:
            raise ArgumentError(f"compare got configurations prepared for {configurations.system.name!r} but expected "
                                f"them prepared for {system.name!r}", "configurations")
        return configurations
    auto = (backend or os.environ.get("PFAFF_BACKEND") or "auto") == "auto"
    checked = _checked(reference, "reference") if reference is not None else None  # before any is built
    configs = _configurations(system, configurations)
    missing = []
    if auto:  # one backend for every row: compiled where every run's machine code (the reference's too) is ready
        runs = [c for c in configs + [checked or REFERENCE] if "backend" not in c.options]  # unless it names one
        backend, missing = tiers.shared_backend([config.job(system) for config in runs])
    ref_form, ref_label = _reference(system, reference, backend)
    forms = tuple(_built(config, system, backend, f"configurations[{i}] = {config.label!r}", "configurations")
                  for i, config in enumerate(configs))
    note = tiers.prepare(missing) if auto else None  # every configuration built: the compile may start
    return Prepared(system, tuple(configs), forms, ref_form, ref_label, backend_note=note)


def _built(config, system, backend, what, argument):
    """``config`` created for ``system``; an error in its options names ``what`` and ``argument``."""
    try:
        return config.build(system, backend)
    except (TypeError, ValueError) as exc:
        kind = ArgumentTypeError if isinstance(exc, TypeError) else ArgumentError
        raise kind(f"compare got {what}: {exc}", argument) from None


def _reference(system, reference, backend) -> tuple:
    """(formulation, label) of the reference run: REFERENCE, or ``reference`` checked (a formulation,
    its options and stabilization; the method is DOP853) with errors that name it."""
    if reference is None:
        return REFERENCE.build(system, backend), REFERENCE.label
    config = _checked(reference, "reference")
    if config.method != "DOP853" or config.step is not None:
        raise ArgumentError(f"compare got reference={config.label!r} but the reference runs with DOP853 at "
                            f"reference_tol: expected a formulation, its options and stabilization only", "reference")
    return _built(config, system, backend, f"reference={reference!r}", "reference"), config.label


SAMPLES_MEMORY = 2 * 1024**3  # bytes: compare refuses a time grid whose recorded runs would take more


def recorded_bytes(system, samples: int, runs: int) -> int:
    """About the memory the runs of a comparison record on a grid of ``samples`` points: per point
    and run the time, p, v, their rates, the accelerations, the multipliers and their reactions, and
    a few scalars (errors, energy), in float64."""
    floats = 1 + 2 * len(system.coordinates) + 3 * system.n + 2 * (system.m + system.l) + 4
    return 8 * samples * (runs * floats + 1)


def check_samples(system, samples: int, runs: int):
    """ArgumentError for a grid whose recorded runs would not fit SAMPLES_MEMORY, with the estimate."""
    need = recorded_bytes(system, samples, runs)
    if need > SAMPLES_MEMORY:
        most = SAMPLES_MEMORY // recorded_bytes(system, 1, runs)
        raise ArgumentError(f"samples got {samples} but expected at most {most} here: {runs} runs of {system.name} "
                            f"would record about {need / 1024**3:.3g} GiB ({recorded_bytes(system, 1, runs)} bytes "
                            f"a point) and every point costs its accelerations and reactions; pass fewer points, "
                            f"e.g. samples=501", "samples")


def compare(system, configurations: Sequence | None = None, t_span=(0.0, 10.0), state0=None, *,
            rtol=1e-8, atol=None, reference_tol=REFERENCE_TOL, samples=501, sweep: Sequence[float] | None = None,
            progress: Callable | None = None, max_steps: int | None = None, backend: str | None = None,
            reference=None, measure: float | None = None) -> Comparison:
    """Run every configuration from one consistent state and measure it against a reference.

    Each configuration is checked and created once, before any run, then run over ``t_span`` on a
    common time grid; its deviation from the reference run (DOP853 at ``reference_tol``) is measured
    point by point. A ``sweep`` repeats every configuration at each tolerance (work-precision data).

    Parameters
    ----------
    system : System or str
        A System or a catalogue name.
    configurations : str, dict, Configuration or list of them, optional
        Names such as ``"dependent+projection"`` or ``"minimal@dopri5"``, dicts, or Configuration
        objects, one or a sequence; default: every formulation that applies (``default_configurations``).
        Also what ``prepare`` made of them.
    t_span : tuple of float, optional
        (t0, t1) in s; default (0.0, 10.0).
    state0 : tuple of ndarray, optional
        The consistent dependent state (p, v); default: the system's default state.
    rtol, atol, reference_tol : float, optional
        The tolerances of every run (default rtol 1e-8, atol = rtol); the reference run's (default 1e-13).
    samples : int, optional
        Points (>= 2) of the common time grid; default 501. Refused where the recorded runs would
        take more than SAMPLES_MEMORY bytes.
    sweep : list of float, optional
        Tolerances for work-precision data: each configuration is run at each (``Comparison.sweep``).
    progress : function, optional
        ``progress(i, n, label)`` is called before each run.
    max_steps : int, optional
        The bound on each run's accepted steps; default: simulate's.
    backend : str, optional
        The backend of every configuration whose options name none ("auto", "compiled", "numpy");
        default: create's. The rows name it, and wall times leave out compiling (``compile_time``).
    reference : str, optional
        The reference run's configuration (a formulation, its options and stabilization), run with
        DOP853 at ``reference_tol``; default REFERENCE, ``"dependent+projection"``.
    measure : float, optional
        The least measuring time of a row or sweep point, s (comparison.timing): a shorter run is
        repeated (at most 25 runs) and timed by the median; 0: one run. Default
        $PFAFF_MEASURE_SECONDS, else 0.2 s.

    Returns
    -------
    Comparison
        One row per configuration (wall time and its range, evaluations, steps, constraint errors,
        energy drift, deviation), the trajectories, the reference run and the sweep points.

    Raises
    ------
    systems.ArgumentError, systems.ArgumentTypeError
        For bad arguments, naming the argument.
    formulations.ComparisonInterrupted
        On Ctrl-C, holding the comparison of the runs that finished.

    Examples
    --------
    >>> import formulations
    >>> comparison = formulations.compare("rolling_disc", ["dependent+projection", "minimal"], (0.0, 0.5),
    ...                                   samples=51)
    >>> [row.status for row in comparison.rows], bool(comparison.row("minimal").deviation < 1e-5)
    ([0, 0], True)
    """
    system = as_system(system)
    rtol, atol = tolerances(rtol, atol, atol_from_rtol=True)
    reference_tol = relative_tolerance("reference_tol", reference_tol)
    t_span = time_span(t_span)
    samples = whole("samples", samples, minimum=2, fix="points of the common time grid, e.g. 501")
    sweep = [relative_tolerance(f"sweep[{i}]", tol) for i, tol in enumerate(_sequence("sweep", sweep))]
    bound = {} if max_steps is None else {"max_steps": whole("max_steps", max_steps, minimum=1)}
    measure = measure_seconds(measure)  # before prepare, which may start a background compile
    prepared = prepare(system, configurations, backend, reference)
    total = 1 + len(prepared.configurations) * (1 + len(sweep))  # the runs, the reference included
    check_samples(system, samples, total)
    state0 = system.default_state() if state0 is None else state_pair(system, state0)
    runs = _Runs(system, prepared, t_span, state0, np.linspace(t_span[0], t_span[1], samples), (rtol, atol),
                 reference_tol, bound, progress, total, measure)
    return runs.all(sweep)


class _Runs:
    """The runs of one comparison, recorded as they finish (an interrupted comparison keeps them)."""

    def __init__(self, system, prepared, t_span, state0, grid, tols, reference_tol, bound, progress, total, measure):
        self.system, self.prepared, self.t_span, self.state0, self.grid = system, prepared, t_span, state0, grid
        self.measure = measure  # s: the least measuring time of a row (comparison.timing)
        (self.rtol, self.atol), self.reference_tol, self.bound = tols, reference_tol, bound
        self.progress, self.total, self.done = progress, total, 0  # done: the runs begun, for progress
        self.forms = dict(zip((c.label for c in prepared.configurations), prepared.formulations))
        self.rows, self.trajs, self.points, self.interrupted = [], [], [], []  # interrupted: a run's label
        self.reference = None

    def tick(self, label):
        if self.progress is not None:
            self.progress(self.done, self.total, label)
        self.done += 1

    def result(self) -> Comparison:
        return Comparison(self.system.name, tuple(map(float, self.t_span)), self.rtol, self.atol, self.reference_tol,
                          tuple(self.rows), tuple(self.trajs), self.reference, tuple(self.points),
                          MappingProxyType(self.system.parameter_dict), self.prepared.reference_label,
                          backend_note=self.prepared.backend_note)

    def all(self, sweep) -> Comparison:
        """The reference, every configuration at rtol, then at each tolerance of ``sweep``."""
        self.tick("reference")
        self.reference = self.prepared.reference.simulate(self.t_span, self.state0, rtol=self.reference_tol,
                                                          atol=self.reference_tol, t_eval=self.grid)
        configs = self.prepared.configurations
        try:
            for config in configs:
                self.tick(config.label)
                self.run(config, self.rtol, self.atol, config.step, True)
            for tol in sweep:
                for config in configs:
                    self.tick(f"{config.label} at {tol:g}")
                    self.run(config, tol, tol, config.step_for(tol, self.rtol), False)
        except KeyboardInterrupt:  # keep what finished
            rows, trajs = self.rows, self.trajs
            del rows[len(trajs):], trajs[len(rows):]  # a run half recorded
            finished = 1 + len(rows) + len(self.points) - len(self.interrupted)  # the reference included
            raise ComparisonInterrupted(self.result(), finished, self.total,
                                        self.interrupted[0] if self.interrupted else None) from None
        return self.result()

    def run(self, config, tol, atol, h, main):
        def simulate():
            return self.forms[config.label].simulate(self.t_span, self.state0, rtol=tol, atol=atol,
                                                     method=config.method, t_eval=self.grid, step=h, **self.bound)

        try:
            traj = simulate()
        except RunInterrupted as exc:  # the interrupted run as far as it got
            self.interrupted.append(config.label if main else f"{config.label} at {tol:g}")
            self.record(config, exc.trajectory, tol, atol, h, main, Timing.of([exc.trajectory.stats.wall_time]))
            raise
        times = [traj.stats.wall_time]
        if traj.status >= 0:  # a short run again until the runs last the measuring time (they are deterministic)
            try:
                repeated(times, lambda: simulate().stats.wall_time, self.measure)
            except KeyboardInterrupt:  # the first run stands, timed by the runs that finished
                self.record(config, traj, tol, atol, h, main, Timing.of(times))
                raise
        self.record(config, traj, tol, atol, h, main, Timing.of(times))

    def record(self, config, traj, tol, atol, h, main, timing):
        row = _row(config, traj, self.reference, tol, atol, timing)
        if main:
            self.trajs.append(traj)
            self.rows.append(row)
        else:
            self.points.append(SweepPoint(config.label, tol, row.wall_time, row.rhs_evaluations, row.deviation,
                                          row.position_error, row.velocity_error, row.energy_drift, h, row.status,
                                          row.message, row.wall_low, row.wall_high, row.repeats))

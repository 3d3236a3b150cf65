"""The long-time comparison: energy and invariant errors of the variational methods against
Runge-Kutta over a long run, at equal step and at equal cost (``pfaff compare SYSTEM --long T``).

The methods: NH-RATTLE and DLA at the step h (formulations.solvers.variational), rk4 at h and at
the step of equal cost (h times the ratio of the costs per step: the time of PILOT_STEPS[1] steps
less that of PILOT_STEPS[0], ten times as many in machine code, so that what a run costs apart from
its steps cancels, medians of five interleaved pilots), and DOP853 on the dependent formulation
with projection at rtol = atol = 1e-6, all on one backend (on "compiled" every one of these loops
runs in machine code). With a gauge S the variational methods discretize L + dS/dt
(formulations.solvers.variational.VariationalMethod): the same motion, other discrete equations —
Modin & Verdier's way of making the methods lose reversibility.
States are recorded every few steps on the step grid (so that the fixed steps stay equal), about
``points`` of them per run, with strides that vary so as not to follow one phase of the motion. The trend of an error is the ratio of its largest value over the last
tenth of the run to that over the first tenth: about 1 for a bounded error, about 10 for a linear
drift.
"""
from __future__ import annotations

import dataclasses
import json
import statistics
import time
from dataclasses import dataclass

import numpy as np

from ..base import create
from ..dependent import Dependent
from ..discrete_lagrangian import why_not
from ..solvers.variational import METHODS, VariationalMethod
from .comparison.compare import finite

PILOT_STEPS = (100, 400)
DOP853_TOL = 1e-6


@dataclass(frozen=True)
class LongRun:
    """One method's run: t (k,), the energy error |E - E(0)| (k,) in J, the invariants' errors
    {name: (k,)}, wall time in s, accepted steps, status and message, and the energy error's
    largest values over the first and the last tenth of the run and their ratio (``trend``)."""

    label: str
    t: np.ndarray
    energy_error: np.ndarray
    invariant_errors: dict
    wall_time: float
    steps: int
    status: int
    message: str
    first: float
    last: float
    trend: float


@dataclass(frozen=True)
class LongTimeResult:
    """The runs of a long-time comparison of ``system_name`` over t_end s at the step h (s);
    cost_per_step: seconds per step of NH-RATTLE and rk4 from the pilots; units of the invariants;
    the backend the runs were created on (every run gets the same ``backend`` argument)."""

    system_name: str
    t_end: float
    step: float
    cost_per_step: dict
    runs: tuple
    units: dict = dataclasses.field(default_factory=dict)  # of the invariants (System.unit_of)
    backend: str = "numpy"
    gauge: str = ""  # S of the variational methods' gauge term, as text ("": none)

    def to_markdown(self) -> str:
        return table(json.loads(self.to_json())["runs"])

    def to_json(self) -> str:
        runs = [{k: v for k, v in dataclasses.asdict(run).items() if k not in ("t", "energy_error", "invariant_errors")}
                | {"invariant_max_errors": {n: float(np.max(e)) for n, e in run.invariant_errors.items()}}
                for run in self.runs]
        return json.dumps(finite({"system": self.system_name, "t_end_s": self.t_end, "step_s": self.step,
                                   "backend": self.backend, "gauge": self.gauge, "cost_per_step_s": self.cost_per_step,
                                   "units": self.units, "runs": runs}), indent=1)


def table(runs, case=None) -> str:
    """The Markdown table of runs as ``LongTimeResult.to_json`` gives them (a column ``case`` first
    where given, for several systems), and the messages of the runs that did not finish cleanly."""
    head = ("| case " if case is not None else "") + ("| method | wall s | steps | energy error, first tenth [J] | "
                                                      "last tenth [J] | trend | invariants, largest change | status |")
    lines = [head, "|---" * head.count(" | ") + "|---|"]
    notes = []
    for run, name in zip(runs, case if isinstance(case, list) else [case] * len(runs)):
        invariants = ", ".join(f"{n}: {e:.1e}" for n, e in run["invariant_max_errors"].items()) or "-"
        trend = "-" if run["trend"] is None else f"{run['trend']:.2f}"
        first = f"| {name} " if name is not None else ""
        lines.append(f"{first}| {run['label']} | {run['wall_time']:.1f} | {run['steps']} | {run['first']:.2e} | "
                     f"{run['last']:.2e} | {trend} | {invariants} | {run['status']} |")
        if run["status"] != 0:
            notes.append(f"- {'' if name is None else name + ', '}{run['label']} (status {run['status']}): "
                         f"{run['message']}")
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def _pilot(formulation, method, h, steps):
    """Seconds that ``method`` takes for ``steps`` steps of h; a failed pilot is an error."""
    started = time.perf_counter()
    traj = formulation.simulate((0.0, steps * h), method=method, step=h, t_eval=[0.0, steps * h])
    if traj.status < 0:
        raise ValueError(f"the pilot run of {method} on system {formulation.system.name!r} at the step {h:g} s failed: "
                         f"{traj.message}")
    return time.perf_counter() - started


def _costs(system, h, backend, variational):
    """{method: seconds per step} of NH-RATTLE (``variational``: its settings) and rk4 at the step h:
    the medians over five rounds, interleaved, of the time of PILOT_STEPS[1] steps less that of
    PILOT_STEPS[0], ten times as many in machine code (a first run that compiles is left out)."""
    formulation = create(Dependent.name, system, backend=backend)
    short, long = (10 * steps for steps in PILOT_STEPS) if formulation.backend == "compiled" else PILOT_STEPS
    methods = {"NH-RATTLE": variational, "rk4": "rk4"}
    for method in methods.values():
        _pilot(formulation, method, h, 2)
    samples = {name: [] for name in methods}
    for _ in range(5):  # interleaved: NH-RATTLE, rk4, NH-RATTLE, ...
        for name, method in methods.items():
            samples[name].append((_pilot(formulation, method, h, long) - _pilot(formulation, method, h, short))
                                 / (long - short))
    return {name: max(statistics.median(times), 1e-9) for name, times in samples.items()}


def _recording_times(t_end, step, points, seed=0):
    """About ``points`` times on the step grid (multiples of ``step``), ending at the whole number of
    steps nearest t_end (a shorter last step would change what DLA reports there), spaced by a
    stride drawn anew each time from 0.5 to 1.5 times the mean one: a fixed stride that happens to
    be a whole number of the motion's periods would record one phase only and hide the oscillation
    of an error (with 2000 points over 10^4 periods a fixed stride is five periods)."""
    steps = int(round(t_end / step))
    mean = max(1, steps // points)
    strides = np.random.default_rng(seed).integers(max(1, mean // 2), max(2, mean + mean // 2 + 1), size=points + 10)
    marks = np.cumsum(np.concatenate([[0], strides]))
    marks = marks[marks < steps]
    return np.append(marks, steps) * step


def _trend(error):
    tenth = max(1, (error.size - 1) // 10)
    first, last = float(np.max(error[1:tenth + 1], initial=0.0)), float(np.max(error[-tenth:], initial=0.0))
    return first, last, (last / first if first > 0 else float("nan"))


def long_time(system, t_end, step, *, points=2000, progress=print, invariants=True, backend=None,
              gauge=None) -> LongTimeResult:
    """The long-time comparison of ``system`` over (0, t_end) s at the step ``step`` s (module
    docstring) on ``backend`` (None: the default, formulations.create); ``progress(text)`` is told of
    each run as it finishes (None: silent); the declared invariants are followed unless
    ``invariants`` is False (one that holds only for some parameter values, say); ``gauge``: S of
    the variational methods' gauge term (a sympy expression; None: none)."""
    reason = why_not(system)
    if reason is not None:
        raise ValueError(reason)
    t_end, h = float(t_end), float(step)
    if not (np.isfinite(t_end) and np.isfinite(h) and 0 < h < t_end):
        raise ValueError(f"long-time comparison got t_end={t_end!r} s and step={h!r} s but expected 0 < step < t_end")
    methods = {name: name if gauge is None else VariationalMethod(name, gauge) for name in METHODS}
    cost = _costs(system, h, backend, methods["NH-RATTLE"])
    h_equal = t_end / int(np.ceil(t_end / (h * cost["rk4"] / cost["NH-RATTLE"])))
    plan = [("NH-RATTLE", "none", methods["NH-RATTLE"], h), ("DLA", "none", methods["DLA"], h),
            ("rk4, same step", "none", "rk4", h),
            (f"rk4, equal cost (h = {h_equal:.3g} s)", "none", "rk4", h_equal),
            (f"DOP853 + projection, {DOP853_TOL:g}", "projection", "DOP853", None)]
    runs = []
    for label, stabilization, method, run_step in plan:
        t_eval = _recording_times(t_end, run_step or h, points)
        steps = int(round(t_end / (run_step or h)))
        options = (dict(method=method, step=run_step, max_steps=steps + 10) if run_step else
                   dict(rtol=DOP853_TOL, atol=DOP853_TOL, max_steps=max(10**6, 10 * steps)))
        started = time.perf_counter()
        formulation = create(Dependent.name, system, stabilization=stabilization, backend=backend)
        traj = formulation.simulate((0.0, float(t_eval[-1])), t_eval=t_eval, **options)
        wall = time.perf_counter() - started
        energy_error = np.abs(traj.energy - traj.energy[0])
        followed = traj.invariants if invariants else {}
        invariant_errors = {name: np.abs(values - values[0]) for name, values in followed.items()}
        first, last, trend = _trend(energy_error)
        runs.append(LongRun(label, traj.t, energy_error, invariant_errors, wall, int(traj.stats.steps), int(traj.status),
                            traj.message, first, last, trend))
        if progress is not None:
            progress(f"{system.name}: {label}: {wall:.1f} s, energy error {first:.2e} -> {last:.2e} J (trend {trend:.2f})")
    return LongTimeResult(system.name, t_end, h, cost, tuple(runs),
                          {name: system.unit_of(name) for name, _ in system.invariants} if invariants else {},
                          formulation.backend, "" if gauge is None else str(gauge))


def figure(result: LongTimeResult, path=None, period=None):
    """The energy error (and each declared invariant's error, a panel each) against time on log
    axes, one line per method; time in periods where ``period`` (s) is given. Saved to ``path``
    where given; returns the Figure."""
    import matplotlib.pyplot as plt

    from ..results.plotting import legend, log_series

    names = list(dict.fromkeys(n for run in result.runs for n in run.invariant_errors))
    fig, axes = plt.subplots(1 + len(names), 1, figsize=(7.5, 3.4 * (1 + len(names))), layout="constrained",
                             squeeze=False)
    unit, scale = ("periods", period) if period else ("s", 1.0)
    for ax, quantity in zip(axes[:, 0], ["energy"] + names):
        for run in result.runs:
            error = run.energy_error if quantity == "energy" else run.invariant_errors.get(quantity)
            if error is None:
                continue
            keep = run.t > 0  # log time axis; exact zeros sit on the lower edge
            log_series(ax, run.t[keep] / scale, error[keep], label=run.label, lw=1)
        ax.set_xscale("log")
        ax.set(xlabel=f"t [{unit}]", ylabel="|E(t) - E(0)| [J]" if quantity == "energy" else
               f"|change of {quantity}| [{result.units.get(quantity, '?')}]",
               title=f"{result.system_name}: {'energy' if quantity == 'energy' else quantity} error, h = {result.step:g} s"
                     + (f"\n(variational methods on L + dS/dt, S = {result.gauge})" if result.gauge else ""))
        ax.grid(True, which="both", alpha=0.3)
        legend(ax, fontsize=8, loc="upper left")
    if path is not None:
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return fig

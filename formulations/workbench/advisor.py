"""Which formulation, stabilization, integrator and tolerance for this system: the advisor.

``advise(system, t_span, target_error=1e-6, budget=60)`` works in three steps.

1. **What the description says before any run** (``facts``): the counts n, m, l and the redundant
   rows, rheonomic rows, whether an embedding exists, rigid-body blocks, how well A is conditioned
   at the start, and the stiffness. The stiffness is the largest decay rate max(-Re lambda) of the
   dependent formulation's right-hand side, from a difference Jacobian at the start, times the
   length of t_span.
2. **Candidates** (``candidates``), chosen from these facts:
   - every formulation that applies (formulations.workbench.comparison.compare.default_configurations);
   - without the formulations that need independent rows (reduced, minimal, manifold) where rows
     are redundant;
   - with an implicit method (Radau on the dependent and the minimal formulation, and IDA where
     scikit-sundae is installed) where the system is stiff;
   - with NH-RATTLE where the variational methods apply and the run is long (50 or more periods of
     the fastest oscillation).
3. **Pilot runs**: formulations.compare at three tolerances (rtol = atol) a hundredfold apart
   around the target divided by the size of the state, against the dependent formulation with
   projection at 1e-13. The horizon is t_span where that fits the budget; otherwise it grows
   by doubling from a short one while the next round, predicted from the last, fits (the cost of
   a motion that speeds up is measured, not extrapolated). Where no candidate reaches the target
   and the budget allows, the three whose work-precision lines reach it soonest run again at
   three tolerances below the tightest, each tenfold tighter (down to 1e-12). Where the reference
   stops at a singular configuration (Phi_p losing rank) and the system has an embedding, the
   reduced and minimal candidates take singular="pass" and the reference becomes
   PASSING_REFERENCE: the embedding's coordinates stay regular where Phi_p does not (the
   N-four-bar's parallelogram branch). Each candidate
   is scored by the wall time at which its deviation from the reference reaches ``target_error``,
   interpolated in log-log between its tolerances; compile time is left out. Candidates that
   failed, or that never reached the target, are ranked last and their reasons are kept. Before
   the ranking is final, the three fastest are run twice more at each tolerance, interleaved, and
   scored by the median wall time, where the budget leaves room (runs of tens of milliseconds vary
   by tens of percent, enough to swap two close candidates).

The recommendation is the fastest candidate at the target, with the tolerance at which its
deviation reaches the target (interpolated as the time is, halved and rounded down to one digit).
This follows the practice of scoring constraint-enforcement methods by CPU time at a given
accuracy, constraint violation and robustness (Marques, Souto & Flores 2017; Gonzalez, Dopico,
Lugris & Cuadrado, the IFToMM benchmark protocol).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np

from systems.arguments import time_span
from systems.catalogue import as_system

from .. import registry
from ..base import create
from ..configuration import parse_configuration
from ..dependent import Dependent
from ..discrete_lagrangian import why_not as no_variational
from ..minimal import Minimal
from ..solvers.monitor import stopped_at_singular
from ..solvers.options import relative_tolerance
from .comparison.compare import REFERENCE, Configuration, default_configurations, finite
from .comparison.timing import Timing

STIFF = 1e4          # max(-Re lambda) * (t1 - t0) above which explicit methods are in their stability limit
LONG = 50            # periods of the fastest oscillation beyond which a run counts as long
PILOT_SHARE = 0.7    # of the budget planned for the pilot runs (the rest: facts, and the estimate's error)
TIGHTEST = 1e-12     # the tightest rtol of a pilot run (the reference runs at 1e-13)


@dataclass(frozen=True)
class Candidate:
    """One configuration's pilot results: ``time_at_target`` in s (NaN where the target was not
    reached), ``tolerance`` the one that reaches it (interpolated between the runs that bracket the
    target, halved and rounded down to one digit; the sweep's where no run was looser), the deviations and wall
    times per tolerance, the largest constraint error and energy drift, and the notes behind its rank."""

    label: str
    time_at_target: float
    tolerance: float | None
    tolerances: tuple
    deviations: tuple
    wall_times: tuple
    constraint_error: float
    energy_drift: float
    failed: bool
    notes: tuple = ()


@dataclass(frozen=True)
class Advice:
    """The advisor's result, from :func:`advise`: the recommended configuration, the ranking, the reasons.

    ``to_markdown()`` (what a notebook shows), ``as_dict()`` and ``to_json()`` (NaN and infinities as
    null) write it out.

    Attributes
    ----------
    system_name : str
        The system's name.
    t_span : tuple of float
        The interval asked for, (t0, t1) in s.
    target_error : float
        The deviation from the reference to reach (max over p and v, on the common grid).
    recommended : str
        A configuration string that ``create`` and ``compare`` accept; None where no candidate reached
        the target.
    rtol : float
        The tolerance to run it at (rtol = atol), or None.
    table : tuple of Candidate
        The candidates ranked, fastest at the target first, failed ones last: label, time_at_target (s,
        NaN where the target was not reached), tolerance (the one that reaches it), tolerances,
        deviations and wall_times per tolerance, constraint_error, energy_drift (J), failed, notes.
    reasons : tuple of str
        The reasons, in sentences.
    facts : dict
        What the description says before any run: n, m, l, redundant_rows, rheonomic, embedding,
        rigid_body_blocks, A_conditioning, fastest_decay_per_s, stiffness, periods ...
    pilot_span : tuple of float
        The horizon of the pilot runs, in s.
    elapsed, budget : float
        The time the advice took, and its budget, in s.
    comparison : Comparison
        The pilot runs.
    reference : str
        The configuration the candidates were measured against (at 1e-13).
    backend : str
        The backend the pilot runs used: their times, which rank the candidates, are that backend's.

    Examples
    --------
    >>> import formulations
    >>> advice = formulations.advise("knife_edge", (0.0, 0.5), budget=1.0, configurations=["dependent", "minimal"])
    >>> sorted(c.label for c in advice.table), advice.reference
    (['dependent', 'minimal'], 'dependent+projection')
    >>> advice.facts["n"], advice.facts["l"]
    (3, 1)
    """

    system_name: str
    t_span: tuple
    target_error: float
    recommended: str | None
    rtol: float | None
    table: tuple
    reasons: tuple
    facts: dict
    pilot_span: tuple
    elapsed: float
    budget: float
    comparison: object = field(default=None, compare=False, repr=False)
    reference: str = REFERENCE.label  # the reference configuration, at 1e-13
    backend: str = "numpy"  # the backend of the pilot runs, whose wall times rank the candidates

    def to_markdown(self) -> str:
        head = (f"**{self.system_name}**: target error {self.target_error:g} over t = {self.t_span[0]:g} .. "
                f"{self.t_span[1]:g} s (pilot runs over {self.pilot_span[1] - self.pilot_span[0]:g} s on the "
                f"{self.backend} backend)\n\n")
        pick = (f"Recommended: `{self.recommended}` at rtol = atol = {self.rtol:g}\n\n" if self.recommended
                else "No candidate reached the target error in the pilot runs.\n\n")
        lines = ["| rank | configuration | time at target s | tolerance | deviation at the tolerances | "
                 "max constraint error | energy drift J | notes |", "|---|---|---|---|---|---|---|---|"]
        for i, c in enumerate(self.table, 1):
            time_text = f"{c.time_at_target:.3g}" if np.isfinite(c.time_at_target) else "not reached"
            tol_text = f"{c.tolerance:.3g}" if c.tolerance is not None else "-"
            devs = ", ".join(f"{d:.1e}" for d in c.deviations)
            lines.append(f"| {i} | {c.label} | {time_text} | {tol_text} | {devs} | {c.constraint_error:.1e} | "
                         f"{c.energy_drift:.1e} | {'; '.join(c.notes) or '-'} |")
        reasons = "\n".join(f"- {r}" for r in self.reasons)
        return head + pick + "\n".join(lines) + "\n\n" + reasons + "\n"

    def _repr_markdown_(self):
        return self.to_markdown()

    def as_dict(self) -> dict:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "comparison"}
        data["table"] = [asdict(c) for c in self.table]
        return finite(data)

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.as_dict(), **kwargs)


def facts(system, t_span=(0.0, 10.0), state0=None) -> dict:
    """What the description says before any run (module docstring, step 1)."""
    t0, t1 = time_span(t_span)
    p, v = system.default_state() if state0 is None else (np.asarray(state0[0], float), np.asarray(state0[1], float))
    out = {"n": system.n, "m": system.m, "l": system.l, "redundant_rows": list(system.redundant_constraints),
           "rheonomic": bool(system.is_rheonomic), "embedding": system.embedding is not None,
           "rigid_body_blocks": bool(system.bodies), "variational": no_variational(system) is None}
    A = np.asarray(system.numeric.dynamics(t0, p, v, system.params).A, float)
    sigma = np.linalg.svd(A, compute_uv=False)
    out["A_conditioning"] = float(sigma[-1] / sigma[0]) if sigma[0] > 0 else 0.0
    rates = _rates(system, p, v, t0)
    out["fastest_decay_per_s"], out["fastest_frequency_rad_s"] = rates
    out["stiffness"] = rates[0] * (t1 - t0)
    out["periods"] = rates[1] * (t1 - t0) / (2 * np.pi)
    return out


def _rates(system, p, v, t0):
    """(max(-Re lambda), max |Im lambda|) of the difference Jacobian of the dependent formulation's
    right-hand side at (p, v)."""
    form = create(Dependent.name, system, backend="numpy")
    y = form.own_state(p, v, t0)
    f0 = np.asarray(form.rhs(t0, y), float)
    J = np.empty((y.size, y.size))
    for j in range(y.size):
        dy = np.zeros_like(y)
        dy[j] = 1e-7 * max(1.0, abs(y[j]))
        J[:, j] = (np.asarray(form.rhs(t0, y + dy), float) - f0) / dy[j]
    eig = np.linalg.eigvals(J) if np.all(np.isfinite(J)) else np.array([0.0])
    return float(max(0.0, np.max(-eig.real))), float(np.max(np.abs(eig.imag)))


def candidates(system, known: dict) -> tuple:
    """(configurations, reasons): the configurations worth a pilot run given the facts (step 2)."""
    configs, reasons = list(default_configurations(system)), []
    if known["redundant_rows"]:  # the comparison's candidates leave them out (Formulation.refusal); say which
        every = [c for name in registry.names() for c in registry.formulation_class(name).comparison]
        dropped = [c for c in every
                   if not registry.formulation_class(parse_configuration(c).formulation).redundant_rows]
        reasons.append(f"The rows {', '.join(known['redundant_rows'])} are redundant: the formulations that need "
                       f"independent rows ({', '.join(dropped)}) are left out.")
    if known["stiffness"] > STIFF:
        implicit = [f"{Dependent.name}@Radau", f"{Minimal.name}@Radau"]
        try:
            import sksundae  # noqa: F401
            implicit.append(f"{Dependent.name}@IDA")
        except ImportError:
            pass
        configs += implicit
        reasons.append(f"The fastest decay rate, {known['fastest_decay_per_s']:.3g} 1/s, times the interval is "
                       f"{known['stiffness']:.2g} > {STIFF:g}: the system is stiff over this interval, so the implicit "
                       f"{', '.join(implicit)} are tried as well.")
    if known["variational"] and known["periods"] >= LONG:
        configs.append(f"dependent@NH-RATTLE:{_variational_step(known):.3g}")
        reasons.append(f"The run spans about {known['periods']:.0f} periods of the fastest oscillation: the "
                       f"variational NH-RATTLE, whose energy error stays bounded, is tried as well.")
    if known["A_conditioning"] < 1e-6:
        reasons.append(f"A is nearly singular at the start (sigma_min / sigma_max = {known['A_conditioning']:.1e}): "
                       f"formulations whose coordinates break down there may stop.")
    return tuple(dict.fromkeys(configs)), reasons


def _variational_step(known):
    """A step of a twentieth of the fastest oscillation's period (or 1e-2 s without one)."""
    w = known["fastest_frequency_rad_s"]
    return 2 * np.pi / w / 20 if w > 0 else 1e-2


def _round_down(x):
    """x rounded down to one significant digit (3.7e-9 -> 3e-9)."""
    exponent = int(np.floor(np.log10(x)))
    return float(f"{int(x / 10.0**exponent + 1e-9)}e{exponent}")


def _why(point) -> str:
    """The reason a run failed, from its message without the system's and formulation's names,
    shortened to about a line."""
    _, found, rest = point.message.partition("stopped at t = ")
    when, _, why = rest.partition(": ")
    text = f"at t = {when} s: {why}" if found else (point.message or "no message")
    if len(text) > 100:
        text = text[:97].rsplit(" ", 1)[0]
        text = text[:text.rindex("(")].rstrip() if text.count("(") > text.count(")") else text  # no open bracket
        text += " ..."
    return text


def _score(label, points, target):
    """A Candidate from the sweep points of one configuration (sorted from loose to tight)."""
    points = sorted(points, key=lambda s: -s.tol)
    failed = any(s.status < 0 for s in points)
    usable = [s for s in points if s.status >= 0 and np.isfinite(s.deviation) and s.wall_time > 0]
    failures = [s for s in points if s.status < 0]
    notes = [f"failed at {', '.join(f'{s.tol:.3g}' for s in failures)} ({_why(failures[0])})"] if failures else []
    notes += [f"finished with a failed check at {s.tol:.3g}" for s in points if s.status == 2]
    reached = [s for s in usable if s.deviation <= target]
    if reached and reached[0] is usable[0]:
        t, tol = usable[0].wall_time, usable[0].tol  # already at the loosest tolerance: an upper bound
        notes.append("reached the target at the loosest tolerance tried (its time is an upper bound)")
    elif reached:
        first = reached[0]
        before = usable[usable.index(first) - 1]
        x0, x1 = np.log(before.deviation), np.log(max(first.deviation, 1e-300))
        y0, y1 = np.log(before.wall_time), np.log(first.wall_time)
        share = (np.log(target) - x0) / (x1 - x0) if x1 != x0 else 1.0
        t = min(max(float(np.exp(y0 + share * (y1 - y0))), 0.0), first.wall_time)
        # the tolerance at the target, in log-log between the same two runs, halved and rounded down
        tol = float(np.exp(np.log(before.tol) + share * (np.log(first.tol) - np.log(before.tol)))) / 2
        tol = max(_round_down(tol), first.tol)
    else:
        t, tol = float("nan"), None
        notes.append("did not reach the target at the tolerances tried")
    constraint = max((max(s.position_error, s.velocity_error) for s in usable
                      if np.isfinite(s.position_error)), default=float("nan"))
    energy = max((s.energy_drift for s in usable if np.isfinite(s.energy_drift)), default=float("nan"))
    return Candidate(label, t, tol, tuple(s.tol for s in points), tuple(s.deviation for s in points),
                     tuple(s.wall_time for s in points), float(constraint), float(energy), failed, tuple(notes))


def advise(system, t_span=(0.0, 10.0), state0=None, *, target_error=1e-6, budget=60.0, configurations=None,
           progress=None, backend=None) -> Advice:
    """Which formulation, stabilization, integrator and tolerance reach ``target_error`` soonest.

    Facts read from the description choose the candidates; pilot runs (``compare`` at three
    tolerances against the reference) rank them by wall time at the target (module docstring).

    Parameters
    ----------
    system : System or str
        A System or a catalogue name.
    t_span, state0 : tuple, optional
        (t0, t1) in s, default (0, 10); the dependent state (p, v), default the system's.
    target_error : float, optional
        The deviation from the reference (max over p and v, on the common grid) to reach; default 1e-6.
    budget : float, optional
        Seconds for the whole advice (default 60): the pilot horizon is chosen to fit (compiling aside).
    configurations : list of str, optional
        The candidates instead of the advisor's choice, taken as given (no ``singular="pass"`` added).
    progress : callable, optional
        ``progress(i, n, label)``, called before each pilot run.
    backend : str, optional
        That of the pilot runs, as create's (default ``$PFAFF_BACKEND``, else "auto": compiled where
        the machine code is ready, as the user's runs will be); the ranking is by its times
        (``Advice.backend``).

    Returns
    -------
    Advice
        ``recommended`` (a configuration string) at ``rtol``, the ranked ``table``, the ``reasons``.

    Raises
    ------
    ValueError
        For a budget that is not a number of seconds > 0.

    See Also
    --------
    formulations.compare

    Examples
    --------
    >>> import formulations
    >>> advice = formulations.advise("knife_edge", (0.0, 0.5), budget=1.0,
    ...                              configurations=["dependent", "minimal"])
    >>> sorted(candidate.label for candidate in advice.table)
    ['dependent', 'minimal']
    """
    started = time.perf_counter()
    system = as_system(system)
    t_span = time_span(t_span)
    target = relative_tolerance("target_error", target_error)
    if not (isinstance(budget, (int, float)) and np.isfinite(budget) and budget > 0):
        raise ValueError(f"advise got budget={budget!r} but expected a number of seconds > 0")
    return _advise(system, t_span, state0, target, budget, configurations, progress, backend, started)


def _advise(system, t_span, state0, target, budget, configurations, progress, backend, started) -> Advice:
    """advise's steps, its arguments checked; ``started`` the perf_counter time it began."""
    known = facts(system, t_span, state0)
    configs, reasons = candidates(system, known) if configurations is None else (tuple(configurations), [])
    runs = 4 + len(configs) * 4  # the reference at 1e-13 costs about three runs at the target
    pilot, scale, steps = _pilot_span(system, t_span, state0, runs,
                                      budget * PILOT_SHARE - (time.perf_counter() - started), target * 1e-2)
    center = target / scale  # rtol = atol: errors scale with the size of the state
    tolerances = [min(center * 1e2, 1e-2), center, max(center * 1e-2, 1e-14)]
    from .comparison.compare import compare

    chosen = {"configs": configs, "reference": REFERENCE_RUN}

    def pilot_runs(span, ladder=tuple(tolerances), configs=None):
        with np.errstate(all="ignore"):  # a diverging pilot run is reported by its status, not by numpy
            return compare(system, configs or chosen["configs"], span, state0, rtol=ladder[len(ladder) // 2],
                           sweep=list(ladder), samples=101, progress=progress, backend=backend,
                           reference=chosen["reference"], measure=0.0,  # the leaders are timed again (_retimed)
                           max_steps=steps)

    deadline = started + budget * PILOT_SHARE
    comparison, pilot, spent = _grown(pilot_runs, t_span, pilot, deadline)
    if configurations is None and _passing(system, chosen, comparison.reference, known, reasons):
        deadline = time.perf_counter() + max(budget * PILOT_SHARE - (time.perf_counter() - started), spent)
        comparison, pilot, spent = _grown(pilot_runs, t_span, pilot, deadline)
    if pilot != t_span:
        reasons.insert(0, f"The pilot runs cover {pilot[1] - pilot[0]:.3g} s of the {t_span[1] - t_span[0]:g} s asked "
                          f"for, to fit the budget of {budget:g} s.")
    stop, reference_label = comparison.reference, comparison.reference_label
    if stopped_at_singular(stop) and len(stop.t):
        known.setdefault("singular_configuration_at", float(stop.t[-1]))
    reference = f"{reference_label} at 1e-13"
    room = budget - (time.perf_counter() - started) >= spent  # for a second round of pilot runs
    if stop.status < 0 and len(stop.t) and stop.t[-1] > pilot[0] and not room:
        reasons.append(f"The reference run ({reference}) stops at t = {stop.t[-1]:.6g} s and "
                       f"the budget leaves no room to measure the candidates again before that point: their "
                       f"deviations past it are not checked, so nothing is recommended (a larger budget would).")
        return Advice(system.name, t_span, target, None, None, (), tuple(reasons), known, pilot,
                      time.perf_counter() - started, float(budget), comparison, reference_label,
                      _backend_of(comparison))
    if stop.status < 0 and len(stop.t) and stop.t[-1] > pilot[0]:  # no reference past its stop: measure before it
        pilot = _before_the_stop(system, stop, pilot, reference, reasons)
        comparison = pilot_runs(pilot)
    table, best = _ranked(comparison, target)
    if best is not None:  # the leaders' times again, where a single short run could swap them
        comparison = _retimed(system, chosen["configs"], comparison, table, pilot, state0, started + budget,
                              _backend_of(comparison))
        table, best = _ranked(comparison, target)
    if best is None and table and tolerances[-1] > TIGHTEST:
        comparison, table, best = _tighter(pilot_runs, pilot, chosen["configs"], comparison, table, tolerances[-1],
                                           target, started + budget, reasons)
    reasons += _ranking_reasons(table, best, target) + _within_noise(table, comparison)
    return Advice(system.name, t_span, target, best.label if best else None, best.tolerance if best else None,
                  tuple(table), tuple(reasons), known, pilot, time.perf_counter() - started, float(budget), comparison,
                  reference_label, _backend_of(comparison))


def _before_the_stop(system, stop, pilot, reference, reasons):
    """The pilot span that ends before the reference run's stop, with the reason appended."""
    pilot = (pilot[0], pilot[0] + 0.95 * (stop.t[-1] - pilot[0]))
    why = stop.message.split("stopped at t = ", 1)[-1].split(": ", 1)[-1]
    passes = (" The system has no embedding p = g(q): with one that stays regular there, the reduced and "
              "minimal formulations would go on with singular=\"pass\"."
              if stopped_at_singular(stop) and system.embedding is None else "")
    reasons.append(f"The reference run ({reference}) stops at t = {stop.t[-1]:.6g} s: "
                   f"{why}. Past that point no run can be checked against it; the pilot runs are measured over "
                   f"{pilot[1] - pilot[0]:.3g} s, before it, and a run over the whole interval needs a "
                   f"formulation that passes or stops cleanly there (see the failures below).{passes}")
    return pilot


def _backend_of(comparison) -> str:
    """The backend the pilot runs used: a comparison runs every row on one backend."""
    backends = {row.backend for row in comparison.rows}
    return backends.pop() if len(backends) == 1 else "numpy"


def _tighter(pilot_runs, pilot, configs, comparison, table, tightest, target, deadline, reasons):
    """(comparison, table, best) after a second round at three tolerances below ``tightest``, each
    tenfold tighter (down to TIGHTEST), for the LEADERS candidates predicted to reach the target
    soonest (_predicted), where the round, estimated from the first (the reference once more, and
    twice their runs), ends before ``deadline``; the reasons say which happened."""
    ladder = tuple(sorted({max(tightest * 10.0**-k, TIGHTEST) for k in (1, 2, 3)}, reverse=True))
    listed = ", ".join(f"{tol:.3g}" for tol in ladder)
    closest = [c.label for c in sorted(table, key=lambda c: (c.failed, _predicted(c, target)))][:LEADERS]
    cost = comparison.reference.stats.wall_time + 2 * sum(p.wall_time for p in comparison.sweep if p.label in closest)
    if time.perf_counter() + cost > deadline:
        reasons.append(f"No candidate reached {target:g} at rtol down to {tightest:.3g}, and the budget left is too "
                       f"short for the tighter tolerances {listed} (about {cost:.2g} s for the {len(closest)} most "
                       f"promising).")
        return comparison, table, None
    parsed = _parsed(configs)
    second = pilot_runs(pilot, ladder, [parsed[label] for label in closest])
    comparison = replace(comparison, sweep=tuple(comparison.sweep) + tuple(second.sweep))
    reasons.append(f"No candidate reached {target:g} at rtol down to {tightest:.3g}: the {len(closest)} whose "
                   f"work-precision lines reach it soonest ({', '.join(closest)}) ran again at {listed}.")
    return (comparison, *_ranked(comparison, target))


def _predicted(candidate, target) -> float:
    """The wall time at which ``candidate`` would reach ``target``, extrapolated in log-log along its
    two tightest runs (the work-precision line); inf where they do not give one."""
    runs = [(d, t) for d, t in zip(candidate.deviations, candidate.wall_times) if np.isfinite(d) and d > 0 and t > 0]
    if len(runs) < 2 or runs[-1][0] >= runs[-2][0]:
        return np.inf
    (d1, t1), (d2, t2) = runs[-2:]
    slope = np.log(t2 / t1) / np.log(d2 / d1)
    with np.errstate(over="ignore"):  # a flat line never reaches the target: inf
        return float(t2 * np.exp(slope * np.log(target / d2)))


def _ranked(comparison, target):
    """(table, best): the candidates scored and sorted (fastest at the target first, failures last),
    and the first where it reached the target without failing, else None."""
    by_label = {}
    for point in comparison.sweep:
        by_label.setdefault(point.label, []).append(point)
    table = sorted((_score(label, points, target) for label, points in by_label.items()),
                   key=lambda c: (c.failed, not np.isfinite(c.time_at_target), c.time_at_target))
    best = table[0] if table and np.isfinite(table[0].time_at_target) and not table[0].failed else None
    return table, best


LEADERS = 3   # candidates timed again before the ranking is final
REPEATS = 3   # runs per candidate and tolerance whose median wall time scores it


def _retimed(system, configs, comparison, table, span, state0, deadline, backend):
    """``comparison`` with the wall times of the LEADERS fastest candidates at the target replaced by
    medians of REPEATS runs (the first is the pilot's), interleaved A B C A B C, on ``backend`` (the
    pilot runs'), while ``deadline`` allows; the deviations are the pilot's (the runs are
    deterministic). Runs of tens of milliseconds vary by tens of percent, enough to swap two close
    candidates."""
    leaders = [c.label for c in table[:LEADERS] if np.isfinite(c.time_at_target) and not c.failed]
    points = [p for p in comparison.sweep if p.label in leaders]
    if len(leaders) < 2 or time.perf_counter() + (REPEATS - 1) * sum(p.wall_time for p in points) > deadline:
        return comparison
    parsed = _parsed(configs)
    forms = {label: parsed[label] for label in leaders}
    built = {label: config.build(system, backend) for label, config in forms.items()}
    grid = np.linspace(span[0], span[1], 101)
    walls = {(p.label, p.tol): [p.wall_time] for p in points}
    with np.errstate(all="ignore"):
        for _ in range(REPEATS - 1):
            for p in points:
                config = forms[p.label]
                run = built[p.label].simulate(span, state0, rtol=p.tol, atol=p.tol, method=config.method,
                                              t_eval=grid, step=p.step)
                walls[p.label, p.tol].append(run.stats.wall_time)
    def timed(point):
        t = Timing.of(walls[point.label, point.tol])
        return replace(point, wall_time=t.median, wall_low=t.low, wall_high=t.high, repeats=t.repeats)

    return replace(comparison, sweep=tuple(timed(p) if p.label in leaders else p for p in comparison.sweep))


def _within_noise(table, comparison) -> list:
    """A sentence where the two fastest candidates' times at the target differ by less than the
    spread of their repeated runs (the largest (slowest - fastest) / median of their sweep points):
    then neither is faster, and the ranking between them is the noise's."""
    ranked = [c for c in table if np.isfinite(c.time_at_target) and not c.failed][:2]
    if len(ranked) < 2:
        return []
    first, second = ranked
    spread = max(((p.wall_high - p.wall_low) / p.wall_time for p in comparison.sweep
                  if p.label in (first.label, second.label) and p.repeats > 1 and p.wall_time > 0), default=None)
    if spread is None or second.time_at_target - first.time_at_target > spread * first.time_at_target:
        return []
    return [f"{first.label} and {second.label} are within the timing noise at the target ({first.time_at_target:.3g} s "
            f"and {second.time_at_target:.3g} s, where their repeated runs vary by up to {100 * spread:.0f} %): "
            f"either serves."]


def _parsed(configs) -> dict:
    """The Configurations of the candidates by label (the labels of the comparison's rows)."""
    return {config.label: config for config in map(Configuration.parse, configs)}


# the reference runs on numpy whatever the candidates' backend: its time is not ranked, and numpy's
# loop stops at a singular configuration within the step (the compiled loop watches for it after the
# run, and crawls towards it until then)
REFERENCE_RUN = f"{REFERENCE.formulation}[backend=numpy]+{REFERENCE.stabilization}"
PASSING_REFERENCE = f"{Minimal.name}[singular=pass,backend=numpy]"  # where a singular configuration lies ahead


def _passing(system, chosen, reference, known, reasons) -> bool:
    """Whether the pilot runs change to configurations that pass the singular configuration at
    which ``reference`` (a Trajectory) stopped; if so, ``chosen`` gets the reduced and minimal
    formulations with singular="pass" in place of their plain forms (the others are kept: they stop
    there, and the table says so) and PASSING_REFERENCE, and the facts and reasons say why. Not
    where the reference did not stop at a singular configuration, or where the system has no
    embedding (then no formulation passes with coordinates that stay regular)."""
    if not stopped_at_singular(reference) or system.embedding is None or known["redundant_rows"]:
        return False
    passing = [replace(c, options={**c.options, "singular": "pass"}, label="")
               if registry.formulation_class(c.formulation).passes_singular else c
               for c in _parsed(chosen["configs"]).values()]
    chosen["configs"], chosen["reference"] = tuple(c.label for c in passing), PASSING_REFERENCE
    known["singular_configuration_at"] = float(reference.t[-1])
    reasons.append(f"The reference run (dependent with projection at 1e-13) stops at a singular configuration at "
                   f"t = {reference.t[-1]:.6g} s, where Phi_p loses rank. The embedding p = g(q) stays regular "
                   f"there, so the reduced and minimal formulations go on with singular=\"pass\"; "
                   f"{Configuration.parse(PASSING_REFERENCE).label} at 1e-13 becomes the reference, and the "
                   f"formulations that stop there are ranked as failures.")
    return True


def _grown(pilot_runs, t_span, pilot, deadline):
    """(comparison, horizon, seconds): the pilot runs over ``pilot`` where that is all of t_span;
    otherwise over a horizon grown from an eighth of ``pilot`` by doubling, while the next round,
    predicted from how the last one grew, ends before ``deadline``. The probe's estimate can be far
    off where the motion speeds up (Andrews' mechanism): the rounds measure the runs themselves,
    and the advice keeps its budget to within about one round."""
    t0, t1 = t_span
    length = pilot[1] - t0 if pilot == t_span else (pilot[1] - t0) / 8
    previous = None
    while True:
        start = time.perf_counter()
        comparison = pilot_runs((t0, t0 + length))
        spent = time.perf_counter() - start
        growth = max(2.0, spent / previous) if previous else 2.5
        if t0 + length >= t1 or time.perf_counter() + spent * growth > deadline:
            return comparison, (t0, float(t0 + length)), spent
        previous, length = spent, min(2 * length, t1 - t0)


def _ranking_reasons(table, best, target) -> list:
    """Sentences on the ranking: the fastest, the next two against it, and every failure."""
    reasons = []
    if best is not None:
        reasons.append(f"{best.label} reached a deviation of {target:g} from the reference fastest, in about "
                       f"{best.time_at_target:.3g} s of the pilot, at rtol = atol = {best.tolerance:g}.")
        for other in table[1:3]:
            if np.isfinite(other.time_at_target) and not other.failed:
                reasons.append(f"{other.label} took {other.time_at_target / best.time_at_target:.2g} times as long.")
    for c in table:
        if c.failed or not np.isfinite(c.time_at_target):
            reasons.append(f"{c.label}: {'; '.join(c.notes)}.")
    return reasons


# the pilot runs' bound on accepted steps: STEP_MARGIN times the probe's steps scaled to t_span (a
# run at 1e-13 takes about (tol / 1e-13)^(1/8) times the probe's steps with DOP853: 4 to 6 times),
# at least PILOT_STEPS. A run that crawls towards a singular configuration (the compiled loop watches
# for it after the run, not at every step) then ends in a fraction of the budget, not in minutes.
STEP_MARGIN = 50
PILOT_STEPS = 5000


def _pilot_span(system, t_span, state0, runs, seconds, tol):
    """(horizon, scale, steps): the horizon of the pilot runs, t_span or its beginning where probe runs of
    the dependent formulation with projection at ``tol`` suggest that ``runs`` runs over t_span would
    not fit in ``seconds`` (the reference at 1e-13 costs more, the looser tolerances less); and the
    largest entry of p and v in the last probe (at least 1), the scale of the errors a tolerance
    gives. The probes start over a thousandth of t_span and grow tenfold while they are cheap, up to
    a tenth of it, so that a system whose motion is expensive (Andrews' mechanism over seconds)
    is found out by a short probe, not by a long one; and the bound on the pilot runs' steps
    (STEP_MARGIN, PILOT_STEPS)."""
    t0, t1 = t_span
    form = create(Dependent.name, system, stabilization="projection", backend="numpy")
    span = (t1 - t0) / 1000
    with np.errstate(all="ignore"):  # a diverging probe is read by its status
        form.simulate((t0, t0 + span), state0, rtol=tol, atol=tol)  # pays for the one-time evaluations
        while True:
            probe = form.simulate((t0, t0 + span), state0, rtol=tol, atol=tol)
            spent = probe.stats.wall_time + probe.stats.setup_time
            if span >= (t1 - t0) / 10 or probe.status < 0 or 10 * spent > seconds / 10:  # the next: a tenth
                break
            span = min(10 * span, (t1 - t0) / 10)
    states = np.hstack([probe.p, probe.v])
    scale = float(max(1.0, np.max(np.abs(states[np.isfinite(states)]), initial=0.0)))
    steps = max(PILOT_STEPS, int(STEP_MARGIN * probe.stats.steps * (t1 - t0) / span))
    per_run = spent * (t1 - t0) / span
    if per_run * runs <= seconds:
        return t_span, scale, steps
    share = min(max(seconds / (per_run * runs), 1e-6), 1.0)
    return (t0, t0 + (t1 - t0) * share), scale, steps

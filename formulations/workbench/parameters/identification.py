"""Parameter identification: the parameter values whose motion matches measurements.

Weighted least squares over one or several trials (single shooting): each trial is simulated from
its initial state with the candidate parameters, through any formulation, and compared at the
measured times with the measured coordinates, velocities or reactions (NaN: not measured there):

    minimize  1/2 sum over trials, names, times of ((simulated - measured) / sigma_name)^2

by scipy.optimize.least_squares (trust-region reflective within the bounds, Jacobian by central
differences of whole runs). The standard errors come from the Gauss-Newton covariance at the
optimum, (J^T J)^-1 with J the Jacobian of the weighted residuals: with the measurement noise
``noise`` given, as it stands; without, scaled by the residual variance sum r^2 / (N - k). A
direction of the parameters that the data do not see (a singular value of J below UNSEEN x rtol of
the largest: within the runs' own errors) gets an infinite standard error and a note naming the
parameters in it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
from scipy.optimize import least_squares

from systems.catalogue import as_system
from systems.errors import ArgumentError, InconsistentStateError, UnknownNameError

from ...base import create

CURVE_POINTS = 200  # points of the fitted motion kept per trial (Identification.fits, plot)
UNSEEN = 100.0  # singular values of J below UNSEEN x rtol of the largest: a direction the data do not see
# (the Jacobian comes from differences of runs whose errors are of the order of rtol)


@dataclass(frozen=True)
class Trial:
    """One experiment for :func:`identify`: what was measured when, from which initial state.

    Attributes
    ----------
    t : ndarray, shape (N,)
        The measurement times, in s, increasing (at least two).
    measured : dict
        {name: values (N,)} of coordinates, velocities or reactions, in their units (NaN where not measured).
    state0 : tuple of ndarray or None
        The initial state (p, v) at t[0]; None (default): the system's default state at the parameter values tried.

    Examples
    --------
    >>> import numpy as np, systems, formulations
    >>> pend, t = systems.load("pendulum_cartesian"), np.linspace(0.0, 1.0, 11)  # measured where g = 9 m/s²:
    >>> run = formulations.create("minimal", pend.with_parameters(g=9.0)).simulate((0.0, 1.0), t_eval=t)
    >>> x = run.p[:, 0].copy()
    >>> x[::2] = np.nan  # x (m) at every other time only, x_dot (m/s) at all
    >>> trial = formulations.Trial(t, {"x": x, "x_dot": run.v[:, 0]})
    >>> fit = formulations.identify(pend, "minimal", trial, ["g"], noise=1e-3)
    >>> round(fit.estimates["g"], 6), fit.points
    (9.0, 16)
    """

    t: np.ndarray
    measured: Mapping
    state0: tuple | None = None


@dataclass(frozen=True)
class Identification:
    """The result of :func:`identify`: parameter estimates with their standard errors.

    The standard errors come from the Gauss-Newton covariance at the optimum, (JᵀJ)⁻¹ with J the Jacobian of
    the weighted residuals: as it stands where the measurement noise was given, else scaled by the residual
    variance sum r² / (N - k). A direction of the parameters that the data do not see gets an infinite standard
    error and a note naming the parameters in it.

    Attributes
    ----------
    parameters : tuple of str
        The names of the k parameters identified.
    estimates, standard_errors : dict
        {name: value}, in the parameter's unit.
    covariance : ndarray, shape (k, k)
        In the order of ``parameters``.
    residuals : tuple of dict
        Per trial, {name: (simulated - measured) / sigma} at the measured times (NaN where not measured).
    cost : float
        1/2 sum r² over the weighted residuals r.
    points : int
        The number of measured values.
    fits, trials : tuple
        The Trajectory at the estimates (CURVE_POINTS = 200 points over each trial), and the Trial of each.
    status : int
        0 converged, -1 not.
    message : str
        How the least-squares solve ended.
    notes : tuple of str
        What the estimates cannot say, e.g. parameters the data do not see, or no residual degrees of freedom.

    Examples
    --------
    >>> import numpy as np, systems, formulations
    >>> pend, t = systems.load("pendulum_cartesian"), np.linspace(0.0, 1.0, 11)  # x measured where g = 9 m/s²:
    >>> x = formulations.create("minimal", pend.with_parameters(g=9.0)).simulate((0.0, 1.0), t_eval=t).p[:, 0]
    >>> fit = formulations.identify(pend, "minimal", {"t": t, "x": x}, {"g": (8.0, 1.0, 20.0)}, noise=1e-3)
    >>> round(fit.estimates["g"], 6), round(fit.standard_errors["g"], 4), fit.points, fit.notes  # m/s²
    (9.0, 0.0097, 11, ())
    >>> fit.covariance.shape, fit.fits[0].t.shape, sorted(fit.residuals[0])
    ((1, 1), (200,), ['x'])
    """

    parameters: tuple
    estimates: Mapping
    standard_errors: Mapping
    covariance: np.ndarray
    residuals: tuple
    cost: float
    points: int
    fits: tuple = field(repr=False)
    trials: tuple = field(repr=False)
    status: int = 0
    message: str = ""
    notes: tuple = ()

    def to_markdown(self) -> str:
        rows = [f"| {n} | {self.estimates[n]:.8g} | {self.standard_errors[n]:.3g} |" for n in self.parameters]
        head = f"Identified from {self.points} measured values in {len(self.trials)} trials: {self.message}\n\n"
        table = "| parameter | estimate | standard error |\n|---|---|---|\n" + "\n".join(rows)
        return head + table + "".join(f"\n\n- {note}" for note in self.notes) + "\n"

    def plot(self, names=None):
        """The measured values (dots) and the fitted motion (lines), one panel per measured name.
        Returns the matplotlib Figure."""
        import matplotlib.pyplot as plt

        names = names or sorted({n for trial in self.trials for n in trial.measured})
        fig, axes = plt.subplots(len(names), 1, figsize=(6.4, 1.9 * len(names)), squeeze=False, sharex=True,
                                 layout="constrained")
        for ax, name in zip(axes[:, 0], names):
            for k, (trial, fit) in enumerate(zip(self.trials, self.fits)):
                if name in trial.measured:
                    dots = ax.plot(trial.t, trial.measured[name], ".", markersize=3, label=f"trial {k + 1}")[0]
                    ax.plot(fit.t, _values(fit, name), color=dots.get_color(), linewidth=1)
            ax.set_ylabel(f"{name} [{self.fits[0].unit_of(name)}]")
        axes[0, 0].set_title("measured (dots) and fitted (lines)", fontsize=9)
        axes[0, 0].legend(fontsize=7)
        axes[-1, 0].set_xlabel("t in s")
        return fig


def identify(system, formulation, data, parameters, *, noise=None, initial=(), rtol=1e-9, atol=1e-9,
             **options) -> Identification:
    """The values of ``parameters`` that make ``system``, run through ``formulation``, match measured ``data``.

    Parameters
    ----------
    system, formulation : System or str, and str
        The system (or a catalogue name) and the formulation its runs go through.
    data : Trial or dict or list
        A Trial, a dict {"t": times, name: values, ..., "state0": (p, v)}, or a list of them: coordinates,
        velocities or reactions, in their units (NaN: not measured there).
    parameters : list of str or dict
        Names (initial value: the system's; bounds: >= 0 where the parameter's symbol is non-negative) or
        {name: (initial, lower, upper)}.
    noise : dict or float, optional
        The standard deviation of each measured name {name: sigma}, or one number for all, in the unit of the
        measured quantity (default: unknown, estimated from the residuals).
    initial : list of str, optional
        Names of coordinates and velocities whose values at each trial's first time are unknowns too, one per
        trial, named "NAME(t0), trial K" in the result (first guess: the trial's state, else the default state);
        the rest of each initial state is held, then made consistent with the constraints with these held
        (System.consistent_state). Default none: the initial states are known.
    rtol, atol, **options
        Go to simulate (default rtol = atol = 1e-9).

    Returns
    -------
    Identification
        Weighted least-squares estimates (single shooting, ``scipy.optimize.least_squares``), standard errors.

    Raises
    ------
    ArgumentError
        For bad data, parameters or noise, or a run that cannot start or fails.

    Examples
    --------
    >>> import numpy as np, systems, formulations
    >>> pend, t = systems.load("pendulum_cartesian"), np.linspace(0.0, 1.0, 11)  # x measured where g = 9 m/s²:
    >>> x = formulations.create("minimal", pend.with_parameters(g=9.0)).simulate((0.0, 1.0), t_eval=t).p[:, 0]
    >>> fit = formulations.identify(pend, "minimal", {"t": t, "x": x}, ["g"])
    >>> round(fit.estimates["g"], 6), fit.status
    (9.0, 0)
    """
    system = as_system(system)
    trials = tuple(_trial(system, item, k) for k, item in enumerate(data if isinstance(data, (list, tuple))
                                                                     else [data]))
    names, x0, lower, upper = _parameters(system, parameters)
    free = _InitialStates(system, initial, trials, len(names))
    sigma = _noise(noise, trials)
    form_options = dict(rtol=rtol, atol=atol, **options)
    k_par, first = len(names), system.with_parameters(**dict(zip(names, x0)))
    names, x0 = names + free.names, np.concatenate([x0, free.guess(first)])
    lower, upper = np.concatenate([lower, np.full(len(free.names), -np.inf)]), \
        np.concatenate([upper, np.full(len(free.names), np.inf)])
    free.check(first, x0)
    runs = functools.partial(_runs, system, formulation, trials, names, k_par, free, form_options)

    def residual(x):
        return np.concatenate([_weighted(trial, run, sigma) for trial, run in zip(trials, runs(x))])

    solution = least_squares(residual, x0, bounds=(lower, upper), jac="3-point", x_scale="jac", xtol=1e-12,
                             ftol=1e-12, gtol=1e-12)
    fits = runs(solution.x)
    r = solution.fun
    points = r.size
    covariance, notes = _covariance(solution.jac, names, r, points, noise is not None, UNSEEN * rtol)
    errors = np.sqrt(np.diag(covariance))
    return Identification(
        parameters=tuple(names), estimates=dict(zip(names, solution.x.tolist())),
        standard_errors=dict(zip(names, errors.tolist())), covariance=covariance,
        residuals=tuple(_named_residuals(t, run, sigma) for t, run in zip(trials, fits)),
        cost=float(solution.cost), points=points, fits=tuple(runs(solution.x, dense=True)), trials=trials,
        status=0 if solution.success else -1, message=solution.message, notes=tuple(notes))


def _runs(system, formulation, trials, names, k_par, free, form_options, x, dense=False):
    """Every trial simulated at the least-squares vector x (its first k_par entries the parameters
    ``names[:k_par]``, then the free initial values); at the measured times, or (dense) at
    CURVE_POINTS over each trial. ArgumentError where a run cannot start or fails."""
    varied = system.with_parameters(**dict(zip(names[:k_par], x[:k_par])))
    form = create(formulation, varied)
    out = []
    for k, trial in enumerate(trials):
        t_eval = np.linspace(trial.t[0], trial.t[-1], CURVE_POINTS) if dense else trial.t
        where = f"the run of trial {k + 1} with {', '.join(f'{n} = {v:.6g}' for n, v in zip(names, x))}"
        try:  # without a state of its own, a trial starts from the varied system's default state
            run = form.simulate((float(trial.t[0]), float(trial.t[-1])), free.state(varied, trial, k, x),
                                t_eval=t_eval, **form_options)
        except InconsistentStateError as exc:
            raise ArgumentError(f"identify: {where} cannot start: {exc}") from None
        if not run.success or run.t.size != t_eval.size:
            raise ArgumentError(f"identify: {where} failed: {run.message}")
        out.append(run)
    return out


class _InitialStates:
    """The initial values identify estimates beside the parameters: ``names`` (per trial, in trial
    order), read from the least-squares vector after its ``offset`` parameter entries."""

    def __init__(self, system, initial, trials, offset):
        initial = (initial,) if isinstance(initial, str) else tuple(initial)
        known = system.coordinate_names + system.velocity_names
        for name in initial:
            if name not in known:
                raise UnknownNameError("coordinate or velocity (initial)", name, known, "initial")
        if len(set(initial)) != len(initial):
            raise ArgumentError(f"identify got initial={list(initial)} with a name twice", "initial")
        self.initial, self.offset, self.trials = initial, offset, trials
        self.names = [f"{name}(t0), trial {k + 1}" for k in range(len(trials)) for name in initial]

    def guess(self, system):
        """The first guess of every free initial value: the trial's state, else the default state."""
        out = []
        for trial in self.trials:
            p, v = trial.state0 or system.default_state()
            out += [array[i] for array, i in (_slot(system, p, v, name) for name in self.initial)]
        return np.array(out, dtype=float)

    def check(self, system, x):
        """ArgumentError where initial states near the first guess cannot be made consistent with the
        named values held (more coordinates or velocities named than the constraints leave free):
        each named value moved by 1e-4 of its size, the state is made consistent."""
        moved = np.array(x, dtype=float)
        moved[self.offset:] += 1e-4 * (1.0 + np.abs(moved[self.offset:]))
        for k, trial in enumerate(self.trials):
            try:
                self.state(system, trial, k, moved)
            except InconsistentStateError as exc:
                raise ArgumentError(f"identify got initial={list(self.initial)}, whose values the constraints do not "
                                    f"leave free in trial {k + 1}: {exc}", "initial") from None

    def state(self, system, trial, k, x):
        """Trial k's initial (p, v) at the parameters of ``system``: its free values from x, the rest
        held, made consistent with the constraints (ArgumentError where they cannot be)."""
        p0, v0 = trial.state0 or system.default_state()
        if not self.initial:
            return p0, v0
        p, v = np.array(p0, dtype=float), np.array(v0, dtype=float)
        values = x[self.offset + k * len(self.initial):self.offset + (k + 1) * len(self.initial)]
        for name, value in zip(self.initial, values):
            array, i = _slot(system, p, v, name)
            array[i] = value
        return system.consistent_state(p, v, fix=self.initial, t=float(trial.t[0]))


def _slot(system, p, v, name):
    """(p or v, the index of coordinate or velocity ``name`` in it)."""
    kind, i = system.index_of(name)
    return (p if kind == "p" else v), i


def _trial(system, item, k) -> Trial:
    if isinstance(item, Trial):
        t, measured, state0 = item.t, item.measured, item.state0
    elif isinstance(item, Mapping) and "t" in item:
        measured = {n: v for n, v in item.items() if n not in ("t", "state0")}
        t, state0 = item["t"], item.get("state0")
    else:
        raise ArgumentError(f"identify: data[{k}] got {type(item).__name__} but expected a formulations.Trial or a "
                            f"dict {{'t': times, name: values, ...}}")
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ArgumentError(f"identify: trial {k + 1} has times that are not an increasing sequence of at least two "
                            f"finite values")
    known = system.coordinate_names + system.velocity_names + system.constraint_names
    out = {}
    for name, values in measured.items():
        if name not in known:
            raise UnknownNameError("measured quantity (coordinate, velocity or reaction)", name, known, "data")
        values = np.asarray(values, dtype=float)
        if values.shape != t.shape:
            raise ArgumentError(f"identify: trial {k + 1} measures {name!r} at {values.size} points but has "
                                f"{t.size} times")
        out[name] = values
    if not out or not any(np.isfinite(v).any() for v in out.values()):
        raise ArgumentError(f"identify: trial {k + 1} measures nothing (no name, or only NaN)")
    state0 = None if state0 is None else tuple(np.asarray(x, dtype=float) for x in state0)
    return Trial(t, out, state0)


def _parameters(system, parameters):
    known = {p.name: p for p in system.parameters}
    spec = parameters if isinstance(parameters, Mapping) else {name: None for name in parameters}
    if not spec:
        raise ArgumentError("identify: parameters is empty; name at least one parameter to identify")
    names, x0, lower, upper = [], [], [], []
    for name, bounds in spec.items():
        if name not in known:
            raise UnknownNameError(f"parameter of system {system.name!r}", name, tuple(known), "parameters")
        symbol = known[name].symbol
        low = 0.0 if (symbol.is_nonnegative or symbol.is_positive) else -np.inf
        start, lo, hi = (system.parameter_dict[name], low, np.inf) if bounds is None else bounds
        if not (lo < hi and lo <= start <= hi):
            raise ArgumentError(f"identify: parameter {name!r} got (initial, lower, upper) = ({start}, {lo}, {hi}) "
                                f"but expected lower < upper and the initial value between them")
        names.append(name), x0.append(float(start)), lower.append(float(lo)), upper.append(float(hi))
    return names, np.array(x0), np.array(lower), np.array(upper)


def _noise(noise, trials):
    measured = sorted({n for trial in trials for n in trial.measured})
    if noise is None:
        return dict.fromkeys(measured, 1.0)
    if isinstance(noise, (int, float)):
        noise = dict.fromkeys(measured, float(noise))
    missing = [n for n in measured if n not in noise]
    bad = [n for n in measured if n in noise and not (np.isfinite(noise[n]) and noise[n] > 0)]
    if missing or bad:
        raise ArgumentError(f"identify: noise needs a standard deviation > 0 for every measured name; missing: "
                            f"{', '.join(missing) or 'none'}; not > 0: {', '.join(bad) or 'none'}")
    return {n: float(noise[n]) for n in measured}


def _values(run, name):
    """The coordinate, velocity or reaction ``name`` along ``run``, (N,)."""
    if name in run.constraint_names:
        return run.reactions[name]
    kind, i = run.system.index_of(name)
    return (run.p if kind == "p" else run.v)[:, i]


def _weighted(trial, run, sigma):
    parts = []
    for name, values in trial.measured.items():
        seen = np.isfinite(values)
        parts.append((_values(run, name)[seen] - values[seen]) / sigma[name])
    return np.concatenate(parts)


def _named_residuals(trial, run, sigma):
    return {name: (_values(run, name) - values) / sigma[name] for name, values in trial.measured.items()}


def _covariance(J, names, r, points, noise_known, unseen):
    """(covariance (k, k), notes) from the Jacobian of the weighted residuals (module docstring)."""
    k = len(names)
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    seen = s > unseen * (s[0] if s.size else 0.0)
    inverse = (Vt[seen].T / s[seen] ** 2) @ Vt[seen]
    scale = 1.0 if noise_known else float(r @ r) / max(points - k, 1)
    covariance = scale * inverse
    notes = []
    for direction in Vt[~seen]:
        involved = [n for n, w in zip(names, direction) if abs(w) > 1e-3]
        for n in involved:
            covariance[names.index(n), names.index(n)] = np.inf
        notes.append(f"the data do not see {' and '.join(involved)} (a direction of the parameters that leaves the "
                     f"measured motion unchanged): {'it' if len(involved) == 1 else 'they'} cannot be identified "
                     f"from these measurements, so the standard error is infinite")
    if points <= k:
        notes.append(f"{points} measured values for {k} parameters: no residual degrees of freedom")
    return covariance, notes

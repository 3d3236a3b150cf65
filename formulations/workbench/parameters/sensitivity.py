"""Sensitivities of a motion and of an integral output with respect to parameters, forward and adjoint.

The formulation's own ODE y' = F(t, y; theta) is integrated together with its variational
equations, one column per parameter theta_j:

    S_j' = F_y S_j + F_theta_j,      S_j(t0) = dy0 / dtheta_j
    G' = g(t, p, v),                 dG_j' = g_y S_j + g_theta_j      (an integral output G = int g dt)

F_y S_j is a central difference of F along the direction S_j, and F_theta_j a central difference
between the formulation built with theta_j +- delta_j (internal numerical differentiation:
differences of the right-hand side, never of whole runs, so their errors are O(delta^2) and not
amplified by step-size control). The whole system goes through one adaptive run (scipy's
solve_ivp, DOP853 by default), so the sensitivities share the motion's error control. dp/dtheta and
dv/dtheta follow from S through the formulation's map y -> (p, v), also by central differences.
The formulation's post-steps (projection, a new choice of independent velocities, a new chart) are
not applied: use a formulation that needs none over the interval (no stabilization by projection).

The adjoint method (``adjoint=True``) gives the gradient of an integral output alone, for any
number of parameters, from one forward run of the motion (kept as dense output) and one backward
run of the adjoint variables lambda (n) and the accumulated gradient mu (k):

    lambda' = -F_y^T lambda - g_y^T,   mu_j' = -(lambda^T F_theta_j + g_theta_j),   lambda(t1) = mu(t1) = 0,
    dG/dtheta_j = mu_j(t0) + lambda(t0)^T dy0/dtheta_j

(Cao, Li, Petzold & Serban, SIAM J. Sci. Comput. 24 (2003) 1076-1089), with F_y by central
differences column by column.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
from scipy.integrate import solve_ivp

from systems.arguments import time_grid, time_span
from systems.catalogue import as_system
from systems.errors import ArgumentError, UnknownNameError

from ...base import create

STEP = 6e-6  # relative size of the central differences (about the cube root of machine epsilon)


@dataclass(frozen=True)
class Sensitivities:
    """Forward sensitivities of a motion, as returned by :func:`sensitivities`.

    Attributes
    ----------
    t : ndarray, shape (N,)
        The output times, in s.
    p, v : ndarray
        The motion: coordinates (N, n_p) and velocities (N, n), in their units.
    dp, dv : dict
        {parameter name: ndarray (N, n_p) or (N, n)}: the derivatives of p and v with respect to each parameter at
        every output time, in the unit of p or v per unit of the parameter.
    parameters : tuple of str
        The names of the parameters (``wrt``).
    output : float or None
        For an integral output G = ∫ g dt, its value over t_span (in the unit of g times s), else None.
    gradient : dict or None
        For an integral output, {parameter name: dG/dθ}, else None.
    message : str
        How the run ended (scipy's message).
    kind : str
        "forward" (the variational equations) or "adjoint" (the gradient of the output only: ``dp`` and ``dv``
        are empty).

    Examples
    --------
    >>> import formulations
    >>> sens = formulations.sensitivities("pendulum_cartesian", "dependent", (0.0, 0.5), wrt="g", t_eval=[0.0, 0.5])
    >>> sens.parameters, sens.t.tolist(), sens.dp["g"].shape, sens.dv["g"].shape, sens.gradient
    (('g',), [0.0, 0.5], (2, 2), (2, 2), None)
    >>> round(float(sens.dp["g"][-1, 0]), 4)  # dx(0.5 s)/dg, in m per m/s²
    -0.0395
    """

    t: np.ndarray
    p: np.ndarray
    v: np.ndarray
    dp: Mapping
    dv: Mapping
    parameters: tuple
    output: float | None = None
    gradient: Mapping | None = None
    message: str = ""
    kind: str = "forward"


def sensitivities(system, formulation, t_span, state0=None, *, wrt, output=None, t_eval=None, rtol=1e-10,
                  atol=1e-10, method="DOP853", adjoint=False) -> Sensitivities:
    """Sensitivities of the motion of ``system`` with respect to parameters, forward in one adaptive run, or
    of an integral output alone by the adjoint method.

    Parameters
    ----------
    system, formulation : System or str, and str
        The system (or a catalogue name) and a formulation that changes no state after steps (no projection).
    t_span : tuple of float
        (t0, t1) in s.
    state0 : tuple of array_like, optional
        (p, v); default: the system's default state, whose dependence on the parameters is differentiated too.
    wrt : str or list of str
        The names of the parameters θ.
    output : callable or str, optional
        ``g(t, p, v) -> float`` for the integral output G = ∫ g dt over t_span, or "kinetic energy".
    t_eval, rtol, atol, method : optional
        Output times in s (default: the solver's steps); scipy ``solve_ivp``'s tolerances (1e-10) and method (DOP853).
    adjoint : bool, optional
        The gradient of the integral output by the adjoint method, one backward run whatever the number of
        parameters (default False: forward sensitivities of the motion and of the output).

    Returns
    -------
    Sensitivities
        dp/dθ and dv/dθ at the output times, and G with its gradient.

    Raises
    ------
    ArgumentError
        For an empty ``wrt``, a formulation with post-steps, a bad ``output`` or a run that stops early.

    Examples
    --------
    >>> import formulations
    >>> sens = formulations.sensitivities("pendulum_cartesian", "minimal", (0.0, 0.5), wrt=["g", "L"],
    ...                                   t_eval=[0.0, 0.25, 0.5], output="kinetic energy")
    >>> sens.dp["g"].shape, round(sens.gradient["g"], 4)  # dp/dg in m per m/s², dG/dg in J s per m/s²
    ((3, 2), 0.0455)
    """
    system = as_system(system)
    names = [wrt] if isinstance(wrt, str) else list(wrt)
    if not names:
        raise ArgumentError("sensitivities: wrt is empty; name at least one parameter")
    for name in names:
        if name not in system.parameter_names:
            raise UnknownNameError(f"parameter of system {system.name!r}", name, system.parameter_names, "wrt")
    g = _output(system, output)
    t0, t1 = time_span(t_span)
    outputs = None if t_eval is None else time_grid(t_eval, (t0, t1))
    grid = None if outputs is None else (outputs if outputs[-1] == t1 else np.append(outputs, t1))  # G over t_span
    deltas = [STEP * max(abs(system.parameter_dict[n]), 1.0) for n in names]
    varied = [(system.with_parameters(**{n: system.parameter_dict[n] + d}),
               system.with_parameters(**{n: system.parameter_dict[n] - d})) for n, d in zip(names, deltas)]
    start = (lambda s: state0) if state0 is not None else (lambda s: s.default_state())
    p0, v0 = (np.asarray(x, dtype=float) for x in start(system))
    base = _prepared(formulation, system, start(system), t0)
    forms = [tuple(_prepared(formulation, s, start(s), t0) for s in pair) for pair in varied]
    y0 = base.own_state(p0, v0, t0)
    n, k = y0.size, len(names)
    S0 = np.zeros((k, n)) if state0 is not None else np.array(
        [(plus.own_state(*start(plus.system), t0) - minus.own_state(*start(minus.system), t0)) / (2 * d)
         for (plus, minus), d in zip(forms, deltas)])
    if adjoint:
        if g is None:
            raise ArgumentError("sensitivities: adjoint=True gives the gradient of an integral output: pass output=")
        return _adjoint(system, base, forms, deltas, names, g, (t0, t1), y0, S0, outputs,
                        dict(method=method, rtol=rtol, atol=atol))

    return _forward(system, base, forms, deltas, names, g, (t0, t1), y0, S0, outputs, grid,
                    dict(method=method, rtol=rtol, atol=atol))


def _forward(system, base, forms, deltas, names, g, span, y0, S0, outputs, grid, options) -> Sensitivities:
    """The motion with its variational equations (and G with its gradient) in one adaptive run."""
    n, k = y0.size, len(names)

    def rhs(t, z):
        y, S = z[:n], z[n:n + n * k].reshape(k, n)
        out = [base.rhs(t, y)]
        out += [_along(lambda x: base.rhs(t, x), y, S[j]) + (plus.rhs(t, y) - minus.rhs(t, y)) / (2 * deltas[j])
                for j, (plus, minus) in enumerate(forms)]
        if g is not None:
            out.append([g(t, *base.state_at(y, t), system)])
            out.append([_along(lambda x: g(t, *base.state_at(x, t), system), y, S[j])[0]
                        + (g(t, *plus.state_at(y, t), plus.system) - g(t, *minus.state_at(y, t), minus.system))
                        / (2 * deltas[j]) for j, (plus, minus) in enumerate(forms)])
        return np.concatenate([np.ravel(x) for x in out])

    z0 = np.concatenate([y0, S0.ravel()] + ([np.zeros(1 + k)] if g is not None else []))
    run = solve_ivp(rhs, span, z0, t_eval=grid, **options)
    _check_run(system, run)
    keep = slice(None) if outputs is None else slice(0, outputs.size)
    return _result(system, base, forms, deltas, names, run, n, k, g is not None, keep)


def _adjoint(system, base, forms, deltas, names, g, span, y0, S0, outputs, options) -> Sensitivities:
    """The gradient of G = int g dt by one forward and one backward run (see the module docstring)."""
    t0, t1 = span
    n = y0.size

    def output(t, y, form):
        return g(t, *form.state_at(y, t), form.system)

    forward = solve_ivp(lambda t, z: np.append(base.rhs(t, z[:n]), output(t, z[:n], base)), (t0, t1),
                        np.append(y0, 0.0), dense_output=True, **options)
    _check_run(system, forward)

    def backward(t, z):
        y, lam = forward.sol(t)[:n], z[:n]
        F_y = np.column_stack([_along(lambda x: base.rhs(t, x), y, e) for e in np.eye(n)])
        g_y = np.array([_along(lambda x: output(t, x, base), y, e)[0] for e in np.eye(n)])
        mu = [lam @ (plus.rhs(t, y) - minus.rhs(t, y)) / (2 * d) + (output(t, y, plus) - output(t, y, minus)) / (2 * d)
              for (plus, minus), d in zip(forms, deltas)]
        return np.concatenate([-(F_y.T @ lam) - g_y, -np.array(mu)])

    back = solve_ivp(backward, (t1, t0), np.zeros(n + len(names)), **options)
    _check_run(system, back)
    lam0, mu0 = back.y[:n, -1], back.y[n:, -1]
    times = np.array(forward.t) if outputs is None else outputs
    states = [base.state_at(forward.sol(t)[:n], t) for t in times]
    return Sensitivities(times, np.array([p for p, _ in states]), np.array([v for _, v in states]), {}, {},
                         tuple(names), float(forward.y[n, -1]),
                         dict(zip(names, (mu0 + S0 @ lam0).tolist())), back.message, "adjoint")


def _check_run(system, run):
    if run.status != 0:
        raise ArgumentError(f"sensitivities of system {system.name!r}: the run stopped at t = {run.t[-1]:.6g}: "
                            f"{run.message}")


def _prepared(formulation, system, state, t0):
    form = create(formulation, system, backend="numpy")
    if form.uses_post_step:
        raise ArgumentError(f"sensitivities: formulation {form.label()!r} changes its state after steps (a "
                            f"projection or a new chart); the variational equations need a smooth right-hand side: "
                            f"use it without projection")
    form.prepare(*(np.asarray(x, dtype=float) for x in state), t0=t0)
    return form


def _output(system, output) -> Callable | None:
    if output is None:
        return None
    if output == "kinetic energy":
        return lambda t, p, v, s: 0.5 * float(v @ s.numeric.dynamics(t, p, v, s.params).M @ v)
    if callable(output):
        return lambda t, p, v, s: float(output(t, p, v))
    raise ArgumentError(f"sensitivities got output {output!r} but expected a function g(t, p, v) -> float or "
                        f"'kinetic energy'")


def _along(f, y, direction):
    """The central difference of f along ``direction`` at y: f_y direction (0 for a zero direction)."""
    size = float(np.linalg.norm(direction))
    if size == 0.0:
        return np.zeros_like(np.atleast_1d(f(y)), dtype=float)
    h = STEP * (1.0 + float(np.linalg.norm(y))) / size
    return (np.atleast_1d(f(y + h * direction)) - np.atleast_1d(f(y - h * direction))) / (2 * h)


def _result(system, base, forms, deltas, names, run, n, k, has_output, keep):
    """The Sensitivities at the output times run.t[keep]; G and its gradient at t1 (the last column)."""
    Y = run.y[:n, keep].T
    S = run.y[n:n + n * k, keep].T.reshape(-1, k, n)
    P, V, dP, dV = [], [], {m: [] for m in names}, {m: [] for m in names}
    for i, t in enumerate(run.t[keep]):
        p, v = base.state_at(Y[i], t)
        P.append(p), V.append(v)
        for j, (name, (plus, minus)) in enumerate(zip(names, forms)):
            along = _along(lambda x: np.concatenate(base.state_at(x, t)), Y[i], S[i, j])
            explicit = (np.concatenate(plus.state_at(Y[i], t)) - np.concatenate(minus.state_at(Y[i], t))) / (
                2 * deltas[j])
            dP[name].append((along + explicit)[:p.size]), dV[name].append((along + explicit)[p.size:])
    output = gradient = None
    if has_output:
        output = float(run.y[n + n * k, -1])
        gradient = dict(zip(names, run.y[n + n * k + 1:, -1].tolist()))
    return Sensitivities(np.array(run.t[keep]), np.array(P), np.array(V), {m: np.array(x) for m, x in dP.items()},
                         {m: np.array(x) for m, x in dV.items()}, tuple(names), output, gradient, run.message)

"""Faults met during a run, named where they appear: a right-hand side that is not finite is traced
to the piece of the model that is not (the forces f, the mass matrix M ...), and a step size that
falls below the spacing of floating-point numbers is explained with the quantity that grew."""
from __future__ import annotations

import numpy as np

from ..coordinates.charts import ChartError
from ..errors import StopRun
from ..linalg import SingularMatrixError, null_space

# the pieces of systems.numeric.model.NumericModel.dynamics, in its order, with their names in messages
PIECES = (("M", "the mass matrix M"), ("d", "the velocity-dependent inertia terms d"), ("f", "the forces f"),
          ("F", "the multiplier part of the forces F_lambda"), ("C", "the constraint rows C"),
          ("xi", "the constraint acceleration terms xi"), ("A", "the kinematic matrix A"), (None, None))


def _where(names, x) -> str:
    return ", ".join(f"{n}={val:.6g}" for n, val in zip(names, x))


def pieces(formulation, t, y):
    """(p, v, {name: array}) of the model's pieces at the own state y (p renormalized), or None where
    the state is not finite or cannot be mapped to (p, v)."""
    if not np.all(np.isfinite(y)):
        return None
    try:
        with np.errstate(all="ignore"):
            p, v = formulation.state_at(y, t)
            _, values = formulation.dynamics(t, p, v)
    except (np.linalg.LinAlgError, ChartError, StopRun, ValueError, ZeroDivisionError):
        return None  # the own state cannot be mapped back here (e.g. a singular choice of u)
    return p, v, {key: np.asarray(val, float) for (key, _), val in zip(PIECES, values) if key}


def _lowest_inertia(values):
    """The smallest eigenvalue of M on the null space of C, from the pieces ``values``: the least
    kinetic energy 2 T / |v|^2 of an admissible velocity there; None where M or C is not finite."""
    M, C = values["M"], values["C"]
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(C))):
        return None
    N = null_space(C)
    return float(np.min(np.linalg.eigvalsh(N.T @ M @ N))) if N.size else np.inf


def not_finite(formulation, t, y):
    """StopRun naming the first piece of the model that is not finite at (t, y), or None (also
    where y itself is not finite: the solver then rejects the trial step)."""
    found = pieces(formulation, t, y)
    if found is None:
        return None
    p, v, values = found
    system = formulation.system
    for key, label in PIECES:
        if key and not np.all(np.isfinite(values[key])):
            return StopRun(f"{label} {'is' if key in ('M', 'C', 'A') else 'are'} not finite at t = {t:.6g} "
                           f"(p = ({_where(system.coordinate_names, p)}), v = ({_where(system.velocity_names, v)}))",
                           quantity=key)
    return None


def guarded_rhs(formulation, counter, reject_singular):
    """y' = F(t, y), counted. A piece of the model that is not finite at a finite state ends the run
    with a StopRun naming it; where ``reject_singular``, a singular trial stage gives NaN so that the
    solver shrinks the step instead of ending the run. On the compiled backend F is one call into
    machine code where the formulation allows it (compiled_rk.machine_code_rhs)."""
    from .compiled_rk import machine_code_rhs

    rhs = machine_code_rhs(formulation) or formulation.rhs

    def fun(t, y):
        counter[0] += 1
        try:
            out = rhs(t, y)
        except (SingularMatrixError, ChartError):
            stop = not_finite(formulation, t, y)
            if stop is not None:
                raise stop from None
            if reject_singular:
                return np.full(len(y), np.nan)
            raise
        if not np.isfinite(out).all():
            stop = not_finite(formulation, t, y)
            if stop is not None:
                raise stop
        return out

    return fun


def explain_step_failure(formulation, t0, y0):
    """explain(t, y) -> text: what a step size below the spacing of floating-point numbers at (t, y)
    means, with the piece of the model (or the accelerations) that grew most since (t0, y0)."""
    def size(formulation_, t, y):
        """(the pieces' sizes and v''s, the lowest inertia, p) at (t, y), from one evaluation."""
        found = pieces(formulation_, t, y)
        if found is None:
            return None
        p, _, values = found
        out = {key: float(np.max(np.abs(val), initial=0.0)) for key, val in values.items()}
        try:
            with np.errstate(all="ignore"):
                out["v'"] = float(np.max(np.abs(formulation_.accelerations(t, y, False)[1]), initial=0.0))
        except (np.linalg.LinAlgError, StopRun, ChartError, ValueError):
            pass
        return out, _lowest_inertia(values), p

    start, start_inertia, _ = size(formulation, t0, np.asarray(y0, float)) or ({}, None, None)
    labels = dict(PIECES[:-1]) | {"v'": "the accelerations v'"}

    def explain(t, y):
        text = (f"the step size fell below the spacing of floating-point numbers at t = {t:.10g}: the solution "
                f"changes faster there than double precision resolves")
        found = size(formulation, t, np.asarray(y, float))
        if found is None:
            return text + " (the state is not finite there)"
        now, inertia, p = found
        if start_inertia and inertia is not None and inertia < 1e-6 * start_inertia:
            names = formulation.system.coordinate_names
            return (text + f": the mass matrix M became singular there: its smallest eigenvalue on the admissible "
                    f"velocities fell from {start_inertia:.3g} at t = {t0:g} to {inertia:.3g} at p = "
                    f"({_where(names, p)}); the kinetic energy must be positive for every admissible "
                    f"velocity at every configuration the motion reaches")
        growth = {k: now[k] / max(start.get(k, 0.0), 1e-300) for k in now if start and np.isfinite(now[k])}
        if growth:
            key = max(growth, key=growth.get)
            if growth[key] > 1e3:
                return (text + f": {labels[key]} grew from {start[key]:.3g} at t = {t0:g} to {now[key]:.3g} (a force "
                        f"or an acceleration that blows up, or a singular configuration)")
        return text + (" (a singular configuration or a discontinuity in the forces; or a tolerance too tight for "
                       "double precision)")

    return explain

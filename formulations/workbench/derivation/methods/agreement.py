"""Proof that the methods agree: each method's equations solved for the accelerations q'' at random
rational states, parameter values and times, in 40-digit arithmetic, against the system's own
equations of motion (M v' + d = f - C^T lambda with the rows at acceleration level, as its builder
made them from Newton-Euler or Lagrange) mapped to q'' through v = D(q) q'.

Agreement of every method with that one reference to 1e-25 implies the agreement of each pair.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from ..steps import Step
from .mechanics import MethodEquations, independent_speeds, velocity_map

DIGITS = 40
STATES = 20
AGREE = 1e-25  # relative difference in q'' that counts as equal at 40 digits


@dataclass(frozen=True)
class Agreement:
    """The largest relative difference in q'' of each method from the system's own equations."""

    differences: dict   # method -> float
    states: int
    digits: int

    @property
    def agree(self) -> bool:
        return self.states > 0 and all(d <= AGREE for d in self.differences.values())


def _rationals(rng, count, low, high):
    """``count`` random rationals in [low, high] (denominators below 100), exactly as mpmath numbers."""
    fractions = [Fraction(float(x)).limit_denominator(97) for x in rng.uniform(low, high, count)]
    return [mpmath.mpf(f.numerator) / f.denominator for f in fractions]


class _Evaluator:
    """A method's (or the reference's) q'' at a state: values of q, q', the parameters and t, in that
    order (mpmath numbers for the proof, floats where a test compares with floats)."""

    def __init__(self, eq, mech):
        symbols = list(mech.q) + list(mech.qd) + list(mech.parameters) + [mech.system.time]
        on_state = {s: e for s, e in eq.velocities.items() if s != e}  # the method's speeds in q and q'
        residual = eq.residual.xreplace(on_state)
        A = residual.jacobian(eq.unknowns)
        b = residual.xreplace({s: 0 for s in eq.unknowns})
        self.fn = sp.lambdify([symbols], [A, b], modules="mpmath")
        self.qdd = sp.lambdify([symbols, list(eq.unknowns)], eq.qdd.xreplace(on_state), modules="mpmath")

    def __call__(self, values):
        A, b = self.fn(values)
        x = mpmath.lu_solve(mpmath.matrix(A), -mpmath.matrix(b))
        return mpmath.matrix(self.qdd(values, list(x)))


def reference(mech):
    """The system's own equations as a MethodEquations in v' and all multipliers, mapped to q''."""
    system = mech.system
    D = mech.D
    on_state = dict(zip(system.coordinates, system.embedding.g))
    on_state.update(dict(zip(system.velocities, D * mech.qd)))
    vdot = sp.Matrix([sp.Symbol(f"_vdot{i}") for i in range(system.n)])
    lam = sp.Matrix(system.multipliers)
    no_lam = {s: 0 for s in system.multipliers}
    dyn = sp.Matrix(system.M) * vdot + sp.Matrix(system.d) - sp.Matrix(system.f).xreplace(no_lam) + \
        (sp.Matrix(system.C).T * lam if lam.rows else sp.zeros(system.n, 1))
    acc = sp.Matrix(system.C) * vdot + sp.Matrix(system.xi) if lam.rows else sp.zeros(0, 1)
    residual = dyn.col_join(acc).xreplace(on_state)
    # q'' from v' = D q'' + D' q': least squares through D's full column rank
    Ddot_qd = (D * mech.qd).jacobian(mech.q) * mech.qd
    qdd = (D.T * D).LUsolve(D.T * (vdot - Ddot_qd))
    return MethodEquations("system", tuple(vdot) + tuple(lam), residual, qdd, {s: s for s in mech.qd})


def compare(mech, equations, seed=0) -> Agreement:
    """Each of ``equations`` (MethodEquations) against the system's own, at STATES random rational states."""
    with mpmath.workdps(DIGITS):
        return _compare(mech, equations, np.random.default_rng(seed))


def _compare(mech, equations, rng):
    ref = _Evaluator(reference(mech), mech)
    evaluators = {eq.method: _Evaluator(eq, mech) for eq in equations}
    W = _admissible(mech)
    worst = {name: 0.0 for name in evaluators}
    done = 0
    for _ in range(3 * STATES):  # a state where a method's chosen velocities are singular is drawn again
        values = _state(mech, W, rng)
        try:
            expected = ref(values)
            got = {name: ev(values) for name, ev in evaluators.items()}
        except ZeroDivisionError:
            continue
        scale = 1 + mpmath.norm(expected, mpmath.inf)
        for name, value in got.items():
            worst[name] = max(worst[name], float(mpmath.norm(value - expected, mpmath.inf) / scale))
        done += 1
        if done == STATES:
            break
    return Agreement(worst, done, DIGITS)


def _state(mech, W, rng):
    """Random rational q (|q_i| in [0.05, 0.6]), parameters in [0.5, 1.5], independent velocities in
    [-2, 2] and a time in [0, 5], with q' on the rows: the values an _Evaluator takes."""
    q = [x * (1 if rng.random() < 0.5 else -1) for x in _rationals(rng, mech.k, 0.05, 0.6)]
    params = _rationals(rng, len(mech.parameters), 0.5, 1.5)
    u = mpmath.matrix(_rationals(rng, mech.r, -2, 2))
    qd = W(*q, *params) * u if mech.l else u
    return q + list(qd) + params + _rationals(rng, 1, 0, 5)


def _admissible(mech):
    """q' = W(q) u with the independent velocities u (the minimal formulation's choice), as a function."""
    _, W = velocity_map(mech, independent_speeds(mech)[1], lambda x: x)
    return sp.lambdify(list(mech.q) + list(mech.parameters), W, modules="mpmath")


def agreement_step(agreement, titles, ideal=False) -> Step:
    """The last step of a method's derivation: each method's largest difference and the verdict;
    ``ideal``: the system's applied forces depend on its multipliers, set to zero on both sides."""
    names = ", ".join(f"{titles[m]} {d:.0e}" for m, d in agreement.differences.items())
    verdict = ("so every method gives the same motion as those equations, and so as each other" if agreement.agree
               else "so the methods do NOT all agree: a method above differs from the system's equations")
    case = (" in the ideal case (the multipliers in the applied forces set to zero, as in the methods)"
            if ideal else "")
    chain = " = ".join(rf"\ddot{{\mathbf{{q}}}}_{{\text{{{titles[m]}}}}}" for m in agreement.differences)
    return Step("agreement", "The methods agree" if agreement.agree else "The methods disagree",
                f"Solved for the accelerations at {agreement.states} random rational states, parameter values and "
                f"times in {agreement.digits}-digit arithmetic, each method's equations give the accelerations of "
                f"the system's own equations of motion ($\\mathbf{{M}}\\dot{{\\mathbf{{v}}}} + \\mathbf{{d}} = "
                f"\\mathbf{{f}}$ with the rows, as its builder made them){case} to a largest relative difference "
                f"of: {names}; {verdict}.",
                ((chain + r" = \ddot{\mathbf{q}}_{\text{system}}") if agreement.agree else
                 r"\ddot{\mathbf{q}}_{\text{method}} \neq \ddot{\mathbf{q}}_{\text{system}}",))

"""Constraint stabilization strategies: small immutable objects, not flags.

  NoStabilization()        integrate the acceleration-level equations as they are;
  Baumgarte(alpha, beta)   C v' = -xi - 2 alpha C v - beta^2 [Phi; 0]  (Baumgarte 1972);
  ConstraintDynamics(frequency, damping)
                           every constraint a spring and damper on its equivalent mass:
                           m_bar phi'' + c_bar phi' + k_bar phi = 0,  m_bar psi' + c_bar psi = 0
                           (after Natsiavas & Paraskevopoulos; Paraskevopoulos, Potosakis &
                           Natsiavas, *A weak formulation ...*);
  Projection(tol)          after every accepted step, p onto Phi = 0 by Newton iteration in the
                           kinetic-energy metric and v onto C v = 0 by the M-orthogonal
                           projection (Blajer, Multibody Syst. Dyn. 7, 2002);
  GGL()                    the stabilized index-2 form of Gear, Gupta & Leimkuhler (1985), solved
                           as a DAE by IDA: p' = A v - Phi_a_p^T mu, Phi_a(p) = 0, C v = 0.

Baumgarte and ConstraintDynamics both enter the acceleration-level rows as
    C v' = -xi - 2 alpha C v - beta^2 [Phi; 0];
they differ in what their parameters mean (``gains``). What a strategy asks of a run is declared on
it: its ``kind`` (below; ``projects`` and ``dae_only`` follow from it) and ``for_run`` (the strategy a
run uses: constraint dynamics without a frequency takes one from the motion at the start).

A strategy of your own subclasses :class:`Strategy` (or Projection) and is passed as
``create(name, system, stabilization=MyStrategy(...))`` to every formulation that takes the built-in
strategies of its kind; docs/enforcement-methods.md builds one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np


# how a strategy acts on a run; a formulation takes the kinds of the built-in strategies it names
KINDS = {
    "none": "the acceleration-level rows as they are",
    "feedback": "gains() -> (alpha, beta) in 1/s enter the rows: C v' = -xi - 2 alpha (C v + c) - beta^2 [Phi; 0]",
    "projection": "after every accepted step, p onto Phi = 0 and v onto C v = 0 (a Projection, or a subclass)",
    "dae": "the GGL form, solved as a DAE by IDA (GGL, or a subclass)",
}


class Strategy:
    """The protocol of a stabilization strategy, built in or your own (subclass it; a frozen
    dataclass keeps it immutable). It declares

    - ``name``: a short name, used in labels and tables (str);
    - ``kind``: one of KINDS: "none", "feedback", "projection" or "dae";
    - ``gains()``: for kind "feedback", (alpha, beta) in 1/s, both >= 0;
    - ``label()``: its name with its parameters, for tables (default: ``name``);
    - ``for_run(fastest_rate, t_span)``: the strategy a run over t_span uses (default: itself), e.g.
      gains chosen from the motion at the start.

    Kind "projection" is Projection's (subclass it to change tol, max_iter, positions or velocities)
    and kind "dae" is GGL's: their equations are the formulations' own."""

    name = "strategy"
    kind = "none"

    @property
    def projects(self) -> bool:
        """Whether it moves the state onto the constraints after every accepted step."""
        return self.kind == "projection"

    @property
    def dae_only(self) -> bool:
        """Whether its equations are a DAE (method 'IDA' only)."""
        return self.kind == "dae"

    def label(self) -> str:
        return self.name

    def for_run(self, fastest_rate, t_span):
        """The strategy a run over t_span uses: this one, unless it is chosen from the motion at the
        start (``fastest_rate()``: the largest abs(eigenvalue) of the unstabilized right-hand side there,
        in 1/s)."""
        return self


@dataclass(frozen=True)
class NoStabilization(Strategy):
    """The acceleration-level rows as they are: Phi and C v drift at the integration tolerance."""

    name = "none"


@dataclass(frozen=True)
class Baumgarte(Strategy):
    """Feedback on the constraint residuals; alpha, beta in 1/s."""

    alpha: float = 5.0
    beta: float = 5.0
    name = "baumgarte"
    kind = "feedback"

    def __post_init__(self):
        if not (self.alpha >= 0 and self.beta >= 0):
            raise ValueError(f"Baumgarte got alpha={self.alpha}, beta={self.beta} but expected both >= 0")

    def label(self) -> str:
        return f"baumgarte(alpha={self.alpha:g}, beta={self.beta:g})"

    def gains(self):
        """(alpha, beta) in 1/s."""
        return self.alpha, self.beta


@dataclass(frozen=True)
class ConstraintDynamics(Strategy):
    """Constraint violations as damped oscillators with physical parameters.

    Each constraint row R is given the equivalent mass m_bar_R = 1 / (c_R M^-1 c_R^T) (c_R its row
    of C; kg for a length constraint), a stiffness k_bar_R = m_bar_R omega^2 and a damping
    c_bar_R = 2 zeta omega m_bar_R, with omega = 2 pi frequency. With m_bar frozen over a step the
    violations obey phi'' + 2 zeta omega phi' + omega^2 phi = 0 (holonomic) and
    psi' + 2 zeta omega psi = 0 (nonholonomic, psi = C_nh v) exactly, whatever the system.
    frequency in Hz; None (default): omega twice the fastest rate of the motion at the start (the
    largest abs(eigenvalue) of the formulation's Jacobian; at least ten cycles over the simulated
    interval), chosen when a simulation starts. damping: ratio zeta (1 = critical).
    """

    frequency: float | None = None
    damping: float = 1.0
    name = "constraint_dynamics"
    kind = "feedback"

    def __post_init__(self):
        if self.frequency is not None and not self.frequency > 0:
            raise ValueError(f"ConstraintDynamics got frequency={self.frequency} but expected a positive value in Hz "
                             f"or None")
        if not self.damping > 0:
            raise ValueError(f"ConstraintDynamics got damping={self.damping} but expected a positive ratio")

    @property
    def omega(self) -> float:
        if self.frequency is None:
            raise ValueError("ConstraintDynamics: the frequency is chosen when a simulation starts")
        return 2 * np.pi * self.frequency

    def gains(self):
        """(alpha, beta) in 1/s: alpha = zeta omega, beta = omega."""
        return self.damping * self.omega, self.omega

    def for_run(self, fastest_rate, t_span):
        """Without a frequency: omega twice the fastest rate of the motion at the start, and at least
        ten cycles over t_span. Faster constraint dynamics makes explicit integrators take steps for
        stability (benchmarks/enforcement_methods.py measures the trade)."""
        if self.frequency is not None:
            return self
        omega = max(2.0 * fastest_rate(), 2 * np.pi * 10.0 / abs(t_span[1] - t_span[0]))
        return replace(self, frequency=omega / (2 * np.pi))

    def label(self) -> str:
        freq = "auto" if self.frequency is None else f"{self.frequency:.3g} Hz"
        return f"constraint_dynamics({freq}, zeta={self.damping:g})"

    @staticmethod
    def equivalent_mass(M, C):
        """m_bar (c,): 1 / (c_R M^-1 c_R^T) per row of C (c, n); M (n, n)."""
        if C.shape[0] == 0:
            return np.zeros(0)
        return 1.0 / np.einsum("ij,ji->i", C, np.linalg.solve(M, C.T))

    def coefficients(self, M, C):
        """(m_bar, c_bar, k_bar), each (c,): the constraints' equivalent mass, damping and stiffness
        (SI: kg, N s/m, N/m for a length constraint; the nonholonomic rows use m_bar and c_bar)."""
        m_bar = self.equivalent_mass(M, C)
        return m_bar, 2 * self.damping * self.omega * m_bar, self.omega**2 * m_bar


@dataclass(frozen=True)
class GGL(Strategy):
    """Gear-Gupta-Leimkuhler stabilized index-2 form (DAE; method 'IDA' only)."""

    name = "ggl"
    kind = "dae"


@dataclass(frozen=True)
class Projection(Strategy):
    """Post-step projection of positions (Newton, to ``tol``) and velocities."""

    tol: float = 1e-12
    max_iter: int = 20
    positions: bool = True
    velocities: bool = True
    name = "projection"
    kind = "projection"

    def __post_init__(self):
        if not self.tol > 0:
            raise ValueError(f"Projection got tol={self.tol} but expected tol > 0")


STRATEGIES = {"none": NoStabilization, "baumgarte": Baumgarte, "projection": Projection,
              "constraint_dynamics": ConstraintDynamics, "ggl": GGL}


def as_strategy(value):
    """A strategy object from a Strategy (built in or your own, its declarations checked), a
    built-in's name, or None (none)."""
    if value is None:
        return NoStabilization()
    if isinstance(value, str):
        if value not in STRATEGIES:
            raise ValueError(f"stabilization got {value!r} but expected one of: {', '.join(STRATEGIES)}")
        return STRATEGIES[value]()
    if isinstance(value, Strategy):
        _check_declarations(value)
        return value
    raise ValueError(f"stabilization got {value!r} but expected a Strategy object (formulations.stabilization) or "
                     f"one of: {', '.join(STRATEGIES)}")


def _check_declarations(strategy):
    """ValueError naming what a strategy of one's own declares wrongly (see Strategy)."""
    what = type(strategy).__name__
    if not isinstance(strategy.name, str) or not strategy.name:
        raise ValueError(f"stabilization {what} declares name={strategy.name!r} but expected a non-empty string")
    if strategy.kind not in KINDS:
        raise ValueError(f"stabilization {what} declares kind={strategy.kind!r} but expected one of: "
                         f"{', '.join(KINDS)}")
    if strategy.kind == "feedback" and not callable(getattr(strategy, "gains", None)):
        raise ValueError(f"stabilization {what} is of kind 'feedback' but has no gains() -> (alpha, beta)")
    owner = {"projection": Projection, "dae": GGL}.get(strategy.kind)
    if owner is not None and not isinstance(strategy, owner):
        raise ValueError(f"stabilization {what} is of kind {strategy.kind!r}, which is {owner.__name__}'s: subclass "
                         f"{owner.__name__} to change its parameters")


def takes(names, strategy) -> bool:
    """Whether a formulation whose built-in strategies are ``names`` takes ``strategy``: a built-in
    it names, or one of one's own of a kind that a named built-in has."""
    if type(strategy) in STRATEGIES.values():
        return strategy.name in names
    return strategy.kind in {STRATEGIES[name].kind for name in names}


def compiled_like(value):
    """The built-in strategy whose runs need the same machine code as ``value``'s (itself where it is
    built in): a background compile rebuilds the formulation in another process, which cannot import
    a strategy defined in a user's script."""
    strategy = as_strategy(value)
    if type(strategy) in STRATEGIES.values():
        return strategy
    return {"none": NoStabilization(), "feedback": Baumgarte(), "projection": Projection(), "dae": GGL()}[strategy.kind]


def fastest_rate(rhs, t, y) -> float:
    """max abs(eigenvalue) of d rhs / d y at (t, y) by central differences, in 1/s."""
    J = np.empty((y.size, y.size))
    for j in range(y.size):
        h = 1e-6 * (1.0 + abs(y[j]))
        e = np.zeros(y.size)
        e[j] = h
        J[:, j] = (rhs(t, y + e) - rhs(t, y - e)) / (2 * h)
    return float(np.max(np.abs(np.linalg.eigvals(J)), initial=0.0))

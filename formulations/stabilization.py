"""Constraint stabilization strategies: small immutable objects, not flags.

  NoStabilization()        integrate the acceleration-level equations as they are;
  Baumgarte(alpha, beta)   C v' = -xi - 2 alpha C v - beta^2 [Phi; 0]  (Baumgarte 1972);
  Projection(tol)          after every accepted step, p onto Phi = 0 by Newton iteration in the
                           kinetic-energy metric and v onto C v = 0 by the M-orthogonal
                           projection (Blajer, Multibody Syst. Dyn. 7, 2002).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NoStabilization:
    name = "none"

    def label(self) -> str:
        return "none"


@dataclass(frozen=True)
class Baumgarte:
    """Feedback on the constraint residuals; alpha, beta in 1/s."""

    alpha: float = 5.0
    beta: float = 5.0
    name = "baumgarte"

    def __post_init__(self):
        if not (self.alpha >= 0 and self.beta >= 0):
            raise ValueError(f"Baumgarte got alpha={self.alpha}, beta={self.beta} but expected both >= 0")

    def label(self) -> str:
        return f"baumgarte(alpha={self.alpha:g}, beta={self.beta:g})"


@dataclass(frozen=True)
class Projection:
    """Post-step projection of positions (Newton, to ``tol``) and velocities."""

    tol: float = 1e-12
    max_iter: int = 20
    positions: bool = True
    velocities: bool = True
    name = "projection"

    def __post_init__(self):
        if not self.tol > 0:
            raise ValueError(f"Projection got tol={self.tol} but expected tol > 0")

    def label(self) -> str:
        return "projection"


STRATEGIES = {"none": NoStabilization, "baumgarte": Baumgarte, "projection": Projection}


def as_strategy(value):
    """A strategy object from an object, a name, or None (none)."""
    if value is None:
        return NoStabilization()
    if isinstance(value, str):
        if value not in STRATEGIES:
            raise ValueError(f"stabilization got {value!r} but expected one of: {', '.join(STRATEGIES)}")
        return STRATEGIES[value]()
    if isinstance(value, (NoStabilization, Baumgarte, Projection)):
        return value
    raise ValueError(f"stabilization got {value!r} but expected a strategy object or one of: {', '.join(STRATEGIES)}")

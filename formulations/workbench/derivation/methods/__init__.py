"""The classical methods of analytical mechanics, each deriving one system's equations of motion from
its kinetic energy, potential energy and generalized forces: Lagrange's equations with multipliers,
Maggi's, Gibbs-Appell's, Kane's, Boltzmann-Hamel's, Chaplygin's and Voronets' equations; and the
proof that they agree (agreement.py)."""
from __future__ import annotations

from dataclasses import dataclass

from .appell import gibbs_appell
from .chaplygin import reduced_equations
from .hamel import boltzmann_hamel
from .lagrange import kane, lagrange, maggi


@dataclass(frozen=True)
class Method:
    """A classical method: ``title`` (e.g. "Maggi's equations"), ``short`` (for tables), ``write``
    (mechanics, simplifier, steps, speeds) -> (pieces, MethodEquations), ``speeds``: whether it
    takes generalized speeds of the user's choice."""

    name: str
    title: str
    short: str
    write: object
    speeds: bool = False


METHODS = {m.name: m for m in (
    Method("lagrange", "Lagrange's equations with multipliers", "Lagrange", lagrange),
    Method("maggi", "Maggi's equations", "Maggi", maggi),
    Method("gibbs-appell", "The Gibbs-Appell equations", "Gibbs-Appell", gibbs_appell, True),
    Method("kane", "Kane's equations", "Kane", kane, True),
    Method("boltzmann-hamel", "The Boltzmann-Hamel equations", "Boltzmann-Hamel", boltzmann_hamel, True),
    Method("chaplygin", "Chaplygin's equations", "Chaplygin",
           lambda mech, simp, steps, given=None: reduced_equations(mech, simp, steps, True)),
    Method("voronets", "Voronets' equations", "Voronets",
           lambda mech, simp, steps, given=None: reduced_equations(mech, simp, steps, False)),
)}

__all__ = ["METHODS", "Method"]

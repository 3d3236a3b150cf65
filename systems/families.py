"""Families of initial states named by a few numbers, e.g. the rolling disc's initial lean and spin.

A family turns values of its variables into a guess (p, v) and the names of the components to
hold; :meth:`StateFamily.state` makes the guess consistent (``System.consistent_state``), so the
named quantities are exactly what the user asked for and the rest moves least. Sweeps and ensembles
(``formulations.ensemble``, ``pfaff sweep``) address the variables by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .arguments import real
from .errors import UnknownNameError


@dataclass(frozen=True)
class StateVariable:
    """One number of a family: name, default, unit and meaning."""

    name: str
    default: float
    unit: str = ""
    description: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a member of a sweep over the family does, judged from one coordinate: the member has
    ``label`` (e.g. "fallen") once abs(coordinate) reaches ``limit``."""

    coordinate: str
    limit: float
    label: str


@dataclass(frozen=True)
class StateFamily:
    """Initial states named by ``variables`` (StateVariable). ``make(system, values)`` -> (p_guess,
    v_guess, fix): a guess as float arrays (n_p,), (n,) and the coordinate or velocity names that
    :meth:`state` holds while it makes the guess consistent. ``make`` is a module-level function, so
    a system with families can be pickled to worker processes. ``outcome`` (optional) says what a
    sweep map of this family shows by default."""

    name: str
    variables: tuple
    make: Callable
    description: str = ""
    outcome: Outcome | None = None

    @property
    def variable_names(self) -> tuple:
        return tuple(v.name for v in self.variables)

    def values(self, **given) -> dict:
        """All variables' values: the defaults with ``given`` overriding (each checked finite)."""
        unknown = [k for k in given if k not in self.variable_names]
        if unknown:
            raise UnknownNameError(f"variable of state family {self.name!r}", unknown[0], self.variable_names)
        return {v.name: real(f"{self.name} variable {v.name}", given.get(v.name, v.default))
                for v in self.variables}

    def guess(self, system, **given):
        """(p_guess, v_guess, fix) for the values ``given`` (the others at their defaults)."""
        p, v, fix = self.make(system, self.values(**given))
        return np.asarray(p, float), np.asarray(v, float), tuple(fix)

    def state(self, system, **given):
        """The consistent (p, v) of this family at the values ``given``."""
        p, v, fix = self.guess(system, **given)
        return system.consistent_state(p, v, fix=fix)

    def describe(self) -> str:
        return f"{self.name}: " + ", ".join(
            f"{v.name} ({v.description or v.name}{', ' + v.unit if v.unit else ''}; default {v.default:g})"
            for v in self.variables)

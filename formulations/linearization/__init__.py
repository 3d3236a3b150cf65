"""Linearization about equilibria and steady motions in a formulation's independent state
(``linearize``), from exact derivatives of the pieces (``pieces``, ``symbolic``), its modes
(``modes``) and stability along a family of steady motions (``stability``)."""
from .linearize import METHODS, linearize, linearize_formulation
from .modes import LinearEquations, Linearization

__all__ = ["METHODS", "linearize", "linearize_formulation", "LinearEquations", "Linearization"]

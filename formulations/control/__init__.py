"""Optimal control through any formulation: direct collocation (trapezoidal, Hermite-Simpson) of a
formulation's own equations (``model``), the NLP (``transcription``) solved by IPOPT through CasADi
(``bridge``), and the check that re-simulates the optimal inputs (``check``)."""
from .solve import optimal_control

__all__ = ["optimal_control"]

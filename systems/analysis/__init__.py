"""Constraint analysis (DESIGN section 4): exactness and integrability of Pfaffian rows
(``pfaffian_rows``), the distribution ker C and its growth by Lie brackets (``distribution``),
singular configurations of Phi_p (``singular``), all within a time budget (``bounded``);
``constraints`` assembles the report (redundant rows: systems.dependent_rows)."""
from .constraints import ConstraintAnalysis, analyze_constraints, check_pfaffian

__all__ = ["ConstraintAnalysis", "analyze_constraints", "check_pfaffian"]

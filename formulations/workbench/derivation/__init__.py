"""Classroom derivations: the steps of each formulation (``steps``), the derivation object
(``derive``), its renderings as text, LaTeX and Markdown (``transcript``) and standalone code export
(``export``)."""
from .derive import Derivation, derive, minimal_accelerations

__all__ = ["Derivation", "derive", "minimal_accelerations"]

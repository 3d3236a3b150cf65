"""Numeric functions of a system's primitive pieces: the numeric model (``model``: lambdified or
compiled A, M, d, f, Phi, C, xi, ...) and the generated, compiled and cached kernels (``codegen``)."""
from .model import BACKENDS, NumericModel, compile_system, structure_hash

__all__ = ["BACKENDS", "NumericModel", "compile_system", "structure_hash"]

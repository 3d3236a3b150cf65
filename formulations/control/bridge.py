"""The NLP solver bridge: CasADi, with the IPOPT it bundles, imported when first needed.

CasADi gives the exact sparse Jacobian and Hessian of the transcription by automatic
differentiation, and ships IPOPT with MUMPS; it is an optional dependency (pip install
"pfaff[control]").
"""
from __future__ import annotations

from ..solvers.ida import MissingDependencyError


def casadi():
    """The casadi module, or MissingDependencyError with the install command."""
    try:
        import casadi as ca
    except ImportError as exc:
        raise MissingDependencyError(
            "optimal control needs the optional package casadi (with the IPOPT it bundles), which is not "
            "installed; install it with: pip install \"pfaff[control]\" (or pip install casadi)") from exc
    return ca

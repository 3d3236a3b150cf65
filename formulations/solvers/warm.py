"""Compiling ahead: the machine code of the formulations' compiled modules (the same for every
system) and the kernels of the systems given, so that a later first run on this machine compiles at
most its own system's kernels; each warmed run
is marked ready for runs on the backend "auto" (systems.numeric.background)."""
from __future__ import annotations

import time

from systems.catalogue import as_system

from .. import registry
from ..base import create
from ..dependent import Dependent
from ..errors import CapabilityError
from ..forms import COMPILED_ODE
from .background import compile_job

WARM_SYSTEMS = ("rolling_disc", "slider_crank", "knife_edge", "heavy_top")
# the methods that compile more than the loops, on the dependent formulation only: IDA's residual and
# Jacobian, the augmented Lagrangian's run (once per machine), the Lie-group loop (once per machine,
# for systems made of bodies), the variational loop (once per machine, for systems in angles)
WARM_METHODS = ("DOP853", "dopri5", "IDA", "augmented_lagrangian", "RKMK45-SE3", "NH-RATTLE")


def warm(systems=WARM_SYSTEMS, formulations=None, methods=("DOP853",), report=None) -> list:
    """Compile (or load) the compiled modules of ``formulations`` (default: every registered one with
    a compiled module, Formulation.gives_compiled_rhs) for each system (catalogue names or
    System objects) with each method (WARM_METHODS), by a short run on the compiled backend;
    every other system then reuses the machine code (formulations.kernels.compiled).
    report(line) is called after each. Returns (system, formulation, method, compile s, total s) rows;
    a formulation or method that does not apply to a system, or has no compiled loop for it, is left
    out; a short run that fails raises RuntimeError naming it."""
    if formulations is None:
        formulations = [name for name in registry.names() if registry.formulation_class(name).gives_compiled_rhs]
    rows = []
    for name in systems:
        system = as_system(name)
        for formulation in formulations:
            for method in methods:
                row = _warm_one(system, formulation, method)
                if row is None:
                    continue
                rows.append(row)
                if report is not None:
                    report(f"{system.name:20s} {formulation:10s} {method:7s} compiled in {row[3]:6.1f} s "
                           f"({row[4]:.1f} s in all)")
    return rows


def _warm_one(system, formulation, method):
    started = time.perf_counter()
    if method not in WARM_METHODS:
        raise ValueError(f"warm got method={method!r} but expected one of: {', '.join(WARM_METHODS)}")
    if method not in ("DOP853", "dopri5") and formulation != Dependent.name:
        return None
    try:
        form = create(formulation, system, backend="compiled")
    except CapabilityError:
        return None
    if form.gives(COMPILED_ODE) is not None:
        return None
    try:  # the background compile's short run (and new chart), marked ready for runs on "auto"
        traj = compile_job(form.job(method))
    except CapabilityError:  # a method the system does not allow (Lie groups: bodies only; variational: angles)
        return None
    except RuntimeError as exc:
        raise RuntimeError(f"warming {formulation} of {system.name!r} with {method}: {exc}") from None
    return system.name, formulation, method, traj.stats.compile_time, time.perf_counter() - started

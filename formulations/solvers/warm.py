"""Compiling ahead: the machine code of the formulations' compiled modules (the same for every
system) and the kernels of the systems given, so that a later first run on this machine compiles at
most its own system's kernels; each warmed run
is marked ready for runs on the backend "auto" (systems.numeric.background)."""
from __future__ import annotations

import time

from systems.catalogue import as_system

from .. import registry
from ..base import create
from ..configuration import parse_configuration
from ..dependent import Dependent
from ..errors import CapabilityError
from .background import compile_job

WARM_SYSTEMS = ("rolling_disc", "slider_crank", "knife_edge", "heavy_top")
# the methods that compile more than the loops, on the dependent formulation only: IDA's residual and
# Jacobian, the augmented Lagrangian's run (once per machine), the Lie-group loop (once per machine,
# for systems made of bodies), the variational loop (once per machine, for systems in angles)
WARM_METHODS = ("DOP853", "dopri5", "IDA", "augmented_lagrangian", "RKMK45-SE3", "RKMK45-SO3xR3", "NH-RATTLE")


def warm(systems=WARM_SYSTEMS, formulations=None, methods=("DOP853",), report=None) -> list:
    """Compile (or load) the machine code of the configurations ``formulations`` for each system
    (catalogue names or System objects), by the background compile's short run on the compiled
    backend, marked ready for runs on "auto"; every other system then reuses the formulations'
    modules (formulations.kernels.compiled). ``formulations``: configurations such as
    "dependent+projection" or "dependent@RKMK45-SE3", or a function of the system giving them;
    default: the comparison's configurations of every registered formulation. Each configuration
    runs with its own method, else with each of ``methods`` (WARM_METHODS). report(line) is called
    after each. Returns (system, configuration, method, compile s, total s) rows; a configuration or
    method that does not apply to a system is left out; a short run that fails raises RuntimeError
    naming it."""
    rows = []
    for name in systems:
        system = as_system(name)
        configurations = formulations(system) if callable(formulations) else formulations
        if configurations is None:
            configurations = [c for n in registry.names() for c in registry.formulation_class(n).comparison]
        for configuration in configurations:
            config = parse_configuration(configuration)
            for method in (config.method,) if config.method else methods:
                row = _warm_one(system, config, configuration, method)
                if row is None:
                    continue
                rows.append(row)
                if report is not None:
                    report(f"{system.name:20s} {configuration:24s} {method:13s} compiled in {row[3]:6.1f} s "
                           f"({row[4]:.1f} s in all)")
    return rows


def _warm_one(system, config, configuration, method):
    """A row of ``warm`` for ``config`` (the parsed ``configuration``) with ``method``, or None."""
    started = time.perf_counter()
    if method not in WARM_METHODS:
        raise ValueError(f"warm got method={method!r} but expected one of: {', '.join(WARM_METHODS)}")
    if method not in ("DOP853", "dopri5") and config.formulation != Dependent.name:
        return None
    try:
        given = {} if config.stabilization is None else {"stabilization": config.stabilization}
        form = create(config.formulation, system, backend="compiled", **given, **dict(config.options))
    except CapabilityError:
        return None
    # as the background compile does: where the formulation has no compiled loop for the system, its
    # short run compiles the system's kernels, which its Python evaluation calls on "auto" then
    try:  # the background compile's short run (and new chart), marked ready for runs on "auto"
        traj = compile_job(form.job(method))
    except CapabilityError:  # a method the system does not allow (Lie groups: bodies only; variational: angles)
        return None
    except RuntimeError as exc:
        raise RuntimeError(f"warming {configuration} of {system.name!r} with {method}: {exc}") from None
    return system.name, configuration, method, traj.stats.compile_time, time.perf_counter() - started

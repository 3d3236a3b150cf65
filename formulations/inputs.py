"""Inputs that vary during a run: force or torque parameters given as samples in time or as
feedback u(t, p, v) (PyDy's "specified" quantities), for ``simulate(..., inputs=...)``.

An input is a parameter that enters only f (a force or a torque; formulations.linearize's
``inputs`` names the same parameters). The run evaluates the formulation with the parameter
vector of each call's (t, p, v); the machine-code loops, whose parameters are fixed for a run,
are left for the evaluation in Python on the compiled primitives.
"""
from __future__ import annotations

import math

import numpy as np

from systems.errors import ArgumentError, UnknownNameError


class InputSchedule:
    """{parameter name: (times (K,), values (K,)) | callable (t, p, v) -> float} for one system;
    ``params(base, t, p, v)`` is the parameter vector with the inputs' values at (t, p, v).
    Samples are interpolated linearly and must cover the run (``check_span``)."""

    def __init__(self, system, inputs: dict):
        if not isinstance(inputs, dict) or not inputs:
            raise ArgumentError(f"simulate got inputs={inputs!r} but expected {{parameter name: (times, values) or "
                                f"callable(t, p, v)}}", "inputs")
        names = system.parameter_names
        forces = system.f.free_symbols - system.M.free_symbols - system.d.free_symbols
        self.system, self.index, self.sources = system, [], []
        input_names(system, list(inputs))  # known parameters, none in the kinematics or the constraints
        for name, source in inputs.items():
            symbol = system.parameters[names.index(name)].symbol
            if symbol not in forces:
                raise ArgumentError(f"simulate got input {name!r}, which does not enter only the forces f of system "
                                    f"{system.name!r}; expected a force or torque parameter", "inputs")
            self.index.append(names.index(name))
            self.sources.append(source if callable(source) else _samples(name, source))
        self.names = tuple(inputs)

    def check_span(self, t_span):
        """ArgumentError where samples do not cover t_span (they are not extrapolated)."""
        t0, t1 = t_span
        for name, source in zip(self.names, self.sources):
            if isinstance(source, _Samples) and not (source.t[0] <= t0 + 1e-12 and source.t[-1] >= t1 - 1e-12):
                raise ArgumentError(f"simulate got input {name!r} sampled over [{source.t[0]:g}, {source.t[-1]:g}] s, "
                                    f"which does not cover t_span = ({t0:g}, {t1:g}); the samples are not "
                                    f"extrapolated", "inputs")

    def params(self, base, t, p, v):
        out = np.array(base, float)
        for i, source in zip(self.index, self.sources):
            value = float(source(t, p, v))
            if not math.isfinite(value):
                raise ArgumentError(f"simulate: input {self.system.parameter_names[i]!r} is {value} at t = {t:g}",
                                    "inputs")
            out[i] = value
        return out


class _Samples:
    def __init__(self, t, values):
        self.t, self.values = t, values

    def __call__(self, t, p, v):
        return np.interp(t, self.t, self.values)


def _samples(name, source):
    try:
        t, values = (np.asarray(x, float) for x in source)
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"simulate got input {name!r}: {source!r} but expected (times, values) or a callable "
                            f"(t, p, v) -> value", "inputs") from exc
    if t.ndim != 1 or t.shape != values.shape or len(t) < 2:
        raise ArgumentError(f"simulate got input {name!r} with times of shape {t.shape} and values of shape "
                            f"{values.shape} but expected two 1-D arrays of one length >= 2", "inputs")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(values)) and np.all(np.diff(t) > 0)):
        raise ArgumentError(f"simulate got input {name!r} with times that are not increasing or values that are "
                            f"not finite", "inputs")
    return _Samples(t, values)


def input_names(system, inputs):
    """The names of parameters of ``system`` that are forces or torques (they enter only M, d and f),
    as a tuple; UnknownNameError or ArgumentError naming the first that is not."""
    if isinstance(inputs, str):
        inputs = (inputs,)
    inputs = tuple(inputs)
    if not inputs:
        return inputs
    structural = (system.A.free_symbols | system.Phi.free_symbols | system.C_nh.free_symbols
                  | (system.embedding.g.free_symbols if system.embedding is not None else set()))
    for name in inputs:
        if name not in system.parameter_names:
            raise UnknownNameError(f"parameter of system {system.name!r} (an input)", name, system.parameter_names,
                                   argument="inputs")
        symbol = system.parameters[system.parameter_names.index(name)].symbol
        if symbol in structural:
            raise ArgumentError(f"inputs got {name!r}, a parameter of system {system.name!r} that enters the "
                                f"kinematics or the constraints, but expected a parameter that enters only M, d and f "
                                f"(a force or a torque)", "inputs")
    return inputs

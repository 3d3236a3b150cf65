"""An optimal control problem, checked: its horizon, boundary conditions, inputs, cost and path
constraints, each name resolved against the system before any NLP is built."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from systems.catalogue import as_system
from systems.errors import ArgumentError, UnknownNameError

from ..inputs import input_names

SCHEMES = ("trapezoidal", "hermite-simpson")
COSTS = ("effort", "time")


@dataclass(frozen=True)
class Problem:
    """What optimal_control solves (see formulations.control.solve.optimal_control).

    t0, t1: the horizon (s); free_time: t1 is free (then t1 is the first guess, within t1_bounds);
    initial, final: {name of p or v: value}; inputs: names of force or torque parameters with
    bounds ``input_bounds`` ((lo, hi) each, +-inf where open); cost: "effort" (the integral of the
    inputs' squares), "time" (t1) or an integrand in the names of p, v, the inputs and t; path:
    {name of p, v, an input or a carried multiplier: (lo, hi)} at every collocation point.
    """

    system: object
    t0: float
    t1: float
    free_time: bool
    t1_bounds: tuple
    initial: dict
    final: dict
    inputs: tuple
    input_bounds: tuple
    cost: str
    path: dict
    nodes: int
    scheme: str


def problem(system, t_span, initial, final, inputs, cost="effort", *, path=None, nodes=40,
            scheme="trapezoidal", free_time=False, t1_bounds=None) -> Problem:
    """A checked Problem; ArgumentError (or UnknownNameError) naming the argument otherwise."""
    system = as_system(system)
    t0, t1 = _horizon(t_span)
    names, bounds = _inputs(system, inputs)
    if cost not in COSTS and not (isinstance(cost, str) and cost.strip()):
        raise ArgumentError(f"optimal_control got cost={cost!r} but expected 'effort', 'time' or an expression", "cost")
    if cost == "time" and not free_time:
        raise ArgumentError("optimal_control got cost='time' with a fixed final time; pass free_time=True", "cost")
    if scheme not in SCHEMES:
        raise UnknownNameError("collocation scheme", scheme, SCHEMES, argument="scheme")
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 2:
        raise ArgumentError(f"optimal_control got nodes={nodes!r} but expected an int >= 2 (mesh intervals)", "nodes")
    if t1_bounds is None:
        t1_bounds = ((t1 - t0) / 100.0, (t1 - t0) * 100.0) if free_time else (t1 - t0, t1 - t0)
    lo, hi = (float(x) for x in t1_bounds)
    if not 0 < lo <= hi:
        raise ArgumentError(f"optimal_control got t1_bounds={t1_bounds!r} but expected durations 0 < lo <= hi (s)",
                            "t1_bounds")
    state = set(system.coordinate_names) | set(system.velocity_names)
    initial = _conditions(system, initial, "initial", state)
    final = _conditions(system, final, "final", state)
    path = {name: _bounds(name, b, "path") for name, b in dict(path or {}).items()}
    for name, (low, high) in path.items():
        if name in initial and not low <= initial[name] <= high:
            raise ArgumentError(f"optimal_control got path bounds {name} in [{low}, {high}], which exclude the "
                                f"initial value {name} = {initial[name]}", "path")
    return Problem(system, t0, t1, bool(free_time), (lo, hi), initial, final, names, bounds, cost, path,
                   int(nodes), scheme)


def _horizon(t_span):
    try:
        t0, t1 = (float(x) for x in t_span)
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"optimal_control got t_span={t_span!r} but expected (t0, t1) in seconds", "t_span") from exc
    if not (math.isfinite(t0) and math.isfinite(t1) and t1 > t0):
        raise ArgumentError(f"optimal_control got t_span={t_span!r} but expected finite t0 < t1", "t_span")
    return t0, t1


def _inputs(system, inputs):
    """(names, bounds) from names, "NAME:lo:hi" strings or {name: (lo, hi)}."""
    if isinstance(inputs, str):
        inputs = [inputs]
    items = list(inputs.items()) if isinstance(inputs, dict) else [_split(item) for item in inputs]
    if not items:
        raise ArgumentError("optimal_control got no inputs but expected the names of force or torque parameters",
                            "inputs")
    names = input_names(system, [name for name, _ in items])
    if len(set(names)) != len(names):
        raise ArgumentError(f"optimal_control got inputs {list(names)} with a name twice", "inputs")
    return names, tuple(_bounds(name, b, "inputs") for name, b in items)


def _split(item):
    if isinstance(item, str):
        name, *rest = item.split(":")
        if rest and len(rest) != 2:
            raise ArgumentError(f"optimal_control got input {item!r} but expected NAME or NAME:lo:hi", "inputs")
        return name, tuple(rest) if rest else None
    if isinstance(item, (tuple, list)) and len(item) == 3:
        return item[0], tuple(item[1:])
    raise ArgumentError(f"optimal_control got input {item!r} but expected a name, 'NAME:lo:hi' or (name, lo, hi)",
                        "inputs")


def _bounds(name, b, where):
    if b is None:
        return -math.inf, math.inf
    try:
        lo, hi = (-math.inf if x in (None, "") else float(x) for x in b)
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"optimal_control got {where} bounds {name}: {b!r} but expected (lo, hi)", where) from exc
    hi = math.inf if b[1] in (None, "") else hi
    if not lo < hi or math.isnan(lo) or math.isnan(hi):
        raise ArgumentError(f"optimal_control got {where} bounds {name}: ({lo}, {hi}) but expected lo < hi", where)
    return lo, hi


def _conditions(system, given, where, state):
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise ArgumentError(f"optimal_control got {where}={given!r} but expected {{name of p or v: value}}", where)
    out = {}
    for name, value in given.items():
        if name not in state:
            raise UnknownNameError(f"coordinate or velocity of system {system.name!r}", name,
                                   system.coordinate_names + system.velocity_names, argument=where)
        try:
            out[name] = float(value)
        except (TypeError, ValueError) as exc:
            raise ArgumentError(f"optimal_control got {where} {name}={value!r} but expected a number", where) from exc
        if not math.isfinite(out[name]):
            raise ArgumentError(f"optimal_control got {where} {name}={value!r} but expected a finite number", where)
    return out

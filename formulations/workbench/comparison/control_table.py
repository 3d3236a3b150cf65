"""Optimal control solutions side by side: one row per formulation (NLP size, Jacobian non-zeros,
iterations, time, cost, constraint drift, re-simulation miss), as Markdown and as JSON."""
from __future__ import annotations

import json

import numpy as np

from .compare import finite

COLUMNS = ("formulation", "scheme", "points", "variables", "constraints", "jacobian non-zeros", "iterations",
           "solve [s]", "cost", "largest constraint residual", "re-simulation miss", "status")


def rows(results) -> list:
    """One list of cells per result, in COLUMNS order."""
    out = []
    for r in results:
        s = r.stats
        miss = r.resimulation.largest_miss if r.resimulation is not None else float("nan")
        out.append([r.formulation, r.scheme, len(r.t), s.variables, s.constraints, s.jacobian_nonzeros, s.iterations,
                    s.seconds, r.cost, s.largest_constraint_residual, miss, r.status.name.lower()])
    return out


def markdown(results) -> str:
    """The table as Markdown (numbers to 4-10 significant digits)."""
    def cell(x):
        if isinstance(x, float):
            return "-" if not np.isfinite(x) else f"{x:.10g}" if abs(x) >= 1e-2 else f"{x:.2e}"
        return str(x)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows(results)]
    return "\n".join(lines)


def to_json(results, indent=None) -> str:
    """The table and every solution (t, p, v, inputs) as one JSON object; NaN as null."""
    def solution(r):
        return {"system": r.system, "formulation": r.formulation, "scheme": r.scheme, "status": r.status.name.lower(),
                "message": r.message, "cost": finite(r.cost), "t": r.t.tolist(),
                "coordinates": {name: [finite(x) for x in r.state(name)] for name in r.coordinate_names},
                "velocities": {name: [finite(x) for x in r.state(name)] for name in r.velocity_names},
                "inputs": {name: [finite(x) for x in r.input(name)] for name in r.input_names},
                "units": r.units,
                "optima": [{"cost": finite(c), "starts": k, "description": d} for c, k, d in r.optima]}
    table = [dict(zip(COLUMNS, [finite(x) if isinstance(x, float) else x for x in row])) for row in rows(results)]
    return json.dumps({"table": table, "solutions": [solution(r) for r in results]}, indent=indent)

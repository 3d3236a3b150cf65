"""The result of an ensemble: one row of inputs and summaries per member, as named columns.

Memory stays bounded: a member keeps its summaries (about 50 numbers for the rolling disc), not its
trajectory, unless trajectories were asked for. ``table()`` gives flat named columns (a dict of 1-D
arrays), ``to_pandas()`` a DataFrame where pandas is installed, ``save(path)`` an .npz file with the
inputs, the settings and the versions; ``EnsembleResult.load(path)`` reads it back.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import platform
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np

from ..version import version
from .trajectory import EVENT, SUCCESS, frozen

SCALAR_COLUMNS = ("member", "status", "t_final", "steps", "rhs_evaluations", "wall_time", "error_position",
                  "error_velocity", "error_acceleration", "energy_drift", "events", "first_event_t", "outcome_t")
VECTOR_COLUMNS = ("p_final", "p_min", "p_max", "v_final", "v_min", "v_max")
TEXT_COLUMNS = ("message", "event_name")


def versions() -> dict:
    import scipy
    import sympy

    return {"pfaff": version(), "python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
            "sympy": sympy.__version__}


@dataclass(frozen=True)
class EnsembleResult:
    """inputs (N, k) under input_names, in member order (a grid's members first name slowest, its
    shape in ``shape``); columns: SCALAR_COLUMNS (N,) — status as in Trajectory (0 finished, 1
    terminal event, 2 finished with a failed check, -1 failed), t_final, steps, rhs_evaluations,
    wall_time (s), max constraint errors (position, velocity, acceleration), energy_drift
    (max abs(E - E0)), events (count), first_event_t, outcome_t (first time abs(outcome coordinate)
    reaches the outcome's limit, NaN if never) — and VECTOR_COLUMNS (N, n_p) or (N, n): final
    state and the min and max of every coordinate and velocity over the run; messages and
    event_names (N,) text. settings: the configuration and options; stats: wall time, workers,
    executor. trajectories: one Trajectory per member where asked for, else None."""

    system_name: str
    formulation: str
    input_names: tuple
    inputs: np.ndarray
    shape: tuple
    coordinate_names: tuple
    velocity_names: tuple
    columns: Mapping
    messages: tuple
    event_names: tuple
    settings: Mapping = field(default_factory=dict)
    stats: Mapping = field(default_factory=dict)
    outcome: Mapping | None = None   # {"coordinate", "limit", "label"} or None
    trajectories: tuple | None = None
    versions: Mapping = field(default_factory=versions)
    units: Mapping = field(default_factory=dict)  # {input or outcome coordinate name: unit} (System.unit_of)

    def __post_init__(self):
        inputs = np.asarray(self.inputs, float)
        inputs = inputs if inputs.ndim == 2 else inputs.reshape(-1, len(self.input_names))
        object.__setattr__(self, "inputs", frozen(inputs))
        object.__setattr__(self, "columns", MappingProxyType({k: frozen(v) for k, v in self.columns.items()}))
        for name in ("settings", "stats", "versions", "units"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "messages", tuple(self.messages))
        object.__setattr__(self, "event_names", tuple(self.event_names))

    def __reduce__(self):  # picklable (mappingproxy fields are not)
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        values.update({k: dict(values[k]) for k in ("columns", "settings", "stats", "versions", "units")})
        return (_rebuild, (values,))

    @classmethod
    def from_rows(cls, rows, system, formulation, inputs, settings, stats, outcome, keep_trajectories):
        """Built from summary rows (formulations.workbench.ensembles.members), sorted by member."""
        rows = sorted(rows, key=lambda r: r["member"])
        collected = Collected(len(rows), len(system.coordinates), len(system.velocities))
        for position, row in enumerate(rows):
            collected.add(row, position)
        return collected.result(system, formulation, inputs, settings, stats, outcome, keep_trajectories)

    # -- access --------------------------------------------------------------------------------
    def __len__(self):
        return self.inputs.shape[0]

    @property
    def status(self) -> np.ndarray:
        return self.columns["status"].astype(int)

    @property
    def success(self) -> np.ndarray:
        """(N,) bool: finished (status 0) or stopped by a terminal event (1)."""
        return np.isin(self.status, (SUCCESS, EVENT))

    @property
    def failed(self) -> tuple:
        """Indices of the members that failed (status -1)."""
        return tuple(int(i) for i in np.flatnonzero(self.status < 0))

    def input(self, name) -> np.ndarray:
        return self.inputs[:, self.input_names.index(name)]

    def coordinate(self, name, which="max") -> np.ndarray:
        """(N,) ``which`` ("final", "min" or "max") of the coordinate or velocity ``name``."""
        if name in self.coordinate_names:
            return self.columns[f"p_{which}"][:, self.coordinate_names.index(name)]
        return self.columns[f"v_{which}"][:, self.velocity_names.index(name)]

    def peak(self, name) -> np.ndarray:
        """(N,) max abs of coordinate or velocity ``name`` over each member's run."""
        return np.maximum(np.abs(self.coordinate(name, "min")), np.abs(self.coordinate(name, "max")))

    @property
    def reached(self) -> np.ndarray | None:
        """(N,) bool: the member reached the outcome's limit (None without an outcome)."""
        return None if self.outcome is None else np.isfinite(self.columns["outcome_t"])

    def on_grid(self, values) -> np.ndarray:
        """``values`` (N,) reshaped to the grid's shape."""
        return np.asarray(values).reshape(self.shape)

    def row(self, i) -> dict:
        out = {name: float(x) for name, x in zip(self.input_names, self.inputs[i])}
        out.update(self._flat_row(i))
        return out

    def _flat_row(self, i) -> dict:
        return {k: v[i].item() if isinstance(v[i], np.generic) else v[i] for k, v in self.table(inputs=False).items()}

    def table(self, inputs: bool = True) -> dict:
        """Flat named columns, 1-D each: the inputs, the scalar summaries, "x final", "x min",
        "x max" for every coordinate and velocity, message and event_name."""
        out = {name: self.inputs[:, j] for j, name in enumerate(self.input_names)} if inputs else {}
        out.update({k: self.columns[k] for k in SCALAR_COLUMNS})
        for k in ("member", "status", "steps", "rhs_evaluations", "events"):
            out[k] = self.columns[k].astype(int) if np.all(np.isfinite(self.columns[k])) else self.columns[k]
        for k in VECTOR_COLUMNS:
            names = self.coordinate_names if k[0] == "p" else self.velocity_names
            for j, name in enumerate(names):
                out[f"{name} {k[2:]}"] = self.columns[k][:, j]
        out["message"] = np.array(self.messages, dtype=object)
        out["event_name"] = np.array(self.event_names, dtype=object)
        return out

    def to_pandas(self):
        """The table as a pandas DataFrame (pandas must be installed)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("EnsembleResult.to_pandas needs pandas (pip install pandas); table() gives the same "
                              "columns as a dict of numpy arrays") from None
        return pd.DataFrame(self.table())

    def summary(self) -> dict:
        """JSON-friendly: counts by status, the worst errors, the outcome count, settings, stats."""
        status = self.status
        ok = self.success

        def worst(name):
            values = self.columns[name][ok]
            return float(np.max(values)) if values.size else None

        out = {"system": self.system_name, "formulation": self.formulation, "members": len(self),
               "inputs": list(self.input_names), "shape": list(self.shape),
               "status_counts": {str(s): int(np.sum(status == s)) for s in sorted(set(status.tolist()))},
               "failed": list(self.failed[:20]), "max_error_position": worst("error_position"),
               "max_error_velocity": worst("error_velocity"), "max_energy_drift": worst("energy_drift"),
               "settings": dict(self.settings), "stats": dict(self.stats), "versions": dict(self.versions)}
        if self.outcome is not None:
            out["outcome"] = dict(self.outcome, members=int(np.sum(self.reached)))
        return out

    def label(self, name: str) -> str:
        """``name [unit]`` for an input or the outcome's coordinate ("?" where the unit is not known)."""
        return f"{name} [{self.units.get(name, '?')}]"

    def __repr__(self):
        counts = ", ".join(f"{v} with status {k}" for k, v in self.summary()["status_counts"].items())
        return (f"<EnsembleResult {self.system_name} {self.formulation}: {len(self)} members over "
                f"{', '.join(self.input_names) or 'given states'}; {counts}>")

    # -- files ---------------------------------------------------------------------------------
    def save(self, path) -> pathlib.Path:
        """Write an .npz file: the inputs, every column, the messages and a JSON header (names,
        shape, settings, stats, outcome, versions, units). Trajectories are not saved."""
        path = pathlib.Path(path)
        header = {"system_name": self.system_name, "formulation": self.formulation,
                  "input_names": list(self.input_names), "shape": list(self.shape),
                  "coordinate_names": list(self.coordinate_names), "velocity_names": list(self.velocity_names),
                  "settings": dict(self.settings), "stats": dict(self.stats), "outcome": self.outcome,
                  "versions": dict(self.versions), "units": dict(self.units)}
        with open(path, "wb") as fh:
            np.savez_compressed(fh, header=np.array(json.dumps(header, default=str)), inputs=self.inputs,
                                messages=np.array(self.messages, dtype=str), event_names=np.array(self.event_names,
                                                                                                 dtype=str),
                                **{f"column_{k}": v for k, v in self.columns.items()})
        return path

    @classmethod
    def load(cls, path) -> "EnsembleResult":
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            columns = {k[len("column_"):]: data[k] for k in data.files if k.startswith("column_")}
            return cls(header["system_name"], header["formulation"], tuple(header["input_names"]), data["inputs"],
                       tuple(header["shape"]), tuple(header["coordinate_names"]), tuple(header["velocity_names"]),
                       columns, tuple(str(m) for m in data["messages"]), tuple(str(m) for m in data["event_names"]),
                       header["settings"], header["stats"], header["outcome"], None, header["versions"],
                       header.get("units", {}))


class Collected:
    """Summary rows kept as columns as they arrive, so that memory holds the columns (about 50
    floats a member for the rolling disc) rather than one dict of arrays per member."""

    def __init__(self, total: int, n_p: int, n: int):
        self.columns = {k: np.full(total, np.nan) for k in SCALAR_COLUMNS}
        self.columns.update({k: np.full((total, n_p if k[0] == "p" else n), np.nan) for k in VECTOR_COLUMNS})
        self.messages, self.event_names, self.trajectories = [""] * total, [""] * total, [None] * total
        self.done = np.zeros(total, bool)
        self.count = 0

    def add(self, row, position=None):
        """Store ``row`` at ``position`` (default: its member index)."""
        i = int(row["member"]) if position is None else position
        for k in SCALAR_COLUMNS + VECTOR_COLUMNS:
            self.columns[k][i] = row[k]
        self.messages[i], self.event_names[i] = row["message"], row["event_name"]
        self.trajectories[i] = row.get("trajectory")
        self.count += not self.done[i]
        self.done[i] = True

    def __len__(self):
        return self.count

    def __contains__(self, i):
        return bool(self.done[i])

    def wall_time(self, i) -> float:
        return float(self.columns["wall_time"][i])

    def result(self, system, formulation, inputs, settings, stats, outcome, keep_trajectories) -> EnsembleResult:
        """The EnsembleResult of the stored rows, in member order (the grid's shape where all are there)."""
        index = np.flatnonzero(self.done)
        members = self.columns["member"][index].astype(int)
        complete = len(inputs) == members.size == self.done.size
        return EnsembleResult(
            system.name, formulation, inputs.names, inputs.values[members] if len(inputs) else
            np.zeros((members.size, 0)), inputs.shape if complete else (members.size,), system.coordinate_names,
            system.velocity_names, {k: v[index] for k, v in self.columns.items()},
            tuple(self.messages[i] for i in index), tuple(self.event_names[i] for i in index), settings, stats,
            None if outcome is None else {"coordinate": outcome.coordinate, "limit": outcome.limit,
                                          "label": outcome.label},
            tuple(self.trajectories[i] for i in index) if keep_trajectories else None,
            units={name: system.unit_of(name) for name in inputs.names + ((outcome.coordinate,) if outcome else ())})


def _rebuild(values):
    return EnsembleResult(**values)

"""The inputs of an ensemble: which quantities vary and their values per member.

A name is a parameter of the system (``r``), a variable of one of its state families (the rolling
disc's ``lean`` and ``spin``, systems.families) or a coordinate or velocity (``theta``, ``omega_2``).
Members that change state components start from the family's (or the given base) state with those
components set, made consistent with them held (System.consistent_state).

    formulations.grid(spin=np.linspace(0, 6, 60), lean=np.linspace(0, 0.5, 20))   # 1200 members
    formulations.sample(500, seed=1, r=(0.3, 0.6), spin=(2.0, 8.0))                 # uniform
    {"spin": [1.0, 5.0], "lean": [0.1, 0.1]}                                        # given columns
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from systems.arguments import whole
from systems.errors import ArgumentError, ArgumentTypeError, UnknownNameError


@dataclass(frozen=True)
class Inputs:
    """names (k,), values (N, k) float, shape: the grid's shape (one axis per name, first name
    slowest) or (N,) for samples and given columns; axes: the grid's 1-D values per name, else None."""

    names: tuple
    values: np.ndarray
    shape: tuple
    axes: tuple | None = None

    def __post_init__(self):
        values = np.array(self.values, dtype=float)
        values = values.reshape(-1, len(self.names)) if self.names else np.zeros((0, 0))
        values.setflags(write=False)
        object.__setattr__(self, "values", values)

    def __len__(self):
        return self.values.shape[0]

    def column(self, name) -> np.ndarray:
        return self.values[:, self.names.index(name)]

    def member(self, i) -> dict:
        return {name: float(x) for name, x in zip(self.names, self.values[i])}

    def __repr__(self):
        return f"<Inputs {', '.join(self.names) or 'none'}: {len(self)} members, shape {self.shape}>"


def _values(name, values) -> np.ndarray:
    try:
        out = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name} got {values!r:.80} but expected a sequence of numbers", name) from None
    if out.size == 0 or not np.all(np.isfinite(out)):
        raise ArgumentError(f"{name} got {out.size} values{'' if out.size == 0 else ', not all finite'}; "
                            f"expected at least one finite number", name)
    return out


def grid(**axes) -> Inputs:
    """The inputs of an ensemble on a grid: the Cartesian product of the 1-D ``axes``, first name slowest.

    Parameters
    ----------
    **axes : array_like
        ``name=values``, one axis per name: a parameter of the system (``r``), a variable of one of its state
        families (the rolling disc's ``spin``) or a coordinate or velocity (``theta``, ``omega_2``), in its unit.
        The values must be finite, at least one per axis.

    Returns
    -------
    Inputs
        ``names`` (k,), ``values`` (N, k) with N the product of the axes' lengths, ``shape`` one length per axis
        (``EnsembleResult.on_grid`` reshapes a column to it) and ``axes`` the 1-D values per name.

    Raises
    ------
    ArgumentError
        Without axes, or for an axis with no values or values that are not finite.
    ArgumentTypeError
        For values that are not numbers.

    See Also
    --------
    sample : Members drawn at random.
    ensemble : Runs the members.

    Examples
    --------
    >>> import numpy as np, formulations
    >>> inputs = formulations.grid(spin=np.linspace(0.0, 6.0, 3), lean=[0.0, 0.5])  # rad/s, rad
    >>> inputs
    <Inputs spin, lean: 6 members, shape (3, 2)>
    >>> inputs.member(1), inputs.values.tolist()[-1]
    ({'spin': 0.0, 'lean': 0.5}, [6.0, 0.5])
    """
    if not axes:
        raise ArgumentError("grid got no axes; expected name=values, e.g. grid(spin=np.linspace(0, 6, 60))", "grid")
    vals = [_values(name, v) for name, v in axes.items()]
    mesh = np.meshgrid(*vals, indexing="ij")
    return Inputs(tuple(axes), np.stack([m.ravel() for m in mesh], axis=1), tuple(v.size for v in vals),
                  tuple(vals))


def sample(n, *, seed=0, **ranges) -> Inputs:
    """The inputs of an ensemble drawn at random: ``n`` members drawn uniformly from ``ranges``.

    Parameters
    ----------
    n : int
        The number of members, at least 1.
    seed : int, optional
        The seed of numpy's generator (``numpy.random.default_rng``; default 0): the same seed gives the same
        members.
    **ranges : tuple of float
        ``name=(low, high)`` with low <= high, in the quantity's unit: a parameter, a variable of a state family, or
        a coordinate or velocity.

    Returns
    -------
    Inputs
        ``names`` (k,), ``values`` (n, k) and ``shape`` (n,).

    Raises
    ------
    ArgumentError
        Without ranges, for n < 1, or for a range that is not (low, high) with low <= high.

    See Also
    --------
    grid : Members on a grid.
    ensemble : Runs the members.

    Examples
    --------
    >>> import numpy as np, formulations
    >>> inputs = formulations.sample(500, seed=1, r=(0.3, 0.6), spin=(2.0, 8.0))  # m, rad/s
    >>> inputs
    <Inputs r, spin: 500 members, shape (500,)>
    >>> bool(np.all((0.3 <= inputs.column("r")) & (inputs.column("r") <= 0.6)))
    True
    >>> np.array_equal(formulations.sample(500, seed=1, r=(0.3, 0.6), spin=(2.0, 8.0)).values, inputs.values)
    True
    """
    count = whole("sample n", n, minimum=1)
    if not ranges:
        raise ArgumentError("sample got no ranges; expected name=(low, high), e.g. sample(100, r=(0.3, 0.6))", "sample")
    rng = np.random.default_rng(seed)
    columns = []
    for name, bounds in ranges.items():
        low, high = _values(name, bounds) if np.size(bounds) == 2 else (np.nan, np.nan)
        if not low <= high:
            raise ArgumentError(f"sample {name} got {bounds!r}; expected (low, high) with low <= high", name)
        columns.append(rng.uniform(low, high, count))
    return Inputs(tuple(ranges), np.stack(columns, axis=1), (count,))


def as_inputs(inputs) -> Inputs:
    """``inputs`` as Inputs: an Inputs, a mapping of equal-length columns, or None (no inputs)."""
    if inputs is None:
        return Inputs((), np.zeros((0, 0)), (0,))
    if isinstance(inputs, Inputs):
        return inputs
    if not isinstance(inputs, dict):
        raise ArgumentTypeError(f"inputs got {type(inputs).__name__}; expected formulations.grid(...), "
                                f"formulations.sample(...) or a dict of equal-length columns", "inputs")
    columns = {name: _values(name, v) for name, v in inputs.items()}
    sizes = {c.size for c in columns.values()}
    if len(sizes) > 1:
        raise ArgumentError(f"inputs got columns of lengths {', '.join(f'{k} {c.size}' for k, c in columns.items())}; "
                            f"expected equal lengths (formulations.grid(...) makes the product of axes)", "inputs")
    n = sizes.pop() if sizes else 0
    return Inputs(tuple(columns), np.stack(list(columns.values()), axis=1) if columns else np.zeros((0, 0)), (n,))


@dataclass(frozen=True)
class Roles:
    """Which kind of quantity each input name is: parameters, family variables, state components."""

    parameters: tuple
    family: str | None
    family_variables: tuple
    components: tuple


def roles(system, names, family=None) -> Roles:
    """Sort ``names`` into parameters, variables of a state family (``family``, or the first family
    of the system that declares one of the names) and coordinate or velocity names; an unknown name
    raises UnknownNameError listing all that the system accepts."""
    params = set(system.parameter_names)
    families = [system.family(family)] if family is not None else list(system.families)
    chosen = next((f for f in families if set(f.variable_names) & set(names)), families[0] if family else None)
    fam_vars = set(chosen.variable_names) if chosen else set()
    components = set(system.coordinate_names) | set(system.velocity_names)
    valid = [*system.parameter_names, *(v for f in families for v in f.variable_names), *system.coordinate_names,
             *system.velocity_names]
    for name in names:
        if name not in params | fam_vars | components:
            raise UnknownNameError(f"quantity to vary of system {system.name!r}", name, valid, argument="inputs")
    return Roles(tuple(n for n in names if n in params), chosen.name if chosen else None,
                 tuple(n for n in names if n in fam_vars and n not in params),
                 tuple(n for n in names if n in components and n not in params | fam_vars))

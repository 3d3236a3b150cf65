"""Physical parameters of a system: their description and the checks of the values users set."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from .arguments import real
from .errors import ArgumentError, SystemDescriptionError


@dataclass(frozen=True)
class Parameter:
    """A physical parameter: its symbol, default value, unit and meaning.

    A value users set (``systems.load``, ``System.with_parameters``) is checked: a finite number of
    the sign the symbol declares (``positive=True``, ``nonnegative=True``), of magnitude between
    1e-12 and 1e12 (zero where allowed). The constructor takes the first five attributes below, in order.

    Attributes
    ----------
    symbol : Symbol
        The sympy symbol that stands for it in the description's expressions.
    default : float
        Default value, in ``unit``.
    unit : str
        Its unit, e.g. "kg", "m" or "m/s^2" (default "").
    description : str
        Its meaning, e.g. "mass" (default "").
    alias : str
        The name users pass (e.g. "thickness" for the symbol h); default: the symbol's name.
    name : str
        ``alias``, or the symbol's name without one (read-only).

    Examples
    --------
    >>> import sympy as sp, systems
    >>> radius = systems.Parameter(sp.Symbol("r", positive=True), 0.5, "m", "radius")
    >>> radius.name, radius.default, radius.unit
    ('r', 0.5, 'm')
    >>> [p.name for p in systems.load("rolling_disc").parameters][:4]
    ['m', 'r', 'g', 'thickness']
    """

    symbol: sp.Symbol
    default: float
    unit: str = ""
    description: str = ""
    alias: str = ""  # the name users pass (e.g. "thickness" for the symbol h); default symbol name

    @property
    def name(self) -> str:
        return self.alias or self.symbol.name


PARAMETER_RANGE = 1e12  # |value| <= this, and positive values >= its inverse: beyond, the model's numbers overflow


def parameter_value(system_name, par: "Parameter", value) -> float:
    """``value`` of parameter ``par`` checked: a finite real number (or its text), of the sign the
    symbol declares, of magnitude within [1 / PARAMETER_RANGE, PARAMETER_RANGE] (zero where
    allowed). ArgumentTypeError for what is not a number, SystemDescriptionError for a value out of
    range; both name the parameter, its unit, meaning and default."""
    sym = par.symbol
    sign = "a positive value" if sym.is_positive else "a value >= 0" if sym.is_nonnegative else "a real value"
    expected = (f"{sign}{f' in {par.unit}' if par.unit else ''} of magnitude between {1 / PARAMETER_RANGE:g} and "
                f"{PARAMETER_RANGE:g} ({par.description or par.name}; default {par.default:g})")
    if isinstance(value, str):  # a number written out, as on a command line
        try:
            value = float(value.strip())
        except ValueError:
            pass
    try:
        x = real(f"parameter {par.name} of system {system_name!r}", value, finite=False, expected=expected)
    except ArgumentError:  # NaN
        x = float("nan")
    bad = (not np.isfinite(x) or (sym.is_positive and not x > 0) or (sym.is_nonnegative and not x >= 0)
           or abs(x) > PARAMETER_RANGE or (x != 0 and abs(x) < 1 / PARAMETER_RANGE))
    if bad:
        raise SystemDescriptionError(system_name, [f"parameter {par.name} got {x:g} but expected {expected}"])
    return x


def check_fields(system):
    """The fields read before validation: a str name and Parameter objects."""
    if not isinstance(system.name, str) or not system.name:
        raise SystemDescriptionError(repr(system.name), [f"name got {system.name!r} but expected a non-empty str"])
    bad = [f"parameters[{i}] got {p!r} ({type(p).__name__}) but expected a systems.Parameter(symbol, default, unit, "
           f"description)" for i, p in enumerate(system.parameters) if not isinstance(p, Parameter)]
    if bad:
        raise SystemDescriptionError(system.name, bad)
    missing = [_missing_default(p) for p in system.parameters if not _is_number(p.default)]
    if missing:
        raise SystemDescriptionError(system.name, missing)


def _is_number(value) -> bool:
    """A value float() converts (a Python, numpy or sympy number); None and symbols are not."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _missing_default(par) -> str:
    unit = f" in {par.unit}" if par.unit else ""
    return (f"parameter {par.name} got default {par.default!r} ({type(par.default).__name__}) but expected a number"
            f"{unit} ({par.description or 'its value'}); give it one: systems.Parameter({par.name}, <value>, "
            f"{par.unit!r}, ...)")

"""Checks of arguments at the public boundary: each returns the value converted (a float, an int,
a float array) or raises ArgumentTypeError / ArgumentError naming the argument, the value got and
what is expected."""
from __future__ import annotations

import numbers

import numpy as np

from .errors import ArgumentError, ArgumentTypeError


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def real(argument: str, value, *, positive=False, nonnegative=False, low=None, high=None, finite=True,
         expected="", fix="") -> float:
    """``value`` as a float: a real number (not a bool, a string or a sequence), finite unless
    finite=False, and within the stated bounds (``low`` <= value <= ``high``)."""
    what = expected or ("a positive number" if positive else "a number >= 0" if nonnegative else "a real number")
    tail = f" ({fix})" if fix else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        if isinstance(value, np.ndarray) and value.ndim == 0 and np.issubdtype(value.dtype, np.number):
            value = value.item()
        else:
            raise ArgumentTypeError(f"{argument} got {_show(value)} ({type(value).__name__}) but expected {what}{tail}",
                                    argument)
    x = float(value)
    if np.isnan(x) or (finite and not np.isfinite(x)):
        raise ArgumentError(f"{argument} got {x!r} but expected {what}, finite{tail}", argument)
    if (positive and not x > 0) or (nonnegative and not x >= 0) or (low is not None and x < low) or (
            high is not None and x > high):
        raise ArgumentError(f"{argument} got {x:g} but expected {what}{tail}", argument)
    return x


def whole(argument: str, value, *, minimum=None, fix="") -> int:
    """``value`` as an int: an int, an integral float or a string of digits; not a bool nor 2.5."""
    tail = f" ({fix})" if fix else ""
    expected = f"a whole number{'' if minimum is None else f' >= {minimum}'}"
    x = value
    if isinstance(value, str):
        try:
            x = float(value.strip())
        except ValueError:
            raise ArgumentTypeError(f"{argument} got {_show(value)} but expected {expected}{tail}", argument) from None
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.integer, np.floating)):
        raise ArgumentTypeError(f"{argument} got {_show(value)} ({type(value).__name__}) but expected {expected}{tail}",
                                argument)
    if not np.isfinite(float(x)) or float(x) != int(x):
        raise ArgumentError(f"{argument} got {_show(value)} but expected {expected}{tail}", argument)
    n = int(x)
    if minimum is not None and n < minimum:
        raise ArgumentError(f"{argument} got {n} but expected {expected}{tail}", argument)
    return n


def vector(argument: str, value, length: int | None = None, names=(), *, finite=True) -> np.ndarray:
    """``value`` (an array or a list of numbers) as a 1-D float array of ``length`` entries (named
    ``names`` in the message), finite unless finite=False."""
    if isinstance(value, (str, bytes)) or value is None or _holds_text(value):
        raise ArgumentTypeError(f"{argument} got {_show(value)} but expected an array of {length or 'some'} numbers"
                                f"{_named(names)}", argument)
    try:
        x = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{argument} got {_show(value)} but expected an array of {length or 'some'} "
                                f"numbers{_named(names)}", argument) from None
    if x.ndim != 1 or (length is not None and x.size != length):
        raise ArgumentError(f"{argument} got shape {x.shape} but expected ({length},){_named(names)}"
                            if length is not None else f"{argument} got shape {x.shape} but expected a 1-D array",
                            argument)
    if finite and not np.all(np.isfinite(x)):
        bad = [names[i] if i < len(names) else str(i) for i in np.flatnonzero(~np.isfinite(x))]
        raise ArgumentError(f"{argument} has non-finite entries ({', '.join(bad[:6])}) but expected finite numbers",
                            argument)
    return x


def _holds_text(value) -> bool:
    """Whether ``value`` holds strings, which numpy would read as numbers where they spell one ("0")."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        return False
    return raw.dtype.kind in "SU" or (raw.dtype.kind == "O" and any(isinstance(e, (str, bytes)) for e in raw.ravel()))


def _named(names) -> str:
    return f": {', '.join(names)}" if names else ""


def time_span(value, argument="t_span") -> tuple:
    """(t0, t1) as floats, finite, t1 > t0."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ArgumentTypeError(f"{argument} got {_show(value)} but expected a pair (t0, t1) of times in s, "
                                f"e.g. (0.0, 10.0)", argument)
    t0 = real(f"{argument}[0]", value[0])
    t1 = real(f"{argument}[1]", value[1])
    if not t1 > t0:
        raise ArgumentError(f"{argument} got ({t0:g}, {t1:g}) but expected t1 > t0 (the run goes forward in time)",
                            argument)
    return t0, t1


def time_grid(value, span, argument="t_eval") -> np.ndarray:
    """Output times: a non-empty, finite, strictly increasing 1-D array inside ``span`` = (t0, t1)."""
    t = vector(argument, value, finite=False)
    t0, t1 = span
    if t.size == 0:
        raise ArgumentError(f"{argument} is empty but expected at least one output time in [{t0:g}, {t1:g}] "
                            f"(None: every step)", argument)
    if not np.all(np.isfinite(t)):
        raise ArgumentError(f"{argument} has non-finite entries (at {np.flatnonzero(~np.isfinite(t))[:5].tolist()}) "
                            f"but expected finite times", argument)
    if t.size > 1 and not np.all(np.diff(t) > 0):
        i = int(np.flatnonzero(np.diff(t) <= 0)[0])
        raise ArgumentError(f"{argument} is not strictly increasing (t_eval[{i}] = {t[i]:g}, t_eval[{i + 1}] = "
                            f"{t[i + 1]:g}) but expected sorted times without repeats (np.unique(t_eval) sorts)",
                            argument)
    slack = 8 * np.finfo(float).eps * max(abs(t0), abs(t1), 1.0)
    if t[0] < t0 - slack or t[-1] > t1 + slack:
        raise ArgumentError(f"{argument} runs from {t[0]:g} to {t[-1]:g} but expected times inside t_span = "
                            f"[{t0:g}, {t1:g}]", argument)
    return np.clip(t, t0, t1)


def state_pair(system, value, argument="state0"):
    """(p, v) of ``system`` from a pair of arrays or lists, lengths and finiteness checked."""
    n_p, n = len(system.coordinates), system.n
    if isinstance(value, np.ndarray) or isinstance(value, (str, bytes)) or not hasattr(value, "__len__") \
            or len(value) != 2:
        hint = (f"; split a joined array y as (y[:{n_p}], y[{n_p}:])" if isinstance(value, np.ndarray)
                and value.ndim == 1 and value.size == n_p + n else "")
        raise ArgumentTypeError(f"{argument} got {_show(value)} but expected a pair (p, v): p of {n_p} coordinates "
                                f"({', '.join(system.coordinate_names)}) and v of {n} velocities "
                                f"({', '.join(system.velocity_names)}){hint}", argument)
    p = vector(f"{argument} p", value[0], n_p, system.coordinate_names)
    v = vector(f"{argument} v", value[1], n, system.velocity_names)
    return p, v

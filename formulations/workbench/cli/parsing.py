"""Reading and checking command-line input: numbers, ``--set name=value``, names with suggestions.

Every problem is raised as UsageError with a message that names the option, the value and the fix;
the command line prints it as one line and exits with status 2.
"""
from __future__ import annotations

import argparse
import difflib
import math
import re

import numpy as np

import systems
from formulations.solvers.options import RTOL_RANGE

# a value that starts with '-' and is a number: argparse would take it for an option
_NEGATIVE = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)


class UsageError(Exception):
    """Bad input from the command line; printed as one line, exit status 2."""


def join_negative_values(argv):
    """``--rtol -1e-6`` as ``--rtol=-1e-6``, so that a negative number is read as the option's value
    (and then checked) rather than as an unknown option; the two values of ``--range`` stay apart (argparse
    reads negative numbers there as values)."""
    out = []
    for token in argv:
        if out and _NEGATIVE.match(token) and out[-1].startswith("--") and "=" not in out[-1] \
                and out[-1] != "--range":
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def number(kind="positive", below=None):
    """An argparse type: a finite float, > 0 (kind "positive"), >= 0 (kind "non-negative") or of
    either sign (kind "real"), and < ``below`` if given."""

    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text}")
        if kind == "positive" and not value > 0:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
        if kind == "non-negative" and not value >= 0:
            raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text}")
        if below is not None and not value < below:
            raise argparse.ArgumentTypeError(f"expected a number below {below:g}, got {text}")
        return value

    return parse


def tolerance(text):
    """An argparse type for rtol, in the range of every relative tolerance (solvers.options.RTOL_RANGE)."""
    value = number()(text)
    low, high = RTOL_RANGE
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected a relative tolerance between {low:.1e} and {high:g} "
                                         f"(e.g. 1e-8), got {text}")
    return value


def count(minimum=1):
    """An argparse type: a whole number >= ``minimum``."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text}")
        return value

    return parse


def suggest(name, valid) -> str:
    """' (did you mean 'x'?)' for a near miss among ``valid``, else ''."""
    close = difflib.get_close_matches(str(name).lower(), [str(v).lower() for v in valid], n=1, cutoff=0.6)
    if not close:
        return ""
    original = next(v for v in valid if str(v).lower() == close[0])
    return f" (did you mean {original!r}?)"


def explain(exc) -> str:
    """The message of ``exc`` on one line, with a suggestion for an unknown name."""
    text = " ".join(str(exc).split())
    if isinstance(exc, systems.UnknownNameError):
        hint = suggest(exc.name, exc.valid)
        head = f"unknown {exc.kind} {exc.name!r}"
        if hint and text.startswith(head):
            text = head + hint + text[len(head):]
    return text


def _value(text):
    """A --set value: a whole number, a number, or a word (for a structural option)."""
    text = text.strip()
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_sets(items) -> dict:
    """``["r=0.3", "n=5"]`` -> {"r": 0.3, "n": 5}; a name given twice is an error."""
    values = {}
    for item in items or ():
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name or not text.strip():
            raise UsageError(f"--set takes name=value, got {item!r} (e.g. --set r=0.3)")
        if name in values:
            raise UsageError(f"--set {name} given twice ({values[name]!r} and {text.strip()!r}); give it once")
        values[name] = _value(text)
    return values


def load_system(name, sets):
    """The catalogue system ``name`` with the ``--set`` values, checked: a parameter takes a finite
    number, and the default state must give finite energy and residuals with the values given."""
    values = parse_sets(sets)
    try:
        base = systems.load(name)
    except systems.UnknownNameError as exc:
        raise UsageError(explain(exc)) from None
    parameters = set(base.parameter_names)
    for key, value in values.items():
        if key in parameters and (isinstance(value, str) or not math.isfinite(value)):
            raise UsageError(f"--set {key}={value}: {key} is a parameter of {name} and takes a finite number")
    given = " ".join(f"{k}={v:g}" if not isinstance(v, str) else f"{k}={v}" for k, v in values.items())
    try:
        with np.errstate(all="ignore"):
            system = systems.load(name, **values)
    except systems.UnknownNameError as exc:
        raise UsageError(f"--set: {explain(exc)}") from None
    except (TypeError, ValueError) as exc:  # a description check, or a structural option given a bad value
        text = explain(exc).removeprefix(f"system {name!r}: ")
        raise UsageError(f"system {name!r} with --set {given}: {text}") from None
    if any(k in parameters for k in values):
        _check_finite(system, given)
    return system


def _check_finite(system, given):
    try:
        with np.errstate(all="ignore"):
            p, v = system.default_state()
            phi, cv = system.residuals(p, v)
            energy = system.energy(p, v)
        finite = np.all(np.isfinite(p)) and np.all(np.isfinite(v)) and np.all(np.isfinite(phi)) \
            and np.all(np.isfinite(cv)) and math.isfinite(energy)
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise UsageError(f"system {system.name!r} with --set {given}: the default state cannot be evaluated "
                         f"({' '.join(str(exc).split())}); choose values of ordinary size") from None
    if not finite:
        raise UsageError(f"system {system.name!r} with --set {given}: the default state, its energy or its "
                         f"constraint residuals are not finite (overflow); choose values of ordinary size")


def backend_option(parser):
    """--backend, as every command that computes takes it."""
    parser.add_argument("--backend", default=None, choices=["auto", "numpy", "compiled"],
                        help="numeric backend: compiled (numba: the whole evaluation and loop in machine code, "
                             "cached on disk; its first use on a machine compiles for a while), numpy (the reference, "
                             "no compile step), or auto (compiled where the machine code is ready, else numpy now "
                             "while it is compiled in the background); default: $PFAFF_BACKEND, else auto")


def out_options(parser, files):
    """--out DIR (``files`` written there) and --force, as the report commands take them."""
    parser.add_argument("--out", metavar="DIR", help=f"write {files} here (a new or an empty folder)")
    parser.add_argument("--force", action="store_true", help="write into a non-empty --out folder")


def output_folder(args):
    """The OutputFolder of --out (None without --out; it checks the target, writes nothing yet);
    UsageError for --force without --out."""
    from ..output import OutputFolder

    if args.force and args.out is None:
        raise UsageError("--force lets --out write into a non-empty folder: give --out DIR as well")
    return OutputFolder(args.out, force=args.force) if args.out is not None else None

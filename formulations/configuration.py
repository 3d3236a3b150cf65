"""Configuration strings, read in one place:
``formulation[[option=value,...]][+stabilization][@method[:step]]``.

    "minimal"                          the minimal formulation, the default method
    "dependent+projection@RK45"        dependent variables, projection after each step, scipy's RK45
    "dependent@augmented_lagrangian:1e-3"   a fixed-step method with its step in s
    "dependent[singular=pass]+projection"   a formulation option: run on through a singular position
    "manifold[utol=1e-10]"             a number is read as a float; true, false and none as
                                       True, False and None; anything else as a string

The options are the formulation's keyword options (``create(name, system, **options)``); a value
may not hold ",", "[", "]" or "=". Quote the string in a shell, as for pip's extras.

``formulations.create`` takes the formulation, its options and the stabilization;
``formulations.compare`` (Configuration.parse) and the command line all the parts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from systems.errors import ArgumentError, ArgumentTypeError


@dataclass(frozen=True)
class ConfigurationText:
    """The parts of a configuration string; None where the string leaves a part out."""

    formulation: str
    stabilization: str | None = None
    method: str | None = None
    step: float | None = None
    options: tuple = ()  # (name, value) pairs in the order written


WORDS = {"true": True, "false": False, "none": None}  # option values read as Python constants
RESERVED = ("stabilization", "method", "step")       # parts with their own place in the string


def _value_text(value) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}" if float(f"{value:g}") == value else repr(value)
    return str(value)


def option_text(options) -> str:
    """The bracket of a configuration string for ``options`` (a mapping or pairs), "" for none;
    parse_configuration reads it back to the same values (floats to the last digit)."""
    pairs = list(options.items() if hasattr(options, "items") else options)
    return "[" + ",".join(f"{k}={_value_text(v)}" for k, v in pairs) + "]" if pairs else ""


def _options(text, bracket, argument):
    """The (name, value) pairs of ``bracket`` (the text between [ and ]) of configuration ``text``."""
    pairs = []
    for item in bracket.split(","):
        name, equals, value = (part.strip() for part in item.partition("="))
        if not (equals and name.isidentifier() and value):
            raise ArgumentError(f"{argument} got {text!r} with option {item.strip()!r} but expected name=value "
                                f"pairs separated by commas, e.g. 'dependent[singular=pass]'", argument)
        if name in dict(pairs):
            raise ArgumentError(f"{argument} got {text!r} with option {name!r} twice", argument)
        if name in RESERVED:
            raise ArgumentError(f"{argument} got {text!r} with option {name!r} in the bracket: expected it in its own "
                                f"place, formulation[[option=value]][+stabilization][@method[:step]]", argument)
        try:
            number = float(value)
        except ValueError:
            number = None
        pairs.append((name, WORDS.get(value.lower(), value) if number is None else number))
    return tuple(pairs)


def parse_configuration(text, argument="configuration") -> ConfigurationText:
    """The parts of ``text``; ArgumentError naming ``argument`` where a part is empty or the step
    is not a positive number."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"{argument} got {text!r} ({type(text).__name__}) but expected a string such as "
                                f"'dependent+projection@RK45'", argument)
    options, rest = (), text
    if "[" in text or "]" in text:  # first, since a value may hold "+", "@" or ":" (1e+3)
        match = re.fullmatch(r"([^\[\]+@:]*)\[([^\[\]]*)\]([+@][^\[\]]*)?", text)
        if match is None or not match.group(2).strip():
            raise ArgumentError(f"{argument} got {text!r} but expected the formulation's options in one bracket "
                                f"after its name, e.g. 'dependent[singular=pass]+projection'", argument)
        options, rest = _options(text, match.group(2), argument), match.group(1) + (match.group(3) or "")
    head, at, tail = rest.partition("@")
    formulation, plus, stabilization = head.partition("+")
    method, colon, step = tail.partition(":")
    empty = [name for name, given, value in (("formulation", True, formulation), ("stabilization", plus, stabilization),
                                              ("method", at, method), ("step", colon, step)) if given and not value]
    if empty:
        raise ArgumentError(f"{argument} got {text!r} with no {empty[0]}: expected "
                            f"formulation[[option=value]][+stabilization][@method[:step]], e.g. "
                            f"'dependent+projection@RK45'", argument)
    try:
        step_value = float(step) if step else None
    except ValueError:
        raise ArgumentError(f"{argument} got {text!r} with step {step!r} but expected a number after ':'",
                            argument) from None
    if step_value is not None and not step_value > 0:
        raise ArgumentError(f"{argument} got {text!r} with step {step_value:g} but expected a positive step size in s",
                            argument)
    return ConfigurationText(formulation, stabilization or None, method or None, step_value, options)

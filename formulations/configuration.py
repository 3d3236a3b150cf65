"""Configuration strings, read in one place: ``formulation[+stabilization][@method[:step]]``.

    "minimal"                          the minimal formulation, the default method
    "dependent+projection@RK45"        dependent variables, projection after each step, scipy's RK45
    "dependent@augmented_lagrangian:1e-3"   a fixed-step method with its step in s

``formulations.create`` takes the first two parts, ``formulations.compare`` (Configuration.parse)
and the command line all of them.
"""
from __future__ import annotations

from dataclasses import dataclass

from systems.errors import ArgumentError, ArgumentTypeError


@dataclass(frozen=True)
class ConfigurationText:
    """The parts of a configuration string; None where the string leaves a part out."""

    formulation: str
    stabilization: str | None = None
    method: str | None = None
    step: float | None = None


def parse_configuration(text, argument="configuration") -> ConfigurationText:
    """The parts of ``text``; ArgumentError naming ``argument`` where a part is empty or the step
    is not a positive number."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"{argument} got {text!r} ({type(text).__name__}) but expected a string such as "
                                f"'dependent+projection@RK45'", argument)
    head, at, tail = text.partition("@")
    formulation, plus, stabilization = head.partition("+")
    method, colon, step = tail.partition(":")
    empty = [name for name, given, value in (("formulation", True, formulation), ("stabilization", plus, stabilization),
                                              ("method", at, method), ("step", colon, step)) if given and not value]
    if empty:
        raise ArgumentError(f"{argument} got {text!r} with no {empty[0]}: expected "
                            f"formulation[+stabilization][@method[:step]], e.g. 'dependent+projection@RK45'", argument)
    try:
        step_value = float(step) if step else None
    except ValueError:
        raise ArgumentError(f"{argument} got {text!r} with step {step!r} but expected a number after ':'",
                            argument) from None
    if step_value is not None and not step_value > 0:
        raise ArgumentError(f"{argument} got {text!r} with step {step_value:g} but expected a positive step size in s",
                            argument)
    return ConfigurationText(formulation, stabilization or None, method or None, step_value)

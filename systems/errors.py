"""Exceptions raised by the system description and its tools."""
from __future__ import annotations

import difflib


class SystemDescriptionError(ValueError):
    """A system description is malformed; the message lists every problem found."""

    def __init__(self, system_name, problems):
        self.system_name = system_name
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        super().__init__(f"system {system_name!r}: {count} {noun} in the description:\n{lines}")


class InconsistentStateError(ValueError):
    """A state violates the constraints and could not be (or was not asked to be) repaired."""


class ArgumentError(ValueError):
    """An argument has the right type but a value out of range; names the argument, the value and
    what is expected."""

    def __init__(self, message, argument=""):
        self.argument = argument
        super().__init__(message)


class ArgumentTypeError(TypeError):
    """An argument has the wrong type; names the argument, the value and what is expected."""

    def __init__(self, message, argument=""):
        self.argument = argument
        super().__init__(message)


class UnknownNameError(ValueError):
    """A name (system, parameter, coordinate, formulation ...) is not known; lists the valid ones
    and the nearest matches."""

    def __init__(self, kind, name, valid, argument=""):
        self.kind, self.name, self.valid, self.argument = kind, name, tuple(valid), argument
        close = difflib.get_close_matches(name, self.valid, n=2) if isinstance(name, str) else []
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        where = f"{argument} got " if argument else ""
        super().__init__(f"{where}unknown {kind} {name!r}; expected one of: {', '.join(map(str, self.valid))}{hint}")


class UnknownKeyError(UnknownNameError, KeyError):
    """An UnknownNameError raised by a mapping's ``[]``: still a KeyError for code that catches one,
    and shown as its message (not as the repr of a key)."""

    __str__ = ValueError.__str__

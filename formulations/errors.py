"""Exceptions shared by the formulations and the solvers."""
from __future__ import annotations


class CapabilityError(ValueError):
    """A requested combination is not supported; says what was got and what was expected."""


class StopRun(Exception):
    """Raised while a run is under way to end it with a message; the trajectory so far is kept.

    quantity: what failed (named in the message). locate: for a check made after a step, an
    optional function g(t, y) that is positive at the previous accepted step and <= 0 at the step
    that raised; the run then ends where g crosses zero within the step instead of at the step's
    end. at: the time the run ended, where it differs from the solver's current time.
    """

    def __init__(self, message, quantity="", locate=None, at=None):
        super().__init__(message)
        self.quantity = quantity
        self.locate = locate
        self.at = at

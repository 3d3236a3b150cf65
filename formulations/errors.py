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


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) during ``simulate``: a KeyboardInterrupt that keeps what was computed.

    trajectory: the Trajectory up to the last accepted step, with status -1 and a message that
    says where the run was interrupted. A compiled integration loop sees the signal only when it
    returns, so such a run finishes first.
    """

    def __init__(self, trajectory):
        super().__init__(trajectory.message)
        self.trajectory = trajectory


class ComparisonInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) during ``compare`` after its reference run: a KeyboardInterrupt that keeps
    the comparison of the runs that finished, and of the interrupted one up to where it stopped.

    comparison: that Comparison; finished: how many of its ``total`` runs (reference and sweep runs
    included) had finished.
    """

    def __init__(self, comparison, finished: int, total: int):
        super().__init__(f"compare {comparison.system_name} interrupted after {finished} of {total} runs")
        self.comparison = comparison
        self.finished = finished
        self.total = total

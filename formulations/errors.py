"""Exceptions shared by the formulations and the solvers."""
from __future__ import annotations

SINGULAR = "singular configuration: "  # how the reason of every stop where Phi_p loses rank begins


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
    """Ctrl-C (SIGINT) during the integration of ``simulate``: a KeyboardInterrupt that keeps what
    was computed.

    trajectory: the Trajectory up to the last accepted step, with status -1 and a message that
    says where the run was interrupted. A compiled loop stops at its next step (it runs on a
    thread; formulations.solvers.interrupts). Ctrl-C before the integration starts, or while a
    finished run is recorded, is a plain KeyboardInterrupt.
    """

    def __init__(self, trajectory):
        super().__init__(trajectory)
        self.trajectory = trajectory

    def __str__(self):
        return self.trajectory.message


class ComparisonInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) during ``compare`` after its reference run: a KeyboardInterrupt that keeps
    the comparison of the runs that finished, and of the interrupted one up to where it stopped.

    comparison: that Comparison; finished: how many of its ``total`` runs (reference and sweep runs
    included) had finished; label: the run interrupted part-way, whose row (or sweep point) is
    kept with status -1, or None where Ctrl-C came between two runs.
    """

    def __init__(self, comparison, finished: int, total: int, label: str | None = None):
        super().__init__(comparison, finished, total, label)
        self.comparison = comparison
        self.finished = finished
        self.total = total
        self.label = label

    def __str__(self):
        return f"compare {self.comparison.system_name} interrupted after {self.finished} of {self.total} runs"


class EnsembleInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) during ``ensemble``: a KeyboardInterrupt that keeps the members that finished.

    result: an EnsembleResult of those members (its ``member`` column gives their indices);
    finished and total: how many members finished, of how many. With ``resume`` the finished
    members are also in that folder, and the same call continues from them.
    """

    def __init__(self, result, finished: int, total: int):
        super().__init__(result, finished, total)
        self.result = result
        self.finished = finished
        self.total = total

    def __str__(self):
        return f"ensemble {self.result.system_name} interrupted after {self.finished} of {self.total} members"


class NotSteadyError(ValueError):
    """A point handed to linearization is neither an equilibrium nor a steady motion in the state of
    the formulation: ``residuals`` maps each offending state component to its rate there."""

    def __init__(self, message, residuals=None):
        super().__init__(message)
        self.residuals = dict(residuals or {})

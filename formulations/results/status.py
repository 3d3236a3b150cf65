"""The one enumeration of how a run ended, and of why a compiled loop stopped; each value carries
its message (as diffrax's RESULTS do).

    Status: 0 finished over t_span; 1 stopped by a terminal event; 2 finished, but a check of the
    result failed; -1 failed (the points computed before are kept).
    LoopStop: the codes a compiled integration loop returns, each with the sentence that names what
    stopped it (templates in {matrix} and {max_steps}).
"""
from __future__ import annotations

import enum


class Status(enum.IntEnum):
    """How a run ended (Trajectory.status); ``success`` for SUCCESS and EVENT."""

    FAILED = -1
    SUCCESS = 0
    EVENT = 1
    WARNED = 2

    @property
    def meaning(self) -> str:
        return {Status.FAILED: "failed; the points computed before are kept",
                Status.SUCCESS: "finished over t_span",
                Status.EVENT: "stopped by a terminal event",
                Status.WARNED: "finished, but a check of the result failed (see the warnings)"}[self]

    @property
    def success(self) -> bool:
        return self in (Status.SUCCESS, Status.EVENT)


class LoopStop(enum.IntEnum):
    """Why a compiled loop returned before t1 (0: it did not stop early)."""

    NONE = 0
    SINGULAR = -1
    TINY_STEP = -2
    MAX_STEPS = -3
    NOT_FINITE = -4
    INTERRUPTED = -5
    PROJECTION = -6

    def message(self, matrix="the system matrix", max_steps=None) -> str:
        """The sentence naming what stopped the loop."""
        return {LoopStop.NONE: "finished",
                LoopStop.SINGULAR: f"{matrix} is singular",
                LoopStop.TINY_STEP: "step size fell below the spacing of t",
                LoopStop.MAX_STEPS: f"max_steps = {max_steps} accepted steps reached before the end of t_span (raise "
                                    f"max_steps, loosen the tolerance or shorten t_span; the points so far are kept)",
                LoopStop.NOT_FINITE: "non-finite state values",
                LoopStop.INTERRUPTED: "interrupted",
                LoopStop.PROJECTION: "the projection onto the constraints failed (a singular constraint Jacobian, "
                                     "metric or mass matrix, or a state that is not finite)"}[self]

"""Wall times of short runs that hold still.

A run of a few milliseconds varies by tens of percent from one call to the next (the machine's load,
caches, the garbage collector), enough to swap two close configurations. So a run shorter than the
measuring time is repeated until its runs together last that long (at most MAX_REPEATS runs), as
``timeit``'s autorange grows its loop to 0.2 s; the median is its wall time and the range (fastest,
slowest run) its spread. Two timings of repeated runs whose ranges overlap are within the noise:
neither is measurably faster. A single run's noise is unknown.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from systems.errors import ArgumentError, ArgumentTypeError

MEASURE_SECONDS = 0.2  # default least measuring time of one row, s ($PFAFF_MEASURE_SECONDS overrides)
MAX_REPEATS = 25       # runs of one row at most, however short


@dataclass(frozen=True)
class Timing:
    """The wall times of repeated runs of one configuration: ``median``, ``low`` (the fastest run)
    and ``high`` (the slowest), s, over ``repeats`` runs."""

    median: float
    low: float
    high: float
    repeats: int = 1

    @classmethod
    def of(cls, times) -> "Timing":
        times = np.asarray(times, float)
        return cls(float(np.median(times)), float(times.min()), float(times.max()), int(times.size))

    @property
    def repeated(self) -> bool:
        """Whether the timing has a spread: more than one run."""
        return self.repeats > 1

    def overlaps(self, other: "Timing") -> bool:
        """True where both were repeated and their ranges overlap: the difference of the medians is
        within the noise (False where either ran once: its noise is unknown)."""
        return self.repeated and other.repeated and self.low <= other.high and other.low <= self.high

    def describe(self) -> str:
        """"0.082 s (median of 7 runs, 0.080–0.106 s)", or "0.082 s (one run)"."""
        if self.repeats == 1:
            return f"{self.median:.3g} s (one run)"
        return f"{self.median:.3g} s (median of {self.repeats} runs, {self.low:.3g}–{self.high:.3g} s)"


def measure_seconds(value=None) -> float:
    """The least measuring time of a row, s: ``value``, else $PFAFF_MEASURE_SECONDS, else
    MEASURE_SECONDS; 0 runs every configuration once."""
    where = "measure"
    if value is None:
        text = os.environ.get("PFAFF_MEASURE_SECONDS")
        if text is None:
            return MEASURE_SECONDS
        where = "$PFAFF_MEASURE_SECONDS"
        try:
            value = float(text)
        except ValueError:
            raise ArgumentError(f"{where} got {text!r} but expected seconds >= 0, e.g. 0.2", where) from None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise ArgumentTypeError(f"{where} got {value!r} ({type(value).__name__}) but expected a number of seconds "
                                f">= 0, e.g. 0.2", where)
    if not np.isfinite(value) or value < 0:
        raise ArgumentError(f"{where} got {value!r} but expected seconds >= 0, e.g. 0.2 (0: one run each)", where)
    return float(value)


def repeated(times: list, again, seconds: float, most: int = MAX_REPEATS) -> Timing:
    """The Timing of a run whose wall times so far are ``times`` (s; the first run's, at least):
    ``again()`` runs it once more and returns that run's wall time, appended to ``times`` (so that a
    caller interrupted in between keeps them), until the runs together last ``seconds`` or ``most``
    ran."""
    while sum(times) < seconds and len(times) < most:
        wall = again()
        if not np.isfinite(wall):
            break
        times.append(wall)
    return Timing.of(times)

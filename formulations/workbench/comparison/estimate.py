"""An estimate of the work of a long run, made before it starts from a short pilot run.

For a simulated time above PILOT_ABOVE seconds (or more than SAMPLES_ABOVE output points), each run is first integrated over its first
PILOT_SPAN seconds; its steps, wall time and recorded bytes per point are scaled to the whole span.
Mechanical motions keep their time scale, so the scaling is a fair guide; it is a lower bound for
runs that grow stiffer. The command line warns above WARN_SECONDS or WARN_BYTES and refuses a run
estimated above REFUSE_SECONDS, or needing more memory than the machine has, unless a step limit
(``--max-steps``) bounds it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

PILOT_ABOVE = 100.0       # s of simulated time above which a pilot run is made
PILOT_SPAN = 1.0          # s of simulated time of the pilot run
SAMPLES_ABOVE = 100_000   # recorded points above which a pilot run is made
STEPS_ABOVE = 100_000     # fixed steps above which a pilot run is made
PILOT_STEPS = 1000        # at most this many fixed steps in the pilot run
WARN_SECONDS = 60.0
REFUSE_SECONDS = 86400.0
WARN_BYTES = 2.0 ** 30

_RECORDED = ("t", "p", "v", "state", "vdot", "multipliers", "energy")


def _size(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.3g} {unit}"
        nbytes /= 1024
    return ""  # pragma: no cover


def _duration(seconds: float) -> str:
    for unit, length in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= length:
            return f"{seconds / length:.3g} {unit}"
    return f"{seconds:.2g} s"


def physical_memory() -> float:
    """Bytes of memory of this machine (inf where the system does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover
        return float("inf")


@dataclass(frozen=True)
class Estimate:
    """Steps, wall seconds and bytes of recorded output of the whole task."""

    steps: float
    seconds: float
    nbytes: float

    def text(self) -> str:
        return (f"about {self.steps:.2g} steps, {_duration(self.seconds)} of computation and "
                f"{_size(self.nbytes)} of recorded output")

    def __add__(self, other):
        return Estimate(self.steps + other.steps, self.seconds + other.seconds, self.nbytes + other.nbytes)


def extrapolate(traj, t_end, points=None, max_steps=None) -> Estimate | None:
    """Scale the pilot trajectory ``traj`` to a run to ``t_end``; ``points`` recorded points (None:
    one per step); at most ``max_steps`` steps. None if the pilot did not get under way."""
    reached = float(traj.t[-1] - traj.t[0]) if len(traj.t) > 1 else 0.0
    steps = traj.stats.steps
    if reached <= 0 or steps <= 0:
        return None
    scale = t_end / reached
    total = steps * scale if max_steps is None else min(steps * scale, float(max_steps))
    seconds = max(traj.stats.wall_time - traj.stats.setup_time, 1e-6) * total / steps
    per_point = sum(getattr(traj, name).nbytes for name in _RECORDED if hasattr(traj, name)) / len(traj.t)
    recorded = total * len(traj.t) / steps if points is None else points
    return Estimate(total, seconds, per_point * recorded)


def verdict(estimate, what, bounded, smaller="a shorter --t-end") -> tuple:
    """("refuse" | "warn" | "", message) for ``estimate`` of the task ``what``; ``smaller`` says how to
    record less."""
    if estimate is None:
        return "", ""
    text = f"{what}: {estimate.text()} (estimated from a pilot run of its start)"
    memory = physical_memory()
    if estimate.nbytes > memory:
        return "refuse", f"{text}; that is more than this machine's memory ({_size(memory)}): use {smaller}"
    if estimate.seconds > REFUSE_SECONDS and not bounded:
        return "refuse", f"{text}; give --max-steps N to run a bounded part, or a shorter --t-end"
    if estimate.seconds > WARN_SECONDS or estimate.nbytes > WARN_BYTES:
        return "warn", f"{text}; Ctrl-C stops it"
    return "", text


def needs_pilot(t_end, points=None, step=None) -> bool:
    """Whether a run to ``t_end`` recording ``points`` (None: every step) with fixed step ``step``
    (None: adaptive) is long enough to be estimated first."""
    return (t_end > PILOT_ABOVE or (points is not None and points > SAMPLES_ABOVE)
            or (step is not None and t_end / step > STEPS_ABOVE))


def pilot_span(t_end, step=None) -> float:
    """The span of the pilot run: PILOT_SPAN, or less for a short interval or a tiny fixed step."""
    return min(PILOT_SPAN, t_end, PILOT_STEPS * step if step is not None else float("inf"))

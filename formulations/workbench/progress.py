"""Progress of runs on stderr.

On a terminal a bar (tqdm where installed, ``pip install "pfaff[progress]"``; a plain bar
otherwise) that appears after ``delay`` seconds; off a terminal (a log file, a pipe, a batch job)
one line every ``interval`` seconds: which run of how many, its label and the time elapsed. A
background thread keeps the elapsed time current while one long run is under way. ``quiet``
shows nothing.
"""
from __future__ import annotations

import sys
import threading
import time

INTERVAL = 5.0   # seconds between lines off a terminal
DELAY = 2.0      # seconds before a bar appears on a terminal


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """``progress(i, n, label)`` before run i (from 0) of n; ``close()`` (or leaving a ``with``) at the end.

    what: a short name of the whole task for the lines (e.g. "compare rolling_disc"). terminal:
    None to ask the stream, or True/False to choose the bar or the lines. unit: what is counted
    ("run"; an ensemble counts "members" done, with the time left estimated)."""

    def __init__(self, what: str = "", stream=None, quiet: bool = False, interval: float | None = None,
                 delay: float | None = None, terminal: bool | None = None, unit: str = "run"):
        self.what, self.stream = what, sys.stderr if stream is None else stream
        self.unit = unit
        self.quiet = quiet
        self.interval = INTERVAL if interval is None else interval
        self.delay = DELAY if delay is None else delay
        if terminal is None:
            terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.terminal = terminal
        self.start = time.monotonic()
        self.state = (0, 1, "")
        self.bar = None
        self.lines = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None
        if not quiet:
            self._thread = threading.Thread(target=self._tick, name="pfaff-progress", daemon=True)
            self._thread.start()

    def __call__(self, i, n, label=""):
        with self._lock:
            self.state = (int(i), max(int(n), 1), str(label))
            if self.bar is not None or (self.terminal and not self.quiet and self.elapsed() >= self.delay):
                self._draw()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def line(self) -> str:
        """The current one-line report: task, run i of n (label), time elapsed."""
        i, n, label = self.state
        what = f"{self.what}: " if self.what else ""
        elapsed = self.elapsed()
        if self.unit == "run":
            run = f"run {i + 1} of {n}" + (f" ({label})" if label else "")
            return f"pfaff: {what}{run}, {_clock(elapsed)} elapsed"
        early = i < n / 20  # too few done for an estimate
        left = f", about {_clock(elapsed / i * (n - i))} left" if 0 < i < n and not early else ""
        return f"pfaff: {what}{i} of {n} {self.unit} done, {_clock(elapsed)} elapsed{left}"

    def _tick(self):
        period = 0.5 if self.terminal else self.interval
        next_line = self.interval
        while not self._stop.wait(period):
            with self._lock:
                if self._stop.is_set():
                    return
                if self.terminal:
                    if self.elapsed() >= self.delay:
                        self._draw()
                elif self.elapsed() >= next_line - 1e-3:
                    self.stream.write(self.line() + "\n")
                    self.stream.flush()
                    self.lines += 1
                    next_line += self.interval

    def _draw(self):
        i, n, label = self.state
        if self.bar is None:
            self.bar = _Bar(n, self.what, self.stream, self.unit)
        self.bar.show(i, n, label)

    def close(self):
        """Stop the thread and clear the bar."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class _Bar:
    """A bar on a terminal: tqdm's where installed, a plain one otherwise."""

    def __init__(self, total, what, stream, unit="run"):
        self.stream = stream
        try:
            from tqdm import tqdm
        except ImportError:
            self.tqdm = None
        else:
            self.tqdm = tqdm(total=total, desc=what or None, file=stream, leave=False, dynamic_ncols=True,
                             unit=unit)

    def show(self, i, n, label):
        if self.tqdm is not None:
            self.tqdm.total = n
            self.tqdm.n = i
            self.tqdm.set_postfix_str(label[:40], refresh=False)
            self.tqdm.refresh()
            return
        width = 24
        done = int(width * i / max(n, 1))
        self.stream.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {label[:40]:<40}")
        self.stream.flush()

    def close(self):
        if self.tqdm is not None:
            self.tqdm.close()
        else:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()

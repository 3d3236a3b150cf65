"""Short runs timed as timeit times them: repeated to a least measuring time, the median reported
with the range, and differences inside the range called noise (formulations.workbench.comparison.timing)."""
from dataclasses import replace
from types import SimpleNamespace

import pytest

import formulations as F
from formulations.workbench.advisor import _within_noise
from formulations.workbench.cli.main import main
from formulations.workbench.comparison.timing import MAX_REPEATS, Timing, measure_seconds, repeated
from systems.errors import ArgumentError, ArgumentTypeError


def test_a_short_run_is_repeated_until_the_runs_last_the_measuring_time():
    walls = iter([0.07, 0.05, 0.06, 0.5])
    times = [0.04]
    timing = repeated(times, lambda: next(walls), 0.2)
    assert timing == Timing(median=0.055, low=0.04, high=0.07, repeats=4)  # 0.04 + 0.07 + 0.05 + 0.06 >= 0.2
    assert times == [0.04, 0.07, 0.05, 0.06]  # kept in the caller's list, for an interrupted caller
    assert repeated([0.3], lambda: 1 / 0, 0.2) == Timing(0.3, 0.3, 0.3, 1)  # long enough: run once
    assert repeated([0.0], lambda: 0.0, 0.2).repeats == MAX_REPEATS  # however short, at most MAX_REPEATS runs
    assert repeated([0.01], lambda: 1 / 0, 0.0).repeats == 1
    assert repeated([0.01], lambda: float("nan"), 0.2) == Timing(0.01, 0.01, 0.01, 1)  # no unmeasured run counted


def test_ranges_of_repeated_runs_that_overlap_are_within_the_noise():
    a, b, c = Timing(1.0, 0.9, 1.2, 3), Timing(1.1, 1.15, 1.3, 3), Timing(1.5, 1.25, 1.6, 3)
    assert a.overlaps(b) and b.overlaps(a) and b.overlaps(c)
    assert not a.overlaps(c) and not c.overlaps(a)  # overlapping is not transitive
    once = Timing(1.1, 1.1, 1.1, 1)
    assert not once.overlaps(a) and not a.overlaps(once)  # a single run's noise is unknown
    assert "median of 3 runs" in Timing(0.082, 0.08, 0.106, 3).describe() and "one run" in once.describe()


def test_the_measuring_time_comes_from_the_argument_or_the_environment(monkeypatch):
    monkeypatch.delenv("PFAFF_MEASURE_SECONDS", raising=False)
    assert measure_seconds() == 0.2 and measure_seconds(0) == 0.0 and measure_seconds(1.5) == 1.5
    monkeypatch.setenv("PFAFF_MEASURE_SECONDS", "0.05")
    assert measure_seconds() == 0.05
    monkeypatch.setenv("PFAFF_MEASURE_SECONDS", "soon")
    with pytest.raises(ArgumentError, match="PFAFF_MEASURE_SECONDS"):
        measure_seconds()
    for bad in (-0.1, float("nan")):
        with pytest.raises(ArgumentError, match="measure got"):
            measure_seconds(bad)
    for bad in ("0.2", True):
        with pytest.raises(ArgumentTypeError, match="measure got"):
            measure_seconds(bad)


def test_a_comparison_repeats_its_short_runs_and_reports_the_median_and_range():
    configs = ["dependent", "minimal"]
    once = F.compare("rolling_disc", configs, (0.0, 0.2), samples=21, measure=0, backend="numpy")
    timed = F.compare("rolling_disc", configs, (0.0, 0.2), samples=21, measure=0.15, backend="numpy",
                      sweep=[1e-6])
    for a, b in zip(once.rows, timed.rows):
        assert a.repeats == 1 and a.spread == "one run" and a.wall_low == a.wall_time == a.wall_high
        assert b.repeats > 1 and b.wall_low <= b.wall_time <= b.wall_high
        assert b.repeats == MAX_REPEATS or b.wall_high * b.repeats >= 0.15  # the runs lasted the measuring time
        assert (b.deviation, b.steps, b.rhs_evaluations) == (a.deviation, a.steps, a.rhs_evaluations)  # deterministic
        assert f"({b.repeats})" in timed.to_markdown()
    assert all(p.repeats > 1 and p.wall_low <= p.wall_time <= p.wall_high for p in timed.sweep)


def test_a_failed_run_is_not_repeated():
    run = F.compare("rolling_disc", ["dependent"], (0.0, 2.0), samples=21, measure=5.0, backend="numpy",
                    max_steps=3)
    assert run.rows[0].status < 0 and run.rows[0].repeats == 1


def test_an_interruption_between_repeats_keeps_the_row_of_the_first_run(monkeypatch):
    from formulations.base import Formulation

    calls, simulate = [], Formulation.simulate

    def interrupted_third_call(self, *args, **kwargs):  # the reference, the row's first run, then Ctrl-C
        calls.append(self.name)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return simulate(self, *args, **kwargs)

    monkeypatch.setattr(Formulation, "simulate", interrupted_third_call)
    with pytest.raises(F.ComparisonInterrupted) as caught:
        F.compare("rolling_disc", ["minimal", "reduced"], (0.0, 0.2), samples=11, measure=5.0, backend="numpy")
    kept = caught.value.comparison.rows
    assert [r.label for r in kept] == ["minimal"] and kept[0].status == 0 and kept[0].repeats == 1
    assert caught.value.finished == 2 and calls == ["dependent", "minimal", "minimal"]


def _with(comparison, ranges, repeats=5):
    rows = tuple(replace(r, wall_time=m, wall_low=lo, wall_high=hi, repeats=repeats)
                 for r, (m, lo, hi) in zip(comparison.rows, ranges))
    return replace(comparison, rows=rows)


def test_the_table_and_the_reading_say_which_rows_the_noise_decides():
    base = F.compare("rolling_disc", ["dependent", "reduced", "minimal"], (0.0, 0.1), samples=11, measure=0,
                     backend="numpy")
    close = _with(base, [(0.030, 0.027, 0.040), (0.033, 0.031, 0.045), (0.090, 0.085, 0.095)])
    table = close.to_markdown()
    assert "0.027–0.04 (5), fastest" in table and "0.031–0.045 (5), ≈ fastest" in table
    assert "≈" not in table.splitlines()[-1]  # minimal: clearly slower
    assert "≈ fastest" in close._repr_html_()  # the notebook's table says it too
    assert any(n.startswith("Within the timing noise of dependent") and "reduced" in n and "minimal" not in n
               for n in close.reading())
    apart = _with(base, [(0.030, 0.027, 0.032), (0.040, 0.035, 0.045), (0.090, 0.085, 0.095)])
    assert "≈" not in apart.to_markdown() and not any("noise" in n for n in apart.reading())
    assert "0.027–0.032 (5), fastest" in apart.to_markdown()
    once = _with(base, [(0.030, 0.030, 0.030), (0.031, 0.031, 0.031), (0.09, 0.09, 0.09)], repeats=1)
    assert "fastest" not in once.to_markdown() and not any("noise" in n for n in once.reading())  # noise unknown


def test_the_advice_says_when_its_two_fastest_candidates_are_within_the_noise():
    table = [SimpleNamespace(label="a", time_at_target=0.10, failed=False),
             SimpleNamespace(label="b", time_at_target=0.11, failed=False),
             SimpleNamespace(label="c", time_at_target=0.50, failed=False)]

    def sweep(low, high):
        point = SimpleNamespace
        return point(sweep=[point(label="a", wall_time=0.1, wall_low=low, wall_high=high, repeats=3),
                            point(label="c", wall_time=0.5, wall_low=0.1, wall_high=0.9, repeats=3)])

    said = _within_noise(table, sweep(0.09, 0.12))  # a spread of 30 %: 10 % apart is noise
    assert len(said) == 1 and said[0].startswith("a and b are within the timing noise") and "30 %" in said[0]
    assert _within_noise(table, sweep(0.099, 0.101)) == []  # a spread of 2 %: a is faster
    assert _within_noise(table[:1], sweep(0.09, 0.12)) == []


def test_the_command_line_takes_a_measuring_time_and_names_a_bad_one(capsys):
    assert main(["compare", "rolling_disc", "--formulations", "dependent", "--t-end", "0.1", "--samples", "11",
                 "--measure", "0.1", "--backend", "numpy", "--quiet"]) == 0
    assert "median of" in capsys.readouterr().out
    assert main(["compare", "rolling_disc", "--formulations", "dependent", "--t-end", "0.1", "--measure", "-1",
                 "--quiet"]) == 2
    assert "--measure: expected a number >= 0, got -1" in capsys.readouterr().err

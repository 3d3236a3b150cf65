"""The command line under bad input, faults and interruption: exit codes, safe report folders,
bounded work, progress, and options that are never silently ignored."""
import dataclasses
import io
import itertools
import json
import signal
import subprocess
import sys
import time

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import formulations  # noqa: E402
import systems  # noqa: E402
from formulations.workbench.cli import commands
from formulations.workbench.comparison import estimate, report
from formulations.workbench import progress  # noqa: E402
from formulations.workbench.cli.main import main  # noqa: E402
from formulations.workbench.output import OutputFolder, write_atomic  # noqa: E402

FAST = ["--formulations", "dependent", "--t-end", "0.2", "--samples", "21", "--quiet"]


def _no_compute(monkeypatch):
    """Make any comparison or simulation fail the test: the input must be refused before."""
    def refuse(*args, **kwargs):
        raise AssertionError("the computation started")
    monkeypatch.setattr(formulations, "compare", refuse)
    monkeypatch.setattr(formulations.Formulation, "simulate", refuse)


def _one_line_error(capsys):
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    return err


# --- bad input: exit 2, one line, nothing computed ------------------------------------------------

@pytest.mark.parametrize("argv, fragment", [
    (["simulate", "rolling_disc", "--rtol", "-1e-6"], "positive number, got -1e-6"),
    (["simulate", "rolling_disc", "--rtol", "10"], "relative tolerance between"),
    (["simulate", "rolling_disc", "--rtol", "1e300"], "relative tolerance between"),
    (["simulate", "rolling_disc", "--t-end", "-inf"], "finite number"),
    (["simulate", "rolling_disc", "--set", "r=abc"], "r is a parameter of rolling_disc"),
    (["simulate", "rolling_disc", "--set", "r=1e200"], "--set r=1e+200"),
    (["simulate", "rolling_disc", "--set", "r=0.3", "--set", "r=0.4"], "given twice"),
    (["simulate", "rolling_disc", "--set", "r="], "--set takes name=value"),
    (["simulate", "n_pendulum", "--set", "n=2.5"], "whole number"),
    (["simulate", "rolling_disk"], "did you mean 'rolling_disc'?"),
    (["simulate", "rolling_disc", "--formulation", "minmal"], "did you mean 'minimal'?"),
    (["simulate", "rolling_disc", "--step", "1e-3"], "chooses its own steps"),
    (["simulate", "rolling_disc", "--method", "rk4", "--step", "10", "--t-end", "1"], "longer than the interval"),
    (["simulate", "rolling_disc", "--max-steps", "0"], "whole number >= 1"),
    (["compare", "knife_edge", "--step", "1e-3"], "under --enforcement"),
    (["compare", "knife_edge", "--animate"], "give --out DIR"),
    (["compare", "knife_edge", "--force"], "give --out DIR"),
    (["compare", "knife_edge", "--samples", "1"], "whole number >= 2"),
    (["compare", "knife_edge", "--formulations", "dependent@rk4:10", "--t-end", "1"], "longer than the interval"),
    (["compare", "knife_edge", "--formulations", "dependent+projecton"], "projecton"),
    (["compare", "knife_edge", "--out", ""], "empty path"),
], ids=["negative-rtol", "rtol-10", "rtol-1e300", "t-end-inf", "set-word", "set-overflow", "set-twice", "set-empty",
        "n-not-whole", "system-typo", "formulation-typo", "step-adaptive", "step-too-long", "max-steps-zero",
        "step-without-enforcement", "animate-without-out", "force-without-out", "samples-1", "config-step-too-long",
        "config-typo", "out-empty"])
def test_bad_input_exits_2_on_one_line_before_any_computation(argv, fragment, capsys, monkeypatch):
    _no_compute(monkeypatch)
    assert main(argv) == 2
    assert fragment in _one_line_error(capsys)


def test_animate_for_a_system_without_animation_is_refused(capsys, monkeypatch, tmp_path):
    _no_compute(monkeypatch)
    assert main(["compare", "knife_edge", "--animate", "--out", str(tmp_path / "r")]) == 2
    assert "has no animation" in _one_line_error(capsys)
    assert not (tmp_path / "r").exists()


def test_simulate_takes_a_stabilization_written_into_the_formulation(capsys):
    assert main(["simulate", "knife_edge", "--formulation", "dependent+projection", "--t-end", "0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["stabilization"] == "projection"
    assert main(["simulate", "knife_edge", "--formulation", "dependent+projection", "--stabilization", "baumgarte"]) == 2
    assert "two stabilizations" in _one_line_error(capsys)


def test_integer_structural_option(capsys):
    assert main(["simulate", "n_pendulum", "--set", "n=5", "--t-end", "0.05", "--json", "--quiet"]) == 0
    assert len(json.loads(capsys.readouterr().out)["p_final"]) == 15


@pytest.mark.parametrize("command, defaults", [
    ("simulate", ["(default: 1e-08)", "(default: DOP853)", "(default: 10.0)", "(default: dependent)"]),
    ("compare", ["(default: 1e-08)", "(default: 501)", "(default: 1e-3)", "(default: all that apply)"]),
])
def test_help_shows_the_defaults(command, defaults, capsys):
    assert main([command, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert all(d in out for d in defaults), out
    assert "(default: None)" not in out and "(default: False)" not in out


# --- report folders -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["file", "under-file", "non-empty"])
def test_unusable_out_is_refused_before_computing(kind, tmp_path, capsys, monkeypatch):
    _no_compute(monkeypatch)
    (tmp_path / "f.txt").write_text("keep")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    out = {"file": tmp_path / "f.txt", "under-file": tmp_path / "f.txt" / "sub", "non-empty": tmp_path / "mine"}[kind]
    assert main(["compare", "knife_edge", *FAST, "--out", str(out)]) == 2
    err = _one_line_error(capsys)
    assert str(out.name) in err
    assert (tmp_path / "f.txt").read_text() == "keep" and (tmp_path / "mine" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "mine"]


def test_force_replaces_the_report_files_and_keeps_the_others(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["compare", "rolling_disc", *FAST, "--out", str(out)]) == 0
    (out / "notes.txt").write_text("mine")
    assert main(["compare", "knife_edge", *FAST, "--out", str(out), "--force"]) == 0
    names = {p.name for p in out.iterdir()}
    assert "notes.txt" in names and "rolling_disc_views.png" not in names
    assert json.loads((out / "results.json").read_text())["system"] == "knife_edge"
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]  # no temporary folder, no lock left


def test_a_second_writer_to_the_same_folder_is_refused(tmp_path, capsys, monkeypatch):
    _no_compute(monkeypatch)
    with OutputFolder(tmp_path / "rep"):
        assert main(["compare", "knife_edge", *FAST, "--out", str(tmp_path / "rep")]) == 2
        assert "being written by another run" in _one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_report_that_fails_half_way_leaves_no_folder(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")
    monkeypatch.setattr(report, "comparison_figures", broken)
    out = tmp_path / "a" / "rep"
    assert main(["compare", "knife_edge", *FAST, "--out", str(out)]) == 1
    assert "disk full" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_exits_130_with_a_note_and_no_half_folder(tmp_path, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(formulations, "compare", interrupted)
    assert main(["compare", "knife_edge", *FAST, "--out", str(tmp_path / "rep")]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "interrupted" in err and "nothing written" in err
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt in this process for the test (an xdist worker ignores it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_compare_writes_the_runs_that_finished(tmp_path, capsys, monkeypatch, sigint_raises):
    """A real SIGINT, sent as the second configuration starts: the reference and the first
    configuration finished; the report holds them, says it was interrupted, and the exit code is 130."""
    class InterruptAtSecondRun(progress.Progress):
        def __call__(self, i, n, label=""):
            super().__call__(i, n, label)
            if i == 2:
                signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(commands, "Progress", InterruptAtSecondRun)
    out = tmp_path / "rep"
    argv = ["compare", "knife_edge", "--formulations", "dependent", "reduced", "minimal", "--t-end", "0.2",
            "--samples", "21", "--quiet", "--out", str(out)]
    assert main(argv) == 130
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "interrupted" in captured.err
    assert "| dependent |" in captured.out and "| reduced" not in captured.out
    data = json.loads((out / "results.json").read_text())
    assert [row["label"] for row in data["rows"]] == ["dependent"]
    assert "Interrupted (Ctrl-C) after 2 of 4 runs" in data["note"]
    assert "Interrupted (Ctrl-C)" in (out / "report.md").read_text()


def test_ctrl_c_during_a_run_keeps_its_trajectory(sigint_raises):
    """simulate raises RunInterrupted (a KeyboardInterrupt) holding the run up to its last step; the
    signal is sent from an event function at the first step past t = 0.5: the run keeps the steps
    before it."""
    system = systems.load("knife_edge")

    def interrupt_late(t, p, v):
        if t > 0.5:
            signal.raise_signal(signal.SIGINT)
        return 1.0

    form = formulations.create("dependent", system, backend="numpy")
    with pytest.raises(formulations.RunInterrupted) as info:
        form.simulate((0.0, 5.0), events=[interrupt_late])
    traj = info.value.trajectory
    assert isinstance(info.value, KeyboardInterrupt)
    assert traj.status == -1 and "interrupted (Ctrl-C) at t = " in traj.message
    assert 0.0 < traj.t[-1] <= 0.5 and len(traj.t) == len(traj.p) == len(traj.v) > 2
    finished = form.simulate((0.0, float(traj.t[-1])))
    assert abs(finished.p[-1] - traj.p[-1]).max() < 1e-6  # the same motion, as far as it got


@pytest.mark.xdist_group("compiled")  # the dependent module of the rolling disc (tests/test_backends.py)
def test_ctrl_c_stops_a_compiled_loop_at_its_next_step(sigint_raises):
    """The compiled loop runs on a thread; Ctrl-C reaches the main thread, which stops the loop at
    its next step: RunInterrupted with the steps so far, soon after the signal."""
    import copy
    import threading

    form = formulations.create("dependent", systems.load("rolling_disc"), backend="compiled")
    form.simulate((0.0, 0.01), method="dopri5")  # compiled first: the signal must meet the loop, not numba
    timer = threading.Timer(1.0, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    try:
        with pytest.raises(formulations.RunInterrupted) as info:
            form.simulate((0.0, 1e7), method="dopri5", max_steps=10**9)
    finally:
        timer.cancel()
    traj = info.value.trajectory
    assert traj.stats.backend == "compiled" and traj.status == -1 and "interrupted (Ctrl-C)" in traj.message
    assert 0.0 <= traj.t[-1] < 1e7 and len(traj.t) == len(traj.p) == len(traj.multipliers)
    assert copy.copy(info.value).trajectory is traj and str(info.value) == traj.message


def test_failed_runs_exit_1_and_the_report_says_so(tmp_path, capsys, monkeypatch):
    real = formulations.compare

    def one_failed(*args, **kwargs):
        c = real(*args, **kwargs)
        row = dataclasses.replace(c.rows[0], status=-1, message="stopped at t = 0.1: singular")
        return dataclasses.replace(c, rows=(row,) + c.rows[1:])
    monkeypatch.setattr(formulations, "compare", one_failed)
    out = tmp_path / "rep"
    assert main(["compare", "knife_edge", *FAST, "--out", str(out)]) == 1
    assert "did not finish" in capsys.readouterr().err
    assert "1 of 1 runs did not finish" in (out / "report.md").read_text()
    assert "did not finish" in json.loads((out / "results.json").read_text())["note"]


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    path = write_atomic(tmp_path / "results.json", '{"a": 1}')
    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, '{"a": "\ud800"}')
    assert json.loads(path.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


# The child gets Python's own SIGINT handler (KeyboardInterrupt) back before the CLI starts: a
# pytest-xdist worker ignores SIGINT and a child inherits that (the CLI rightly leaves an ignored signal
# ignored). This is done in the child's own code, not by preexec_fn, which may deadlock in a parent
# that runs threads. Its progress lines come every second (progress.INTERVAL, 5 s by default).
_CLI_WITH_SIGINT = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "from formulations.workbench import progress; progress.INTERVAL = 1.0; "
                    "sys.argv[0] = 'pfaff'; runpy.run_module('formulations.workbench.cli', run_name='__main__')")


def _line_within(stream, seconds):
    """The next line of ``stream`` (a pipe), or None if none arrives within ``seconds``."""
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            return None
    return stream.readline()


def test_interrupt_signal_exits_130_without_a_traceback():
    """A terminal's Ctrl-C: exit code 130, a one-line message, no traceback. Every wait is bounded
    and the child is killed whatever happens."""
    proc = subprocess.Popen([sys.executable, "-c", _CLI_WITH_SIGINT, "simulate", "rolling_disc",
                             "--t-end", "2e5", "--backend", "numpy"], stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        first = _line_within(proc.stderr, 120)  # the estimate, printed once the pilot run is done
        assert first is not None, "no estimate within 120 s"
        assert "estimated" in first
        progress_line = _line_within(proc.stderr, 60)  # off a terminal: a line every INTERVAL, naming the run
        assert progress_line is not None and "run 1 of 1 (dependent)" in progress_line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # never left running
        proc.wait()
    assert proc.returncode == 130
    assert "Traceback" not in err and "interrupted" in err
    assert "interrupted (Ctrl-C) at t = " in out  # the summary of the run as far as it got


def test_interrupt_while_the_command_starts_exits_130_without_a_traceback():
    """Ctrl-C 0.1 s after the child said it is ready, while the packages are still being imported
    on most machines (on a faster one, during the run): the ``pfaff`` entry point answers as later,
    130 and one line."""
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "print('ready', file=sys.stderr, flush=True); import pfaff_cli; "
            "sys.exit(pfaff_cli.main(['simulate', 'rolling_disc', '--t-end', '2e5', '--quiet', '--backend', 'numpy']))")
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            bufsize=1)
    try:
        assert _line_within(proc.stderr, 60) == "ready\n"
        time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130
    assert "Traceback" not in err and err.strip().endswith("pfaff: interrupted")


# --- bounded work, progress -----------------------------------------------------------------------

def test_a_hopeless_t_end_is_refused_with_an_estimate(capsys):
    started = time.monotonic()
    assert main(["simulate", "rolling_disc", "--t-end", "1e9"]) == 2
    err = _one_line_error(capsys)
    assert "estimated" in err and ("--max-steps" in err or "memory" in err)
    assert time.monotonic() - started < 30


def test_a_tiny_fixed_step_is_estimated_from_a_short_pilot(capsys):
    started = time.monotonic()
    assert main(["simulate", "rolling_disc", "--method", "rk4", "--step", "1e-9", "--t-end", "10"]) == 2
    assert "estimated" in _one_line_error(capsys)
    assert time.monotonic() - started < 30


def test_too_many_samples_are_refused(capsys):
    assert main(["compare", "knife_edge", "--formulations", "dependent", "--samples", "1000000000"]) == 2
    assert "fewer --samples" in _one_line_error(capsys)


def test_a_long_run_is_announced(capsys, monkeypatch):
    monkeypatch.setattr(estimate, "PILOT_ABOVE", 0.05)
    monkeypatch.setattr(estimate, "PILOT_SPAN", 0.05)
    monkeypatch.setattr(estimate, "WARN_SECONDS", 0.0)
    assert main(["simulate", "knife_edge", "--t-end", "0.2", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "warning: simulate knife_edge to 0.2 s: about" in err and "Ctrl-C stops it" in err


def test_max_steps_bounds_every_run_of_simulate_and_compare(capsys):
    """--max-steps is honoured where it is offered: each run stops after that many steps, as a failure."""
    assert main(["simulate", "rolling_disc", "--t-end", "10", "--max-steps", "5", "--quiet"]) == 1
    assert "did not finish" in capsys.readouterr().err
    code = main(["compare", "knife_edge", "--t-end", "2", "--formulations", "minimal", "--max-steps", "5", "--quiet",
                 "--json"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert code == 1 and [r["steps"] for r in rows] == [5] and rows[0]["status"] < 0


def test_progress_lines_off_a_terminal():
    stream = io.StringIO()
    with progress.Progress("compare x", stream=stream, interval=0.05, terminal=False) as bar:
        bar(1, 3, "minimal")
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 2
    assert all(line.startswith("pfaff: compare x: run 2 of 3 (minimal), 0:00 elapsed") for line in lines)


def test_progress_bar_on_a_terminal_and_quiet():
    pytest.importorskip("tqdm")
    stream = io.StringIO()
    with progress.Progress("compare x", stream=stream, delay=0.0, terminal=True) as bar:
        bar(2, 4, "reduced")
    assert "2/4" in stream.getvalue() and "reduced" in stream.getvalue()
    stream = io.StringIO()
    with progress.Progress("compare x", stream=stream, interval=0.01, delay=0.0, quiet=True) as bar:
        bar(0, 2, "a")
        time.sleep(0.1)
    assert stream.getvalue() == ""


@pytest.mark.parametrize("quiet", [False, True])
def test_compare_reports_progress_off_a_terminal(quiet, capsys, monkeypatch):
    monkeypatch.setattr(progress, "INTERVAL", 0.002)  # well below the ~20 ms the three runs take on a fast machine
    argv = ["compare", "knife_edge", "--formulations", "dependent", "minimal", "--t-end", "0.5", "--samples", "21"]
    assert main(argv + (["--quiet"] if quiet else [])) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("pfaff: compare knife_edge")]
    assert (not lines) if quiet else ("of 3" in lines[-1] and "elapsed" in lines[-1])


# --- figures --------------------------------------------------------------------------------------

def _text_boxes(fig, renderer):
    boxes = []
    for ax in fig.axes:
        for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
            if text.get_text().strip():
                boxes.append((text.get_text(), text.get_window_extent(renderer)))
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if lo <= tick.get_loc() <= hi and tick.label1.get_visible() and tick.label1.get_text():
                    boxes.append((tick.label1.get_text(), tick.label1.get_window_extent(renderer)))
    return boxes


def test_comparison_figures_have_no_overlapping_text():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    system = systems.load("knife_edge")
    configs = ["dependent", "dependent+baumgarte", "dependent+projection", "dependent+constraint_dynamics",
               "reduced", "reduced+projection", "minimal", "dependent@RK45"]
    c = formulations.compare(system, configs, (0, 0.3), samples=21, sweep=[1e-5, 1e-7])
    figures = report.comparison_figures(c, system)
    assert len(figures) == 4
    for title, _, fig in figures:
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        boxes = _text_boxes(fig, renderer)
        legends = [leg.get_window_extent(renderer) for leg in fig.legends]
        legends += [ax.get_legend().get_window_extent(renderer) for ax in fig.axes if ax.get_legend()]
        assert legends, title
        overlaps = [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]
        assert not overlaps, (title, overlaps)
        covered = [text for leg in legends for text, box in boxes if leg.overlaps(box)]
        assert not covered, (title, covered)
        assert not [ax.get_title() for leg in legends for ax in fig.axes if leg.overlaps(ax.bbox)], title


@pytest.mark.parametrize("low", [pytest.param(1e-3, marks=pytest.mark.slow), 2.7e-2,
                                 pytest.param(3.0, marks=pytest.mark.slow)])
def test_work_precision_time_labels_never_collide(low):
    """Wall times spread over a fifth of a decade to seven decades: at least two labels, none overlapping."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from formulations.workbench import plots

    for decades in (0.2, 0.4, 0.7, 1.0, 1.3, 1.6, 2.5, 4.0, 7.0):
        fig = Figure(figsize=(18, 5.6), layout="constrained")
        ax = fig.subplots(1, 3)[0]
        ax.loglog([low, low * 10 ** decades], [1e-3, 1e-6], "o-")
        plots._log_ticks(ax)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        boxes = [box for text, box in _text_boxes(fig, canvas.get_renderer())
                 if text not in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel())]
        x_labels = [b for b in boxes if b.y1 < ax.bbox.y0]
        assert len(x_labels) >= 2, decades
        assert not any(a.overlaps(b) for a, b in itertools.combinations(x_labels, 2)), decades

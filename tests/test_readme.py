"""The README's tour and shell commands run as written, in order, in a fresh folder.

The Python block of "A short tour" runs as a script and the indented ``pfaff ...`` lines after
"From the shell:" run in a shell, all in one new folder with a new PFAFF_CACHE_DIR (tests/reader.py).
The whole README runs with ``-m slow``; the default run takes the tour without its long lines and
with its 10 s horizons cut to 1 s, and the quick commands.
"""
import importlib.util
import json
import re
import shlex
import sys
import time

import numpy as np
import pytest

import systems
from reader import ROOT, environment, outcome, run

README = (ROOT / "README.md").read_text()

# the tour's lines left to the slow run: the ensemble (six runs over 5 s)
SLOW_TOUR_LINES = ("formulations.ensemble(", "ens.on_grid(")
# the commands of the default run: about two seconds each
QUICK_COMMANDS = ("pfaff list", "pfaff analyze rolling_disc", "pfaff simulate rolling_disc")
# the tour's 10 s horizons (the disc's simulate and compare calls), 1 s in the default run: each call
# still runs as written otherwise; test_whole_readme runs them over 10 s
LONG_SPAN, QUICK_SPAN = "(0.0, 10.0)", "(0.0, 1.0)"


def tour() -> str:
    """The Python block of the section "A short tour"."""
    section = README.split("\n## A short tour\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"^```python\n(.*?)^```", section, re.S | re.M).group(1)


def shell_commands() -> list:
    """The indented ``pfaff`` lines after "From the shell:", as written (comments included)."""
    section = README.split("\nFrom the shell:\n", 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in section.splitlines() if line.startswith("    pfaff ")]


def out_path(args, cwd):
    return cwd / args[args.index("--out") + 1]


def check_list(args, cwd, stdout):
    assert all(name in stdout for name in systems.names())


def check_analyze(args, cwd, stdout):
    assert "completely nonholonomic" in stdout and "(3, 4, 5)" in stdout


def check_simulate(args, cwd, stdout):
    data = json.loads(stdout)
    assert data["status"] == 0 and data["t_final"] == float(args[args.index("--t-end") + 1])
    assert max(data["constraint_errors"].values()) < 1e-6


def check_scene(args, cwd, stdout):
    page = (cwd / args[args.index("--html") + 1]).read_text()
    assert page.startswith("<!DOCTYPE html>") and '"name":"rear wheel"' in page


def check_compare_report(*expected_rows):
    def check(args, cwd, stdout):
        folder = out_path(args, cwd)
        report = (folder / "report.md").read_text()
        assert all(f"| {row} |" in report for row in expected_rows), report[:2000]
        assert json.loads((folder / "results.json").read_text())
        if "--animate" in args:
            assert list(folder.glob("*.gif"))
    return check


def check_heavy_top(args, cwd, stdout):
    assert "| dependent@RKMK45-SE3 |" in stdout and "| dependent@RKMK45-SO3xR3 |" in stdout


def check_derive(args, cwd, stdout):
    tex = (cwd / args[args.index(">") + 1]).read_text()
    assert tex.lstrip().startswith("\\documentclass") and tex.rstrip().endswith("\\end{document}")


def check_export(args, cwd, stdout):
    spec = importlib.util.spec_from_file_location("exported_disc", out_path(args, cwd))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dydt = module.rhs(0.0, module.Y0)
    assert dydt.shape == module.Y0.shape and np.all(np.isfinite(dydt))


def check_sweep(args, cwd, stdout):
    folder = out_path(args, cwd)
    assert {"members.npz", "members.csv", "summary.json", "report.md", "map.png"} <= {f.name for f in folder.iterdir()}
    assert json.loads((folder / "summary.json").read_text())["members"] == 60 * 20


def check_stability(args, cwd, stdout):
    assert "spin = 2.557" in stdout  # sqrt(g / (3 r)) on the rolling disc of r = 0.5
    assert {"stability.md", "stability.json", "stability.png"} <= {f.name for f in out_path(args, cwd).iterdir()}


def check_optimize(args, cwd, stdout):
    assert "| minimal | hermite-simpson |" in stdout
    assert {"report.md", "solutions.json", "minimal.png"} <= {f.name for f in out_path(args, cwd).iterdir()}


# what each command leaves beyond exit status 0, by the command's start
CHECKS = {
    "pfaff list": check_list,
    "pfaff analyze rolling_disc": check_analyze,
    "pfaff simulate rolling_disc": check_simulate,
    "pfaff compare sphere_in_cylinder": check_compare_report("dependent", "reduced", "minimal"),
    "pfaff compare slider_crank": check_compare_report("dependent+baumgarte", "dependent+constraint_dynamics",
                                                       "dependent@IDA", "dependent+ggl@IDA"),
    "pfaff compare heavy_top": check_heavy_top,
    "pfaff derive rolling_disc": check_derive,
    "pfaff export rolling_disc": check_export,
    "pfaff sweep rolling_disc": check_sweep,
    "pfaff stability rolling_disc": check_stability,
    "pfaff simulate bicycle": check_scene,
    "pfaff optimize knife_edge": check_optimize,
}


def check_for(command):
    matches = [check for start, check in CHECKS.items() if command.startswith(start + " ") or command == start]
    assert len(matches) == 1, f"no check, or more than one, for the README command {command!r}"
    return matches[0]


def run_commands(commands, cwd, env):
    """Each command in turn; every one runs, and the failures are reported together."""
    failures = []
    for command in commands:
        started = time.perf_counter()
        result = run(command, cwd, env, timeout=1200)
        print(f"{time.perf_counter() - started:7.1f} s  {command}")  # shown with -s, or with a failure
        if result.returncode != 0:
            failures.append(f"{command}\n{outcome(result)}")
            continue
        try:
            check_for(command)(shlex.split(command, comments=True), cwd, result.stdout)
        except Exception as failure:  # noqa: BLE001  (a missing file, unreadable JSON: reported with the rest)
            failures.append(f"{command}\n{type(failure).__name__}: {failure}\n{outcome(result)}")
    assert not failures, "\n\n".join(failures)


def run_tour(code, cwd, env):
    (cwd / "tour.py").write_text(code)
    started = time.perf_counter()
    result = run([sys.executable, "tour.py"], cwd, env, timeout=1200)
    print(f"{time.perf_counter() - started:7.1f} s  python tour.py")
    assert result.returncode == 0, outcome(result)
    assert "completely nonholonomic" in result.stdout and "(3, 4, 5)" in result.stdout
    angle = float(result.stdout.split()[-1].strip("[]"))  # the pendulum's q after 1 s, let go at 0.5 rad
    assert -0.5 < angle < 0.5 and angle != 0.0


@pytest.fixture
def session(tmp_path):
    """(folder, environment) of a new reader: an empty folder to work in, its own cache folder, the
    numpy backend (the quick part of the default suite: no minute of compiling per formulation)."""
    work = tmp_path / "work"
    work.mkdir()
    return work, environment(tmp_path, "numpy")


@pytest.fixture
def new_machine(tmp_path):
    """(folder, environment) of a reader on a new machine: the default backend, an empty cache."""
    work = tmp_path / "work"
    work.mkdir()
    return work, environment(tmp_path)


def test_the_readme_is_read_whole():
    assert "systems.from_sympy(" in tour() and "ens.on_grid(" in tour()
    commands = shell_commands()
    assert commands[0] == "pfaff list" and len(commands) == len(CHECKS)
    assert all(check_for(command) for command in commands)
    outs = [shlex.split(c, comments=True) for c in commands]
    folders = [args[args.index("--out") + 1] for args in outs if "--out" in args]
    assert len(set(folders)) == len(folders), "two commands write the same --out"


def test_reader_runs_this_checkout(session):
    work, env = session
    result = run([sys.executable, "-c", "import importlib.util as u; "
                  "print(*(u.find_spec(m).origin for m in ('systems', 'formulations', 'pfaff_cli')))"], work, env,
                 timeout=120)
    assert result.returncode == 0, outcome(result)
    origins = result.stdout.split()
    assert len(origins) == 3 and all(path.startswith(str(ROOT)) for path in origins), origins


def test_tour_and_quick_commands(session):
    work, env = session
    lines = tour().splitlines()
    quick = [line for line in lines if not any(marker in line for marker in SLOW_TOUR_LINES)]
    assert len(lines) - len(quick) == len(SLOW_TOUR_LINES)
    code = "\n".join(quick) + "\n"
    assert code.count(LONG_SPAN) == 3
    run_tour(code.replace(LONG_SPAN, QUICK_SPAN), work, env)
    commands = [c for c in shell_commands() if c.startswith(QUICK_COMMANDS)]
    assert len(commands) == len(QUICK_COMMANDS)
    run_commands(commands, work, env)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_whole_readme(new_machine):
    work, env = new_machine
    run_tour(tour(), work, env)
    run_commands(shell_commands(), work, env)

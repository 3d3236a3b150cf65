"""Optimal control through every formulation, side by side, and against a hand-written CasADi
transcription of the same problem.

    python benchmarks/optimal_control.py            # about a minute
    python benchmarks/optimal_control.py --repeat 7

Problems: the knife edge parked 1 m sideways in 2 s (heading within +-1.2 rad, Hermite-Simpson,
40 intervals), the rolling disc moved 0.5 m sideways in 2 s by its driving and steering torques
(Hermite-Simpson, 24 intervals; also with rolling resistance, a moment proportional to the normal
force), and the torque-driven pendulum swung up in 3 s (Hermite-Simpson, 60 intervals). Per
formulation: the NLP's size, Jacobian non-zeros, IPOPT iterations, the solve
time (median of --repeat solves, the formulations interleaved A B C ... A B C ...), the time to
build the NLP, the cost, the largest constraint residual and the miss of the re-simulated inputs.
Then the knife edge parked with no heading bound from the default guess, 8 starts per
formulation, and its solve against the same problem transcribed by hand in the knife edge's
textbook equations (tests/test_optimal_control.py), interleaved, medians. Writes
benchmarks/output/optimal_control.md and .json and the figures docs/figures/optimal-control/*.png.
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import formulations  # noqa: E402
import systems  # noqa: E402
from formulations.workbench.comparison import control_table  # noqa: E402

OUT = ROOT / "benchmarks" / "output"
FIGURES = ROOT / "docs" / "figures" / "optimal-control"
REST = {"x": 0.0, "y": 0.0, "phi": 0.0, "x_dot": 0.0, "y_dot": 0.0, "phi_dot": 0.0}


def problems():
    """{name: (system, t_span, options, formulations, coordinates drawn)}."""
    disc = systems.load("rolling_disc")
    p, v = disc.family("rolling").state(disc, spin=5.0)
    rolling = dict(zip(disc.coordinate_names, p)) | dict(zip(disc.velocity_names, v))
    return {
        "knife edge parking": (systems.load("knife_edge"), (0.0, 2.0), dict(
            initial=REST, final=REST | {"y": 1.0}, inputs=["F", "tau"], path={"phi": (-1.2, 1.2)}, nodes=40,
            scheme="hermite-simpson"), ("dependent", "dependent+none", "reduced", "minimal"), None),
        "rolling disc sideways": (disc, (0.0, 2.0), dict(
            initial=rolling, final={"y": 0.5, "psi": 0.0, "theta": 0.0, "omega_1": 0.0, "omega_3": 0.0, "omega_2": 5.0},
            inputs=["tau_drive", "tau_steer"], nodes=24, scheme="hermite-simpson"),
            ("dependent", "dependent+none", "reduced", "minimal"), ("y", "psi", "theta")),
        "rolling disc sideways with rolling resistance": (
            disc.with_parameters(rolling_resistance=0.02), (0.0, 2.0), dict(
                initial=rolling, final={"y": 0.5, "psi": 0.0, "theta": 0.0, "omega_1": 0.0, "omega_3": 0.0,
                                        "omega_2": 5.0}, inputs=["tau_drive", "tau_steer"], nodes=24,
                scheme="hermite-simpson"),
            ("dependent", "dependent+none", "reduced", "minimal"), ("y", "psi", "theta")),
        "pendulum swing-up": (systems.load("n_pendulum", n=1), (0.0, 3.0), dict(
            initial={"theta1": 0.0, "theta1_dot": 0.0}, final={"theta1": math.pi, "theta1_dot": 0.0}, inputs=["tau"],
            nodes=60, scheme="hermite-simpson"), ("minimal", "reduced", "dependent", "dependent+none"), ("theta1",)),
    }


def compare(system, t_span, options, names, repeat):
    """(results with their checks, {name: [solve seconds]}, {name: [build seconds]}), interleaved."""
    results = {name: formulations.optimal_control(system, name, t_span, **options) for name in names}
    solve, build = {name: [] for name in names}, {name: [] for name in names}
    for _ in range(repeat):
        for name in names:
            run = formulations.optimal_control(system, name, t_span, check=False, **options)
            solve[name].append(run.stats.seconds)
            build[name].append(run.stats.build_seconds)
    return results, solve, build


def without_bound(repeat, starts=8):
    """The knife edge parked 0.5 m sideways with no heading bound, from the default guess, with
    ``starts`` starts (seed 0): per formulation the best cost, how it was solved, the optima found
    and the median whole-call time of ``repeat`` calls, interleaved."""
    options = dict(initial=REST, final=REST | {"y": 0.5}, inputs=["F", "tau"], nodes=40, scheme="hermite-simpson",
                   check=False, starts=starts, seed=0)
    names = ("dependent", "dependent+none", "reduced", "minimal")
    times, runs = {name: [] for name in names}, {}
    for _ in range(repeat):
        for name in names:
            start = time.perf_counter()
            runs[name] = formulations.optimal_control("knife_edge", name, (0.0, 2.0), **options)
            times[name].append(time.perf_counter() - start)
    return {name: dict(cost=runs[name].cost, status=runs[name].status.name.lower(), note=runs[name].note,
                       optima=[list(o) for o in runs[name].optima], seconds=statistics.median(times[name]))
            for name in names}


def against_hand_written(repeat):
    """Median solve times of pfaff's knife-edge parking (minimal and dependent) and of the same
    problem transcribed by hand, interleaved; and the costs."""
    from test_optimal_control import KNIFE, _hand_written_knife_edge

    times = {"pfaff minimal": [], "pfaff dependent": [], "hand-written CasADi": []}
    costs = {}
    for _ in range(repeat):
        for name in ("minimal", "dependent"):
            start = time.perf_counter()
            run = formulations.optimal_control("knife_edge", name, (0.0, 2.0), nodes=40, scheme="hermite-simpson",
                                               check=False, **KNIFE)
            times[f"pfaff {name}"].append(time.perf_counter() - start)
            costs[f"pfaff {name}"] = run.cost
        start = time.perf_counter()
        costs["hand-written CasADi"] = _hand_written_knife_edge(40)[0]
        times["hand-written CasADi"].append(time.perf_counter() - start)
    return {name: (statistics.median(t), costs[name]) for name, t in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    FIGURES.mkdir(parents=True, exist_ok=True)
    lines, record = ["# Optimal control through every formulation", ""], {}
    for title, (system, t_span, options, names, drawn) in problems().items():
        results, solve, build = compare(system, t_span, options, names, args.repeat)
        lines += [f"## {title}", "", control_table.markdown(list(results.values())), "",
                  f"solve [s] is the first solve; medians of {args.repeat} interleaved solves:", ""]
        lines += [f"- {name}: solve {statistics.median(solve[name]):.3f} s, build {statistics.median(build[name]):.3f} s"
                  for name in names]
        lines.append("")
        first = next(iter(results.values()))
        first.plot(drawn, path=FIGURES / f"{title.replace(' ', '-')}.png")
        record[title] = {"table": json.loads(control_table.to_json(list(results.values())))["table"],
                         "median_solve_s": {n: statistics.median(solve[n]) for n in names},
                         "median_build_s": {n: statistics.median(build[n]) for n in names}}
    free = without_bound(args.repeat)
    lines += ["## The knife edge parked 0.5 m sideways, no heading bound, default guess, 8 starts", "",
              f"Whole call (8 starts, seed 0, no re-simulation), median of {args.repeat}, interleaved; the optima "
              "as cost × starts that reached it (phi's range along it):", "",
              "| formulation | best cost | status | time [s] | optima | note |", "|---|---|---|---|---|---|"]
    for name, row in free.items():
        optima = "; ".join(f"{c:.8g} × {k} (phi {d.split('phi ')[-1].split(';')[0]})" for c, k, d in row["optima"])
        lines.append(f"| {name} | {row['cost']:.8g} | {row['status']} | {row['seconds']:.2f} | {optima} | "
                     f"{row['note']} |")
    lines.append("")
    record["without_bound"] = free
    hand = against_hand_written(args.repeat)
    lines += ["## The knife edge against a hand-written transcription", "",
              f"Whole call (build and solve), median of {args.repeat}, interleaved. The hand-written "
              "transcription starts from the straight line between the ends; pfaff's default guess adds a "
              "bump to it. Where the costs differ they reached different local optima, and the times are "
              "not at an equal answer.", "",
              "| transcription | time [s] | cost |", "|---|---|---|"]
    lines += [f"| {name} | {t:.3f} | {c:.8g} |" for name, (t, c) in hand.items()]
    record["hand_written"] = hand
    (OUT / "optimal_control.md").write_text("\n".join(lines) + "\n")
    (OUT / "optimal_control.json").write_text(json.dumps(record, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""IDA (index 1 and GGL) and the augmented Lagrangian: the compiled backend against the numpy backend.

    pip install ".[dae]" && python benchmarks/dae_methods.py   # about 2 minutes

The planar slider-crank for 1 s and Andrews' squeezing mechanism for 0.03 s (its test-set interval),
on the dependent formulation: IDA on the index-1 and the GGL residual at rtol = atol = 1e-8 and the
augmented Lagrangian at a fixed step (2e-3 s and 1e-5 s). On the numpy backend the residual is
evaluated in Python and IDA forms its Jacobian by difference quotients of it, and the augmented
Lagrangian's steps run in Python; on the compiled backend both run in machine code
(formulations.kernels.compiled.dependent_steps: dae_residual, dae_jacobian, al_run). Both backends run in this
process after a warm-up run each (compile time left out), interleaved (numpy, compiled, numpy, ...),
five times; medians with min-max, and the error of each run's final positions against a DOP853
reference at rtol = atol = 1e-13, so that the ratio is taken at equal error. Writes
benchmarks/output/dae_methods.md and .json.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import formulations  # noqa: E402
import systems  # noqa: E402

CASES = [("slider_crank", 1.0, 2e-3), ("andrews_squeezer", 0.03, 1e-5)]
RUNS = [("IDA, index 1", "none", "IDA"), ("IDA, GGL", "ggl", "IDA"), ("augmented Lagrangian", "none", "augmented_lagrangian")]
TOL = 1e-8
BACKENDS = ("numpy", "compiled")


def run_once(formulation, t_end, method, step):
    options = dict(method=method, rtol=TOL, atol=TOL) if method == "IDA" else dict(method=method, step=step)
    started = time.perf_counter()
    trajectory = formulation.simulate((0.0, t_end), **options)
    return time.perf_counter() - started, trajectory


def measure(repeat):
    rows = []
    for name, t_end, step in CASES:
        system = systems.load(name)
        reference = formulations.create("dependent", system, backend="numpy").simulate(
            (0.0, t_end), rtol=1e-13, atol=1e-13)
        for label, stabilization, method in RUNS:
            made = {b: formulations.create("dependent", system, stabilization=stabilization, backend=b)
                    for b in BACKENDS}
            results = {b: run_once(made[b], t_end, method, step)[1] for b in BACKENDS}  # warm-up, compiles
            times = {b: [] for b in BACKENDS}
            for _ in range(repeat):
                for b in BACKENDS:
                    seconds, results[b] = run_once(made[b], t_end, method, step)
                    times[b].append(seconds)
            row = dict(system=name, t_end=t_end, run=label, tolerance=TOL if method == "IDA" else None,
                       step=None if method == "IDA" else step)
            for b in BACKENDS:
                tr = results[b]
                row[b] = dict(median=float(np.median(times[b])), low=float(min(times[b])), high=float(max(times[b])),
                              status=int(tr.status), steps=int(tr.stats.steps),
                              error=float(np.max(np.abs(tr.p[-1] - reference.p[-1]))))
            row["speedup"] = row["numpy"]["median"] / row["compiled"]["median"]
            rows.append(row)
            print(f"{name:17s} {label:22s} numpy {row['numpy']['median']:.4f} s  compiled "
                  f"{row['compiled']['median']:.4f} s  {row['speedup']:.1f}x", file=sys.stderr)
    return rows


def table(rows) -> str:
    lines = ["| system | run | tol / step | numpy s (min-max) | compiled s (min-max) | numpy / compiled | "
             "steps numpy / compiled | error numpy / compiled |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        a, b = r["numpy"], r["compiled"]
        setting = f"rtol = atol = {r['tolerance']:g}" if r["tolerance"] else f"h = {r['step']:g} s"
        lines.append(f"| {r['system']} ({r['t_end']:g} s) | {r['run']} | {setting} | {a['median']:.4f} "
                     f"({a['low']:.4f}-{a['high']:.4f}) | {b['median']:.4f} ({b['low']:.4f}-{b['high']:.4f}) | "
                     f"{r['speedup']:.1f}x | {a['steps']} / {b['steps']} | {a['error']:.1e} / {b['error']:.1e} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(pathlib.Path(__file__).parent / "output"))
    args = parser.parse_args(argv)
    rows = measure(args.repeat)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = (f"# IDA and the augmented Lagrangian: compiled against numpy backend\n\nMedians of {args.repeat} "
            f"interleaved runs in one process after a warm-up; errors of the final positions against DOP853 at "
            f"1e-13.\n\n{table(rows)}\n")
    (out / "dae_methods.md").write_text(text)
    (out / "dae_methods.json").write_text(json.dumps(rows, indent=1))
    print(text)


if __name__ == "__main__":
    main()

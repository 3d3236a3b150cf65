"""The variational methods on the two backends: cost per step of NH-RATTLE in machine code against
the Python stepper, and against RK4 in machine code at equal final error.

    python benchmarks/variational_backends.py              # warm, in this process
    python benchmarks/variational_backends.py --one compiled --steps 10000   # one run (a fresh process: cold)

Warm: each case runs NH-RATTLE on the numpy and the compiled backend, interleaved (numpy, compiled,
numpy, ...), five times after one run each that compiles; the two take the same steps, so their final
errors are equal and the ratio of the medians is the ratio at equal error. Then RK4 in machine code
at the step whose final error (positions at t_end against DOP853 at 1e-12) equals NH-RATTLE's,
found by bisection on the step in log-log, timed interleaved with NH-RATTLE in the same way. The
final error is the largest position error at t_end (in the coordinates' units: m or rad).
Writes benchmarks/output/variational_backends.md and .json.

Cold (``--one``): a single run of NH-RATTLE on the knife edge as a user's first call meets it, to be
timed as a whole process with an empty PFAFF_CACHE_DIR and NUMBA_CACHE_DIR.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import formulations as F  # noqa: E402
import systems  # noqa: E402

H_MP = 2 * np.sin(np.pi / 40)
CASES = {  # case: (catalogue system, parameter values, step h in s, steps)
    "knife_edge": ("knife_edge", {}, 0.1, 2000),
    "chaplygin_sleigh": ("chaplygin_sleigh", {}, 0.02, 2000),
    "contact_oscillator": ("contact_oscillator", {"epsilon": 0.1}, H_MP, 2000),
    "suslov": ("suslov", {}, 0.02, 2000),
    "rolling_disc": ("rolling_disc", {}, 0.02, 1000),
    "slider_crank": ("slider_crank", {}, 0.005, 1000),
}
REPEATS = 5


def _timed(formulation, method, step, t_end):
    started = time.perf_counter()
    traj = formulation.simulate((0.0, t_end), method=method, step=step, t_eval=[0.0, t_end])
    if traj.status < 0:
        raise RuntimeError(f"{method} on {formulation.system.name}: {traj.message}")
    return time.perf_counter() - started, traj


def _interleaved(runs):
    """{label: (median s, last trajectory)} of the runs (label -> thunk), A B A B ..., one untimed
    run each first."""
    times = {label: [] for label in runs}
    last = {}
    for label, run in runs.items():
        run()
    for _ in range(REPEATS):
        for label, run in runs.items():
            seconds, last[label] = run()
            times[label].append(seconds)
    return {label: (statistics.median(values), last[label]) for label, values in times.items()}


def _rk4_step_for(formulation, error, t_end, reference, h):
    """The step at which RK4's final position error equals ``error``: bisection in log h between
    h / 64 and 16 h (a step too long for RK4's stability counts as too large an error)."""
    def miss(step):
        traj = formulation.simulate((0.0, t_end), method="rk4", step=step, t_eval=[0.0, t_end])
        return np.max(np.abs(traj.p[-1] - reference)) if traj.status >= 0 else np.inf
    low, high = np.log(h / 64), np.log(16 * h)
    for _ in range(20):
        middle = 0.5 * (low + high)
        if miss(np.exp(middle)) > error:
            high = middle
        else:
            low = middle
    return float(np.exp(low))


def measure(case):
    name, values, h, steps = CASES[case]
    system = systems.load(name, **values)
    t_end = steps * h
    forms = {backend: F.create("dependent", system, backend=backend) for backend in ("numpy", "compiled")}
    reference = forms["compiled"].simulate((0.0, t_end), method="DOP853", rtol=1e-12, atol=1e-12,
                                           t_eval=[0.0, t_end]).p[-1]
    backends = _interleaved({backend: (lambda f=form: _timed(f, "NH-RATTLE", h, t_end))
                             for backend, form in forms.items()})
    (numpy_s, numpy_run), (compiled_s, compiled_run) = backends["numpy"], backends["compiled"]
    error = float(np.max(np.abs(compiled_run.p[-1] - reference)))
    h_rk4 = _rk4_step_for(forms["compiled"], error, t_end, reference, h)
    equal = _interleaved({"NH-RATTLE": lambda: _timed(forms["compiled"], "NH-RATTLE", h, t_end),
                          "rk4": lambda: _timed(forms["compiled"], "rk4", h_rk4, t_end)})
    rk4_s, rk4_run = equal["rk4"]
    return {"case": case, "h": h, "steps": steps, "t_end": t_end, "error_NH_RATTLE": error,
            "error_rk4": float(np.max(np.abs(rk4_run.p[-1] - reference))), "h_rk4": h_rk4,
            "numpy_us_per_step": 1e6 * numpy_s / steps, "compiled_us_per_step": 1e6 * compiled_s / steps,
            "compiled_over_numpy": compiled_s / numpy_s,
            "agreement": float(max(np.max(np.abs(numpy_run.p - compiled_run.p)),
                                   np.max(np.abs(numpy_run.v - compiled_run.v)))),
            "NH_RATTLE_s": equal["NH-RATTLE"][0], "rk4_s": rk4_s, "NH_RATTLE_over_rk4": equal["NH-RATTLE"][0] / rk4_s}


def table(rows) -> str:
    lines = ["| case | h s | steps | numpy µs/step | compiled µs/step | compiled / numpy | numpy vs compiled, max diff | "
             "final error | RK4 step for that error s | RK4's final error | NH-RATTLE / RK4 (compiled, equal error) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['h']:.3g} | {r['steps']} | {r['numpy_us_per_step']:.0f} | "
                     f"{r['compiled_us_per_step']:.1f} | {r['compiled_over_numpy']:.3f} | {r['agreement']:.1e} | "
                     f"{r['error_NH_RATTLE']:.2e} | {r['h_rk4']:.3g} | {r['error_rk4']:.2e} | "
                     f"{r['NH_RATTLE_over_rk4']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--one", choices=["numpy", "compiled"], help="one knife-edge run on this backend, and exit")
    parser.add_argument("--steps", type=int, default=10000)
    args = parser.parse_args(argv)
    if args.one:
        traj = F.create("dependent", systems.load("knife_edge"), backend=args.one).simulate(
            (0.0, 0.1 * args.steps), method="NH-RATTLE", step=0.1, t_eval=[0.0, 0.1 * args.steps])
        print(traj.status, traj.stats.backend, traj.p[-1])
        return
    rows = []
    out = ROOT / "benchmarks" / "output"
    out.mkdir(parents=True, exist_ok=True)
    for case in args.cases.split(","):
        rows.append(measure(case))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
        (out / "variational_backends.md").write_text(table(rows))
        (out / "variational_backends.json").write_text(json.dumps(rows, indent=1))
    print(table(rows))


if __name__ == "__main__":
    main()

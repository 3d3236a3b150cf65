"""The advisor against a full comparison: is the recommended configuration close to the fastest?

    python benchmarks/advisor.py                  # six systems, about 15 minutes
    python benchmarks/advisor.py --systems rolling_disc,flyball_governor --budget 30
    python benchmarks/advisor.py --catalogue      # the advice alone on every catalogue system, about 30 minutes

Per system: ``formulations.advise`` at its default target error (1e-6) and the given budget, then,
independently, ``formulations.compare`` of the same candidates over the advice's pilot horizon at
the same three tolerances, three times (A B C ... A B C ...), each candidate scored as the advisor
scores it (time at the target error, interpolated in log-log) with the median of the three. The
table gives the recommendation, its tolerance, its time at the target in the independent runs,
the best candidate there and its time, their ratio (the issue's bar: 1.5) and the advice's own
time against its budget. Writes benchmarks/output/advisor.md and .json. With --catalogue: the
advice alone (``formulations.advise`` as ``pfaff advise`` runs it: the default 10 s interval and
budget) on every catalogue system, its recommendation, the time at the target in its pilot runs
and its own time against the budget; writes benchmarks/output/advisor_catalogue.md and .json.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import formulations as F  # noqa: E402
import systems  # noqa: E402
from formulations.workbench.advisor import _score  # noqa: E402
from formulations.workbench.comparison.compare import finite  # noqa: E402

CASES = {  # system: t_end in s (the interval the advice is for)
    "rolling_disc": 10.0, "knife_edge": 10.0, "slider_crank": 2.0, "n_four_bar": 5.0,
    "andrews_squeezer": 0.03, "flyball_governor": 10.0,
}


def measure(name, t_end, budget, repeat=3):
    system = systems.load(name)
    advice = F.advise(system, (0.0, t_end), budget=budget)
    labels = [c.label for c in advice.table]
    tolerances = sorted({p.tol for p in advice.comparison.sweep}, reverse=True)
    times = {label: [] for label in labels}
    for _ in range(repeat):
        with np.errstate(all="ignore"):
            again = F.compare(system, labels, advice.pilot_span, rtol=tolerances[1], sweep=tolerances, samples=101,
                              backend="numpy")
        for label in labels:
            scored = _score(label, [p for p in again.sweep if p.label == label], advice.target_error)
            times[label].append(scored.time_at_target if not scored.failed else float("nan"))
    median = {label: statistics.median(t) for label, t in times.items()}
    reached = {label: t for label, t in median.items() if np.isfinite(t)}
    best = min(reached, key=reached.get) if reached else None
    mine = median.get(advice.recommended, float("nan")) if advice.recommended else float("nan")
    return {"system": name, "t_end_s": t_end, "pilot_s": advice.pilot_span[1] - advice.pilot_span[0],
            "recommended": advice.recommended, "rtol": advice.rtol, "time_at_target_s": mine,
            "best": best, "best_time_s": reached.get(best, float("nan")),
            "ratio": mine / reached[best] if best and np.isfinite(mine) else float("nan"),
            "advice_s": advice.elapsed, "budget_s": budget, "medians": median, "reasons": list(advice.reasons)}


def catalogue(budget):
    """The advice alone on every catalogue system, as pfaff advise gives it (t_end 10 s)."""
    lines = ["| system | recommended | rtol | time at target in the pilot s | pilot s | candidates | advice s / budget s |",
             "|---|---|---|---|---|---|---|"]
    rows = []
    for name in systems.names():
        advice = F.advise(systems.load(name), (0.0, 10.0), budget=budget)
        best = advice.table[0] if advice.recommended else None
        rows.append({"system": name, "recommended": advice.recommended, "rtol": advice.rtol,
                     "time_at_target_s": best.time_at_target if best else float("nan"),
                     "pilot_s": advice.pilot_span[1] - advice.pilot_span[0], "candidates": len(advice.table),
                     "advice_s": advice.elapsed, "budget_s": budget, "reasons": list(advice.reasons)})
        row = rows[-1]
        rtol = f"{row['rtol']:g}" if row["rtol"] else "-"
        lines.append(f"| {name} | {row['recommended'] or 'none'} | {rtol} | {row['time_at_target_s']:.3g} | "
                     f"{row['pilot_s']:.3g} | {row['candidates']} | {row['advice_s']:.1f} / {budget:g} |")
        print(lines[-1], flush=True)
    out = ROOT / "benchmarks" / "output"
    (out / "advisor_catalogue.md").write_text("\n".join(lines) + "\n")
    (out / "advisor_catalogue.json").write_text(json.dumps(finite(rows), indent=1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default=",".join(CASES))
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--catalogue", action="store_true", help="the advice alone on every catalogue system")
    args = parser.parse_args(argv)
    if args.catalogue:
        return catalogue(args.budget)
    rows = []
    lines = ["| system | interval s | pilot s | recommended | rtol | its time at target s | best in the full "
             "comparison | its time s | ratio | advice s / budget s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name in args.systems.split(","):
        row = measure(name, CASES[name], args.budget)
        rows.append(row)
        rtol = f"{row['rtol']:g}" if row["rtol"] else "-"
        lines.append(f"| {name} | {row['t_end_s']:g} | {row['pilot_s']:.3g} | {row['recommended'] or 'none'} | {rtol} | "
                     f"{row['time_at_target_s']:.3g} | {row['best'] or 'none'} | {row['best_time_s']:.3g} | "
                     f"{row['ratio']:.2f} | {row['advice_s']:.1f} / {row['budget_s']:g} |")
        print(lines[-1], flush=True)
    out = ROOT / "benchmarks" / "output"
    out.mkdir(parents=True, exist_ok=True)
    (out / "advisor.md").write_text("\n".join(lines) + "\n")
    (out / "advisor.json").write_text(json.dumps(finite(rows), indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()

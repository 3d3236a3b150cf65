"""The advisor against a full comparison: is the recommended configuration close to the fastest?

    python benchmarks/advisor.py                  # six systems, about 15 minutes
    python benchmarks/advisor.py --systems rolling_disc,flyball_governor --budget 30
    python benchmarks/advisor.py --catalogue      # every catalogue system, about 90 minutes

Per system: ``formulations.advise`` at its default target error (1e-6) and the given budget, then,
independently, ``formulations.compare`` of the same candidates over the advice's pilot horizon at
the same three tolerances, three times (A B C ... A B C ...), each candidate scored as the advisor
scores it (time at the target error, interpolated in log-log) with the median of the three; each of
those comparisons times a run shorter than 0.2 s by the median of its repeats (compare's
``measure``). Both run on the backend the advice names (``Advice.backend``: create's default,
compiled where the machine code is ready; ``pfaff cache warm --system NAME`` readies it). The
table gives the recommendation, its tolerance, its time at the target in the independent runs,
the best candidate there and its time, their ratio (within 1.5 counts as close) and the advice's own
time against its budget. Writes benchmarks/output/advisor.md and .json (with --catalogue:
advisor_catalogue.md and .json, every catalogue system over 10 s, as ``pfaff advise NAME`` runs
it). The independent comparison uses the advice's reference (the reference that passes where a
singular configuration lies ahead).
"""
from __future__ import annotations

import argparse
import dataclasses
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


def _on_numpy(label):
    """The advice's reference configuration, run on numpy as the advisor runs it."""
    config = F.Configuration.parse(label)
    return dataclasses.replace(config, options={**config.options, "backend": "numpy"})


def measure(name, t_end, budget, repeat=3):
    system = systems.load(name)
    advice = F.advise(system, (0.0, t_end), budget=budget)
    labels = [c.label for c in advice.table]
    if not labels:  # nothing was measured (the budget ended first): nothing to compare
        return {"system": name, "t_end_s": t_end, "pilot_s": advice.pilot_span[1] - advice.pilot_span[0],
                "recommended": None, "rtol": None, "time_at_target_s": float("nan"), "best": None,
                "best_time_s": float("nan"), "ratio": float("nan"), "advice_s": advice.elapsed, "budget_s": budget,
                "medians": {}, "reasons": list(advice.reasons), "backend": advice.backend}
    tolerances = sorted({p.tol for p in advice.comparison.sweep}, reverse=True)
    times = {label: [] for label in labels}
    for _ in range(repeat):
        with np.errstate(all="ignore"):
            again = F.compare(system, labels, advice.pilot_span, rtol=tolerances[1], sweep=tolerances, samples=101,
                              backend=advice.backend, reference=_on_numpy(advice.reference))
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
            "advice_s": advice.elapsed, "budget_s": budget, "medians": median, "reasons": list(advice.reasons),
            "backend": advice.backend}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default=",".join(CASES))
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--catalogue", action="store_true",
                        help="every catalogue system over 10 s, as pfaff advise runs it; about 90 minutes")
    args = parser.parse_args(argv)
    names = systems.names() if args.catalogue else args.systems.split(",")
    rows = []
    lines = ["| system | backend | interval s | pilot s | recommended | rtol | its time at target s | best in the full "
             "comparison | its time s | ratio | advice s / budget s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        row = measure(name, 10.0 if args.catalogue else CASES.get(name, 10.0), args.budget)
        rows.append(row)
        rtol = f"{row['rtol']:g}" if row["rtol"] else "-"
        lines.append(f"| {name} | {row['backend']} | {row['t_end_s']:g} | {row['pilot_s']:.3g} | "
                     f"{row['recommended'] or 'none'} | {rtol} | "
                     f"{row['time_at_target_s']:.3g} | {row['best'] or 'none'} | {row['best_time_s']:.3g} | "
                     f"{row['ratio']:.2f} | {row['advice_s']:.1f} / {row['budget_s']:g} |")
        print(lines[-1], flush=True)
    stem = "advisor_catalogue" if args.catalogue else "advisor"
    out = ROOT / "benchmarks" / "output"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    (out / f"{stem}.json").write_text(json.dumps(finite(rows), indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""The IFToMM multibody benchmark problems A01-A05 through every applicable formulation and solver.

    python benchmarks/iftomm.py            # shortened runs (A02 with N = 10), a few minutes on two cores
    python benchmarks/iftomm.py --full     # the benchmark's sizes and lengths (A02 with N = 40 for 20 s, ...)
    python benchmarks/iftomm.py --protocol # CPU time at the benchmark's two precision levels, with the advisor's choice

Problems (the IFToMM library of computational benchmark problems; Gonzalez, Dopico, Lugris &
Cuadrado, Multibody Syst. Dyn. 16, 2006): A01 simple pendulum, A02 N-four-bar mechanism through
its singular positions, A03 Andrews' squeezing mechanism, A04 Bricard's mechanism (redundant), A05
stiff flyball governor. Each runs at rtol = atol = 1e-8 in every formulation and solver that
applies; its error is measured against the reference named in the table:
  A01  the closed form (Jacobi's sn) of the point P1;
  A03  the Hairer-Wanner test-set solution at t = 0.03 s (PSIDE at 1e-14);
  A02  the one-degree-of-freedom pendulum of the parallelogram branch (n_four_bar.branch_motion),
       integrated at 1e-13: the motion the benchmark asks a method to keep through the singular
       positions;
  A04, A05  no published numbers are at hand (the library's data files are not), so the reference
       is pfaff's own run converged at rtol = atol = 1e-13 (A04: dependent with projection; A05:
       Radau at 1e-12 on the minimal formulation, the stiff springs making an explicit method at
       1e-13 too slow), said so in the table.
The error is the largest distance over 101 sample times between the run's output point (P1, B0,
P3 = B, the slider height s; A03: the seven angles at 0.03 s) and the reference. Writes
benchmarks/output/iftomm.md and .json.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import formulations  # noqa: E402
import systems  # noqa: E402
from systems.catalogue import andrews_squeezer, iftomm_pendulum, n_four_bar  # noqa: E402

TOL = 1e-8
MAX_STEPS = 5000  # a run that needs more (a step size collapsing at a singular position) is reported as stopped
EXPLICIT = "DOP853"
PROJECTING = dict(stabilization="projection")


def problems(full):
    """(label, system, t_end, output columns of p, runs [(formulation, options, method)], reference kind)."""
    flat = dict(stabilization="projection", singular="pass")
    n = 40 if full else 10  # N = 40: about 10 ms per evaluation on the numpy backend, minutes per run
    return [
        ("A01 simple pendulum", systems.load("iftomm_pendulum"), 2000.0 if full else 10.0, [0, 1],
         [("dependent", PROJECTING, EXPLICIT), ("dependent", dict(stabilization="baumgarte"), EXPLICIT),
          ("dependent", {}, "IDA"), ("reduced", {}, EXPLICIT), ("minimal", {}, EXPLICIT),
          ("manifold", {}, EXPLICIT)], "closed form"),
        (f"A02 N-four-bar (N = {n})", systems.load("n_four_bar", n=n), 20.0 if full else 10.0, [0, 1],
         [("dependent", flat, EXPLICIT), ("dependent", dict(stabilization="baumgarte", singular="pass"), EXPLICIT),
          ("reduced", {}, EXPLICIT), ("minimal", {}, EXPLICIT), ("reduced", dict(singular="pass"), EXPLICIT),
          ("minimal", dict(singular="pass"), EXPLICIT), ("manifold", {}, EXPLICIT)], "branch"),
        ("A03 Andrews' squeezer", systems.load("andrews_squeezer"), andrews_squeezer.REFERENCE_TIME, list(range(7)),
         [("dependent", PROJECTING, EXPLICIT), ("dependent", dict(stabilization="baumgarte"), EXPLICIT),
          ("dependent", {}, "IDA"), ("dependent", dict(stabilization="ggl"), "IDA"), ("reduced", {}, EXPLICIT),
          ("minimal", {}, EXPLICIT), ("manifold", {}, EXPLICIT)], "Hairer-Wanner"),
        ("A04 Bricard's mechanism", systems.load("bricard"), 10.0, [3, 4, 5],
         [("dependent", PROJECTING, EXPLICIT), ("dependent", dict(stabilization="baumgarte"), EXPLICIT),
          ("dependent", PROJECTING, "RK45")], "converged"),
        ("A05 flyball governor", systems.load("flyball_governor"), 10.0 if full else 2.0, [1],
         [("dependent", dict(stabilization="baumgarte"), "Radau"), ("dependent", {}, "IDA"),
          ("reduced", {}, "Radau"), ("minimal", {}, "Radau"), ("minimal", {}, "BDF"), ("minimal", {}, EXPLICIT)],
         "converged"),
    ]


def reference(label, system, t, columns, kind, t_end):
    """(output at t (len(t), len(columns)), how it was obtained)."""
    if kind == "closed form":
        return np.column_stack(iftomm_pendulum.closed_form(t)), "closed form (Jacobi sn)"
    if kind == "Hairer-Wanner":
        return np.array([andrews_squeezer.REFERENCE_P]), "Hairer-Wanner test set, t = 0.03 s (PSIDE 1e-14)"
    if kind == "branch":
        n = (len(system.coordinates) - 2) // 2
        return np.column_stack(n_four_bar.branch_motion(t, n)), "the branch's 1-dof pendulum, DOP853, 1e-13"
    if label.startswith("A05"):
        run = formulations.create("minimal", system).simulate((0.0, t_end), rtol=1e-12, atol=1e-12, t_eval=t,
                                                              method="Radau")
        how = "converged run: minimal, Radau, 1e-12"
    else:
        run = formulations.create("dependent", system, stabilization="projection").simulate(
            (0.0, t_end), rtol=1e-13, atol=1e-13, t_eval=t, method=EXPLICIT)
        how = "converged run: dependent + projection, DOP853, 1e-13"
    if run.status != 0:
        raise RuntimeError(f"{label}: the reference run failed: {run.message}")
    return run.p[:, columns], how


def one_run(system, formulation, options, method, t, t_end, columns, ref, final_only):
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = formulations.create(formulation, system, **options).simulate(
                (0.0, t_end), rtol=TOL, atol=TOL, method=method, t_eval=None if final_only else t,
                max_steps=MAX_STEPS)
    except Exception as exc:  # a formulation or solver that does not apply: reported, not hidden
        return dict(status="not run", message=f"{type(exc).__name__}: {str(exc)[:160]}")
    wall = time.perf_counter() - started
    reached = run.status == 0
    error = _error(run, columns, ref, final_only) if reached else float("nan")
    reached = reached and np.isfinite(error)
    position = run.constraint_errors.position
    return dict(status="ok" if reached else f"stopped at t = {run.t[-1]:.4g}", message=run.message[:200],
                error=error, constraint=float(np.max(np.abs(position), initial=0.0)) if position.size else 0.0,
                energy=float(run.energy_drift), wall=wall, evaluations=int(run.stats.rhs_evaluations),
                steps=int(run.stats.steps))


def label_of(formulation, options):
    extra = [options["stabilization"]] if "stabilization" in options else []
    extra += ["through singular"] if options.get("singular") == "pass" else []
    return formulation + (f" + {', '.join(extra)}" if extra else "")


LEVELS = {"low": 1e-1, "high": 1e-3}  # maximum errors of the reference quantity (A01's published precision levels)
LADDER = (1e-4, 1e-6, 1e-8, 1e-10)     # rtol = atol of the runs; the CPU time at a level is the cheapest that meets it
OTHER_CODES = {  # published CPU times of other codes, measured on other machines (precision not stated there)
    "A01": "OpenSim 3.2: 0.637 s for 10 s", "A02": "OpenSim 3.2: 0.455 s (N = 2, 10 s)",
    "A03": "OpenSim 3.2: 0.384 s for 0.05 s", "A04": "OpenSim 3.2: 0.258 s for 10 s", "A05": "-",
}
OTHER_MACHINE = ("OpenSim 3.2 on an Intel Core i5-4570 at 3.2 GHz, Windows 8.1 (the University of Padua's "
                 "Rehabilitation Engineering Group, github.com/RehabEngGroup/MBSbenchmarksInOpenSim)")


REPEAT = 5      # interleaved runs per configuration and tolerance
BUDGET = 60.0   # s for the advice on each problem (advise's default)


def protocol(full, repeat=REPEAT, budget=BUDGET):
    """Per problem: the advisor's recommendation, then every configuration (the problem's runs and
    the recommendation) at each tolerance of LADDER, ``repeat`` times interleaved (A B C ... A B C);
    the error against the reference and the median CPU time of each (time.process_time, so that a
    loaded machine does not count), and per precision level the cheapest run that meets it."""
    rows = []
    for label, system, t_end, columns, runs, kind in problems(full):
        final_only = kind == "Hairer-Wanner"
        t = np.linspace(0.0, t_end, 101)
        ref, how = reference(label, system, t, columns, kind, t_end)
        advice = formulations.advise(system, (0.0, t_end), budget=budget)
        configs = [(label_of(f, o), f, o, m, None) for f, o, m in runs]
        if advice.recommended:
            chosen = formulations.Configuration.parse(advice.recommended)
            configs.insert(0, (f"advisor: {advice.recommended}", chosen.formulation,
                               {"stabilization": chosen.stabilization, **chosen.options}, chosen.method, chosen.step))
        forms = {}  # by (configuration, method): one formulation may run with several methods
        for name, formulation, options, method, _ in configs:
            try:
                forms[name, method] = formulations.create(formulation, system, backend="numpy", **options)
            except Exception as exc:  # a formulation that does not apply: reported, not hidden
                rows.append(dict(problem=label, t_end=t_end, configuration=name, method=method, reference=how,
                                 status=f"not run: {type(exc).__name__}: {str(exc)[:120]}"))
        measured = {(key, tol): [] for key in forms for tol in LADDER}
        errors = {}
        for _ in range(repeat):
            for tol in LADDER:
                for name, formulation, options, method, step in configs:
                    if (name, method) in forms:
                        key = name, method
                        errors[key, tol], cpu = _timed(forms[key], t_end, tol, method, step, t, columns, ref,
                                                       final_only)
                        measured[key, tol].append(cpu)
        for name, method in forms:
            key = name, method
            row = dict(problem=label, t_end=t_end, configuration=name, method=method, reference=how, status="ok",
                       errors={f"{tol:g}": errors[key, tol] for tol in LADDER},
                       cpu={f"{tol:g}": float(np.median(measured[key, tol])) for tol in LADDER})
            for level, bound in LEVELS.items():
                meets = [(row["cpu"][f"{tol:g}"], tol) for tol in LADDER if errors[key, tol] <= bound]
                row[f"{level}_s"], row[f"{level}_tol"] = min(meets) if meets else (float("nan"), None)
            rows.append(row)
            print(f"  {label} {name:<45} {method:<7} low {row['low_s']:.3g} s  high {row['high_s']:.3g} s",
                  file=sys.stderr)
    return rows


def _timed(form, t_end, tol, method, step, t, columns, ref, final_only):
    """(error against ``ref``, CPU seconds) of one run; NaN error where the run failed or raised."""
    started = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = form.simulate((0.0, t_end), rtol=tol, atol=tol, method=method, step=step,
                                t_eval=None if final_only else t, max_steps=MAX_STEPS)
    except Exception:  # a method that does not apply at this tolerance: no error to report
        return float("nan"), time.process_time() - started
    cpu = time.process_time() - started
    return (_error(run, columns, ref, final_only) if run.status >= 0 else float("nan")), cpu


def _error(run, columns, ref, final_only) -> float:
    """The largest distance between the run's output columns and ``ref`` at the sample times (the
    last point only where ``final_only``); NaN where the run did not reach every sample time."""
    out = run.p[-1:, columns] if final_only else run.p[:, columns]
    return float(np.max(np.linalg.norm(out - ref, axis=1))) if out.shape == ref.shape else float("nan")


def protocol_table(rows, full, repeat):
    lines = ["# IFToMM benchmark problems A01-A05: CPU time at the precision levels", "",
             f"{'Benchmark lengths' if full else 'Shortened runs (--full: the benchmark lengths)'}. Error: the largest "
             f"distance to the reference over 101 sample times (A03: the seven angles at t = 0.03 s). A configuration "
             f"runs at rtol = atol = {', '.join(f'{t:g}' for t in LADDER)}; its time at a level is the median CPU "
             f"time of {repeat} interleaved runs, the cheapest of those whose error is within the level "
             f"(low: {LEVELS['low']:g}, high: {LEVELS['high']:g}), on the numpy backend; '-' where none is. The "
             f"first row of a problem is the advisor's recommendation (advise over the same interval, {BUDGET:g} s "
             f"budget). "
             f"Other codes: {OTHER_MACHINE}; measured on another machine, at a precision those pages do not state.",
             "", "| problem | configuration | method | low: s (rtol) | high: s (rtol) | errors at the tolerances | "
             "other codes (other machine) | reference |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        other = OTHER_CODES[r["problem"][:3]]
        if r["status"] != "ok":
            lines.append(f"| {r['problem']} | {r['configuration']} | {r['method']} | {r['status']} | | | {other} | "
                         f"{r['reference']} |")
            continue
        cells = [f"{r[f'{k}_s']:.3g} ({r[f'{k}_tol']:g})" if r[f"{k}_tol"] else "-" for k in LEVELS]
        errs = ", ".join(f"{e:.1e}" if np.isfinite(e) else "failed" for e in r["errors"].values())
        lines.append(f"| {r['problem']} | {r['configuration']} | {r['method']} | {cells[0]} | {cells[1]} | {errs} | "
                     f"{other} | {r['reference']} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the benchmark's sizes and lengths (A01 2000 s, A02 N = 40 for 20 s, A05 10 s)")
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent / "output"))
    parser.add_argument("--protocol", action="store_true",
                        help="CPU time at the two precision levels, with the advisor's choice (about 30 minutes)")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.protocol:
        rows = protocol(args.full, REPEAT, BUDGET)
        (out / "iftomm_protocol.json").write_text(json.dumps(rows, indent=1))
        (out / "iftomm_protocol.md").write_text(protocol_table(rows, args.full, REPEAT))
        print(protocol_table(rows, args.full, REPEAT))
        return
    rows = []
    for label, system, t_end, columns, runs, kind in problems(args.full):
        final_only = kind == "Hairer-Wanner"
        t = np.linspace(0.0, t_end, 101)
        started = time.perf_counter()
        ref, how = reference(label, system, t, columns, kind, t_end)
        print(f"{label}: reference ({how}) in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        for formulation, options, method in runs:
            result = one_run(system, formulation, options, method, t, t_end, columns, ref, final_only)
            result.update(problem=label, t_end=t_end, formulation=label_of(formulation, options), method=method,
                          reference=how)
            print(f"  {result['formulation']:<40} {method:<7} {result['status']:<10} "
                  f"error {result.get('error', float('nan')):.2e}  {result.get('wall', float('nan')):.2f} s",
                  file=sys.stderr)
            rows.append(result)
    (out / "iftomm.json").write_text(json.dumps(rows, indent=1))
    (out / "iftomm.md").write_text(table(rows, args.full))
    print(table(rows, args.full))


def table(rows, full):
    lines = ["# IFToMM benchmark problems A01-A05", "",
             f"rtol = atol = {TOL:g}; {'full lengths' if full else 'shortened runs, A02 with N = 10 (--full: N = 40, the benchmark lengths)'}; "
             "error: largest distance to the reference over 101 sample times (A03: the seven angles at t = 0.03 s), "
             "in m (A03: rad); |Phi|: largest position-constraint residual; energy: largest |E(t) - E(0)| "
             "(A03 driven, A05 damped: not conserved); wall time on the numpy backend. "
             "The library's data files were not at hand: where no published value is given, the reference is "
             "pfaff's own converged run, as the reference column says.", "",
             "| problem | t_end (s) | formulation | method | status | error | max abs Phi | energy drift | wall (s) "
             "| evaluations | reference |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] == "not run":
            lines.append(f"| {r['problem']} | {r['t_end']:g} | {r['formulation']} | {r['method']} | not run: "
                         f"{r['message'].replace('|', '/')} | | | | | | {r['reference']} |")
            continue
        lines.append(f"| {r['problem']} | {r['t_end']:g} | {r['formulation']} | {r['method']} | {r['status']} | "
                     f"{r['error']:.2e} | {r['constraint']:.1e} | {r['energy']:.1e} | {r['wall']:.2f} | "
                     f"{r['evaluations']} | {r['reference']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

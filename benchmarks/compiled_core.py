"""Work-precision of the rolling disc, in one process, peers interleaved: simulation time at equal
final error for pfaff's formulations on the numpy backend (scipy's DOP853) and on the compiled
backend (the fused right-hand side in the machine-code DOP853 and dopri5 loops, with the
projection of the dependent formulation and the new charts of the manifold formulation inside
them), sympy KanesMethod + lambdify + scipy's
DOP853, and PyDy's lambdify and cython backends where PyDy is installed (its right-hand side
returns one reused buffer, so it is copied).

Every pipeline runs at rtol = atol = 1e-5 ... 1e-12, each point repeated (A B C ... A B C ...) and
its median kept; the time at a final error of 1e-9 (max |p - p_ref|, |v - v_ref| at t = 10 s
against dependent + projection at 1e-13) is interpolated in log-log between the two tolerances
that bracket it. Run: python benchmarks/compiled_core.py [--repeat 5] [--out benchmarks/output]
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

T_END, TARGET = 10.0, 1e-9
TOLS = [10.0 ** -k for k in range(5, 13)]


def pipelines(system):
    """{name: run(tol) -> (p_final, v_final, evaluations)}, every one set up (warm) before timing."""
    import scipy.integrate as si

    import formulations
    from kane_models import rolling_disc as kane_disc

    def pfaff(formulation, method, backend, **options):
        form = formulations.create(formulation, system, backend=backend, **options)

        def run(tol):
            tr = form.simulate((0.0, T_END), rtol=tol, atol=tol, method=method)
            return tr.p[-1], tr.v[-1], tr.stats.rhs_evaluations
        return run

    out = {f"pfaff {f} numpy DOP853": pfaff(f, "DOP853", "numpy") for f in ("dependent", "reduced", "minimal", "manifold")}
    out["pfaff projection numpy DOP853"] = pfaff("dependent", "DOP853", "numpy", stabilization="projection")
    try:
        for f in ("dependent", "reduced", "minimal", "manifold"):
            out[f"pfaff {f} compiled DOP853"] = pfaff(f, "DOP853", "compiled")
            out[f"pfaff {f} compiled dopri5"] = pfaff(f, "dopri5", "compiled")
        out["pfaff projection compiled DOP853"] = pfaff("dependent", "DOP853", "compiled", stabilization="projection")
    except ImportError as exc:
        print(f"compiled backend left out: {exc}")
    model = kane_disc()
    model.compile()
    params = [1.0, 0.5, 9.81, 0.0]
    p0, v0 = system.default_state()
    values = dict(zip(model.q, p0)) | dict(zip(model.u, v0))
    x0 = np.array([values[s] for s in model.order])

    def from_x(x, order):
        final = dict(zip(order, x))
        return np.array([final[s] for s in model.q]), np.array([final[s] for s in model.u])

    def kane(tol):
        count = [0]

        def rhs(t, x):
            count[0] += 1
            return model.rhs(x, params)
        sol = si.solve_ivp(rhs, (0.0, T_END), x0, method="DOP853", rtol=tol, atol=tol)
        return (*from_x(sol.y[:, -1], model.order), count[0])
    out["sympy Kane + lambdify DOP853"] = kane
    try:
        from pydy.system import System
    except ImportError:
        print("PyDy is not installed: its pipelines are left out (pip install pydy cython)")
        return out
    for generator in ("lambdify", "cython"):
        try:
            psys = System(model.kane, constants=dict(zip(model.params, params)),
                          initial_conditions=dict(zip(model.order, x0)))
            psys.generate_ode_function(generator=generator)
        except Exception as exc:  # a missing compiler for cython
            print(f"PyDy {generator} left out: {exc}")
            continue
        by_symbol = dict(zip(model.params, params))
        fn, consts = psys.evaluate_ode_function, np.array([by_symbol[c] for c in psys.constants_symbols])
        order = list(psys.states)
        y0 = np.array([dict(zip(model.order, x0))[s] for s in order])

        def run(tol, fn=fn, consts=consts, order=order, y0=y0):
            count = [0]

            def rhs(t, x):
                count[0] += 1
                return np.array(fn(x, t, consts))  # PyDy reuses its output buffer
            sol = si.solve_ivp(rhs, (0.0, T_END), y0, method="DOP853", rtol=tol, atol=tol)
            return (*from_x(sol.y[:, -1], order), count[0])
        out[f"PyDy {generator} DOP853"] = run
    return out


def bracket(errors, target=TARGET):
    """(i, j): the indices of the points whose final errors bracket ``target`` (the nearest pair in
    the order of decreasing error), or None."""
    order = sorted(range(len(errors)), key=lambda k: -errors[k])
    for i, j in zip(order, order[1:]):
        if errors[i] >= target >= errors[j] > 0:
            return i, j
    return None


def time_at(errors, times, target=TARGET):
    """Simulation time at final error ``target``, log-log interpolation between bracketing points."""
    pair = bracket(errors, target)
    if pair is None:
        return float("nan")
    (e0, t0), (e1, t1) = ((errors[k], times[k]) for k in pair)
    s = (np.log(target) - np.log(e0)) / (np.log(e1) - np.log(e0))
    return float(np.exp(np.log(t0) + s * (np.log(t1) - np.log(t0))))


def table(results, repeat):
    """The Markdown table of compiled_core.md: time at the target error, ratios, bracketing points."""
    kane = time_at(results["sympy Kane + lambdify DOP853"]["error"], results["sympy Kane + lambdify DOP853"]["median"])
    cython = results.get("PyDy cython DOP853")
    cython_t = time_at(cython["error"], cython["median"]) if cython else float("nan")
    lines = [f"rolling disc, {T_END:g} s; time at final error {TARGET:g} (medians of {repeat}, interleaved)", "",
             "| pipeline | time at 1e-9 s | vs Kane | vs PyDy cython | evaluations at the bracketing tolerances |",
             "|---|---|---|---|---|"]
    for name, r in results.items():
        t = time_at(r["error"], r["median"])
        near = [f"{r['tol'][k]:g}: {r['error'][k]:.1e} in {r['median'][k]:.3f} s [{r['min'][k]:.3f}–{r['max'][k]:.3f}], "
                f"{r['evaluations'][k]} evals" for k in sorted(bracket(r["error"]) or ())]
        lines.append(f"| {name} | {t:.4f} | {t / kane:.2f} | {t / cython_t:.2f} | {'; '.join(near)} |")
    return "\n".join(lines) + "\n"


def work_precision(runs, tols, repeat, p_ref, v_ref):
    """{name: {tol, error, median, min, max, evaluations}}: every pipeline ``run(tol) -> (p, v, evals)``
    at every tolerance, ``repeat`` times interleaved (A B C ... A B C ...); the error is the final
    state's max |p - p_ref|, |v - v_ref|."""
    results = {name: {"tol": [], "error": [], "median": [], "min": [], "max": [], "evaluations": []} for name in runs}
    for tol in tols:
        samples = {name: [] for name in runs}
        finals = {}
        for _ in range(repeat):
            for name, run in runs.items():
                started = time.perf_counter()
                p, v, nfev = run(tol)
                samples[name].append(time.perf_counter() - started)
                finals[name] = (p, v, nfev)
        for name in runs:
            p, v, nfev = finals[name]
            r = results[name]
            r["tol"].append(tol)
            r["error"].append(float(max(np.max(np.abs(p - p_ref)), np.max(np.abs(v - v_ref)))))
            r["median"].append(float(np.median(samples[name])))
            r["min"].append(float(np.min(samples[name])))
            r["max"].append(float(np.max(samples[name])))
            r["evaluations"].append(int(nfev))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "output"))
    args = parser.parse_args(argv)
    import formulations
    import systems

    system = systems.load("rolling_disc")
    ref = formulations.create("dependent", system, stabilization="projection").simulate(
        (0.0, T_END), rtol=1e-13, atol=1e-13)
    p_ref, v_ref = ref.p[-1], ref.v[-1]
    runs = pipelines(system)
    for run in runs.values():  # warm: compile caches, first-call costs
        run(1e-6)
    results = work_precision(runs, TOLS, args.repeat, p_ref, v_ref)
    text = table(results, args.repeat)
    print(text)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compiled_core.md").write_text("# The compiled core, measured\n\n" + text)
    (out / "compiled_core.json").write_text(json.dumps(results, indent=1))
    work_precision_figure(results, out / "compiled_core_work_precision.png", "rolling disc: work-precision",
                          f"final error at t = {T_END:g} s")


def work_precision_figure(results, path, title, xlabel):
    """Simulation time (median) against final error, one line per pipeline, to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5))
    colours = {"dependent": "C0", "reduced": "C1", "minimal": "C2", "manifold": "C3", "projection": "C4",
               "hand-written": "C5"}
    peers = iter(["0.0", "0.35", "0.6"])
    for name, r in results.items():  # colour: the formulation (grey for peers); line: backend and method
        words = name.split()
        colour = next((c for key, c in colours.items() if key in words), None) or next(peers, "0.8")
        style = ":" if "dopri5" in words else ("-" if "compiled" in words or "hand-written" in words else "--")
        ax.loglog(r["error"], r["median"], marker="o", linestyle=style, color=colour, label=name, markersize=3)
    ax.axvline(TARGET, color="0.6", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("simulation time s (median)")
    ax.set_title(title + "\n(solid: machine code, DOP853; dotted: machine code, dopri5; dashed: numpy / peers)",
                 fontsize="medium")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    main()

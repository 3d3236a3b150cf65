"""Time to first result on the rolling disc: a whole fresh Python process from the first import to
a 10 s simulation result, per pipeline, with cold and warm compile caches.

Expected runtime of the full version (--repeat 5, 10 s): about 25-50 minutes. One repetition took
10 minutes on a busy 2-core machine, 8 of them in the numba compilation of the three cold compiled
pipelines (1.5-4 minutes each); on an idle machine about half of that is expected.

Pipelines (each one process per repetition; the processes interleaved A B C ... A B C ...):
  pfaff <formulation> numpy            dependent, reduced, minimal, manifold; DOP853 (scipy)
  pfaff <formulation> compiled cold    dependent, reduced, minimal; method DOP853 (machine-code
                                       loop); fresh, empty PFAFF_CACHE_DIR and NUMBA_CACHE_DIR
  pfaff <formulation> compiled warm    the same, a second process on the cache folders the cold
                                       process of the same repetition filled
  sympy Kane + lambdify DOP853         KanesMethod (tests/kane_models.py) + lambdify with CSE of the
                                       full mass matrix and forcing + solve_ivp
  PyDy lambdify / cython DOP853        pydy.system.System on the same KanesMethod object,
                                       generate_ode_function + solve_ivp (its output buffer copied)
Every process works in its own temporary folder. Inside the process the clock starts before the
first import of numpy, scipy, sympy or pfaff and stops when the final state is in hand; the phases
are import, build (equations and numeric code: systems.load + compile_system, or KanesMethod +
code generation) and simulate (including, for pfaff, the formulation's setup and any compilation
at its first simulate). "process" is the parent's wall time of the whole subprocess, including
interpreter start-up and exit.

The case: m = 1 kg, r = 0.5 m, g = 9.81 m/s^2, thin disc; psi = 0, theta = 0.3, phi = 0;
psi' = 1, theta' = 0, phi' = 8 rad/s; rtol = atol = 1e-8; 10 s. Each final state is compared with
pfaff's dependent formulation at rtol = atol = 1e-12 (max |p - p_ref|, |v - v_ref|).
Reported: medians with min-max, the ratio of the total to the Kane pipeline's median, and
"warm compiled start adds X s" = warm compiled total - numpy total of the same formulation
(median of the per-repetition differences, min-max).

Run: python benchmarks/first_result.py [--repeat 5] [--t-end 10] [--out benchmarks/output]
     [--pipelines kane,pfaff:dependent:numpy,...]   (a subset; names as in PIPELINES)
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOL = 1e-8
PIPELINES = ["pfaff:dependent:numpy", "pfaff:reduced:numpy", "pfaff:minimal:numpy", "pfaff:manifold:numpy",
             "pfaff:dependent:compiled:cold", "pfaff:dependent:compiled:warm",
             "pfaff:reduced:compiled:cold", "pfaff:reduced:compiled:warm",
             "pfaff:minimal:compiled:cold", "pfaff:minimal:compiled:warm",
             "kane", "pydy:lambdify", "pydy:cython"]
LABELS = {"kane": "sympy Kane + lambdify DOP853", "pydy:lambdify": "PyDy lambdify DOP853",
          "pydy:cython": "PyDy cython DOP853"}


def label(config):
    if config in LABELS:
        return LABELS[config]
    parts = config.split(":")
    method = "DOP853"
    return " ".join(["pfaff", parts[1], parts[2]] + parts[3:] + [method])


def worker(config, t_end, state0):
    """One pipeline from the first import to the final state; returns the phases in seconds."""
    started = time.perf_counter()
    out = {"config": config}
    if config.startswith("pfaff:"):
        _, formulation, backend = config.split(":")[:3]
        import formulations
        import systems
        from systems.numeric.model import compile_system

        out["import"] = time.perf_counter() - started
        t0 = time.perf_counter()
        system = systems.load("rolling_disc")
        compile_system(system, backend)
        out["build"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        form = formulations.create(formulation, system, backend=backend)
        traj = form.simulate((0.0, t_end), rtol=TOL, atol=TOL, method="DOP853")
        p, v = traj.p[-1], traj.v[-1]
        out["simulate"] = time.perf_counter() - t0
        out.update(total=time.perf_counter() - started, nfev=int(traj.stats.rhs_evaluations), status=int(traj.status),
                   message=traj.message, p=[float(x) for x in p], v=[float(x) for x in v])
        return out
    import numpy as np
    import scipy.integrate as si

    sys.path.insert(0, str(ROOT / "tests"))
    from kane_models import rolling_disc as kane_disc
    if config.startswith("pydy:"):
        from pydy.system import System
    out["import"] = time.perf_counter() - started
    t0 = time.perf_counter()
    model = kane_disc()
    params = [1.0, 0.5, 9.81, 0.0]
    p0, v0 = state0
    values = dict(zip(model.q, p0)) | dict(zip(model.u, v0))
    if config == "kane":
        model.compile()
        order = model.order

        def rhs(t, x):
            rhs.count += 1
            return model.rhs(x, params)
    else:
        psys = System(model.kane, constants=dict(zip(model.params, params)),
                      initial_conditions={s: values[s] for s in model.order})
        psys.generate_ode_function(generator=config.split(":")[1])
        by_symbol = dict(zip(model.params, params))
        fn, consts = psys.evaluate_ode_function, np.array([by_symbol[c] for c in psys.constants_symbols])
        order = list(psys.states)

        def rhs(t, x):
            rhs.count += 1
            return np.array(fn(x, t, consts))  # PyDy reuses its output buffer
    rhs.count = 0
    out["build"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    x0 = np.array([values[s] for s in order])
    sol = si.solve_ivp(rhs, (0.0, t_end), x0, method="DOP853", rtol=TOL, atol=TOL)
    final = dict(zip(order, sol.y[:, -1]))
    out["simulate"] = time.perf_counter() - t0
    out.update(total=time.perf_counter() - started, nfev=rhs.count, status=int(sol.status), message=sol.message,
               p=[float(final[s]) for s in model.q], v=[float(final[s]) for s in model.u])
    return out


def run_worker(config, t_end, state0, cache, timeout):
    """The pipeline in a fresh process, in its own temporary working folder, with ``cache`` as
    PFAFF_CACHE_DIR (and its numba subfolder as NUMBA_CACHE_DIR)."""
    env = dict(os.environ, PFAFF_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(pathlib.Path(cache) / "numba"))
    with tempfile.TemporaryDirectory(prefix="pfaff-first-") as cwd:
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", config,
                               "--t-end", repr(t_end), "--state", json.dumps(state0)],
                              capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
        elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"config": config, "error": last}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process"] = elapsed
    return result


def summary(values):
    import numpy as np

    return {"median": float(np.median(values)), "min": float(np.min(values)), "max": float(np.max(values))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--state", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=5, help="processes per pipeline (medians, min-max)")
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time s")
    parser.add_argument("--pipelines", default=",".join(PIPELINES), help="comma-separated subset of: "
                        + ", ".join(PIPELINES))
    parser.add_argument("--timeout", type=float, default=1800.0, help="limit per process s")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "output"))
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.t_end, json.loads(args.state))))
        return
    configs = [c for c in args.pipelines.split(",") if c]
    unknown = [c for c in configs if c not in PIPELINES]
    if unknown:
        raise SystemExit(f"unknown pipelines {unknown}; expected some of: {', '.join(PIPELINES)}")
    import numpy as np

    sys.path.insert(0, str(ROOT))
    import formulations
    import systems

    system = systems.load("rolling_disc")
    p0, v0 = system.default_state()
    state0 = [[float(x) for x in p0], [float(x) for x in v0]]
    ref = formulations.create("dependent", system).simulate((0.0, args.t_end), rtol=1e-12, atol=1e-12)
    p_ref, v_ref = ref.p[-1], ref.v[-1]
    runs = {c: [] for c in configs}
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="pfaff-first-caches-"))
    t_start = time.perf_counter()
    try:
        for k in range(args.repeat):
            filled = {}  # formulation -> the cache folder its cold run of this repetition filled
            for config in configs:  # interleaved: A B C ... A B C ...
                parts = config.split(":")
                if config.endswith(":cold"):
                    cache = scratch / f"{k}-{parts[1]}"
                    filled[parts[1]] = cache
                elif config.endswith(":warm"):
                    cache = filled.get(parts[1])
                    if cache is None:  # its cold run is not in the selection: fill a folder, untimed
                        cache = scratch / f"{k}-{parts[1]}"
                        run_worker(config.replace(":warm", ":cold"), args.t_end, state0, cache, args.timeout)
                        filled[parts[1]] = cache
                else:
                    cache = scratch / f"{k}-{config.replace(':', '-')}"  # fresh, for pipelines that keep none
                result = run_worker(config, args.t_end, state0, cache, args.timeout)
                runs[config].append(result)
                shown = f"{result['total']:.2f} s" if "error" not in result else f"failed: {result['error']}"
                print(f"[{time.perf_counter() - t_start:7.1f} s] repetition {k + 1}/{args.repeat} {label(config)}: "
                      f"{shown}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows = {}
    for config, results in runs.items():
        good = [r for r in results if "error" not in r]
        if not good:
            rows[config] = {"error": results[0]["error"]}
            continue
        row = {phase: summary([r[phase] for r in good]) for phase in ("import", "build", "simulate", "total", "process")}
        last = good[-1]
        p, v = np.array(last["p"]), np.array(last["v"])
        row.update(samples=len(good), failed=len(results) - len(good), nfev=last["nfev"], status=last["status"],
                   diff=float(max(np.max(np.abs(p - p_ref)), np.max(np.abs(v - v_ref)))), runs=results)
        rows[config] = row
    kane = rows.get("kane", {}).get("total", {}).get("median")

    def cell(s, digits=2):
        return f"{s['median']:.{digits}f} [{s['min']:.{digits}f}-{s['max']:.{digits}f}]"

    lines = [f"rolling disc, {args.t_end:g} s, rtol = atol = {TOL:g}; time to first result in a fresh process "
             f"(seconds, median [min-max] of {args.repeat} interleaved repetitions); final-state difference against "
             f"pfaff dependent at rtol = atol = 1e-12", "",
             "| pipeline | import | build | simulate | total | process | total vs Kane | RHS evals | final-state diff |",
             "|---|---|---|---|---|---|---|---|---|"]
    for config, row in rows.items():
        if "error" in row:
            lines.append(f"| {label(config)} | failed: {row['error']} |||||||")
            continue
        ratio = f"{row['total']['median'] / kane:.2f}" if kane else "-"
        lines.append(f"| {label(config)} | {cell(row['import'])} | {cell(row['build'])} | {cell(row['simulate'])} | "
                     f"{cell(row['total'])} | {cell(row['process'])} | {ratio} | {row['nfev']} | {row['diff']:.1e} |")
    adds = {}
    for formulation in ("dependent", "reduced", "minimal"):
        warm, numpy_ = runs.get(f"pfaff:{formulation}:compiled:warm"), runs.get(f"pfaff:{formulation}:numpy")
        if not warm or not numpy_:
            continue
        pairs = [w["total"] - n["total"] for w, n in zip(warm, numpy_) if "error" not in w and "error" not in n]
        if pairs:
            adds[formulation] = summary(pairs)
    if adds:
        lines += ["", "Warm compiled start adds (warm compiled DOP853 total - numpy DOP853 total, per repetition; "
                  "target < 0.3 s):", ""]
        lines += [f"- {f}: {cell(s)} s" for f, s in adds.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "first_result.md").write_text(text)
    (out / "first_result.json").write_text(json.dumps({"t_end": args.t_end, "tol": TOL, "repeat": args.repeat,
                                                       "pipelines": rows, "warm_compiled_adds": adds}, indent=1))


if __name__ == "__main__":
    main()

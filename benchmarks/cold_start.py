"""Cold start: the script a user would write, as a whole fresh process, for pfaff with default
options against sympy's KanesMethod + lambdify(cse) + solve_ivp DOP853.

Cases: the rolling disc and the 20-link pendulum; pfaff's dependent and minimal formulations,
created with default options (backend "auto": compiled where numba is installed) and simulated
10 s at rtol = atol = 1e-8 with DOP853. The Kane script builds the same system (tests/kane_models.py,
benchmarks/n_link_pendulum.py), lambdifies its mass matrix and forcing with CSE and integrates.

Cache states of pfaff's compiled code (Kane has none):
  new machine   empty PFAFF_CACHE_DIR and NUMBA_CACHE_DIR: on the default backend "auto" the run goes
                ahead on numpy and one background process compiles what it needs (its seconds and
                CPU seconds, from its log, after the timed process: a column of its own)
  new system    the formulations' modules compiled for another system of the same kind (the
                slider-crank for the disc, the 10-link pendulum for the 20-link one), the
                system's own kernels not: what a user meets with a new model on a machine that
                has run pfaff before (or ran ``pfaff cache warm``); numpy now, the kernels compiled
                in the background
  warm          a second process on the cache the first one filled: the user's second run
Each process is timed from outside (its wall time, interpreter start-up and exit included); the
pipelines are interleaved (A B C ... A B C ...), --repeat times, medians with min-max and the ratio
to the Kane script's median. Each run also reports the backend it ran on, the process's whole compile
time, and the time of each phase of the script (imports, load, create, simulate), for the profile
table. Python's bytecode of the checkout is cached in a scratch folder ($PYTHONDONTWRITEBYTECODE is
dropped for the child processes), as an installed package has it.

Between timed processes the benchmark waits for the background compile to end, so that no
compile runs beside a timed process. Expected runtime (--repeat 5): about 30 minutes on 2 cores,
most of it the background compiles.
Run: python benchmarks/cold_start.py [--repeat 5] [--t-end 10] [--cases disc,pendulum]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))  # this checkout's pfaff, installed or not
TOL = 1e-8
# the bytecode of this checkout's modules, written by the first runs (the caches that are filled before
# the timed runs), as pip writes it when it installs a package
PYCACHE = pathlib.Path(tempfile.gettempdir()) / "pfaff-cold-start-pycache"
# case: (system, structural options), and another system of its kind (the same compiled modules)
CASES = {"disc": (("rolling_disc", {}), ("slider_crank", {})),
         "pendulum": (("n_pendulum", {"n": 20}), ("n_pendulum", {"n": 10}))}
FORMULATIONS = ("dependent", "minimal")
STATES = ("new machine", "new system", "warm")
PHASES = ("import", "load", "create", "simulate")  # the script's steps, timed inside the process


def pfaff_script(name, options, formulation, t_end):
    """What a user writes: load, create with default options, simulate; with the time of each phase
    and the process's whole compile time."""
    started = time.perf_counter()
    import formulations
    import systems
    from systems.numeric.compiling import compiled_seconds

    marks = [time.perf_counter()]
    system = systems.load(name, **options)
    marks.append(time.perf_counter())
    f = formulations.create(formulation, system)
    marks.append(time.perf_counter())
    traj = f.simulate((0.0, t_end), rtol=TOL, atol=TOL, method="DOP853")
    marks.append(time.perf_counter())
    phases = dict(zip(PHASES, [marks[0] - started] + [b - a for a, b in zip(marks, marks[1:])]))
    return {"status": int(traj.status), "backend": traj.stats.backend, "compile": compiled_seconds(),
            "phases": phases, "script": marks[-1] - started}


def kane_script(case, state, t_end):
    """The same with sympy.physics.mechanics: KanesMethod, lambdify(cse), solve_ivp DOP853; its
    phases are the imports, KanesMethod (load), lambdify (create) and the integration."""
    started = time.perf_counter()
    import numpy as np
    import scipy.integrate as si
    import sympy as sp

    if case == "disc":
        sys.path.insert(0, str(ROOT.parent / "tests"))
        from kane_models import rolling_disc

        marks = [time.perf_counter()]
        model = rolling_disc()
        marks.append(time.perf_counter())
        model.compile()
        marks.append(time.perf_counter())
        params = [1.0, 0.5, 9.81, 0.0]
        values = dict(zip(model.q, state[0])) | dict(zip(model.u, state[1]))
        x0 = np.array([values[s] for s in model.order])
        sol = si.solve_ivp(lambda t, x: model.rhs(x, params), (0.0, t_end), x0, method="DOP853", rtol=TOL, atol=TOL)
    else:
        sys.path.insert(0, str(ROOT))
        from n_link_pendulum import PARAMS, kane_n_pendulum

        marks = [time.perf_counter()]
        n = len(state[0])
        kane, q, u, params, _ = kane_n_pendulum(n)
        marks.append(time.perf_counter())
        fn = sp.lambdify([q + u, params], [kane.mass_matrix, kane.forcing], modules="numpy", cse=True)
        marks.append(time.perf_counter())
        par = np.array(PARAMS)

        def rhs(t, x):
            M, F = fn(x, par)
            return np.concatenate([x[n:], np.linalg.solve(np.asarray(M, float), np.asarray(F, float).ravel())])

        sol = si.solve_ivp(rhs, (0.0, t_end), np.concatenate(state), method="DOP853", rtol=TOL, atol=TOL)
    marks.append(time.perf_counter())
    phases = dict(zip(PHASES, [marks[0] - started] + [b - a for a, b in zip(marks, marks[1:])]))
    return {"status": int(sol.status), "backend": "-", "phases": phases, "script": marks[-1] - started}


def run(job, t_end, cache, timeout=3600.0, backend=None):
    """``job`` (a JSON-able list: ["pfaff", name, options, formulation] or ["kane", case, state]) in a
    fresh process with ``cache`` as its cache folder (``backend``: $PFAFF_BACKEND, None: the default);
    its result and whole wall time, and then, after the background compile it started has ended,
    that compile's wall and CPU seconds (its log)."""
    env = dict(os.environ, PFAFF_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(pathlib.Path(cache) / "numba"),
               PYTHONPYCACHEPREFIX=str(PYCACHE))
    env.pop("PFAFF_BACKEND", None)
    env.pop("PFAFF_BACKGROUND_COMPILE", None)
    if backend is not None:
        env["PFAFF_BACKEND"] = backend
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # Python's own bytecode is cached, as for an installed package
    with tempfile.TemporaryDirectory(prefix="pfaff-cold-") as cwd:
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", json.dumps(job),
                               "--t-end", repr(t_end)], capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=timeout)
        elapsed = time.perf_counter() - started
    background = settle(cache)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1], "process": elapsed}
    return json.loads(proc.stdout.strip().splitlines()[-1]) | {"process": elapsed} | background


def settle(cache, timeout=1800.0) -> dict:
    """Wait for the background compile a run in ``cache`` started; its seconds and CPU seconds from
    its log (zero where none ran), the log then emptied for the next run."""
    from systems.numeric import background

    held = os.environ.get("PFAFF_CACHE_DIR")
    os.environ["PFAFF_CACHE_DIR"] = str(cache)
    try:
        if not background.wait(timeout):
            raise SystemExit(f"the background compile in {cache} did not end within {timeout:g} s")
        log = background.folder() / "background.log"
        text = log.read_text() if log.exists() else ""
        if log.exists():
            log.unlink()
    finally:
        if held is None:
            os.environ.pop("PFAFF_CACHE_DIR", None)
        else:
            os.environ["PFAFF_CACHE_DIR"] = held
    done = re.findall(r": ([0-9.]+) s \(([0-9.]+) s CPU\)", text)
    return {"background": sum(float(w) for w, _ in done), "background_cpu": sum(float(c) for _, c in done),
            "background_failed": text.count(" failed ")}


def kane_states():
    """The pfaff default states of the cases, as the Kane scripts take them (p = q, v = u)."""
    sys.path.insert(0, str(ROOT.parent))
    import systems

    states = {}
    for case, ((name, options), _) in CASES.items():
        p, v = systems.load(name, **options).default_state()
        if case == "pendulum":  # Kane's coordinates: the link angles, every third coordinate of p
            p, v = p[2::3], v[2::3]
        states[case] = [[float(x) for x in p], [float(x) for x in v]]
    return states


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--cases", default="disc,pendulum")
    parser.add_argument("--out", default=str(ROOT / "output"))
    args = parser.parse_args(argv)
    if args.worker:
        job = json.loads(args.worker)
        result = pfaff_script(*job[1:], args.t_end) if job[0] == "pfaff" else kane_script(*job[1:], args.t_end)
        print(json.dumps(result))
        return
    cases = [c for c in args.cases.split(",") if c]
    states = kane_states()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="pfaff-cold-caches-"))
    results = {}
    try:
        # (case, formulation) -> a snapshot of a cache folder holding the modules compiled for the other
        # system of the kind; it is put back at the path it was made at (numba's cache folder names
        # contain a hash of the source's folder: a copy elsewhere would compile again)
        kinds = {}
        for case in cases:
            for formulation in FORMULATIONS:
                folder = scratch / f"{case}-{formulation}-kind"
                (other, options) = CASES[case][1]
                filled = run(["pfaff", other, options, formulation], 0.1, folder, backend="compiled")
                if "error" in filled or filled.get("backend") != "compiled":
                    raise SystemExit(f"could not fill a cache with {other} {formulation}: {filled}")
                kinds[case, formulation] = folder.with_name(folder.name + "-snapshot")
                folder.rename(kinds[case, formulation])
        for k in range(args.repeat):
            for case in cases:  # interleaved: every script once per repetition
                (name, options) = CASES[case][0]
                for formulation in FORMULATIONS:
                    job = ["pfaff", name, options, formulation]
                    empty = scratch / f"{k}-{case}-{formulation}-new"
                    results.setdefault((case, formulation, "new machine"), []).append(run(job, args.t_end, empty))
                    results.setdefault((case, formulation, "warm"), []).append(run(job, args.t_end, empty))
                    kind = scratch / f"{case}-{formulation}-kind"
                    shutil.rmtree(kind, ignore_errors=True)
                    shutil.copytree(kinds[case, formulation], kind)
                    results.setdefault((case, formulation, "new system"), []).append(run(job, args.t_end, kind))
                results.setdefault((case, "kane", "-"), []).append(
                    run(["kane", case, states[case]], args.t_end, scratch / "none"))
            print(f"repetition {k + 1} of {args.repeat} done", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    text = report(results, cases, args.repeat, args.t_end)
    print(text)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cold_start.md").write_text(text)


def report(results, cases, repeat, t_end) -> str:
    import numpy as np

    lines = [f"Cold start, whole processes: median (min-max) of {repeat}, {t_end:g} s at rtol = atol = {TOL:g}, DOP853",
             "", "| case | script | pfaff cache | process s | / Kane | backend | compile s | background s (CPU) |",
             "|---|---|---|---|---|---|---|---|"]
    phases = ["", "Where the time goes: medians of the phases timed inside each process (for the Kane script: "
              "load = KanesMethod, create = lambdify); outside = the rest of the process (interpreter "
              "start-up and exit)", "", "| case | script | pfaff cache | " + " | ".join(PHASES) + " | outside |",
              "|---|---|---|" + "---|" * (len(PHASES) + 1)]
    for case in cases:
        kane = [r["process"] for r in results[(case, "kane", "-")] if "error" not in r]
        kane_median = float(np.median(kane)) if kane else float("nan")
        for key in [(case, "kane", "-")] + [(case, f, s) for f in FORMULATIONS for s in STATES]:
            ok = [r for r in results[key] if "error" not in r]
            if not ok:
                lines.append(f"| {key[0]} | {key[1]} | {key[2]} | failed: {results[key][0]['error']} | | | | |")
                continue
            t = np.array([r["process"] for r in ok])
            compile_s = float(np.median([r.get("compile", 0.0) for r in ok]))
            backends = ",".join(sorted({r["backend"] for r in ok}))
            behind = [float(np.median([r.get(k, 0.0) for r in ok])) for k in ("background", "background_cpu")]
            lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {np.median(t):.2f} ({t.min():.2f}-{t.max():.2f}) | "
                         f"{np.median(t) / kane_median:.2f} | {backends} | {compile_s:.1f} | "
                         + (f"{behind[0]:.1f} ({behind[1]:.1f}) |" if behind[0] else "— |"))
            parts = [float(np.median([r["phases"][name] for r in ok])) for name in PHASES]
            outside = float(np.median([r["process"] - r["script"] for r in ok]))
            phases.append(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(f"{x:.2f}" for x in parts + [outside]) + " |")
    return "\n".join(lines + phases) + "\n"


if __name__ == "__main__":
    main()

"""Scaling with the number of bodies: the planar n-link pendulum, n = 5, 10, 20, 40, pfaff's
formulations against sympy KanesMethod + lambdify + solve_ivp.

Expected runtime of the full version (defaults): about 60-90 minutes (estimated from earlier
measurements: at n = 40 each numpy-backend simulation of 10 s takes 40-75 s; and each size starts
with three cold compilations of the compiled pipelines, 1-4 minutes each on a busy 2-core
machine, likely longer at n = 40).

Pipelines, per n:
  pfaff <formulation> numpy DOP853       dependent, reduced, minimal, manifold
  pfaff <formulation> compiled DOP853    dependent, reduced, minimal, manifold (fused right-hand side
                                         in the machine-code loop); the compile cache is filled once per n
                                         by an untimed process before the timed repetitions, whose
                                         time is reported as the cold start
  sympy Kane + lambdify DOP853           KanesMethod in the link angles and angular rates
                                         (kanes_equations + lambdify with CSE of the n x n mass
                                         matrix and the forcing; the mass matrix solved per call)
Each repetition of each pipeline is one fresh process (library imports excluded from the timing):
  build      systems.load("n_pendulum", n=n) + compile_system + formulations.create + the default
             state as arrays; or the Kane model + kanes_equations + lambdify
  first call a 1 ms simulation from the same state (one-off costs of the first run: loading machine
             code, lazily built functions), reported apart
  simulate   10 s from the default state (link angles +-0.5 rad alternating, at rest),
             rtol = atol = 1e-8
Pipelines run interleaved per n (A B C ... A B C ...), --repeat times for n <= 20; for n > 20 the
first repetition decides: if any simulation took longer than 30 s, --repeat-large repetitions
(>= 3, stated in the output) are taken, else --repeat. Medians with min-max.

The Kane model (below) has the same parameters as pfaff's n_pendulum (m = 1 kg, L = 1 m, uniform
links with J = m L^2 / 12, g = 9.81 m/s^2, angles from the downward vertical). Checks: the Kane
model's link centres at the initial angles against pfaff's default p, the accelerations of both
models at a random state (angles and rates), and the final angles and rates of every pipeline
against Kane's (a 10 s run of a chaotic system: the difference grows with n and is reported, not
required to be small). Growth exponents: log-log least-squares slope of the median time against n
over 10 <= n <= 40. Writes n_link_pendulum.md, .json and .png to the output folder.

Run: python benchmarks/n_link_pendulum.py [--sizes 5,10,20,40] [--repeat 5] [--repeat-large 3]
     [--t-end 10] [--pipelines ...] [--out benchmarks/output]
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
             "pfaff:dependent:compiled", "pfaff:reduced:compiled", "pfaff:minimal:compiled", "pfaff:manifold:compiled",
             "kane"]
PARAMS = (1.0, 1.0, 9.81)  # m, L, g as in systems/catalogue/n_pendulum.py


def label(config):
    if config == "kane":
        return "sympy Kane + lambdify DOP853"
    _, formulation, backend = config.split(":")
    return f"pfaff {formulation} {backend} DOP853"


def kane_n_pendulum(n):
    """KanesMethod model of the planar n-link pendulum: q = link angles from the downward vertical,
    u = their rates; returns (KanesMethod, q, u, (m, L, g), centres as sympy expressions)."""
    import sympy as sp
    import sympy.physics.mechanics as me

    q = me.dynamicsymbols(f"theta1:{n + 1}")
    u = me.dynamicsymbols(f"omega1:{n + 1}")
    m, L, g = sp.symbols("m L g", positive=True)
    N = me.ReferenceFrame("N")
    origin = top = me.Point("O")
    top.set_vel(N, 0)
    bodies, loads, kd, centres = [], [], [], []
    for i in range(n):
        A = N.orientnew(f"A{i + 1}", "Axis", [q[i], N.z])
        A.set_ang_vel(N, u[i] * N.z)
        G = top.locatenew(f"G{i + 1}", -L / 2 * A.y)  # -A.y = (sin theta, -cos theta): down the link
        G.v2pt_theory(top, N, A)
        bottom = top.locatenew(f"P{i + 1}", -L * A.y)
        bottom.v2pt_theory(top, N, A)
        bodies.append(me.RigidBody(f"link{i + 1}", G, A, m, (me.inertia(A, 0, 0, m * L**2 / 12), G)))
        loads.append((G, -m * g * N.y))
        kd.append(q[i].diff() - u[i])
        centres.append(G.pos_from(origin))
        top = bottom
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations(bodies, loads)
    centres = [(c.dot(N.x), c.dot(N.y)) for c in centres]
    return kane, q, u, (m, L, g), centres


def worker(config, n, t_end, check):
    """Build and simulate one pipeline in this (fresh) process; the phases in seconds."""
    import numpy as np
    import scipy.integrate as si
    import sympy as sp
    import sympy.physics.mechanics  # noqa: F401

    out = {"config": config, "n": n}
    if config == "kane":
        t0 = time.perf_counter()
        kane, q, u, params, centres = kane_n_pendulum(n)
        fn = sp.lambdify([q + u, params], [kane.mass_matrix, kane.forcing], modules="numpy", cse=True)
        out["build"] = time.perf_counter() - t0
        par = np.array(PARAMS)

        def rhs(t, x):
            rhs.count += 1
            M, F = fn(x, par)
            return np.concatenate([x[n:], np.linalg.solve(np.asarray(M, float), np.asarray(F, float).ravel())])
        rhs.count = 0
        x0 = np.concatenate([check["theta0"], check["omega0"]])
        t0 = time.perf_counter()
        si.solve_ivp(rhs, (0.0, 1e-3), x0, method="DOP853", rtol=TOL, atol=TOL)
        out["first"] = time.perf_counter() - t0
        rhs.count = 0
        t0 = time.perf_counter()
        sol = si.solve_ivp(rhs, (0.0, t_end), x0, method="DOP853", rtol=TOL, atol=TOL)
        out["simulate"] = time.perf_counter() - t0
        out.update(nfev=rhs.count, status=int(sol.status), theta=sol.y[:n, -1].tolist(), omega=sol.y[n:, -1].tolist())
        if check.get("state"):  # the model checks, once per n
            subs = dict(zip(params, PARAMS)) | dict(zip(q, check["theta0"]))
            out["centres0"] = [[float(sp.sympify(c).xreplace(subs)) for c in xy] for xy in centres]
            xs = np.array(check["state"])
            out["accelerations"] = rhs(0.0, xs)[n:].tolist()
        return out
    import formulations
    import systems
    from systems.numeric.model import compile_system

    _, formulation, backend = config.split(":")
    t0 = time.perf_counter()
    system = systems.load("n_pendulum", n=n)
    compile_system(system, backend)
    form = formulations.create(formulation, system, backend=backend)
    state0 = system.default_state()
    out["build"] = time.perf_counter() - t0
    method = "DOP853"
    t0 = time.perf_counter()
    form.simulate((0.0, 1e-3), state0, rtol=TOL, atol=TOL, method=method)
    out["first"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    traj = form.simulate((0.0, t_end), state0, rtol=TOL, atol=TOL, method=method)
    out["simulate"] = time.perf_counter() - t0
    p, v = traj.p[-1], traj.v[-1]
    out.update(nfev=int(traj.stats.rhs_evaluations), status=int(traj.status), message=traj.message,
               theta=[float(x) for x in p[2::3]], omega=[float(x) for x in v[2::3]])
    return out


def run_worker(config, n, t_end, check, cache, timeout):
    env = dict(os.environ, PFAFF_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(pathlib.Path(cache) / "numba"))
    with tempfile.TemporaryDirectory(prefix="pfaff-nlink-") as cwd:
        proc = subprocess.run([sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", config,
                               "--n", str(n), "--t-end", repr(t_end), "--check", json.dumps(check)],
                              capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"config": config, "n": n, "error": last}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def pfaff_checks(n, seed=2):
    """pfaff's default state of n_pendulum, and its accelerations (dependent formulation, numpy) at
    a random consistent state given by angles and rates."""
    import numpy as np

    import formulations
    import systems

    system = systems.load("n_pendulum", n=n)
    p0, v0 = system.default_state()
    rng = np.random.default_rng(seed)
    theta, omega = rng.uniform(-1.0, 1.0, n), rng.uniform(-2.0, 2.0, n)
    L = PARAMS[1]
    p, v = np.zeros(3 * n), np.zeros(3 * n)
    top, vtop = np.zeros(2), np.zeros(2)
    for i in range(n):
        e = np.array([np.sin(theta[i]), -np.cos(theta[i])])
        de = np.array([np.cos(theta[i]), np.sin(theta[i])]) * omega[i]
        p[3 * i:3 * i + 2], p[3 * i + 2] = top + L / 2 * e, theta[i]
        v[3 * i:3 * i + 2], v[3 * i + 2] = vtop + L / 2 * de, omega[i]
        top, vtop = top + L * e, vtop + L * de
    form = formulations.create("dependent", system)
    form.prepare(p, v)
    vdot = form.evaluate(0.0, form.initial_state(p, v)).vdot
    return {"p0": np.asarray(p0, float), "theta0": [float(x) for x in p0[2::3]], "omega0": [float(x) for x in v0[2::3]],
            "state": [float(x) for x in np.concatenate([theta, omega])], "accelerations": np.asarray(vdot[2::3])}


def summary(values):
    import numpy as np

    return {"median": float(np.median(values)), "min": float(np.min(values)), "max": float(np.max(values))}


def slope(ns, ts):
    """Least-squares slope of log t against log n."""
    import numpy as np

    if len(ns) < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--check", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="5,10,20,40", help="comma-separated numbers of links")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions per pipeline and n")
    parser.add_argument("--repeat-large", type=int, default=3,
                        help="repetitions for n > 20 when one simulation there takes more than 30 s")
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time s")
    parser.add_argument("--fit", default="10-40", help="range of n for the growth exponents, 'lo-hi'")
    parser.add_argument("--pipelines", default=",".join(PIPELINES), help="comma-separated subset of: "
                        + ", ".join(PIPELINES))
    parser.add_argument("--timeout", type=float, default=3600.0, help="limit per process s")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "output"))
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.n, args.t_end, json.loads(args.check))))
        return
    configs = [c for c in args.pipelines.split(",") if c]
    unknown = [c for c in configs if c not in PIPELINES]
    if unknown:
        raise SystemExit(f"unknown pipelines {unknown}; expected some of: {', '.join(PIPELINES)}")
    sizes = [int(s) for s in args.sizes.split(",")]
    import numpy as np

    sys.path.insert(0, str(ROOT))
    cache = pathlib.Path(tempfile.mkdtemp(prefix="pfaff-nlink-cache-"))
    t_start = time.perf_counter()
    results, checks, cold, repeats = {}, {}, {}, {}

    def log(text):
        print(f"[{time.perf_counter() - t_start:7.1f} s] {text}", flush=True)

    try:
        for n in sizes:
            ref = pfaff_checks(n)
            check = {"theta0": ref["theta0"], "omega0": ref["omega0"]}
            for config in configs:  # fill the compile cache (untimed), report it as the cold start
                if config.endswith(":compiled"):
                    r = run_worker(config, n, args.t_end, check, cache, args.timeout)
                    cold[(config, n)] = r
                    log(f"n = {n} {label(config)} cold: " + (f"build {r['build']:.2f} s, first call {r['first']:.2f} s"
                                                            if "error" not in r else f"failed: {r['error']}"))
            samples = {c: [] for c in configs}
            k, wanted = 0, args.repeat
            while k < wanted:
                for config in configs:  # interleaved: A B C ... A B C ...
                    extra = {"state": ref["state"]} if config == "kane" and k == 0 else {}
                    r = run_worker(config, n, args.t_end, check | extra, cache, args.timeout)
                    samples[config].append(r)
                    log(f"n = {n} repetition {k + 1} {label(config)}: " +
                        (f"build {r['build']:.2f} s, simulate {r['simulate']:.2f} s" if "error" not in r
                         else f"failed: {r['error']}"))
                k += 1
                if k == 1 and n > 20:
                    slowest = max((r["simulate"] for rs in samples.values() for r in rs if "error" not in r), default=0)
                    if slowest > 30.0:
                        wanted = max(3, min(args.repeat, args.repeat_large))
            repeats[n] = wanted
            kane_first = next((r for r in samples.get("kane", []) if "error" not in r), None)
            if kane_first is not None:
                checks[n] = {
                    "centres0": float(np.max(np.abs(np.array(kane_first["centres0"]).ravel()
                                                    - np.delete(ref["p0"], np.s_[2::3])))),
                    "accelerations": float(np.max(np.abs(np.array(kane_first["accelerations"]) - ref["accelerations"]))
                                           / max(1.0, np.max(np.abs(ref["accelerations"]))))}
            for config, rs in samples.items():
                good = [r for r in rs if "error" not in r]
                if not good:
                    results[(config, n)] = {"error": rs[0]["error"]}
                    continue
                last = good[-1]
                row = {phase: summary([r[phase] for r in good]) for phase in ("build", "first", "simulate")}
                row.update(samples=len(good), failed=len(rs) - len(good), nfev=last["nfev"], status=last["status"])
                if kane_first is not None:
                    kane_last = [r for r in samples["kane"] if "error" not in r][-1]
                    row["diff"] = float(max(np.max(np.abs(np.array(last["theta"]) - kane_last["theta"])),
                                            np.max(np.abs(np.array(last["omega"]) - kane_last["omega"]))))
                results[(config, n)] = row
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    _report(args, configs, sizes, results, checks, cold, repeats)


def _report(args, configs, sizes, results, checks, cold, repeats):
    lo, hi = (int(k) for k in args.fit.split("-"))
    lines = [f"planar n-link pendulum, {args.t_end:g} s from link angles +-0.5 rad at rest, rtol = atol = {TOL:g}; "
             f"seconds, median [min-max] over fresh processes (library imports excluded); pipelines interleaved "
             f"per n. Final-state difference: max over link angles and rates against Kane's run (chaotic motion: "
             f"this grows with n and t_end).", ""]
    for n in sizes:
        c = checks.get(n)
        lines.append(f"## n = {n} ({repeats.get(n)} repetitions)")
        if c:
            lines.append(f"Kane model vs pfaff: link centres at the initial angles differ by {c['centres0']:.1e} m; "
                         f"accelerations at a random state by {c['accelerations']:.1e} (relative).")
        lines += ["", "| pipeline | build s | first call s | simulate s | build vs Kane | simulate vs Kane | RHS evals "
                  "| final-state diff vs Kane |", "|---|---|---|---|---|---|---|---|"]
        kane = results.get(("kane", n), {})
        for config in configs:
            row = results.get((config, n), {})
            if "error" in row:
                lines.append(f"| {label(config)} | failed: {row['error']} |||||||")
                continue
            cell = {ph: f"{row[ph]['median']:.3f} [{row[ph]['min']:.3f}-{row[ph]['max']:.3f}]"
                    for ph in ("build", "first", "simulate")}
            rb = f"{row['build']['median'] / kane['build']['median']:.2f}" if "build" in kane else "-"
            rs = f"{row['simulate']['median'] / kane['simulate']['median']:.2f}" if "simulate" in kane else "-"
            diff = f"{row['diff']:.1e}" if "diff" in row else "-"
            lines.append(f"| {label(config)} | {cell['build']} | {cell['first']} | {cell['simulate']} | {rb} | {rs} | "
                         f"{row['nfev']} | {diff} |")
        colds = [(config, cold[(config, n)]) for config in configs if (config, n) in cold]
        if colds:
            lines.append("")
            lines.append("Cold compile cache (one process each, before the timed repetitions): " + "; ".join(
                f"{label(c)}: build {r['build']:.2f} s + first call {r['first']:.2f} s" if "error" not in r
                else f"{label(c)}: failed" for c, r in colds))
        lines.append("")
    lines += [f"## Growth exponents (log-log least squares of the median time, {lo} <= n <= {hi})", "",
              "| pipeline | build | simulate |", "|---|---|---|"]
    exponents = {}
    for config in configs:
        pts = [(n, results[(config, n)]) for n in sizes if lo <= n <= hi and "error" not in results.get((config, n), {"error": 1})]
        ns = [n for n, _ in pts]
        b = slope(ns, [r["build"]["median"] for _, r in pts])
        s = slope(ns, [r["simulate"]["median"] for _, r in pts])
        exponents[config] = {"build": b, "simulate": s, "sizes": ns}
        lines.append(f"| {label(config)} | {b:.2f} | {s:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "n_link_pendulum.md").write_text(text)
    data = {"t_end": args.t_end, "tol": TOL, "repeats": repeats, "checks": checks, "exponents": exponents,
            "results": {f"{c} n={n}": r for (c, n), r in results.items()},
            "cold": {f"{c} n={n}": r for (c, n), r in cold.items()}}
    (out / "n_link_pendulum.json").write_text(json.dumps(data, indent=1))
    _figure(configs, sizes, results, out / "n_link_pendulum.png")


def _figure(configs, sizes, results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12.5, 4.2))
    for ax, phase in zip(axes, ("build", "simulate")):
        for config in configs:
            pts = [(n, results[(config, n)][phase]) for n in sizes if phase in results.get((config, n), {})]
            if not pts:
                continue
            ns = [n for n, _ in pts]
            med = [s["median"] for _, s in pts]
            err = [[s["median"] - s["min"] for _, s in pts], [s["max"] - s["median"] for _, s in pts]]
            ax.errorbar(ns, med, yerr=err, marker="o", markersize=3, capsize=2, label=label(config),
                        ls="--" if config == "kane" else "-")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of links n")
        ax.set_ylabel(f"{phase} time s (median, min-max)")
        ax.set_title(f"n-link pendulum: {phase}")
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    main()

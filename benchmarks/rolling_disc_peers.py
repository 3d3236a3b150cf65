"""pfaff's formulations against sympy KanesMethod and PyDy on the rolling disc (see README.md).

Phases per pipeline: derive (symbolic equations), generate (numeric code), simulate (10 s,
DOP853, rtol = atol = 1e-10). Reported: the phases, right-hand-side evaluations, the final-state
difference to a reference run, constraint errors and energy drift (evaluated with pfaff's
description of the same system for every pipeline), and the ratio of time to first result
against the sympy KanesMethod pipeline.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
T_END, TOL = 10.0, 1e-10
CONFIGS = ["pfaff:dependent:none", "pfaff:dependent:baumgarte", "pfaff:dependent:projection",
           "pfaff:reduced:none", "pfaff:reduced:projection", "pfaff:minimal:none", "pfaff:manifold:none",
           "kane", "pydy:lambdify", "pydy:cython"]


def worker(config: str) -> dict:
    import numpy as np  # library imports (sympy comes with systems) are outside every pipeline's timing
    import sympy  # noqa: F401
    import scipy.integrate as si

    out = {"config": config}
    if config.startswith("pfaff:"):
        _, formulation, stab = config.split(":")
        import formulations
        from systems.catalogue import rolling_disc

        t0 = time.perf_counter()
        system = rolling_disc.build()
        built = time.perf_counter() - t0
        compile_s = system.numeric.compile_seconds
        out.update(derive=built - compile_s, generate=compile_s)
        t0 = time.perf_counter()
        traj = formulations.create(formulation, system, stabilization=stab).simulate(
            (0.0, T_END), rtol=TOL, atol=TOL, method="DOP853")
        out.update(simulate=time.perf_counter() - t0, nfev=traj.stats.rhs_evaluations, status=traj.status,
                   p=traj.p[-1].tolist(), v=traj.v[-1].tolist())
        return out
    sys.path.insert(0, str(ROOT / "tests"))
    from kane_models import rolling_disc as kane_disc

    t0 = time.perf_counter()
    model = kane_disc()
    out["derive"] = time.perf_counter() - t0
    params = [1.0, 0.5, 9.81, 0.0]
    import systems

    p0, v0 = systems.load("rolling_disc").default_state()  # the same initial state, by name
    values = dict(zip(model.q, p0)) | dict(zip(model.u, v0))
    x0 = np.array([values[s] for s in model.order])
    if config == "kane":
        t0 = time.perf_counter()
        model.compile()
        out["generate"] = time.perf_counter() - t0
        count = [0]

        def rhs(t, x):
            count[0] += 1
            return model.rhs(x, params)
    else:
        from pydy.system import System

        generator = config.split(":")[1]
        t0 = time.perf_counter()
        psys = System(model.kane, constants=dict(zip(model.params, params)), initial_conditions=dict(zip(model.order, x0)))
        psys.generate_ode_function(generator=generator)
        out["generate"] = time.perf_counter() - t0
        by_symbol = dict(zip(model.params, params))
        fn, consts = psys.evaluate_ode_function, np.array([by_symbol[c] for c in psys.constants_symbols])
        order = list(psys.states)
        perm = [order.index(s) for s in model.order]
        x0 = np.array([dict(zip(model.order, x0))[s] for s in order])
        count = [0]

        def rhs(t, x):
            count[0] += 1
            return fn(x, t, consts)
    t0 = time.perf_counter()
    sol = si.solve_ivp(rhs, (0.0, T_END), x0, method="DOP853", rtol=TOL, atol=TOL)
    out.update(simulate=time.perf_counter() - t0, nfev=count[0], status=sol.status)
    final = sol.y[:, -1] if config == "kane" else sol.y[perm, -1]
    final_map = dict(zip(model.order, final))
    out.update(p=[float(final_map[s]) for s in model.q], v=[float(final_map[s]) for s in model.u])
    return out


def run_worker(config):
    proc = subprocess.run([sys.executable, __file__, "--worker", config], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"config": config, "error": last}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--worker")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker)))
        return
    import numpy as np

    sys.path.insert(0, str(ROOT))
    import formulations
    import systems

    system = systems.load("rolling_disc")
    ref = formulations.create("dependent", system).simulate((0.0, T_END), rtol=1e-13, atol=1e-13)
    p_ref, v_ref = ref.p[-1], ref.v[-1]
    rows = [run_worker(c) for c in CONFIGS]
    kane_total = next((r["derive"] + r["generate"] + r["simulate"] for r in rows if r["config"] == "kane"
                       and "error" not in r), None)
    header = ("| pipeline | derive s | generate s | simulate s | first result s | vs Kane | RHS evals | "
              "final-state diff | max |Phi| | max |C v| | energy drift |")
    print(f"rolling disc, {T_END:g} s, DOP853, rtol = atol = {TOL:g}; reference: dependent at 1e-13\n")
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for r in rows:
        if "error" in r:
            print(f"| {r['config']} | failed: {r['error']} |")
            continue
        p, v = np.array(r["p"]), np.array(r["v"])
        total = r["derive"] + r["generate"] + r["simulate"]
        Phi, Cv = system.residuals(p, v)
        drift = abs(system.energy(p, v) - system.energy(*system.default_state()))
        diff = max(np.max(np.abs(p - p_ref)), np.max(np.abs(v - v_ref)))
        ratio = f"{total / kane_total:.2f}" if kane_total else "—"
        r.update(total=total, ratio=ratio, diff=diff)
        print(f"| {r['config']} | {r['derive']:.3f} | {r['generate']:.3f} | {r['simulate']:.3f} | {total:.3f} | "
              f"{ratio} | {r['nfev']} | {diff:.2e} | {np.max(np.abs(Phi)):.1e} | {np.max(np.abs(Cv)):.1e} | "
              f"{drift:.1e} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()

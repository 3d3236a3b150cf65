"""The practical limit of the rolling disc: a hand-written right-hand side in the same compiled loop.

Expected runtime of the full version (--repeat 5): about 2-3 minutes on an idle machine with a
warm compile cache, plus 2-4 minutes of numba compilation when the cache is cold.

The classical minimal equations of the thin rolling disc (Euler angles: yaw psi, lean theta,
spin phi, the same coordinates and speeds as the state of pfaff's ``minimal`` formulation of
``rolling_disc``: y = (x, y, psi, theta, phi, psi', theta', phi')) are written out below as plain
numba code and run in the machine-code loops of formulations.solvers.machine (Dormand-Prince 5(4)
and DOP853), which call it through its address as they call a formulation's. Against it, in the same
process and interleaved (H D M H D M ...): pfaff's dependent and minimal formulations with backend
"compiled" and the same method (the same loops, plus pfaff's recording passes after the run);
ratios are taken against the hand-written right-hand side in the same loop.

First the hand-written right-hand side is checked against ``form.evaluate(t, y).ydot`` of pfaff's
minimal formulation at random states (max relative difference, required <= 1e-10). Then every
pipeline runs 10 s at rtol = atol = 1e-5 ... 1e-12, each point repeated and its median kept; the
time at a final error of 1e-9 (max |p - p_ref|, |v - v_ref| at t = 10 s against pfaff's dependent
formulation with projection at rtol = atol = 1e-13) is interpolated in log-log between the
bracketing tolerances, as in compiled_core.py. Writes physical_limit.md, .json and a
work-precision figure to the output folder.

Run: python benchmarks/physical_limit.py [--repeat 5] [--t-end 10] [--out benchmarks/output]
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import math
import time

import numba
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 1e-9
TOLS = [10.0 ** -k for k in range(5, 13)]

# The thin disc (I1 = I3 = m r^2 / 4 about diameters, I2 = m r^2 / 2 about the axle) rolling
# without slipping; the rotation is Rz(psi) Rx(theta) Ry(phi), theta = 0 upright. Contact
# condition v_G = omega x (r e3), e3 the disc-plane unit vector from contact point to centre;
# the speeds' equations follow from Kane's equations with u = (psi', theta', phi') and are
# independent of the mass. params = (m, r, g).
@numba.njit(cache=True)
def rhs_at(where, t, y, params, extra, out, work):
    """The hand-written y' into out, called by the loops as a formulation's entry point (``where``,
    ``extra`` and ``work`` unused)."""
    r = params[1]
    g = params[2]
    psi = y[2]
    th = y[3]
    dpsi = y[5]
    dth = y[6]
    dph = y[7]
    s = math.sin(th)
    c = math.cos(th)
    sp = math.sin(psi)
    cp = math.cos(psi)
    w2 = dph + dpsi * s  # angular velocity about the axle
    out[0] = r * (w2 * cp + dth * c * sp)
    out[1] = r * (w2 * sp - dth * c * cp)
    out[2] = dpsi
    out[3] = dth
    out[4] = dph
    out[5] = -2.0 * dph * dth / c
    out[6] = 1.2 * dpsi * dph * c + dpsi * dpsi * s * c + 0.8 * g / r * s
    out[7] = dth * (2.0 * dph * s / c - 5.0 / 3.0 * dpsi * c)
    return True


@numba.njit(cache=True)
def post_step_at(where, t, y, params, extra, work):
    return 0


def hand_form():
    """The loops' ``form`` of the hand-written right-hand side (formulations.solvers.machine)."""
    from formulations.kernels.by_address import address

    return (0, address(rhs_at), address(post_step_at), 0, False)


def hand_to_dependent(y, r):
    """pfaff's dependent state (p, v) of rolling_disc from the hand-written state y."""
    x, yy, psi, th, ph, dpsi, dth, dph = y
    s, c = np.sin(th), np.cos(th)
    w2 = dph + dpsi * s
    p = np.array([x, yy, r * c, psi, th, ph])
    v = np.array([r * (w2 * np.cos(psi) + dth * c * np.sin(psi)), r * (w2 * np.sin(psi) - dth * c * np.cos(psi)),
                  -r * dth * s, dth, w2, dpsi * c])
    return p, v


def check_agreement(system, states=5, seed=1):
    """Max relative difference of the hand-written right-hand side to pfaff's minimal formulation
    (numpy backend) at ``states`` random states near the default one."""
    import formulations

    form = formulations.create("minimal", system)
    params = np.asarray(system.params, float)
    p0, v0 = system.default_state()
    form.prepare(p0, v0)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(states):
        y = form.initial_state(p0, v0) + rng.uniform(-0.5, 0.5, 8) * np.array([1, 1, 3, 1, 3, 2, 2, 4])
        ref = form.evaluate(0.0, y).ydot
        out = np.empty(8)
        rhs_at(0, 0.0, y, params, np.empty(0), out, np.empty(0))
        worst = max(worst, float(np.max(np.abs(out - ref)) / max(1.0, np.max(np.abs(ref)))))
    return worst


def pipelines(system, t_end):
    """{name: run(tol) -> (p_final, v_final, evaluations)}."""
    import formulations

    from formulations.solvers.compiled_rk import machine_loop

    form = hand_form()
    params = np.asarray(system.params, float)
    r = float(params[1])
    p0, v0 = system.default_state()
    minimal = formulations.create("minimal", system)
    minimal.prepare(p0, v0)
    y0 = np.asarray(minimal.initial_state(p0, v0), float)
    none = np.empty(0)

    def hand(loop):
        def run(tol, t_end=t_end):
            ts, ys, status, t_stop, evaluations, steps, rejected, _, _ = machine_loop(loop)(
                form, 0.0, t_end, y0, params, none, tol, tol, np.inf, 0.0, none, 10**7, np.zeros(1, np.int64))
            if status != 0:
                raise RuntimeError(f"hand-written run stopped with status {status} at t = {t_stop}")
            return (*hand_to_dependent(ys[-1], r), int(evaluations))
        return run

    def pfaff(formulation, method):
        form = formulations.create(formulation, system, backend="compiled")

        def run(tol, t_end=t_end):
            tr = form.simulate((0.0, t_end), (p0, v0), rtol=tol, atol=tol, method=method)
            if tr.status != 0:
                raise RuntimeError(f"pfaff {formulation}: {tr.message}")
            return tr.p[-1], tr.v[-1], tr.stats.rhs_evaluations
        return run

    out = {}
    for method, loop in (("dopri5", "integrate"), ("DOP853", "integrate853")):
        out[f"hand-written numba {method}"] = hand(loop)
        for formulation in ("dependent", "minimal"):
            out[f"pfaff {formulation} compiled {method}"] = pfaff(formulation, method)
    return out


def bracket(errors, target=TARGET):
    """Indices (i, j) of the two points whose final errors bracket ``target`` (None if none do)."""
    order = sorted(range(len(errors)), key=lambda i: -errors[i])
    for i, j in zip(order, order[1:]):
        if errors[i] >= target >= errors[j] > 0:
            return i, j
    return None


def time_at(errors, times, target=TARGET):
    """Time at final error ``target``, log-log interpolation between the bracketing points."""
    b = bracket(errors, target)
    if b is None:
        return float("nan")
    (e0, t0), (e1, t1) = [(errors[i], times[i]) for i in b]
    s = (np.log(target) - np.log(e0)) / (np.log(e1) - np.log(e0))
    return float(np.exp(np.log(t0) + s * (np.log(t1) - np.log(t0))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="repetitions per tolerance (medians, min-max)")
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time s")
    parser.add_argument("--tols", default="5-12", help="exponents k of rtol = atol = 10^-k, as 'lo-hi'")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "output"))
    args = parser.parse_args(argv)
    lo, hi = (int(k) for k in args.tols.split("-"))
    tols = [10.0 ** -k for k in range(lo, hi + 1)]
    import formulations
    import systems

    system = systems.load("rolling_disc")
    agreement = check_agreement(system)
    print(f"hand-written vs pfaff minimal right-hand side, 5 random states: max relative difference {agreement:.1e}")
    if not agreement <= 1e-10:
        raise SystemExit("the hand-written right-hand side disagrees with pfaff's minimal formulation")
    ref = formulations.create("dependent", system, stabilization="projection").simulate(
        (0.0, args.t_end), rtol=1e-13, atol=1e-13)
    p_ref, v_ref = ref.p[-1], ref.v[-1]
    runs = pipelines(system, args.t_end)
    for run in runs.values():  # compile or load the machine code, first-call costs
        run(1e-6)
    from compiled_core import work_precision

    results = work_precision(runs, tols, args.repeat, p_ref, v_ref)  # interleaved: H D M H D M ...
    fixed = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, run in runs.items():
            started = time.perf_counter()
            run(1e-8, t_end=1e-6)
            fixed[name].append(time.perf_counter() - started)
    fixed = {name: {"median": float(np.median(x)), "min": float(np.min(x)), "max": float(np.max(x))}
             for name, x in fixed.items()}
    hand_t = {method: time_at(results[f"hand-written numba {method}"]["error"],
                              results[f"hand-written numba {method}"]["median"]) for method in ("dopri5", "DOP853")}
    lines = [f"rolling disc (thin, m = 1 kg, r = 0.5 m, g = 9.81 m/s^2), {args.t_end:g} s; simulation time at final "
             f"error {TARGET:g} (max |p - p_ref|, |v - v_ref| against dependent + projection at rtol = atol = 1e-13), "
             f"log-log interpolated between the bracketing tolerances; medians of {args.repeat}, interleaved; "
             f"min-max over the repetitions at the bracketing tolerances.", "",
             f"Hand-written right-hand side vs pfaff minimal (numpy backend) at 5 random states: max relative "
             f"difference {agreement:.1e}.", "",
             "Fixed cost of a run: the median [min-max] time of a run over 1 microsecond (setup, recording "
             "and return, no integration to speak of).", "",
             "| pipeline | time at 1e-9 ms | vs hand-written, same loop (target <= 2) | fixed cost of a run ms | "
             "bracketing tolerances: error, time median [min-max], evaluations |",
             "|---|---|---|---|---|"]
    for name, r in results.items():
        t = time_at(r["error"], r["median"])
        b = bracket(r["error"]) or ()
        near = [f"{r['tol'][i]:g}: error {r['error'][i]:.1e}, {r['median'][i] * 1e3:.2f} ms "
                f"[{r['min'][i] * 1e3:.2f}-{r['max'][i] * 1e3:.2f}], {r['evaluations'][i]} evals" for i in b]
        f = fixed[name]
        lines.append(f"| {name} | {t * 1e3:.2f} | {t / hand_t[name.split()[-1]]:.2f} | {f['median'] * 1e3:.2f} [{f['min'] * 1e3:.2f}-"
                     f"{f['max'] * 1e3:.2f}] | {'; '.join(near) or 'no bracketing pair'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "physical_limit.md").write_text(text)
    (out / "physical_limit.json").write_text(json.dumps({"agreement": agreement, "t_end": args.t_end,
                                                         "repeat": args.repeat, "fixed_cost": fixed,
                                                         "results": results}, indent=1))
    from compiled_core import work_precision_figure

    work_precision_figure(results, out / "physical_limit_work_precision.png",
                          "rolling disc: pfaff compiled vs hand-written right-hand side, same loop", "final error at t_end")


if __name__ == "__main__":
    main()

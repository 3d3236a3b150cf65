"""Work-precision comparison of the constraint-enforcement methods, and the slider-crank panels.

    python benchmarks/enforcement_methods.py [--out docs/figures/enforcement] [--quick]

For the rolling disc, the sphere in the cylinder and the planar slider-crank, every enforcement
method (formulations.enforcement_configurations: none, Baumgarte, constraint dynamics, projection,
index 1 and GGL by IDA, the augmented Lagrangian, and the reduced, minimal and manifold
formulations) runs at tolerances 1e-4 .. 1e-10 (the augmented Lagrangian at steps scaled with the
tolerance, h = h0 (tol / 1e-8)^(1/2)); each run's deviation from a reference at 1e-13, its
constraint errors and energy drift are plotted against its wall time. The slider-crank is also
drawn as the four panels of Figure 1 of Paraskevopoulos, Potosakis & Natsiavas (position of the
crank-rod joint P2, energy error, angular velocities of the bars, piston velocity), one line per
method. Needs the extra "dae" for IDA. Writes PNG figures, results.json and summary.md to --out.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np
from matplotlib.figure import Figure

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import formulations  # noqa: E402
import systems  # noqa: E402
from formulations.workbench.comparison.compare import _finite  # noqa: E402
from formulations.workbench.plots import work_precision  # noqa: E402

CASES = {"rolling_disc": 5.0, "sphere_in_cylinder": 3.0, "slider_crank": 3.0}
SWEEP = [1e-4, 1e-6, 1e-8, 1e-10]
AL_STEP = 2e-3  # augmented Lagrangian step at the base tolerance 1e-8


def sweep_case(name, t_end, sweep, out):
    system = systems.load(name)
    configs = formulations.enforcement_configurations(system, step=AL_STEP)
    started = time.perf_counter()
    comparison = formulations.compare(system, configs, (0.0, t_end), rtol=1e-8, samples=201, sweep=sweep,
                                      progress=lambda i, n, label: print(f"  {name} [{i}/{n}] {label}",
                                                                         file=sys.stderr))
    fig = Figure(figsize=(18, 5.5))
    for ax, quantity in zip(fig.subplots(1, 3), ("deviation", "constraints", "energy")):
        work_precision(comparison, ax=ax, quantity=quantity)
    fig.suptitle(f"{name}: {t_end:g} s, tolerances {sweep[0]:g} .. {sweep[-1]:g}")
    fig.tight_layout()
    fig.savefig(out / f"{name}_work_precision.png", dpi=90)
    print(f"{name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return comparison


def summary_table(comparison) -> str:
    lines = [f"### {comparison.system_name} ({comparison.t_span[1]:g} s)", "",
             "| configuration | tol | step s | wall s | deviation | max abs(Phi) | max abs(C v) | energy drift J |",
             "|---|---|---|---|---|---|---|---|"]
    for p in comparison.sweep:
        failed = " (failed)" if p.status < 0 else ""
        step = "—" if p.step is None else f"{p.step:.2g}"
        lines.append(f"| {p.label}{failed} | {p.tol:.0e} | {step} | {p.wall_time:.3f} | {p.deviation:.1e} | "
                     f"{p.position_error:.1e} | {p.velocity_error:.1e} | {p.energy_drift:.1e} |")
    return "\n".join(lines) + "\n"


def slider_crank_panels(out, t_end=5.0):
    """The four panels of the paper's Figure 1 for every enforcement method, at rtol = atol = 1e-8."""
    system = systems.load("slider_crank")
    a = system.parameter_dict["a"]
    names = system.coordinate_names
    i = {n: names.index(n) for n in names}
    configs = formulations.enforcement_configurations(system, step=1e-3)
    t_eval = np.linspace(0.0, t_end, 1001)
    fig = Figure(figsize=(13, 9))
    (ax_p, ax_e), (ax_w, ax_v) = fig.subplots(2, 2)
    energy_errors = {}
    for spec in configs:
        config = formulations.Configuration.parse(spec)
        tr = config.build(system).simulate((0.0, t_end), rtol=1e-8, atol=1e-8, method=config.method,
                                           t_eval=t_eval, step=config.step)
        e = tr.energy - tr.energy[0]
        energy_errors[config.label] = float(np.max(np.abs(e)))
        P2 = np.column_stack([tr.p[:, i["x1"]] + a / 2 * np.cos(tr.p[:, i["phi1"]]),
                              tr.p[:, i["y1"]] + a / 2 * np.sin(tr.p[:, i["phi1"]])])
        ax_p.plot(P2[:, 0], P2[:, 1], lw=0.8, label=config.label)
        ax_e.semilogy(tr.t, np.maximum(np.abs(e), 1e-17), lw=0.8, label=config.label)
        ax_w.plot(tr.t, tr.v[:, i["phi1"]], lw=0.8, label=f"{config.label}: crank")
        ax_w.plot(tr.t, tr.v[:, i["phi2"]], lw=0.8, ls="--")
        ax_v.plot(tr.t, tr.v[:, i["x3"]], lw=0.8, label=config.label)
    ax_p.set(xlabel="x [m]", ylabel="y [m]", title="(a) path of the crank-rod joint P2", aspect="equal")
    ax_e.set(xlabel="t [s]", ylabel="abs(E - E0) [J]", title="(b) mechanical energy error")
    ax_w.set(xlabel="t [s]", ylabel="rad/s", title="(c) angular velocity of crank (solid) and rod (dashed)")
    ax_v.set(xlabel="t [s]", ylabel="m/s", title="(d) piston velocity")
    for ax in (ax_p, ax_e, ax_w, ax_v):
        ax.grid(True, alpha=0.3)
    ax_e.legend(fontsize="x-small", ncol=2)
    fig.suptitle(f"planar slider-crank, {t_end:g} s, rtol = atol = 1e-8 (augmented Lagrangian: h = 1e-3 s)")
    fig.tight_layout()
    fig.savefig(out / "slider_crank_panels.png", dpi=90)
    return energy_errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures/enforcement")
    parser.add_argument("--quick", action="store_true", help="two tolerances and 1 s spans (a smoke run)")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sweep = [1e-5, 1e-8] if args.quick else SWEEP
    results, tables = {}, []
    for name, t_end in CASES.items():
        comparison = sweep_case(name, 1.0 if args.quick else t_end, sweep, out)
        results[name] = comparison.as_dict()
        tables.append(summary_table(comparison))
    panels_t_end = 1.0 if args.quick else 5.0
    energy = slider_crank_panels(out, panels_t_end)
    results["slider_crank_energy_error"] = energy
    tables.append(f"### slider_crank panels: max abs(E - E0) over {panels_t_end:g} s at 1e-8\n\n"
                  "| configuration | J |\n|---|---|\n"
                  + "\n".join(f"| {k} | {v:.1e} |" for k, v in energy.items()) + "\n")
    (out / "results.json").write_text(json.dumps(_finite(results), indent=1))
    (out / "summary.md").write_text("\n".join(tables))
    print("\n".join(tables))


if __name__ == "__main__":
    main()

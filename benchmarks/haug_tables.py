"""Haug & Pavesic's Tables 1 and 2 in shape: maximal position, velocity and acceleration constraint
errors of the manifold formulation against Tol = utol, with charts used and the share of
time spent re-charting (run on demand: it takes minutes).

    python benchmarks/haug_tables.py                 # top over 100 s, slider-crank over 10 s
    python benchmarks/haug_tables.py --t-top 20      # shorter

As in the paper, both use the fixed-step fourth-order method with h = 1e-3 s (RK4 here, Nystrom4
there). Top: spin 20 rad/s, transverse perturbation 1e-12 rad/s; slider-crank: domain C3.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import formulations  # noqa: E402
import systems  # noqa: E402


def table(system, t_end, step, tols):
    print(f"\n{system.name}: {t_end:g} s, RK4 with h = {step:g} s")
    print("| Tol | max abs(Phi) | max abs(C v) | max abs(C v' + xi) | energy drift (rel.) | charts | re-charting share | wall s |")
    print("|---|---|---|---|---|---|---|---|")
    for tol in tols:
        started = time.perf_counter()
        tr = formulations.create("manifold", system, utol=tol).simulate((0.0, t_end), method="rk4", step=step)
        e = tr.constraint_errors.max()
        rel = tr.energy_drift / abs(tr.energy[0])
        print(f"| {tol:g} | {e['position']:.1e} | {e['velocity']:.1e} | {e['acceleration']:.1e} | {rel:.1e} | "
              f"{tr.stats.charts} | {tr.stats.chart_time_share:.2%} | {time.perf_counter() - started:.1f} |"
              + ("" if tr.success else f" failed: {tr.message}"))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--t-top", type=float, default=100.0)
    parser.add_argument("--t-crank", type=float, default=10.0)
    parser.add_argument("--step", type=float, default=1e-3)
    args = parser.parse_args()
    tols = (1e-6, 1e-8, 1e-10)
    table(systems.load("spinning_top", spin=20.0, perturbation=1e-12), args.t_top, args.step, tols)
    table(systems.load("triple_slider_crank"), args.t_crank, args.step, tols)


if __name__ == "__main__":
    main()

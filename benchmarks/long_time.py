"""Long-time behaviour: the energy and invariant errors of the variational methods against
Runge-Kutta over 10^4 periods, at equal step and at equal cost (formulations.workbench.long_time).

    python benchmarks/long_time.py                    # eight cases, 10^4 periods, compiled: about 5 minutes
    python benchmarks/long_time.py --periods 100      # a quick look
    python benchmarks/long_time.py --backend numpy    # every loop in Python (45 minutes for the first four)

Cases: the knife edge on a slope (nonholonomic, reversible, integrable), the Cartesian pendulum
(holonomic: NH-RATTLE is RATTLE), the contact oscillator with eps = 0.1 (McLachlan & Perlmutter
5.2; reversible, integrable), the same with the gyroscopic force b = 0.5 N s/m (energy conserved,
not reversible under v -> -v), the same oscillator (b = 0) with the variational methods on
L + d(cos z)/dt (Modin & Verdier's non-reversible construction: the motion is unchanged, the
discrete equations are not), Suslov's problem (reversible, with no invariant volume), the
rolling disc (a turn of the wheel as the period) and the Chaplygin sleigh (which settles to
straight motion; the period of its first turning rate). Per
case: NH-RATTLE and DLA at the step h, rk4 at h and at the step of equal cost (costs per step
measured in this process, medians of 5 interleaved pilots), DOP853 on the dependent formulation
with projection at 1e-6. Writes benchmarks/output/long_time.md, .json and
docs/figures/long-time/<case>.png.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np
import sympy as sp

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import systems  # noqa: E402
from formulations.workbench.long_time import figure, long_time, table as long_time_table  # noqa: E402

H_MP = 2 * np.sin(np.pi / 40)  # McLachlan & Perlmutter's step for the contact oscillator
Z = sp.Symbol("z", real=True)  # the contact oscillator's third coordinate
SUSLOV_PERIOD = 2 * np.pi / (2.0 * np.sqrt(1.0 / 1.5))  # a turn at the final rate c = w sqrt(I1 / I2), defaults
CASES = {  # case: (catalogue system, parameter values, period in s of its default motion or None, step h in s,
           #        gauge S of the variational methods or None)
    "knife_edge": ("knife_edge", {}, np.pi, 0.1, None),  # phi' = 2 rad/s: x and phi repeat every pi s (Bloch 1.6)
    "pendulum_cartesian": ("pendulum_cartesian", {}, None, 0.05, None),  # holonomic (RATTLE); the small swing's period
    "contact_oscillator": ("contact_oscillator", {"epsilon": 0.1}, 2 * np.pi, H_MP, None),  # reversible; y's period
    "contact_oscillator_gyroscopic": ("contact_oscillator", {"epsilon": 0.1, "b": 0.5}, 2 * np.pi, H_MP, None),
    # Modin & Verdier's construction (their odelab code's S = cos z): the same motion, the methods on L + dS/dt
    "contact_oscillator_gauge": ("contact_oscillator", {"epsilon": 0.1}, 2 * np.pi, H_MP, sp.cos(Z)),
    "suslov": ("suslov", {}, SUSLOV_PERIOD, 0.02, None),  # reversible, no invariant volume: spins up about e2
    "rolling_disc": ("rolling_disc", {}, 2 * np.pi / 8.2955, 0.02, None),  # a turn of the wheel, omega_2 = 8.30 rad/s
    "chaplygin_sleigh": ("chaplygin_sleigh", {}, 2 * np.pi, 0.02, None),  # a turn at the first rate, 1 rad/s; settles
}


def _period(system):
    """The small swing's period 2 pi sqrt(L / g), the unit of time where the motion's own is not
    known in closed form."""
    values = system.parameter_dict
    return 2 * np.pi * np.sqrt(values["L"] / values["g"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--periods", type=float, default=1e4)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--name", default="long_time", help="the output files' name in benchmarks/output")
    parser.add_argument("--backend", default="compiled", choices=["numpy", "compiled"],
                        help="every run's backend (compiled: the variational, rk4 and DOP853 loops in machine code)")
    args = parser.parse_args(argv)
    out = ROOT / "benchmarks" / "output"
    figures = ROOT / "docs" / "figures" / "long-time"
    out.mkdir(parents=True, exist_ok=True)
    figures.mkdir(parents=True, exist_ok=True)
    results = []
    for case in args.cases.split(","):
        name, values, period, h, gauge = CASES[case]
        system = systems.load(name, **values)
        period = period or _period(system)
        result = long_time(system, args.periods * period, h, progress=lambda text: print(f"{case}: {text}", flush=True),
                           invariants="b" not in values,  # the contact oscillator's holds for b = 0 only
                           backend=args.backend, gauge=gauge)
        figure(result, figures / f"{case}.png", period=period)
        results.append({"case": case, "parameters": values, "period_s": period, "periods": args.periods,
                        **json.loads(result.to_json())})
        (out / f"{args.name}.md").write_text(table(results))
        (out / f"{args.name}.json").write_text(json.dumps(results, indent=1))
    print(table(results))


def table(results) -> str:
    """The Markdown table of the cases (from their JSON), one row per run."""
    runs = [run for result in results for run in result["runs"]]
    return long_time_table(runs, [result["case"] for result in results for _ in result["runs"]])

if __name__ == "__main__":
    main()

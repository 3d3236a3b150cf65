"""``pfaff stability``: eigenvalues along a family of steady motions, and the critical values.

    pfaff stability rolling_disc --param spin --range 0.5 6 --points 56 --family rolling --out upright

With --out the folder gets stability.md (the table and the critical values), stability.json and
stability.png (formulations.plot_stability). The critical values are printed with 12 significant
digits.
"""
from __future__ import annotations

import json
import math
import sys

import numpy as np

from .parsing import UsageError, count, explain, load_system, number, out_options, output_folder
from ...minimal import Minimal

OK, FAILED = 0, 1


def add_parser(sub, command):
    """The ``stability`` subcommand (``command`` adds SYSTEM and --set)."""
    parser = command(sub, "stability", "eigenvalues along a family of steady motions and the critical values",
                     cmd_stability)
    parser.add_argument("--param", required=True, metavar="P",
                        help="the swept quantity: a parameter of the system or a variable of --family")
    parser.add_argument("--range", required=True, nargs=2, type=number("real"), metavar=("A", "B"),
                        help="first and last value of the parameter (A < B)")
    parser.add_argument("--points", type=count(2), default=51, help="values from A to B, evenly spaced")
    parser.add_argument("--family", default=None,
                        help="a state family of the system giving the operating point (rolling_disc: rolling, "
                             "turning; default: the system's default state)")
    parser.add_argument("--formulation", default=Minimal.name, help="dependent, reduced, minimal or manifold")
    out_options(parser, "stability.md, stability.json and stability.png")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def cmd_stability(args):
    import formulations

    system = load_system(args.system, args.set)
    low, high = args.range
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise UsageError(f"--range {low:g} {high:g}: expected finite A < B")
    folder = output_folder(args)
    values = np.linspace(low, high, args.points)
    try:
        result = formulations.stability(system, args.family, args.param, values, formulation=args.formulation)
    except (formulations.NotSteadyError, formulations.CapabilityError) as exc:
        print(f"pfaff: error: {explain(exc)}", file=sys.stderr)
        return FAILED
    except (ValueError, TypeError) as exc:
        raise UsageError(explain(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(_markdown(result))
    if folder is not None:
        with folder:
            (folder.tmp / "stability.md").write_text(_markdown(result) + "\n\n![eigenvalues](stability.png)\n")
            (folder.tmp / "stability.json").write_text(json.dumps(result.to_dict(), indent=2))
            _figure(result, folder.tmp / "stability.png")
            target = folder.commit()
        print(f"\nstability written to {target}", file=sys.stderr if args.json else sys.stdout)
    return OK


def _critical(result) -> str:
    if not result.critical:
        return "No critical value in the range."
    return "\n".join(f"- {result.parameter} = {c.value:.12g} ({c.change}; {c.method} to {result.xtol:g})"
                     for c in result.critical)


def _markdown(result) -> str:
    return (f"# Stability of {result.system_name}: {result.family}, {result.parameter} from {result.values[0]:g} to "
            f"{result.values[-1]:g} ({result.formulation})\n\nCritical values:\n\n{_critical(result)}\n\n"
            f"Non-trivial eigenvalues (drifts of ignorable coordinates and conserved quantities left out):\n\n"
            f"{result.table()}")


def _figure(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plots import plot_stability

    ax = plot_stability(result)
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=120)
    plt.close(ax.figure)

"""``pfaff identify``: parameter values from measurements in a CSV file (formulations.identify).

    pfaff identify pendulum_cartesian data.csv --param g [--param m] [--noise 0.001] [--initial x x_dot] --out fit

The CSV file has a header row: ``t``, then measured coordinates, velocities or reactions by name,
and optionally ``trial`` (whole numbers; rows of one trial together, times increasing). An empty
cell is a value not measured. Each trial starts from the system's default state (--set changes
it), or, where the file measures every coordinate and velocity, from the consistent state nearest
its first row; --initial names the coordinates and velocities whose initial values are unknowns
too. With --out the folder gets identification.md, identification.json and
identification.png.
"""
from __future__ import annotations

import csv
import json
import math
import sys

import numpy as np

from .parsing import UsageError, explain, load_system, number, out_options, output_folder
from ...minimal import Minimal

OK, FAILED = 0, 1


def add_parser(sub, command):
    """The ``identify`` subcommand (``command`` adds SYSTEM and --set)."""
    parser = command(sub, "identify", "parameter values from measurements in a CSV file", cmd_identify)
    parser.add_argument("data", metavar="DATA.csv", help="header t, measured names and optionally trial")
    parser.add_argument("--param", action="append", required=True, metavar="NAME",
                        help="a parameter to identify, starting from its value (repeatable)")
    parser.add_argument("--noise", type=number("positive"), default=None,
                        help="standard deviation of every measured value (default: estimated from the residuals)")
    parser.add_argument("--initial", nargs="+", default=[], metavar="NAME",
                        help="coordinates and velocities whose initial values are unknown too, one per trial")
    parser.add_argument("--formulation", default=Minimal.name, help="dependent, reduced, minimal or manifold")
    out_options(parser, "identification.md, identification.json and identification.png")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def read_trials(system, path):
    """[Trial] from the CSV file at ``path`` (module docstring); UsageError naming what is wrong."""
    from ..parameters.identification import Trial

    try:
        with open(path, newline="") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise UsageError(f"DATA.csv {path}: cannot be read ({exc.strerror})") from None
    if len(rows) < 3 or "t" not in rows[0]:
        raise UsageError(f"DATA.csv {path}: expected a header row with 't' and at least two rows of values")
    header = [h.strip() for h in rows[0]]
    try:
        table = np.array([[float(x) if x.strip() else math.nan for x in row] for row in rows[1:] if row],
                         dtype=float)
    except ValueError as exc:
        raise UsageError(f"DATA.csv {path}: {exc}; expected numbers (an empty cell: not measured)") from None
    if table.shape[1] != len(header):
        raise UsageError(f"DATA.csv {path}: rows have {table.shape[1]} values but the header names {len(header)}")
    column = dict(zip(header, table.T))
    trial_ids = column.pop("trial", np.zeros(len(table)))
    t_all = column.pop("t")
    states = set(system.coordinate_names + system.velocity_names) <= set(column)
    trials = []
    for trial_id in dict.fromkeys(trial_ids.tolist()):
        rows_of = trial_ids == trial_id
        state0 = None
        if states:
            first = {n: v[rows_of][0] for n, v in column.items()}
            state0 = system.consistent_state([first[n] for n in system.coordinate_names],
                                             [first[n] for n in system.velocity_names])
        trials.append(Trial(t_all[rows_of], {n: v[rows_of] for n, v in column.items()}, state0))
    return trials


def cmd_identify(args):
    import formulations

    system = load_system(args.system, args.set)
    folder = output_folder(args)
    try:
        trials = read_trials(system, args.data)
        fit = formulations.identify(system, args.formulation, trials, args.param, noise=args.noise,
                                    initial=args.initial)
    except (ValueError, TypeError, KeyError) as exc:
        raise UsageError(explain(exc)) from None
    summary = {"system": system.name, "formulation": args.formulation, "estimates": fit.estimates,
               "standard_errors": {k: (v if math.isfinite(v) else None) for k, v in fit.standard_errors.items()},
               "points": fit.points, "cost": fit.cost, "status": fit.status, "message": fit.message,
               "notes": list(fit.notes)}
    print(json.dumps(summary) if args.json else fit.to_markdown())
    if folder is not None:
        with folder:
            (folder.tmp / "identification.md").write_text(fit.to_markdown() + "\n![fit](identification.png)\n")
            (folder.tmp / "identification.json").write_text(json.dumps(summary, indent=2))
            _figure(fit, folder.tmp / "identification.png")
            target = folder.commit()
        print(f"\nidentification written to {target}", file=sys.stderr if args.json else sys.stdout)
    return OK if fit.status == 0 else FAILED


def _figure(fit, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = fit.plot()
    fig.savefig(path, dpi=120)
    plt.close(fig)

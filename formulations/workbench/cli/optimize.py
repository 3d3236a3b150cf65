"""``pfaff optimize``: inputs that move a system between states at least cost, through one or more
formulations (formulations.optimal_control).

    pfaff optimize knife_edge --from x=0 y=0 phi=0 x_dot=0 y_dot=0 phi_dot=0 \\
        --to x=0 y=1 phi=0 x_dot=0 y_dot=0 phi_dot=0 --inputs F tau --path phi:-1.2:1.2 \\
        --t-end 2 --nodes 40 --formulation dependent --formulation minimal --out parking

Prints the comparison table (one row per formulation); with --out the folder gets report.md,
solutions.json and one figure per formulation (coordinates, velocities, inputs); --html FILE
writes the 3D scene of the first solution's inputs re-simulated.
"""
from __future__ import annotations

import math
import sys

from .parsing import UsageError, count, explain, load_system, number, out_options, output_folder
from ...control.model import kinds
from ...minimal import Minimal

OK, FAILED = 0, 1


def add_parser(sub, command):
    """The ``optimize`` subcommand (``command`` adds SYSTEM and --set)."""
    parser = command(sub, "optimize", "inputs that move a system between states at least cost", cmd_optimize)
    parser.add_argument("--from", dest="initial", nargs="+", metavar="NAME=VALUE", default=[],
                        help="initial conditions on coordinates and velocities (the rest is free)")
    parser.add_argument("--to", dest="final", nargs="+", metavar="NAME=VALUE", default=[],
                        help="final conditions on coordinates and velocities (the rest is free)")
    parser.add_argument("--inputs", nargs="+", metavar="NAME[:LO:HI]", required=True,
                        help="force or torque parameters to optimize, with optional bounds")
    parser.add_argument("--t-end", default="1", metavar="T|free",
                        help="final time in s, or 'free' (then --t-guess is the first guess)")
    parser.add_argument("--t-guess", type=number(), default=1.0, help="first guess of a free final time, in s")
    parser.add_argument("--cost", default="effort", help="effort (integral of the inputs' squares), time, or an "
                                                         "integrand in the names of p, v, the inputs and t")
    parser.add_argument("--path", nargs="+", metavar="NAME:LO:HI", default=[],
                        help="bounds at every collocation point on a coordinate, velocity, input or multiplier")
    parser.add_argument("--formulation", action="append", default=None, metavar="F",
                        help=f"one of: {', '.join(kinds())}; repeat to compare (default: {Minimal.name})")
    parser.add_argument("--nodes", type=count(2), default=40, help="mesh intervals (default 40)")
    parser.add_argument("--scheme", default="hermite-simpson", choices=["trapezoidal", "hermite-simpson"])
    parser.add_argument("--starts", type=count(1), default=1,
                        help="solve from N first guesses (the default one and N-1 perturbed from its solution) and "
                             "report the local optima found (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="random numbers of the perturbed starts (default 0)")
    parser.add_argument("--budget", type=number(), default=None, metavar="S",
                        help="wall-clock seconds for all starts of one formulation (default: no limit)")
    out_options(parser, "report.md, solutions.json and the figures")
    parser.add_argument("--html", metavar="FILE", help="write a 3D scene of the first solution re-simulated")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _pairs(items, option):
    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not sep or not name or not math.isfinite(value):
            raise UsageError(f"{option} takes NAME=VALUE with a finite number, got {item!r} (e.g. {option} x=0)")
        out[name] = value
    return out


def _path(items):
    out = {}
    for item in items:
        name, *bounds = item.split(":")
        if len(bounds) != 2:
            raise UsageError(f"--path takes NAME:LO:HI, got {item!r} (e.g. --path phi:-1.2:1.2; an empty bound is open)")
        out[name] = tuple(None if b == "" else b for b in bounds)
    return out


def cmd_optimize(args):
    from formulations.control import optimal_control
    from formulations.control.bridge import casadi
    from formulations.solvers import MissingDependencyError

    from ..comparison import control_table
    from .commands import _check_html, _write_scene

    system = load_system(args.system, args.set)
    folder = output_folder(args)
    _check_html(args, system)
    free = args.t_end == "free"
    try:
        t_end = args.t_guess if free else float(args.t_end)
    except ValueError:
        raise UsageError(f"--t-end takes a time in s or 'free', got {args.t_end!r}") from None
    try:
        casadi()
    except MissingDependencyError as exc:
        raise UsageError(str(exc)) from None
    results = []
    for formulation in args.formulation or [Minimal.name]:
        try:
            results.append(optimal_control(system, formulation, (0.0, t_end), _pairs(args.initial, "--from"),
                                           _pairs(args.final, "--to"), args.inputs, args.cost, path=_path(args.path),
                                           nodes=args.nodes, scheme=args.scheme, free_time=free,
                                           starts=args.starts, seed=args.seed, budget=args.budget))
        except (ValueError, TypeError, KeyError) as exc:
            raise UsageError(explain(exc)) from None
    print(control_table.to_json(results) if args.json else control_table.markdown(results))
    if not args.json:
        for r in results:
            for cost, starts, description in r.optima:
                plural = "s" if starts > 1 else ""
                print(f"{r.formulation}: local optimum {cost:.10g} reached from {starts} start{plural}; {description}")
    if folder is not None:
        _write(folder, results, args)
    if results[0].resimulation is not None and results[0].resimulation.trajectory is not None:
        _write_scene(args, system, results[0].resimulation.trajectory)
    return OK if all(r.success for r in results) else FAILED


def _write(folder, results, args):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..comparison import control_table

    with folder:
        lines = [f"# Optimal control of {results[0].system}", "", control_table.markdown(results), ""]
        for r in results:
            name = f"{r.formulation.replace('+', '_')}.png"
            plt.close(r.plot(path=folder.tmp / name))
            lines += [f"## {r.formulation}", "", "```", str(r), "```", "", f"![{r.formulation}]({name})", ""]
        (folder.tmp / "report.md").write_text("\n".join(lines))
        (folder.tmp / "solutions.json").write_text(control_table.to_json(results, indent=1))
        target = folder.commit()
    print(f"\nreport written to {target}", file=sys.stderr if args.json else sys.stdout)

"""The ``pfaff`` command line.

    pfaff list
    pfaff analyze SYSTEM [--set name=value ...] [--markdown]
    pfaff simulate SYSTEM --formulation F --t-end T [--rtol R] [--atol A] [--method M] [--step H]
                   [--stabilization S] [--set name=value ...] [--json]
    pfaff compare SYSTEM [--formulations F ...] [--enforcement [--step H]] [--t-end T] [--rtol R] [--sweep]
                  [--out DIR] [--animate] [--set name=value ...] [--json]
    pfaff derive SYSTEM --formulation F [--latex | --markdown] [--set name=value ...]
    pfaff cache info | clear

Exit status 0 on success, 2 on bad input with one line on stderr (no traceback).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

import systems
from formulations.stabilization import STRATEGIES


class UsageError(Exception):
    """Bad input from the command line; printed as one line, exit status 2."""


def _parse_sets(items):
    values = {}
    for item in items or ():
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--set takes name=value, got {item!r}")
        try:
            values[name.strip()] = float(text)
        except ValueError:  # a structural option such as velocity=hybrid
            values[name.strip()] = text.strip()
    return values


def _load(name, sets):
    try:
        return systems.load(name, **_parse_sets(sets))
    except systems.UnknownNameError as exc:
        raise UsageError(str(exc)) from None
    except systems.SystemDescriptionError as exc:
        raise UsageError(str(exc).replace("\n", " ")) from None
    except (TypeError, ValueError) as exc:  # a parameter given a word, or a structural option a bad value
        raise UsageError(f"system {name!r}, --set: {exc}") from None


def cmd_list(args):
    width = max(len(n) for n in systems.names())
    for name in systems.names():
        first = systems.describe(name).strip().splitlines()[0]
        print(f"{name:<{width}}  {first}")
    return 0


def cmd_analyze(args):
    system = _load(args.system, args.set)
    report = systems.analyze_constraints(system)
    print(report.to_markdown() if args.markdown else report.text())
    return 0


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def cmd_simulate(args):
    import formulations

    system = _load(args.system, args.set)
    try:
        form = formulations.create(args.formulation, system, stabilization=args.stabilization, backend=args.backend)
        traj = form.simulate((0.0, args.t_end), rtol=args.rtol, atol=args.atol, method=args.method,
                             step=args.step)
    except (systems.UnknownNameError, systems.InconsistentStateError, formulations.CapabilityError,
            formulations.MissingDependencyError, ImportError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(traj.summary()))
    else:
        s = traj.summary()
        print(f"{system.name} / {traj.formulation} ({args.method}, rtol={args.rtol:g}, atol={args.atol:g}): "
              f"{traj.message}")
        print("  final p: " + ", ".join(f"{n}={x:.6g}" for n, x in zip(system.coordinate_names, s["p_final"])))
        print("  final v: " + ", ".join(f"{n}={x:.6g}" for n, x in zip(system.velocity_names, s["v_final"])))
        errs = s["constraint_errors"]
        print(f"  max constraint errors: position {errs['position']:.2e}, velocity {errs['velocity']:.2e}, "
              f"acceleration {errs['acceleration']:.2e}; energy drift {s['energy_drift']:.2e}")
        st = traj.stats
        print(f"  {st.steps} steps, {st.rhs_evaluations} evaluations, {st.wall_time:.3f} s")
    return 0 if traj.success else 1


class Progress:
    """A one-line progress indicator on stderr, shown only on a terminal and after two seconds."""

    def __init__(self, stream=sys.stderr, delay=2.0):
        self.stream, self.delay, self.start = stream, delay, time.monotonic()
        self.active = hasattr(stream, "isatty") and stream.isatty()
        self.shown = False

    def __call__(self, i, n, label):
        if self.active and time.monotonic() - self.start > self.delay:
            width = 24
            done = int(width * i / max(n, 1))
            self.stream.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {label[:40]:<40}")
            self.stream.flush()
            self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()


def cmd_compare(args):
    import formulations
    from formulations.workbench.report import write_report

    system = _load(args.system, args.set)
    sweep = [10.0 ** -e for e in range(4, 12, 2)] if args.sweep else None
    progress = Progress()
    configurations = args.formulations
    if args.enforcement:
        configurations = formulations.enforcement_configurations(system, step=args.step) + tuple(configurations or ())
    try:
        comparison = formulations.compare(system, configurations, (0.0, args.t_end), rtol=args.rtol,
                                          atol=args.atol, sweep=sweep, progress=progress)
    except (systems.UnknownNameError, systems.InconsistentStateError, formulations.CapabilityError,
            formulations.MissingDependencyError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    finally:
        progress.close()
    if args.json:
        print(comparison.to_json())
    else:
        print(f"{system.name}: {args.t_end:g} s, rtol = {args.rtol:g}; reference: dependent+projection at "
              f"{comparison.reference_tol:g}\n")
        print(comparison.to_markdown())
        for note in comparison.reading():
            print(f"- {note}")
    if args.out:
        report = write_report(comparison, system, args.out, systems.analyze_constraints(system))
        if args.animate and system.name in ("rolling_disc", "sphere_in_cylinder"):
            from formulations.workbench.animation import animate

            animate(comparison.reference, system, report.parent / f"{system.name}.gif")
        print(f"\nreport written to {report}", file=sys.stderr if args.json else sys.stdout)
    return 0 if all(r.status >= 0 for r in comparison.rows) else 1


def cmd_derive(args):
    from formulations.workbench.derivation import derive

    system = _load(args.system, args.set)
    try:
        derivation = derive(system, args.formulation)
    except (systems.UnknownNameError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    print(derivation.to_latex() if args.latex else derivation.to_markdown() if args.markdown else derivation.text())
    return 0


def cmd_cache(args):
    from systems import codegen

    if args.action == "clear":
        print(f"removed {codegen.clear_cache()} files from {codegen.cache_dir()}")
    else:
        files, size = codegen.cache_size()
        print(f"{codegen.cache_dir()}: {files} files, {size / 2**20:.1f} MiB (set PFAFF_CACHE_DIR to move it)")
    return 0


def _command(sub, name, help_text, run):
    """A subcommand taking SYSTEM and --set name=value."""
    parser = sub.add_parser(name, help=help_text)
    parser.add_argument("system")
    parser.add_argument("--set", action="append", metavar="NAME=VALUE", help="parameter value")
    parser.set_defaults(run=run)
    return parser


def build_parser():
    parser = argparse.ArgumentParser(prog="pfaff", description="A workbench for constrained mechanical systems.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the catalogue systems").set_defaults(run=cmd_list)
    analyze = _command(sub, "analyze", "constraint analysis of a system", cmd_analyze)
    analyze.add_argument("--markdown", action="store_true", help="print Markdown")
    simulate = _command(sub, "simulate", "simulate a system with one formulation", cmd_simulate)
    simulate.add_argument("--formulation", default="dependent")
    simulate.add_argument("--t-end", type=_positive, default=10.0)
    simulate.add_argument("--rtol", type=_positive, default=1e-8)
    simulate.add_argument("--atol", type=_positive, default=1e-8)
    simulate.add_argument("--method", default="DOP853")
    simulate.add_argument("--step", type=_positive, default=None,
                          help="fixed step of --method rk4 and augmented_lagrangian")
    simulate.add_argument("--stabilization", default="none", choices=list(STRATEGIES))
    simulate.add_argument("--backend", default="numpy", choices=["numpy", "compiled"],
                          help="numeric backend of the primitives (compiled: numba, cached on disk; default numpy)")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    compare = _command(sub, "compare", "compare formulations side by side", cmd_compare)
    compare.add_argument("--formulations", nargs="+", metavar="F", default=None,
                         help="configurations formulation[+stabilization][@method[:step]] (default: all that apply)")
    compare.add_argument("--enforcement", action="store_true",
                         help="every constraint-enforcement method (stabilizations, IDA, augmented Lagrangian, "
                              "reduced, minimal, manifold), with any --formulations added")
    compare.add_argument("--step", type=_positive, default=1e-3,
                         help="fixed step of the augmented Lagrangian under --enforcement (default 1e-3 s)")
    compare.add_argument("--t-end", type=_positive, default=10.0)
    compare.add_argument("--rtol", type=_positive, default=1e-8)
    compare.add_argument("--atol", type=_positive, default=None)
    compare.add_argument("--sweep", action="store_true", help="work-precision sweep over tolerances 1e-4 .. 1e-10")
    compare.add_argument("--out", metavar="DIR", help="write report.md, figures and results.json here")
    compare.add_argument("--animate", action="store_true", help="also write a GIF of the motion into --out")
    compare.add_argument("--json", action="store_true", help="print the comparison as one JSON object")
    cache = sub.add_parser("cache", help="the folder of compiled kernels (backend 'compiled')")
    cache.add_argument("action", choices=["info", "clear"], help="show its location and size, or empty it")
    cache.set_defaults(run=cmd_cache)
    derive = _command(sub, "derive", "the equations of a formulation, derived step by step", cmd_derive)
    derive.add_argument("--formulation", default="minimal")
    style = derive.add_mutually_exclusive_group()
    style.add_argument("--latex", action="store_true")
    style.add_argument("--markdown", action="store_true")
    return parser


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse prints its own one-line usage error
        return int(exc.code or 0)
    try:
        return args.run(args)
    except UsageError as exc:
        print(f"pfaff: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (e.g. | head): stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``pfaff`` command line.

    pfaff list
    pfaff analyze SYSTEM [--set name=value ...] [--markdown] [--time-limit SECONDS]
    pfaff simulate SYSTEM [--formulation F[+S]] [--t-end T] [--rtol R] [--atol A] [--method M] [--step H]
                   [--stabilization S] [--backend B] [--max-steps N] [--quiet] [--set name=value ...] [--json]
                   [--html FILE]
    pfaff compare SYSTEM [--formulations F ...] [--enforcement [--step H]] [--t-end T] [--rtol R] [--atol A]
                  [--samples N] [--sweep] [--measure S] [--max-steps N] [--backend B] [--out DIR [--force] [--animate]]
                  [--html FILE] [--quiet] [--set name=value ...] [--json]
    pfaff compare SYSTEM --long T [--step H] [--gauge S] [--backend B] [--out DIR [--force]] [--quiet]
                  [--set name=value ...] [--json]
    pfaff sweep SYSTEM --grid NAME=START:STOP:N [--grid ...] [--formulation F] [--t-end T] [--rtol R]
                [--atol A] [--backend B] [--workers N] [--scheduler ADDRESS] [--out DIR [--force]] [--quiet]
                [--set name=value ...] [--json]
    pfaff stability SYSTEM --param P --range A B [--points N] [--family F] [--formulation F] [--out DIR [--force]]
                    [--set name=value ...] [--json]
    pfaff advise SYSTEM [--t-end T] [--target-error E] [--budget SECONDS] [--out DIR [--force]] [--quiet]
                 [--set name=value ...] [--json]
    pfaff optimize SYSTEM --inputs NAME[:LO:HI] ... [--from NAME=VALUE ...] [--to NAME=VALUE ...] [--t-end T|free]
                   [--cost effort|time|EXPR] [--path NAME:LO:HI ...] [--formulation F ...] [--nodes N]
                   [--scheme S] [--starts N [--seed S] [--budget SECONDS]] [--out DIR [--force]] [--html FILE]
                   [--set name=value ...] [--json]
    pfaff identify SYSTEM DATA.csv --param NAME [--param ...] [--noise S] [--initial NAME ...] [--formulation F]
                   [--out DIR [--force]] [--set name=value ...] [--json]
    pfaff derive SYSTEM [--formulation F | --method M] [--speeds EXPR ...] [--latex [--standalone] | --markdown]
                 [--compact] [--until STEP] [--simplify SECONDS] [--no-analysis] [--set name=value ...]
    pfaff export SYSTEM [--formulation F] [--to python|c|latex] [--out FILE] [--set name=value ...]
    pfaff cache info | clear | warm [--system NAME ...] [--method M ...]

Exit status: 0 ok; 1 a run did not finish, or finished but failed a check of its result (what was
computed is kept: printed, and written with --out); 2 bad input (one line on stderr, nothing
computed); 130 interrupted (Ctrl-C). Warnings go to stderr as one line each.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings

from formulations.dependent import Dependent
from formulations.minimal import Minimal
from formulations.solvers.warm import WARM_METHODS
from formulations.stabilization import STRATEGIES
from formulations.version import version

from .commands import (BAD_INPUT, FAILED, INTERRUPTED, OK, cmd_analyze, cmd_cache, cmd_compare, cmd_derive,
                       cmd_export, cmd_list, cmd_simulate)
from .parsing import UsageError, backend_option, count, join_negative_values, number, tolerance
from ..output import OutputError
from . import advise as advise_cli, identify as identify_cli, optimize as optimize_cli, sweep
from . import stability as stability_cli
from .long import IGNORED

__all__ = ["main", "build_parser", "UsageError", "OK", "FAILED", "BAD_INPUT", "INTERRUPTED"]



class Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line and a pointer to --help."""

    def error(self, message):
        self.exit(BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class FORMATTER(argparse.ArgumentDefaultsHelpFormatter):
    """Help with "(default: ...)" where an option has a default value (not for flags and unset options)."""

    def _get_help_string(self, action):
        if action.default in (None, False) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def _command(sub, name, help_text, run):
    """A subcommand taking SYSTEM and --set name=value."""
    parser = sub.add_parser(name, help=help_text, description=help_text, formatter_class=FORMATTER)
    parser.add_argument("system", help="a catalogue system (pfaff list)")
    parser.add_argument("--set", action="append", metavar="NAME=VALUE",
                        help="a parameter value (r=0.3) or a structural option (n=5, velocity=hybrid); repeatable")
    parser.set_defaults(run=run)
    return parser


def _run_options(parser, step_help):
    parser.add_argument("--t-end", type=number(), default=10.0, help="end of the simulated interval in s")
    parser.add_argument("--step", type=number(), default=None, help=step_help)
    parser.add_argument("--max-steps", type=count(), default=None,
                        help="stop every run cleanly after this many steps (default: the solver's own limit)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")


def html_option(parser, what):
    parser.add_argument("--html", metavar="FILE", help=f"write a 3D scene of {what} to this HTML file (one "
                        "self-contained page: open it in a browser; systems with visuals)")


def _compare_parser(compare):
    """The options of ``compare``, and the defaults of those --long does not take."""
    compare.add_argument("--formulations", nargs="+", metavar="F", default=None,
                         help="configurations formulation[[option=value]][+stabilization][@method[:step]] "
                              "(default: all that apply)")
    compare.add_argument("--enforcement", action="store_true",
                         help="every constraint-enforcement method (stabilizations, IDA, augmented Lagrangian, "
                              "reduced, minimal, manifold), with any --formulations added")
    compare.add_argument("--rtol", type=tolerance, default=1e-8, help="relative tolerance, between machine epsilon and 0.1")
    compare.add_argument("--atol", type=number(), default=None, help="absolute tolerance (default: --rtol)")
    _run_options(compare, "fixed step in s of the augmented Lagrangian under --enforcement (default: 1e-3)")
    backend_option(compare)
    compare.add_argument("--samples", type=count(2), default=501, help="points of the common time grid")
    compare.add_argument("--sweep", action="store_true", help="work-precision sweep over tolerances 1e-4 .. 1e-10")
    compare.add_argument("--measure", type=number("non-negative"), default=None, metavar="S",
                         help="least measuring time of a row, s: a shorter run is repeated (at most 25 runs) and "
                              "timed by its median, with the range; 0 runs each once (default: "
                              "$PFAFF_MEASURE_SECONDS, else 0.2)")
    compare.add_argument("--out", metavar="DIR", help="write report.md, figures and results.json into this folder "
                         "(a new or an empty one)")
    compare.add_argument("--force", action="store_true",
                         help="write into a non-empty --out folder: replaces the report files, keeps other files")
    compare.add_argument("--animate", action="store_true", help="also write a GIF of the motion into --out "
                         "(rolling_disc, sphere_in_cylinder)")
    html_option(compare, "the reference run")
    compare.add_argument("--long", type=number(), default=None, metavar="T",
                         help="instead: the long-time comparison over T s (variational methods NH-RATTLE and DLA at "
                              "--step, default 0.01 s, against rk4 at equal step and equal cost and DOP853 with "
                              "projection): energy and invariant errors, their trend, a figure with --out")
    compare.add_argument("--gauge", default=None, metavar="S",
                         help="with --long: the variational methods on L + dS/dt, S an expression in the "
                              "coordinates and parameters, e.g. 'cos(z)' (the same motion, other discrete "
                              "equations: Modin & Verdier's non-reversible construction)")
    compare.set_defaults(long_defaults={name: compare.get_default(name) for name in IGNORED})


def build_parser():
    parser = Parser(prog="pfaff", description="A workbench for constrained mechanical systems.",
                    epilog="exit status: 0 ok, 1 a run did not finish or failed a check (partial results kept), "
                           "2 bad input, 130 interrupted")
    parser.add_argument("--version", action="version", version=f"pfaff {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("list", help="list the catalogue systems", description="list the catalogue systems"
                   ).set_defaults(run=cmd_list)
    analyze = _command(sub, "analyze", "constraint analysis of a system", cmd_analyze)
    analyze.add_argument("--markdown", action="store_true", help="print Markdown")
    analyze.add_argument("--time-limit", type=number(), default=60.0, metavar="SECONDS",
                         help="bound on the whole analysis in s: the numeric results come first, symbolic proofs "
                              "follow while time remains")
    simulate = _command(sub, "simulate", "simulate a system with one formulation", cmd_simulate)
    simulate.add_argument("--formulation", default=Dependent.name,
                          help="dependent, reduced, minimal or manifold, with options and a stabilization, "
                               "e.g. 'reduced[singular=pass]+projection'")
    simulate.add_argument("--rtol", type=tolerance, default=1e-8, help="relative tolerance, between machine epsilon and 0.1")
    simulate.add_argument("--atol", type=number(), default=1e-8, help="absolute tolerance")
    simulate.add_argument("--method", default="DOP853", help="integrator (adaptive: RK45, DOP853, Radau, BDF, LSODA, "
                          "dopri5, IDA, ...; fixed step: rk4, augmented_lagrangian, RKMK4-SE3, RKMK4-SO3xR3, "
                          "NH-RATTLE, DLA)")
    _run_options(simulate, "fixed step in s of a fixed-step --method (rk4, augmented_lagrangian, RKMK4-*)")
    simulate.add_argument("--stabilization", default="none", choices=list(STRATEGIES),
                          help="constraint stabilization of the dependent and reduced formulations")
    simulate.add_argument("--contacts", action="store_true",
                          help="let the system's contacts open, close on impact, slide and roll "
                               "(formulations.simulate_contacts; the dependent formulation, numpy); prints the events")
    backend_option(simulate)
    html_option(simulate, "the run")
    _compare_parser(_command(sub, "compare", "compare formulations side by side", cmd_compare))
    cache = sub.add_parser("cache", help="the folder of compiled kernels (backend 'compiled')",
                           description="the folder of compiled kernels (backend 'compiled')")
    cache.add_argument("action", choices=["info", "clear", "warm"],
                       help="show its location and size, empty it, or compile the formulations' modules ahead "
                            "(once per machine; then a new system compiles only its own kernels)")
    cache.add_argument("--system", action="append", metavar="NAME", default=None,
                       help="with warm: a catalogue system whose kind to compile for; repeatable (default: "
                            "rolling_disc, slider_crank, knife_edge, heavy_top)")
    cache.add_argument("--method", action="append", choices=list(WARM_METHODS), default=None,
                       help="with warm: the compiled integrator(s) to compile for the configurations that name none "
                            "(default: DOP853; the comparison's Lie-group configurations of a system of bodies run "
                            "their own)")
    cache.set_defaults(run=cmd_cache)
    sweep.add_parser(sub, _command)
    stability_cli.add_parser(sub, _command)
    advise_cli.add_parser(sub, _command)
    optimize_cli.add_parser(sub, _command)
    identify_cli.add_parser(sub, _command)
    derive = _command(sub, "derive", "the equations of a formulation or of a classical method, derived step by step",
                      cmd_derive)
    source = derive.add_mutually_exclusive_group()
    source.add_argument("--formulation", default=None, help="dependent, reduced, minimal (default) or udwadia_kalaba")
    source.add_argument("--method", default=None,
                        help="a classical method instead: lagrange, maggi, gibbs-appell, kane, boltzmann-hamel, "
                             "chaplygin or voronets (ends with the proof that the methods agree)")
    style = derive.add_mutually_exclusive_group()
    style.add_argument("--latex", action="store_true", help="print LaTeX")
    style.add_argument("--markdown", action="store_true", help="print Markdown with math")
    derive.add_argument("--standalone", action="store_true",
                        help="with --latex: a complete document for pdflatex instead of a fragment")
    derive.add_argument("--compact", action="store_true",
                        help="the relations between named matrices only, without their entries")
    derive.add_argument("--until", metavar="STEP", default=None,
                        help="stop after this step (its number from 1, or its key: description, holonomic, "
                             "nonholonomic, analysis, acceleration, embedding, accelerations, projection, "
                             "constraints_q, independent, accelerations_u, projection_u, equations, reactions; "
                             "a method's: energies, rows, ..., equations, agreement)")
    derive.add_argument("--simplify", type=number("non-negative"), default=20.0, metavar="SECONDS",
                        help="time for sympy's trigsimp on the derived matrices (0: the cheap expansion only)")
    derive.add_argument("--no-analysis", action="store_true", help="leave out the constraint analysis step")
    derive.add_argument("--speeds", nargs="+", metavar="EXPR", default=None,
                        help="for --method gibbs-appell, kane, boltzmann-hamel or the minimal formulation: r speeds, "
                             "linear in the velocities or declared by name: 'cos(phi)*x_dot + sin(phi)*y_dot' phi_dot")
    export = _command(sub, "export", "the right-hand side of a formulation as standalone code", cmd_export)
    export.add_argument("--formulation", default=Dependent.name, help="dependent, reduced or minimal (C: dependent)")
    export.add_argument("--to", default="python", choices=["python", "c", "latex"],
                        help="python (a module that imports only numpy), c (one function) or latex (a fragment)")
    export.add_argument("--out", metavar="FILE", help="write to this file instead of printing")
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr, without the source line."""
    text = " ".join(str(message).split())
    print(f"pfaff: warning: {text}", file=sys.stderr if file is None else file)


def main(argv=None) -> int:
    """Run the command line on ``argv`` (default: sys.argv[1:]); returns the exit status."""
    argv = join_negative_values(sys.argv[1:] if argv is None else list(argv))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its usage error (2) or the help (0)
        return int(exc.code or 0)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        try:
            return args.run(args)
        except (UsageError, OutputError) as exc:
            print(f"pfaff: error: {exc}", file=sys.stderr)
            return BAD_INPUT
        except KeyboardInterrupt:
            print("pfaff: interrupted", file=sys.stderr)
            return INTERRUPTED
        except BrokenPipeError:  # the reader went away (e.g. | head): stop quietly
            _quiet_stdout()
            return OK
        except Exception as exc:  # noqa: BLE001  (a failure inside the computation: one line, not a traceback)
            if os.environ.get("PFAFF_TRACEBACK"):
                traceback.print_exc()
            print(f"pfaff: error: the run stopped on {type(exc).__name__}: {' '.join(str(exc).split())} "
                  f"(set PFAFF_TRACEBACK=1 to see where)", file=sys.stderr)
            return FAILED


def _quiet_stdout():
    """After a broken pipe: point stdout at devnull so that the interpreter's final flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover  (stdout without a descriptor, e.g. captured)
        pass


if __name__ == "__main__":
    sys.exit(main())

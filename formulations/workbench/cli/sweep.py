"""``pfaff sweep``: an ensemble over a grid of inputs, its table, summary and map.

    pfaff sweep rolling_disc --grid spin=0:6:60 --grid lean=0:0.5:20 --t-end 5 --out map

With --out the folder gets members.npz (formulations.EnsembleResult.load reads it), members.csv,
summary.json, map.png and report.md. Finished members are kept beside the folder
(``.NAME.members``) while the sweep runs: after Ctrl-C or a crash the same command continues from
them, and they are removed once the report is in place.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import sys

import numpy as np

from .parsing import (UsageError, backend_option, explain, load_system, number, out_options, output_folder,
                      tolerance)
from ..progress import Progress
from ...dependent import Dependent

OK, FAILED, INTERRUPTED = 0, 1, 130


def grid_axis(text):
    """An argparse type: NAME=START:STOP:N -> (name, values), N >= 1 points from START to STOP."""
    name, eq, rest = text.partition("=")
    parts = rest.split(":")
    if not eq or not name.strip() or len(parts) != 3:
        raise argparse.ArgumentTypeError(f"expected NAME=START:STOP:N (e.g. spin=0:6:60), got {text!r}")
    try:
        start, stop = float(parts[0]), float(parts[1])
        n = int(parts[2])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers in NAME=START:STOP:N and a whole N, got {text!r}") from None
    if not (math.isfinite(start) and math.isfinite(stop)) or n < 1 or (n > 1 and start == stop):
        raise argparse.ArgumentTypeError(f"expected finite START != STOP and N >= 1 points, got {text!r}")
    return name.strip(), np.linspace(start, stop, n)


def add_parser(sub, command):
    """The ``sweep`` subcommand (``command`` adds SYSTEM and --set)."""
    parser = command(sub, "sweep", "run one formulation over a grid of inputs: table, summary, stability map",
                     cmd_sweep)
    parser.add_argument("--grid", action="append", type=grid_axis, required=True, metavar="NAME=START:STOP:N",
                        help="an input axis: a parameter, a state-family variable (rolling_disc: lean, spin) or a "
                             "coordinate or velocity; repeatable (the product of the axes is swept)")
    parser.add_argument("--formulation", default=Dependent.name,
                        help="a configuration formulation[[option=value]][+stabilization][@method[:step]]")
    parser.add_argument("--formulations", nargs="+", metavar="F", default=None,
                        help="several configurations side by side over the same members: the distribution of their "
                             "constraint errors, energy drift and cost (instead of --formulation)")
    parser.add_argument("--t-end", type=number(), default=5.0, help="end of each member's interval in s")
    parser.add_argument("--rtol", type=tolerance, default=1e-8, help="relative tolerance, between machine epsilon and 0.1")
    parser.add_argument("--atol", type=number(), default=1e-8, help="absolute tolerance")
    backend_option(parser)
    parser.add_argument("--workers", type=int, default=None, help="local worker processes (default: the cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="a Dask scheduler address (tcp://host:8786): run the members on that cluster")
    out_options(parser, "members.npz, members.csv, summary.json, map.png and report.md")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return parser


def cmd_sweep(args):
    import formulations

    system = load_system(args.system, args.set)
    names = [name for name, _ in args.grid]
    if len(set(names)) != len(names):
        raise UsageError(f"--grid names {', '.join(names)}: each input once")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: expected at least 1")
    inputs = formulations.grid(**dict(args.grid))
    folder = output_folder(args)
    keep = None if folder is None else folder.target.parent / f".{folder.target.name}.members"
    options = dict(rtol=args.rtol, atol=args.atol, backend=args.backend, workers=args.workers,
                   client=args.scheduler, resume=keep)
    what = f"sweep {system.name} ({len(inputs)} members)"
    if args.formulations:
        return _compare(args, system, inputs, folder, options, what)
    interrupted = None
    with folder if folder is not None else _Nothing():
        try:
            with Progress(what, quiet=args.quiet, unit="members") as progress:
                result = formulations.ensemble(system, args.formulation, inputs, (0.0, args.t_end),
                                               progress=progress, **options)
        except formulations.EnsembleInterrupted as exc:
            result, interrupted = exc.result, exc
        except (ValueError, TypeError, ImportError, formulations.CapabilityError) as exc:
            raise UsageError(explain(exc)) from None
        _print(args, result)
        if interrupted is not None:
            where = f"; the same command continues from {str(keep)!r}" if keep else ""
            print(f"pfaff: interrupted after {interrupted.finished} of {interrupted.total} members{where}",
                  file=sys.stderr)
            return INTERRUPTED
        if folder is not None:
            _write(result, folder.tmp, args)
            target = folder.commit()
            shutil.rmtree(keep, ignore_errors=True)
            print(f"\nsweep written to {target}", file=sys.stderr if args.json else sys.stdout)
    failed = result.failed
    if failed:
        example = " ".join(result.messages[failed[0]].split())
        print(f"pfaff: {len(failed)} of {len(result)} members failed; e.g. {example}", file=sys.stderr)
        return FAILED
    return OK


def _compare(args, system, inputs, folder, options, what):
    """--formulations: every configuration over the same members, side by side."""
    import formulations

    if folder is not None:
        options["resume"] = None  # one resume folder per configuration would be needed; a comparison reruns
    with folder if folder is not None else _Nothing():
        try:
            with Progress(what, quiet=args.quiet, unit="members") as progress:
                result = formulations.compare_ensemble(system, args.formulations, inputs, (0.0, args.t_end),
                                                       progress=progress, **options)
        except (ValueError, TypeError, ImportError, formulations.CapabilityError) as exc:
            raise UsageError(explain(exc)) from None
        table = result.to_markdown()
        if args.json:
            print(json.dumps(result.summary(), default=str))
        else:
            print(f"{system.name}: {len(inputs)} members, {args.t_end:g} s each\n\n{table}")
        if folder is not None:
            for label, member_result in zip(result.labels, result.results):
                member_result.save(folder.tmp / f"members-{_file_name(label)}.npz")
            (folder.tmp / "summary.json").write_text(json.dumps(result.summary(), indent=2, default=str))
            result.figure(folder.tmp / "comparison.png")
            (folder.tmp / "report.md").write_text(f"# {system.name}: formulations over {len(inputs)} members\n\n"
                                                  f"{table}\n\n![comparison](comparison.png)\n")
            print(f"\nsweep written to {folder.commit()}", file=sys.stderr if args.json else sys.stdout)
    failed = sum(len(r.failed) for r in result.results)
    return FAILED if failed else OK


def _file_name(label):
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in label)


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _print(args, result):
    summary = result.summary()
    if args.json:
        print(json.dumps(summary, default=str))
        return
    print(markdown(result))


def markdown(result) -> str:
    """A short Markdown summary: members by status, the outcome, the worst errors, the cost."""
    s = result.summary()
    stats = s["stats"]
    lines = [f"# Sweep: {s['system']}, {s['formulation']}", "",
             f"{s['members']} members over {' x '.join(f'{n} ({k})' for n, k in zip(s['inputs'], s['shape']))}, "
             f"{s['settings'].get('t_span', ['', ''])[1]} s each at rtol {s['settings'].get('rtol')}; "
             f"{stats.get('executor')} with {stats.get('workers') or 'the cluster'} worker(s), "
             f"{stats.get('wall_time', 0):.1f} s.", "", "| status | members |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in s["status_counts"].items()]
    if "outcome" in s:
        o = s["outcome"]
        lines += ["", f"{o['members']} of {s['members']} members {o['label']} (abs({o['coordinate']}) reached "
                      f"{o['limit']:g})."]
    lines += ["", f"Worst over the members that finished: position constraint {s['max_error_position']:.2e}, "
                  f"velocity constraint {s['max_error_velocity']:.2e}, energy drift {s['max_energy_drift']:.2e}."
              if s["max_error_position"] is not None else "No member finished."]
    return "\n".join(lines)


def _write(result, folder, args):
    from ..ensembles.maps import stability_map

    result.save(folder / "members.npz")
    table = result.table()
    with open(folder / "members.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(list(table))
        for i in range(len(result)):
            writer.writerow([table[k][i] for k in table])
    (folder / "summary.json").write_text(json.dumps(result.summary(), indent=2, default=str))
    stability_map(result, folder / "map.png")
    (folder / "report.md").write_text(markdown(result) + "\n\n![map](map.png)\n")

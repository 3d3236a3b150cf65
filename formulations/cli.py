"""The ``pfaff`` command line.

    pfaff list
    pfaff analyze SYSTEM [--set name=value ...] [--markdown]

Exit status 0 on success, 2 on bad input with one line on stderr (no traceback).
"""
from __future__ import annotations

import argparse
import sys

import systems


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
        except ValueError:
            raise UsageError(f"--set {name}: value {text!r} is not a number") from None
    return values


def _load(name, sets):
    try:
        return systems.load(name, **_parse_sets(sets))
    except systems.UnknownNameError as exc:
        raise UsageError(str(exc)) from None
    except systems.SystemDescriptionError as exc:
        raise UsageError(str(exc).replace("\n", " ")) from None


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


def build_parser():
    parser = argparse.ArgumentParser(prog="pfaff", description="A workbench for constrained mechanical systems.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the catalogue systems").set_defaults(run=cmd_list)
    analyze = sub.add_parser("analyze", help="constraint analysis of a system")
    analyze.add_argument("system")
    analyze.add_argument("--set", action="append", metavar="NAME=VALUE", help="parameter value")
    analyze.add_argument("--markdown", action="store_true", help="print Markdown")
    analyze.set_defaults(run=cmd_analyze)
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


if __name__ == "__main__":
    sys.exit(main())

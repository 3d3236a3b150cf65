"""``pfaff advise``: which formulation, stabilization, integrator and tolerance for a system
(formulations.workbench.advisor).

    pfaff advise flyball_governor --t-end 5 --target-error 1e-6 --budget 60 --out governor-advice

Prints the recommendation, the ranked table and the reasons; with --out the folder gets advice.md,
advice.json and work_precision.png (the pilot runs' deviation against wall time, failed runs as
red crosses).
"""
from __future__ import annotations

import sys

from .parsing import UsageError, backend_option, explain, load_system, number, out_options, output_folder
from ..progress import Progress

OK, FAILED = 0, 1


def add_parser(sub, command):
    """The ``advise`` subcommand (``command`` adds SYSTEM and --set)."""
    parser = command(sub, "advise", "recommend a formulation, stabilization, integrator and tolerance", cmd_advise)
    parser.add_argument("--t-end", type=number(), default=10.0, help="end of the interval the advice is for, in s")
    parser.add_argument("--target-error", type=number(), default=1e-6, metavar="E",
                        help="the deviation from a tight reference to reach (max over p and v; default 1e-6)")
    parser.add_argument("--budget", type=number(), default=60.0, metavar="SECONDS",
                        help="seconds for the whole advice; the pilot runs are shortened to fit (default 60)")
    backend_option(parser)  # that of the pilot runs, whose times rank the candidates
    out_options(parser, "advice.md, advice.json and work_precision.png")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def cmd_advise(args):
    from ..advisor import advise

    system = load_system(args.system, args.set)
    folder = output_folder(args)
    try:
        with Progress(f"advise {system.name}", quiet=args.quiet or args.json) as progress:
            advice = advise(system, (0.0, args.t_end), target_error=args.target_error, budget=args.budget,
                            progress=progress, backend=args.backend)
    except (ValueError, TypeError) as exc:
        raise UsageError(explain(exc)) from None
    print(advice.to_json() if args.json else advice.to_markdown())
    if folder is not None:
        with folder:
            (folder.tmp / "advice.md").write_text(advice.to_markdown() + "\n![work-precision](work_precision.png)\n")
            (folder.tmp / "advice.json").write_text(advice.to_json(indent=1))
            _figure(advice, folder.tmp / "work_precision.png")
            target = folder.commit()
        print(f"\nadvice written to {target}", file=sys.stderr if args.json else sys.stdout)
    return OK if advice.recommended else FAILED


def _figure(advice, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plots import work_precision

    ax = work_precision(advice.comparison)
    ax.axhline(advice.target_error, color="k", lw=0.8, ls="--", label="target")
    ax.set_title(f"{advice.system_name}: pilot runs over {advice.pilot_span[1] - advice.pilot_span[0]:.3g} s")
    ax.figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(ax.figure)

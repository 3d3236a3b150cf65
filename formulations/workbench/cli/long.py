"""``pfaff compare SYSTEM --long T``: the long-time comparison (formulations.workbench.long_time).

    pfaff compare knife_edge --long 3000 --step 0.1 --out knife-long

The variational methods NH-RATTLE and DLA at --step (default 0.01 s; with --gauge S on L + dS/dt),
rk4 at that step and at the step of equal cost, and DOP853 with projection at 1e-6, over T s, all on
--backend. Prints the table; with --out the folder gets long_time.md, long_time.json and long_time.png (energy and
invariant errors on log axes).
"""
from __future__ import annotations

import sys

from .parsing import UsageError, explain, output_folder

OK, FAILED = 0, 1
DEFAULT_STEP = 0.01
ALONE = ("formulations", "enforcement", "sweep", "animate", "html")  # options the long comparison does not take
IGNORED = ("t_end", "rtol", "atol", "samples", "max_steps", "measure")  # ... unless left at their defaults


def cmd_compare_long(args, system):
    """``args.long_defaults``: the compare command's defaults of IGNORED (set by the parser)."""
    from ..long_time import figure, long_time

    given = [f"--{name}" for name in ALONE if getattr(args, name, None)]
    given += [f"--{name.replace('_', '-')}" for name in IGNORED if getattr(args, name) != args.long_defaults[name]]
    if given:
        raise UsageError(f"--long runs its own methods (NH-RATTLE, DLA, rk4, DOP853 with projection) over T s: it does "
                         f"not take {', '.join(given)}")
    step = DEFAULT_STEP if args.step is None else args.step
    folder = output_folder(args)
    quiet = args.quiet or args.json
    try:
        result = long_time(system, args.long, step, backend=args.backend, gauge=args.gauge, progress=None if quiet
                           else (lambda text: print(text, file=sys.stderr, flush=True)))
    except ValueError as exc:
        raise UsageError(f"--long: {explain(exc)}") from None
    gauge = f", variational methods on L + dS/dt with S = {result.gauge}" if result.gauge else ""
    markdown = (f"# Long-time comparison: {system.name}, {args.long:g} s at h = {step:g} s ({result.backend} backend"
                f"{gauge})\n\n{result.to_markdown()}\n\n"
                f"Trend: the largest energy error over the last tenth of the run over that of the first tenth "
                f"(about 1: bounded; about 10: a linear drift).\n")
    print(result.to_json() if args.json else markdown)
    if folder is not None:
        with folder:
            (folder.tmp / "long_time.md").write_text(markdown + "\n![energy and invariant errors](long_time.png)\n")
            (folder.tmp / "long_time.json").write_text(result.to_json())
            figure(result, folder.tmp / "long_time.png")
            target = folder.commit()
        print(f"\nlong-time comparison written to {target}", file=sys.stderr if args.json else sys.stdout)
    return FAILED if any(run.status < 0 for run in result.runs) else OK

"""The commands of the ``pfaff`` command line; each returns its exit status (see main.py)."""
from __future__ import annotations

import json
import pathlib
import shutil
import sys
import textwrap

import systems

from formulations.configuration import parse_configuration
from formulations.dependent import Dependent
from formulations.solvers.options import tolerances
from systems.contacts import starts_let_go

from ..comparison import estimate
from .parsing import UsageError, explain, load_system, output_folder
from ..progress import Progress

OK, FAILED, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130
ANIMATED = ("rolling_disc", "sphere_in_cylinder")


def warn(text):
    print(f"pfaff: warning: {text}", file=sys.stderr)


def _input_errors():
    """The exceptions that mean bad input when raised while a run is set up."""
    import formulations

    return (systems.UnknownNameError, systems.InconsistentStateError, systems.SystemDescriptionError,
            formulations.CapabilityError, formulations.MissingDependencyError, ImportError, ValueError)


def _max_steps(args):
    """{"max_steps": N} where --max-steps was given, else {}."""
    return {} if args.max_steps is None else {"max_steps": args.max_steps}


def _check_step(method, step, t_end):
    """--step goes with a fixed-step method, and fits into the interval."""
    from formulations.solvers import solver_class

    try:
        fixed = solver_class(method).fixed_step
    except _input_errors() as exc:
        raise UsageError(f"--method: {explain(exc)}") from None
    if step is not None and not fixed:
        raise UsageError(f"--step {step:g} is the step of a fixed-step method, but --method {method} chooses its own "
                         f"steps (set its accuracy with --rtol/--atol, or choose --method rk4)")
    if step is not None and step > t_end:
        raise UsageError(f"--step {step:g} s is longer than the interval --t-end {t_end:g} s; choose a smaller step")


def _pilot(what, runs, t_end, bounded, points=None, max_steps=None):
    """Estimate a long task from pilot runs: ``runs`` are (function of a span returning a Trajectory,
    how many runs of the task it stands for, its fixed step or None)."""
    if not any(estimate.needs_pilot(t_end, points, step) for _, _, step in runs):
        return
    total = None
    for run, times, step in runs:
        part = estimate.extrapolate(run(estimate.pilot_span(t_end, step)), t_end, points, max_steps)
        if part is not None:
            part = estimate.Estimate(part.steps * times, part.seconds * times, part.nbytes * times)
            total = part if total is None else total + part
    smaller = "fewer --samples" if points else "a shorter --t-end or --max-steps"
    level, text = estimate.verdict(total, what, bounded, smaller)
    if level == "refuse":
        raise UsageError(text)
    if level == "warn":
        warn(text)


def cmd_list(args):
    from systems.catalogue import first_sentence

    width = max(len(n) for n in systems.names())
    columns = max(shutil.get_terminal_size((100, 24)).columns, width + 40) if sys.stdout.isatty() else None
    for name in systems.names():  # on a terminal wrapped to its width, else one line a system
        text = first_sentence(name)
        lines = (textwrap.wrap(text, columns - width - 2) if columns else [text]) or [""]
        print(f"{name:<{width}}  {lines[0]}")
        for line in lines[1:]:
            print(f"{'':<{width}}  {line}")
    return OK


def cmd_analyze(args):
    system = load_system(args.system, args.set)
    report = systems.analyze_constraints(system, time_limit=args.time_limit)
    print(report.to_markdown() if args.markdown else report.text())
    return OK


def cmd_simulate(args):
    import formulations

    system = load_system(args.system, args.set)
    _check_step(args.method, args.step, args.t_end)
    _check_html(args, system)
    try:
        parts = parse_configuration(args.formulation, "--formulation")
    except _input_errors() as exc:
        raise UsageError(explain(exc)) from None
    if parts.method is not None:
        raise UsageError(f"--formulation {args.formulation}: give the method as --method {parts.method}"
                         + (f" --step {parts.step:g}" if parts.step else ""))
    name, stabilization = parts.formulation, parts.stabilization
    if stabilization and args.stabilization not in ("none", stabilization):
        raise UsageError(f"--formulation {args.formulation} and --stabilization {args.stabilization} name two "
                         f"stabilizations; give one")
    stabilization = stabilization or args.stabilization
    named = dict(parts.options).get("backend")
    if named is not None and args.backend not in (None, named):
        raise UsageError(f"--formulation {args.formulation} and --backend {args.backend} name two backends; give one")
    options = dict(rtol=args.rtol, atol=args.atol, method=args.method, step=args.step,
                   **_max_steps(args))
    if getattr(args, "contacts", False):
        return _simulate_contacts(args, system, parts, options)
    if starts_let_go(system):  # a bilateral run cannot start there
        if args.formulation != Dependent.name or args.stabilization != "none" or args.backend not in (None, "numpy"):
            raise UsageError(f"{system.name} starts with a contact open or sliding, where a formulation that holds "
                             f"every row cannot start: leave out --formulation, --stabilization and --backend, and "
                             f"`pfaff simulate {system.name}` runs it with its contacts")
        print(f"pfaff: {system.name} starts with a contact open or sliding: run with its contacts (--contacts)",
              file=sys.stderr)
        return _simulate_contacts(args, system, parts, options)

    try:
        form = formulations.create(name, system, **{"stabilization": stabilization, "backend": args.backend,
                                                    **dict(parts.options)})  # once
        _pilot(f"simulate {system.name} to {args.t_end:g} s", [(lambda span: form.simulate((0.0, span), **options), 1,
                                                                args.step)],
               args.t_end, args.max_steps is not None, max_steps=args.max_steps)
        with Progress(f"simulate {system.name}", quiet=args.quiet) as progress:
            progress(0, 1, form.label())
            try:
                traj = form.simulate((0.0, args.t_end), **options)
            except formulations.RunInterrupted as exc:  # say where the run got (not a pilot), then exit 130
                interrupted = exc.trajectory
            else:
                interrupted = None
    except _input_errors() as exc:
        raise UsageError(explain(exc)) from None
    if interrupted is not None:
        _print_run(args, system, interrupted)
        raise KeyboardInterrupt
    _print_run(args, system, traj)
    if traj.settings.get("backend", "").startswith("numpy"):  # "auto" ran on numpy: say why, and what comes next
        print(f"pfaff: {traj.settings['backend']}", file=sys.stderr)
    _write_scene(args, system, traj)
    return _exit_status(traj)


def _exit_status(traj):
    """OK, or FAILED with one line on stderr where the run did not finish or a check of it failed."""
    import formulations

    if traj.status == formulations.Status.WARNED:  # finished, but a check of the result failed
        print(f"pfaff: the run finished, but its result failed a check: {traj.message}", file=sys.stderr)
        return FAILED
    if not traj.success:
        print(f"pfaff: the run did not finish: {traj.message}", file=sys.stderr)
        return FAILED
    return OK


def _simulate_contacts(args, system, parts, options):
    """simulate --contacts: the run of formulations.simulate_contacts, its events and modes."""
    import formulations

    if parts.formulation != Dependent.name or parts.options or parts.stabilization or \
            args.stabilization != "none" or args.backend not in (None, "numpy"):
        raise UsageError("--contacts runs the dependent formulation on numpy, phase by phase: leave out --formulation "
                         "options, --stabilization and --backend")
    try:
        traj = formulations.simulate_contacts(system, (0.0, args.t_end), **options)
    except _input_errors() as exc:
        raise UsageError(explain(exc)) from None
    _print_run(args, system, traj)
    if not args.json:
        for event in traj.events:
            print(f"  t = {event.t:.9g} s: contact {event.constraint!r} {event.kind}")
        for mode in traj.modes:
            print(f"  {mode.start:.6g} .. {mode.end:.6g} s: {mode.label}")
    _write_scene(args, system, traj)
    return _exit_status(traj)


def _print_run(args, system, traj):
    s = traj.summary()
    if args.json:
        print(json.dumps(s))
    else:
        print(f"{system.name} / {traj.formulation} ({args.method}, rtol={args.rtol:g}, atol={args.atol:g}): "
              f"{traj.message}")
        if s["p_final"] is not None:
            print(f"  at t = {s['t_final']:g} s")
            print("  final p: " + ", ".join(f"{n}={x:.6g}" for n, x in zip(system.coordinate_names, s["p_final"])))
            print("  final v: " + ", ".join(f"{n}={x:.6g}" for n, x in zip(system.velocity_names, s["v_final"])))
        errs = s["constraint_errors"]
        print(f"  max constraint errors: position {errs['position']:.2e}, velocity {errs['velocity']:.2e}, "
              f"acceleration {errs['acceleration']:.2e}; energy drift {s['energy_drift']:.2e}")
        st = traj.stats
        print(f"  {st.steps} steps, {st.rhs_evaluations} evaluations, {st.wall_time:.3f} s")


def _configurations(args, system):
    import formulations
    from ..comparison.compare import default_configurations, prepare

    if args.step is not None and not args.enforcement:
        raise UsageError(f"--step {args.step:g} sets the augmented Lagrangian's step under --enforcement; without "
                         f"it, write the step into a configuration, e.g. --formulations dependent@rk4:{args.step:g}")
    configurations = list(args.formulations or ())
    if args.enforcement:
        step = 1e-3 if args.step is None else args.step
        configurations = list(formulations.enforcement_configurations(system, step=step)) + configurations
    if not configurations:
        configurations = list(default_configurations(system))
    parsed = []
    for spec in configurations:
        try:
            config = formulations.Configuration.parse(spec)
        except _input_errors() as exc:
            raise UsageError(f"configuration {spec!r}: {explain(exc)}") from None
        if config.step is not None and config.step > args.t_end:
            raise UsageError(f"configuration {spec!r}: its step {config.step:g} s is longer than the interval "
                             f"--t-end {args.t_end:g} s; choose a smaller step")
        if config.label in (c.label for c in parsed):
            warn(f"configuration {spec!r} is given twice; it is run once")
            continue
        parsed.append(config)
    try:
        return prepare(system, parsed, args.backend)
    except _input_errors() as exc:
        raise UsageError(explain(exc)) from None


def _check_html(args, system):
    """--html FILE: the system must have visuals and FILE's folder must exist (checked before any run)."""
    if args.html is None:
        return
    if not system.visuals:
        raise UsageError(f"--html: system {system.name!r} has no visuals to draw (systems built from rigid bodies "
                         f"have them; see systems.Visual)")
    folder = pathlib.Path(args.html).expanduser().resolve().parent
    if not folder.is_dir():
        raise UsageError(f"--html {args.html}: the folder {folder} does not exist")


def _write_scene(args, system, traj):
    """The scene of ``traj`` into --html, where given (a run that stopped: up to where it stopped)."""
    if args.html is None or len(traj.t) == 0:
        return
    from ..scene import show

    try:
        show(traj, system=system, path=args.html)
    except OSError as exc:
        raise UsageError(f"--html {args.html}: cannot write the file ({exc.strerror})") from None
    print(f"scene written to {args.html}", file=sys.stderr if args.json else sys.stdout)


def _check_animation(args, system):
    if args.animate and args.out is None:
        raise UsageError("--animate writes a GIF into the report folder: give --out DIR as well")
    if args.animate and system.name not in ANIMATED:
        raise UsageError(f"--animate: system {system.name!r} has no animation; systems with one: {', '.join(ANIMATED)}")


def cmd_compare(args):
    import formulations
    from ..comparison.compare import REFERENCE_TOL

    system = load_system(args.system, args.set)
    if starts_let_go(system):
        raise UsageError(f"{system.name} starts with a contact open or sliding, where the formulations, which hold "
                         f"every row, cannot start: `pfaff simulate {system.name}` runs it with its contacts opening, "
                         f"closing and sliding, and lists the events")
    if args.long is not None:
        from .long import cmd_compare_long

        return cmd_compare_long(args, system)
    if args.gauge is not None:
        raise UsageError("--gauge belongs to the long-time comparison: expected --long T with it")
    _check_animation(args, system)
    _check_html(args, system)
    configs = _configurations(args, system)
    sweep = [10.0 ** -e for e in range(4, 12, 2)] if args.sweep else None
    options = dict(rtol=args.rtol, atol=args.atol, samples=args.samples, sweep=sweep, measure=args.measure,
                   **_max_steps(args))
    atol = tolerances(args.rtol, args.atol, atol_from_rtol=True)[1]
    repeats = 1 + len(sweep or ())
    runs = [(lambda span: configs.reference.simulate((0.0, span), rtol=REFERENCE_TOL, atol=REFERENCE_TOL), 1, None)]
    runs += [(lambda span, c=c, f=f: f.simulate((0.0, span), rtol=args.rtol, atol=atol, method=c.method, step=c.step),
              repeats, c.step) for c, f in zip(configs.configurations, configs.formulations)]
    count = 1 + len(configs) * repeats
    what = f"compare {system.name} to {args.t_end:g} s ({count} runs)"
    folder = output_folder(args)
    try:
        with folder if folder is not None else _nothing():
            interrupted = None
            try:
                _pilot(what, runs, args.t_end, args.max_steps is not None, points=args.samples,
                       max_steps=args.max_steps)
                with Progress(f"compare {system.name}", quiet=args.quiet) as progress:
                    comparison = formulations.compare(system, configs, (0.0, args.t_end), progress=progress,
                                                      **options)
            except _input_errors() as exc:
                raise UsageError(explain(exc)) from None
            except formulations.ComparisonInterrupted as exc:  # report what finished, then exit 130
                comparison, interrupted = exc.comparison, exc
            failed = [r for r in comparison.rows if r.status < 0 or r.status == 2]  # 2: finished, but see its warnings
            _print_comparison(args, system, comparison)
            _write_scene(args, system, comparison.reference)
            if folder is not None:
                report = _write(comparison, system, folder, args, failed, interrupted)
                print(f"\nreport written to {report}" + (" (interrupted: the runs that finished)" if interrupted else ""),
                      file=sys.stderr if args.json else sys.stdout)
            if interrupted is not None:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        if folder is not None and not folder.committed:
            print(f"pfaff: interrupted before the report was complete: nothing written to {args.out!r}",
                  file=sys.stderr)
        raise
    if failed:
        print(f"pfaff: {len(failed)} of {len(comparison.rows)} runs did not finish, or finished with warnings: "
              + "; ".join(f"{r.label}: {r.message}" for r in failed), file=sys.stderr)
        return FAILED
    return OK


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _print_comparison(args, system, comparison):
    if args.json:
        print(comparison.to_json())
        return
    print(f"{system.name}: {args.t_end:g} s, rtol = {args.rtol:g}; reference: dependent+projection at "
          f"{comparison.reference_tol:g}\n")
    print(comparison.to_markdown())
    for note in comparison.reading():
        print(f"- {note}")


def _write(comparison, system, folder, args, failed, interrupted=None):
    from ..comparison.report import write_report

    notes = []
    if interrupted is not None:
        partly = (f", and {interrupted.label} up to where it stopped (status -1)" if interrupted.label is not None
                  else "")
        notes.append(f"Interrupted (Ctrl-C) after {interrupted.finished} of {interrupted.total} runs (the reference "
                     f"included): the rows are the runs that finished{partly}")
    if failed:
        notes.append(f"{len(failed)} of {len(comparison.rows)} runs did not finish or finished with warnings; their rows "
                     f"hold what was computed, up to the failure")
    note = ". ".join(notes) or None
    write_report(comparison, system, folder.tmp, systems.analyze_constraints(system), note=note)
    if args.animate:
        from ..comparison.animation import animate

        animate(comparison.reference, system, folder.tmp / f"{system.name}.gif")
    return folder.commit() / "report.md"


def cmd_derive(args):
    from ..derivation.derive import derive

    if args.standalone and not args.latex:
        raise UsageError("derive: --standalone makes a complete LaTeX document and needs --latex")
    system = load_system(args.system, args.set)
    options = {"expanded": not args.compact, "until": args.until}
    try:
        derivation = derive(system, args.formulation, method=args.method, seconds=args.simplify,
                            simplify=args.simplify > 0, analysis=not args.no_analysis, speeds=args.speeds)
        derivation.shown_steps(args.until)  # a step that does not exist is bad input, before printing
    except (systems.UnknownNameError, ValueError) as exc:
        raise UsageError(explain(exc)) from None
    print(derivation.to_latex(standalone=args.standalone, **options) if args.latex
          else derivation.to_markdown(**options) if args.markdown else derivation.text(**options))
    return OK


def cmd_export(args):
    import formulations

    from ..derivation.export import ExportError, export

    system = load_system(args.system, args.set)
    try:
        backend = "compiled" if args.to == "python" else "numpy"
        form = formulations.create(args.formulation, system, backend=backend)
        form.prepare(*system.default_state())
        text = export(form, args.to)
    except (ExportError, systems.UnknownNameError, formulations.CapabilityError, ImportError, ValueError) as exc:
        raise UsageError(explain(exc)) from None
    if args.out:
        try:
            with open(args.out, "w") as handle:
                handle.write(text)
        except OSError as exc:
            raise UsageError(f"--out {args.out}: cannot write the file ({exc.strerror})") from None
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text, end="")
    return OK


def cmd_cache(args):
    from systems.numeric import codegen

    if args.action != "warm" and (args.system or args.method):
        raise UsageError(f"--system and --method choose what `pfaff cache warm` compiles; `pfaff cache "
                         f"{args.action}` takes neither")
    if args.action == "clear":
        print(f"removed {codegen.clear_cache()} files from {codegen.cache_dir()}")
    elif args.action == "warm":
        from ...solvers.warm import WARM_SYSTEMS, warm
        from ..comparison.compare import default_configurations

        names = args.system or WARM_SYSTEMS
        for name in names:
            load_system(name, None)  # unknown names refused before any compiling
        print(f"compiling into {codegen.cache_dir()} (20-40 s for each formulation the first time, for every "
              f"system, about 15 s once for the loops and linear algebra, and a second or so for each system's own "
              f"kernels; a few seconds once compiled)", file=sys.stderr)
        try:
            rows = warm(names, default_configurations, methods=tuple(args.method or ("DOP853",)), report=print)
        except RuntimeError as exc:
            print(f"pfaff: error: {exc}", file=sys.stderr)
            return FAILED
        if not rows:
            print("pfaff: none of the comparison's configurations applies to these systems with these methods: "
                  "nothing to warm", file=sys.stderr)
            return FAILED
    else:
        from systems.numeric import background

        files, size = codegen.cache_size()
        print(f"{codegen.cache_dir()}: {files} files, {size / 2**20:.1f} MiB of at most "
              f"{codegen.cache_limit() / 2**20:.0f} MiB (PFAFF_CACHE_DIR moves it, PFAFF_CACHE_MAX_MB bounds it)")
        ready = len([f for f in (background.folder() / "ready").glob("*") if "." not in f.name])
        running = background.pending()
        print(f"machine code ready for {ready} kinds of run; "
              + (f"compiling in the background now (process {', '.join(map(str, running))})" if running
                 else "no background compile running")
              + f"; log: {background.folder() / 'background.log'}")
    return OK

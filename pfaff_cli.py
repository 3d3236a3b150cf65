"""The entry point of the ``pfaff`` command.

It lies outside the packages so that Ctrl-C while they are imported (one to three seconds of
sympy, numpy and scipy) ends the command as Ctrl-C does later: one line on stderr and exit code
130, no traceback. The command itself is formulations.workbench.cli.main.
"""
import sys

INTERRUPTED = 130


def main(argv=None) -> int:
    """Import the command line and run it on ``argv`` (default: sys.argv[1:]); the exit status."""
    try:
        from formulations.workbench.cli.main import main as run
    except KeyboardInterrupt:
        print("pfaff: interrupted", file=sys.stderr)
        return INTERRUPTED
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

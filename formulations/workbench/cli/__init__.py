"""The ``pfaff`` command line: the parser and entry point (``main``), one function per command
(``commands``, ``stability``, ``sweep``) and the reading of command-line values (``parsing``)."""
from .main import build_parser, main

__all__ = ["build_parser", "main"]

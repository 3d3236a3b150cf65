"""The ``pfaff-cli`` directive: the command line's reference, read from its parser.

Each command gets a section with the help text argparse prints for it (``pfaff COMMAND --help``),
so the page cannot drift from the program."""
import argparse
import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from formulations.workbench.cli.main import build_parser

WIDTH = "100"  # columns of the printed help


def _commands(parser):
    """(name, parser) of every command, in the order ``pfaff --help`` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


def _help(parser) -> str:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return parser.format_help()
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


class CommandLine(SphinxDirective):
    """One section per command, titled ``pfaff COMMAND``, holding its help."""

    has_content = False

    def run(self):
        parser = build_parser()
        sections = [nodes.literal_block(text=_help(parser), language="none")]
        for name, command in _commands(parser):
            section = nodes.section(ids=[f"pfaff-{name}"], names=[f"pfaff {name}"])
            section += nodes.title(text=f"pfaff {name}")
            section += nodes.literal_block(text=_help(command), language="none")
            sections.append(section)
        return sections


def setup(app):
    app.add_directive("pfaff-cli", CommandLine)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

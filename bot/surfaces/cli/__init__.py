"""The `pokerfloor` command line: one sub-command module per topic.

Each module in ``SUBCOMMANDS`` exposes ``register(subparsers)``, which adds its sub-commands
and sets ``handler`` on them: ``bot.surfaces.cli.commands`` every command of the one command model
(``bot.features``), the others the command line's own jobs (import, export, players). A
handler returns the process exit code. User mistakes exit 2
with one line on stderr; nothing else is printed for them.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

log = logging.getLogger(__name__)

SUBCOMMANDS = ("commands", "jobs", "run", "invite", "web")

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage mistakes are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: <message> (see --help)`` and exit 2, without the usage block."""
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every topic's sub-commands."""
    parser = OneLineParser(
        prog="pokerfloor",
        description="The floor person of a bar poker league: rules, hands, clock and standings.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"bot.surfaces.cli.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; with no command, start the bot (console mode without a token)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        from bot.surfaces.cli.run import run_default

        handler = run_default
    code: int = handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())

"""The `pokerfloor` command line: every sub-command generated from the one command model.

``bot.surfaces.cli.commands`` adds a sub-command for each definition in ``bot.features``
that exists on the command line (``surfaces`` holds ``cli``), the command line's own jobs
(``event import``, ``league set``, ``web``, ``console``, ...) included. A handler returns the
process exit code. User mistakes exit 2 with one line on stderr; nothing else is printed for
them.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

log = logging.getLogger(__name__)

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage mistakes are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: <message> (see --help)`` and exit 2, without the usage block."""
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """Build the argument parser with every topic's sub-commands.

    Args:
        argv: the command line about to be parsed; when its first word names a command or a
            group (``hand``, ``td``), only the sub-commands under that word are added (all
            of them, so its help and its mistakes read the same), which saves a start-up
            the ~80 other sub-parsers. Anything else (``--help``, an unknown word) gets all.
    """
    parser = OneLineParser(
        prog="pokerfloor",
        description="The floor person of a bar poker league: rules, hands, clock and standings.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from bot.surfaces.cli.commands import commands_under, register

    register(sub, commands_under(argv[0]) if argv else None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; with no command, start the bot (console mode without a token).

    A one-shot command runs with Python's cyclic garbage collector off until it opens the
    database (``commands.LazyDatabase``): its process ends within a second or so, reference
    counting frees all it drops that is not in a cycle, and the collector's passes over the
    modules, hand tables and rulebook index it loads (and the full pass at exit) free nothing
    and cost 5 to 15 % of its run. The processes that live on (the bot, ``console``, ``web``)
    turn it back on before they start. Called with ``argv`` (a test, another program), the
    collector is left as it was found.
    """
    from bot.surfaces.cli.commands import glue_yes_flags

    collecting = gc.isenabled()
    gc.disable()
    try:
        words = glue_yes_flags(list(sys.argv[1:] if argv is None else argv))
        args = build_parser(words).parse_args(words)
        handler = getattr(args, "handler", None)
        if handler is None:
            from bot.surfaces.cli.run import run_default

            gc.enable()  # the bot or the console: a process that lives on
            handler = run_default
        code: int = handler(args)
    finally:
        if argv is not None:  # as it was found, whatever the command turned on
            (gc.enable if collecting else gc.disable)()
    return code


if __name__ == "__main__":
    sys.exit(main())

"""The command line's own jobs: import, export, events, players, strikes and league rules.

``pokerfloor event import FILE.json`` (one event object or a list of them) or ``FILE.csv``
(``position,player`` rows, with ``--season --location --date --kind``) stores results all or
nothing; ``event list|show|void|correct`` manage them; ``export --csv DIR`` writes everything as
CSV files; ``league list|show|set``, ``strike add|list`` and ``player list|add|alias|merge``.
Every job takes ``--db URL``, ``--guild ID`` and ``--actor NAME`` like the defined commands
(``bot.surfaces.cli.commands``). Only the arguments are declared here; each job's code
(``bot.surfaces.cli.league``) is imported when it runs, so ``pokerfloor --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
from typing import Any

from bot.surfaces.cli.commands import common_options

log = logging.getLogger(__name__)

KINDS = ("regular", "second_chance", "toc")


def _job(name: str) -> Any:
    """The handler ``bot.surfaces.cli.league.<name>``, imported on first use."""

    def run(args: argparse.Namespace) -> int:
        code: int = getattr(importlib.import_module("bot.surfaces.cli.league"), name)(args)
        return code

    return run


def _common() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    common_options(parent)  # --db, --guild, --actor: the same as every defined command's
    return parent


def _import_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="FILE.json (one event or a list) or FILE.csv")
    parser.add_argument("--season", help="season of a CSV import")
    parser.add_argument("--location", help="location of a CSV import")
    parser.add_argument("--date", help="date of a CSV import (YYYY-MM-DD, today, yesterday)")
    parser.add_argument("--kind", choices=KINDS, help="kind of a CSV import")
    parser.add_argument(
        "--allow-new", action="store_true", help="accept new names even if they resemble known ones"
    )
    parser.add_argument(
        "--new-player", action="append", metavar="NAME", help="confirm NAME is a new player"
    )
    parser.add_argument(
        "--confirm", action="store_true", help="record players under suspension anyway (3.B)"
    )
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``event``, ``standings``, ``toc``, ``export``, ``league``, ``strike`` and ``player``."""
    common = _common()

    event = sub.add_parser("event", help="import, list, show, correct or void events")
    event_sub = event.add_subparsers(dest="event_command", metavar="ACTION", required=True)
    p = event_sub.add_parser("import", parents=[common], help="import results (all or nothing)")
    _import_options(p)
    p.set_defaults(handler=_job("_event_import"))
    p = event_sub.add_parser(
        "correct", parents=[common], help="replace a stored event's results (audited)"
    )
    _import_options(p)
    p.add_argument(
        "--unvoid", action="store_true", help="a void event is corrected and counts again"
    )
    p.set_defaults(handler=_job("_event_correct"))
    p = event_sub.add_parser("list", parents=[common], help="list events")
    p.add_argument("--season")
    p.add_argument("--location")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_job("_event_list"))
    p = event_sub.add_parser("show", parents=[common], help="show an event's points")
    p.add_argument("id", type=int)
    p.add_argument("--json", action="store_true", help="print the event in the import format")
    p.set_defaults(handler=_job("_event_show"))
    p = event_sub.add_parser("void", parents=[common], help="void an event (needs a reason)")
    p.add_argument("id", type=int)
    p.add_argument("--reason", required=True)
    p.set_defaults(handler=_job("_event_void"))

    p = sub.add_parser("export", parents=[common], help="export everything as CSV files")
    p.add_argument("--csv", required=True, metavar="DIR", help="folder to write into")
    p.set_defaults(handler=_job("_export"))

    league = sub.add_parser("league", help="list the leagues; show or change a league's rules")
    league_sub = league.add_subparsers(dest="league_command", metavar="ACTION", required=True)
    p = league_sub.add_parser("list", parents=[common], help="every league in the database")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_job("_league_list"))
    p = league_sub.add_parser("show", parents=[common], help="every rule value in force")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_job("_league_show"))
    p = league_sub.add_parser("set", parents=[common], help="change the preset or overrides")
    p.add_argument("--preset", help="btown or poker-pub")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override one value")
    p.add_argument("--unset", action="append", metavar="KEY", help="drop an override")
    p.add_argument(
        "--confirm",
        action="store_true",
        help="re-score the current season's stored events under the new rules",
    )
    p.set_defaults(handler=_job("_league_set"))

    strike = sub.add_parser("strike", help="record or list strikes (3.B)")
    strike_sub = strike.add_subparsers(dest="strike_command", metavar="ACTION", required=True)
    p = strike_sub.add_parser("add", parents=[common], help="record a strike")
    p.add_argument("player")
    p.add_argument("--level", type=int, required=True)
    p.add_argument("--reason", required=True)
    p.add_argument("--season", help="season name (default: the current season)")
    p.add_argument(
        "--date", help="the day it was given (YYYY-MM-DD, today, yesterday; default today)"
    )
    p.set_defaults(handler=_job("_strike_add"))
    p = strike_sub.add_parser("list", parents=[common], help="list strikes")
    p.add_argument("--player")
    p.set_defaults(handler=_job("_strike_list"))

    player = sub.add_parser("player", help="list, add, alias or merge players")
    player_sub = player.add_subparsers(dest="player_command", metavar="ACTION", required=True)
    p = player_sub.add_parser("list", parents=[common], help="list players and aliases")
    p.set_defaults(handler=_job("_player_list"))
    p = player_sub.add_parser("add", parents=[common], help="add a player")
    p.add_argument("name")
    p.add_argument("--allow-new", action="store_true", help="even if it resembles a known name")
    p.set_defaults(handler=_job("_player_add"))
    p = player_sub.add_parser("alias", parents=[common], help="another name for a player")
    p.add_argument("name")
    p.add_argument("alias")
    p.set_defaults(handler=_job("_player_alias"))
    p = player_sub.add_parser("merge", parents=[common], help="merge a duplicate into a player")
    p.add_argument("keep")
    p.add_argument("merge")
    p.set_defaults(handler=_job("_player_merge"))

"""League records on the command line: import and manage events, export, players, league rules.

Command-line only (a director's scripts and the night's import files); on Discord the same jobs
are ``/td result``, ``/td correct``, ``/td void`` and ``/td settings``. Every one takes
``--db URL``, ``--guild ID`` and ``--actor NAME`` like any league command.
"""

from __future__ import annotations

from bot.command.model import CLI_ONLY, Command, Group, Opt, Who

GROUPS = (
    Group(("event",), "Import, list, show, correct or void events"),
    Group(("league",), "List the leagues; show or change a league's rules"),
    Group(("strike",), "Record or list strikes (3.B)"),
    Group(("player",), "List, add, alias or merge players"),
)

KINDS = ("regular", "second_chance", "toc")
JSON = Opt("json", "Print the answer as JSON", kind="yes", default=False)


def _job(path: tuple[str, ...], description: str, handler: str, *options: Opt) -> Command:
    return Command(
        path=path,
        description=description,
        handler=f"bot.features.records.handlers:{handler}",
        options=options,
        who=Who.DIRECTOR,
        writes=True,
        surfaces=CLI_ONLY,
    )


def _import_options() -> tuple[Opt, ...]:
    return (
        Opt("file", "FILE.json (one event or a list) or FILE.csv", required=True, positional=True),
        Opt("season", "Season of a CSV import"),
        Opt("location", "Location of a CSV import"),
        Opt("date", "Date of a CSV import (YYYY-MM-DD, today, yesterday)", kind="date"),
        Opt("kind", "Kind of a CSV import", choices=KINDS),
        Opt("allow_new", "Accept new names even if they resemble known ones", kind="yes"),
        Opt("new_player", "Confirm NAME is a new player", repeat=True),
        Opt("confirm", "Record players under suspension anyway (3.B)", kind="yes"),
        JSON,
    )


COMMANDS = (
    _job(
        ("event", "import"), "Import results (all or nothing)", "event_import", *_import_options()
    ),
    _job(
        ("event", "correct"),
        "Replace a stored event's results (audited)",
        "event_correct",
        *_import_options(),
        Opt("unvoid", "A void event is corrected and counts again", kind="yes"),
    ),
    _job(
        ("event", "list"),
        "List events",
        "event_list",
        Opt("season", "Only this season's events"),
        Opt("location", "Only this location's events"),
        JSON,
    ),
    _job(
        ("event", "show"),
        "Show an event's points",
        "event_show",
        Opt("id", "The event's number", kind="int", required=True, min=1, positional=True),
        Opt("json", "Print the event in the import format", kind="yes", default=False),
    ),
    _job(
        ("event", "void"),
        "Void an event (needs a reason)",
        "event_void",
        Opt("id", "The event's number", kind="int", required=True, min=1, positional=True),
        Opt("reason", "Why it no longer counts", required=True),
    ),
    _job(
        ("export",),
        "Export everything as CSV files",
        "export",
        Opt("csv", "The folder to write into", required=True),
    ),
    _job(("league", "list"), "Every league in the database", "league_list", JSON),
    _job(("league", "show"), "Every rule value in force", "league_show", JSON),
    _job(
        ("league", "set"),
        "Change the league's preset or overrides",
        "league_set",
        Opt("preset", "btown or poker-pub"),
        Opt("set", "Override one value: KEY=VALUE", repeat=True),
        Opt("unset", "Drop an override: KEY", repeat=True),
        Opt("confirm", "Re-score the current season's stored events under the new rules", "yes"),
    ),
    _job(("strike", "list"), "List strikes", "strike_list", Opt("player", "Only this player's")),
    _job(("player", "list"), "List players and aliases", "player_list"),
    _job(
        ("player", "add"),
        "Add a player",
        "player_add",
        Opt("name", "The player's name", required=True, positional=True),
        Opt("allow_new", "Even if it resembles a known name", kind="yes"),
    ),
    _job(
        ("player", "alias"),
        "Another name for a player",
        "player_alias",
        Opt("name", "The player's name", required=True, positional=True),
        Opt("alias", "The other name", required=True, positional=True),
    ),
    _job(
        ("player", "merge"),
        "Merge a duplicate into a player",
        "player_merge",
        Opt("keep", "The player who stays", required=True, positional=True),
        Opt("merge", "The duplicate merged into him", required=True, positional=True),
    ),
)

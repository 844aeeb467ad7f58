"""The command line's own jobs, run by ``bot.surfaces.cli.jobs`` (which declares their arguments).

``--db URL`` (else ``DATABASE_URL``, else ``sqlite:///pokerfloor.db``) picks the database and
``--guild ID`` the league (else the database's only one). User mistakes exit 2 with one line on
stderr and write nothing (``bot.errors.describe`` words them).
"""

from __future__ import annotations

import argparse
import csv
import getpass
import json
import logging
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from bot.config import Settings
from bot.errors import BadOption, describe, one_line
from bot.features.league import wording as views
from bot.reply import Reply
from storage import events as store_events
from storage import players as store_players
from storage.db import make_engine, session_scope, upgrade_schema
from storage.errors import (
    AlreadyExists,
    DuplicatePlayerError,
    SuspendedPlayerError,
    UnconfirmedRescoreError,
)
from storage.event_files import import_event_file, read_csv_event
from storage.event_import import (
    StoreEvents,
    correct_events,
    import_events,
    revive_events,
)
from storage.guild_settings import ensure_guild_league
from storage.leagues import (
    LeagueInfo,
    ensure_league,
    get_league_rules,
    list_leagues,
    only_league_guild,
)
from storage.seasons import list_seasons
from storage.standings import RESULT_COLUMNS, iter_result_rows, season_standings

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_BUG = 1
EXIT_USAGE = 2
KINDS = ("regular", "second_chance", "toc")
_TERMINAL = {"per_page": 1_000_000, "char_limit": 1 << 30}


class CliError(BadOption):
    """A user mistake the CLI reports as one line (exit 2)."""


Handler = Callable[[argparse.Namespace], int]


def _guard(handler: Callable[[argparse.Namespace], int]) -> Handler:
    """Turn any error into one line on stderr (``bot.errors.describe``).

    A user mistake exits 2; anything else exits 1 with the apology (the bug is logged).
    """

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except Exception as exc:  # the one error path
            message, is_bug = describe(exc)
            if is_bug:
                log.error("pokerfloor %s failed", args.command, exc_info=exc)
                sys.stderr.write(f"pokerfloor: {message}\n")
                return EXIT_BUG
            log.debug("pokerfloor %s rejected: %s", args.command, exc)
            if isinstance(exc, DuplicatePlayerError):
                message += f' (--new-player "{exc.name}" confirms)'
            elif isinstance(exc, AlreadyExists) and "confirm" in message:
                message += " (--allow-new confirms)"
            elif isinstance(exc, SuspendedPlayerError | UnconfirmedRescoreError):
                message += " (--confirm)"
        sys.stderr.write(f"pokerfloor: {one_line(message)}\n")
        return EXIT_USAGE

    return run


def _url(args: argparse.Namespace) -> str:
    # The one place the CLI reads the environment: --db wins, then DATABASE_URL (Settings).
    return str(args.db) if args.db else Settings().database_url


def _day(text: str) -> Any:
    """``--date``: YYYY-MM-DD, ``today`` or ``yesterday`` in the league's ``TIMEZONE``."""
    import datetime as dt
    import zoneinfo

    from bot.command.options import parse_date

    today = dt.datetime.now(zoneinfo.ZoneInfo(Settings().timezone)).date()
    return parse_date(text, today)


def _guild(args: argparse.Namespace) -> int | None:
    raw = getattr(args, "guild", None)
    if raw is None:
        return None
    if not str(raw).strip().isdigit():
        raise CliError(f"--guild: '{raw}' is not a Discord server id")
    return int(raw)


@contextmanager
def _database(args: argparse.Namespace) -> Iterator[tuple[Session, LeagueInfo]]:
    """Open the database (migrating it), one transaction, and the league it speaks for.

    ``--guild ID`` is that Discord server's league; without it, the database's only league
    (``only_league_guild``), else the command line's own (created on first use).
    """
    engine: Engine = make_engine(_url(args))
    try:
        upgrade_schema(engine)
        with session_scope(engine) as session:
            guild_id = _guild(args)
            if guild_id is None and args.league is None:
                guild_id = only_league_guild(session=session)
            if guild_id is not None:
                league = ensure_guild_league(session=session, guild_id=guild_id, actor=_actor(args))
            else:
                league = ensure_league(session=session, name=args.league, actor=_actor(args))
            yield session, league
    finally:
        engine.dispose()


def _actor(args: argparse.Namespace) -> str:
    return str(getattr(args, "actor", None) or f"cli:{getpass.getuser()}")


def _out(text: str) -> None:
    sys.stdout.write(f"{text}\n")


def _print(reply: Reply | list[Reply]) -> None:
    replies = reply if isinstance(reply, list) else [reply]
    _out("\n\n".join(r.to_plain() for r in replies))  # no markdown in a terminal


def _dump(data: Any) -> None:
    _out(json.dumps(data, indent=2, ensure_ascii=False))


# --- event -------------------------------------------------------------------------------


def _csv_records(args: argparse.Namespace, session: Session, league_id: int) -> list[Any]:
    if not args.location or not args.date:
        missing = [o for o in ("location", "date") if not getattr(args, o)]
        raise CliError(f"a CSV import needs --{' --'.join(missing)}")
    # streamed (storage.event_files); the season defaults to the current one, the kind to regular
    return [
        read_csv_event(
            Path(args.file),
            session=session,
            league_id=league_id,
            location=args.location,
            day=_day(args.date),
            season=args.season,
            kind=args.kind or "regular",
        )
    ]


def _outcome_json(o: store_events.ImportOutcome) -> dict[str, Any]:
    return {
        "status": o.status,
        "event": o.event.id,
        "points": {p.player: {"rp": p.rp, "bp": p.bp} for p in o.points},
    }


def _import(args: argparse.Namespace, *, correct: bool) -> int:
    """Store a file's events, all or nothing; report them once the transaction committed.

    A JSON file is streamed (``storage.event_files``): each stored event's report is spooled
    (to disk past a few MB) rather than kept, so a large file never sits in memory twice.
    """
    path = Path(args.file)
    kind = path.suffix.lower()
    if kind not in (".json", ".csv"):
        raise CliError(f"{path.name}: import a .json or .csv file")
    if kind == ".json" and any(getattr(args, o) for o in ("season", "location", "date", "kind")):
        raise CliError("--season/--location/--date/--kind are for CSV files; JSON carries them")
    allow: bool | list[str] = True if args.allow_new else list(args.new_player or ())
    options: dict[str, Any] = {"allow_new": allow, "allow_suspended": bool(args.confirm)}
    store: StoreEvents = import_events
    if correct:
        store = revive_events if getattr(args, "unvoid", False) else correct_events
    first: list[store_events.ImportOutcome] = []
    brief: list[store_events.ImportOutcome] = []

    def keep(o: store_events.ImportOutcome) -> None:
        if args.json:
            spool.write(("," if brief else "") + json.dumps(_outcome_json(o), indent=2) + "\n")
        if not first:
            first.append(o)
        brief.append(replace(o, points=(), changes={}))

    with (
        tempfile.SpooledTemporaryFile(max_size=4_000_000, mode="w+", encoding="utf-8") as spool,
    ):
        with _database(args) as (session, league):
            if kind == ".csv":
                for outcome in store(
                    _csv_records(args, session, league.id),
                    session=session,
                    league_id=league.id,
                    actor=_actor(args),
                    **options,
                ):
                    keep(outcome)
            else:
                import_event_file(
                    path,
                    session=session,
                    league_id=league.id,
                    actor=_actor(args),
                    sink=keep,
                    store=store,
                    **options,
                )
        if args.json:
            spool.seek(0)
            sys.stdout.write("[\n")
            shutil.copyfileobj(spool, sys.stdout)
            sys.stdout.write("]\n")
        elif len(brief) == 1:
            reply = views.event_summary_reply(first[0])
            if first[0].changes:
                from bot.features.td.wording import points_changed_line

                reply = replace(
                    reply, text=f"{reply.text}\n{points_changed_line(first[0].changes)}"
                )
            _print(reply)
        else:
            _print(views.import_report_reply(brief))
    return EXIT_OK


@_guard
def _event_import(args: argparse.Namespace) -> int:
    return _import(args, correct=False)


@_guard
def _event_correct(args: argparse.Namespace) -> int:
    return _import(args, correct=True)


def _season_id(session: Session, league_id: int, name: str | None) -> int | None:
    if name is None:
        return None
    from storage.seasons import get_season

    return get_season(session=session, league_id=league_id, name=name).id


@_guard
def _event_list(args: argparse.Namespace) -> int:
    from storage.leagues import get_location

    with _database(args) as (session, league):
        season_id = _season_id(session, league.id, args.season)
        location_id = (
            get_location(session=session, league_id=league.id, name=args.location).id
            if args.location
            else None
        )
        found = store_events.list_events(
            session=session, league_id=league.id, season_id=season_id, location_id=location_id
        )
    if args.json:
        _dump(
            [
                {
                    "id": e.id,
                    "season": e.season,
                    "location": e.location,
                    "date": e.date.isoformat(),
                    "kind": e.kind,
                    "status": e.status,
                    "void_reason": e.void_reason,
                    "players": e.players,
                }
                for e in found
            ]
        )
    else:
        _print(views.event_list_pages(found, **_TERMINAL))
    return EXIT_OK


@_guard
def _event_show(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        detail = store_events.get_event(session=session, league_id=league.id, event_id=args.id)
    if args.json:
        _dump(dict(detail.record))
    else:
        _print(views.event_summary_reply(detail))
    return EXIT_OK


@_guard
def _event_void(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        event = store_events.void_event(
            session=session,
            league_id=league.id,
            event_id=args.id,
            reason=args.reason,
            actor=_actor(args),
        )
    _out(f"Voided event {event.label}: {event.void_reason}")
    return EXIT_OK


# --- standings, toc, export --------------------------------------------------------------


def _write_csv(path: Path, header: tuple[str, ...], rows: Any) -> int:
    count = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in rows:
            writer.writerow(row)
            count += 1
    return count


@_guard
def _export(args: argparse.Namespace) -> int:
    folder = Path(args.csv)
    if folder.exists() and not folder.is_dir():
        raise CliError(f"{folder}: exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    with _database(args) as (session, league):
        events = store_events.list_events(session=session, league_id=league.id)
        written["events.csv"] = _write_csv(
            folder / "events.csv",
            ("id", "season", "location", "date", "kind", "status", "void_reason", "players"),
            (
                (
                    e.id,
                    e.season,
                    e.location,
                    e.date.isoformat(),
                    e.kind,
                    e.status,
                    e.void_reason or "",
                    e.players,
                )
                for e in events
            ),
        )
        written["results.csv"] = _write_csv(
            folder / "results.csv",
            RESULT_COLUMNS,
            iter_result_rows(session=session, league_id=league.id),
        )
        standings_rows = []
        for season in list_seasons(session=session, league_id=league.id):
            table = season_standings(session=session, league_id=league.id, season=season.name)
            standings_rows += [
                (
                    season.name,
                    r.rank,
                    r.row.player,
                    r.row.rp,
                    r.row.bp,
                    r.row.events,
                    r.row.wins,
                    r.row.best_finish or "",
                )
                for r in table.rows
            ]
        written["standings.csv"] = _write_csv(
            folder / "standings.csv",
            ("season", "rank", "player", "rp", "bp", "events", "wins", "best_finish"),
            standings_rows,
        )
        written["players.csv"] = _write_csv(
            folder / "players.csv",
            ("player", "discord_id", "aliases"),
            (
                (p.name, p.discord_id or "", "; ".join(p.aliases))
                for p in store_players.list_players(session=session, league_id=league.id)
            ),
        )
    for name, count in written.items():
        _out(f"{folder / name}: {count} rows")
    return EXIT_OK


# --- player ------------------------------------------------------------------------------


@_guard
def _player_list(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        found = store_players.list_players(session=session, league_id=league.id)
    for p in found:
        aka = f" (also {', '.join(p.aliases)})" if p.aliases else ""
        _out(f"{p.name}{aka}")
    return EXIT_OK


@_guard
def _player_add(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        info = store_players.add_player(
            session=session,
            league_id=league.id,
            name=args.name,
            allow_new=args.allow_new,
            actor=_actor(args),
        )
    _out(f"Added player {info.name}")
    return EXIT_OK


@_guard
def _player_alias(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        info = store_players.add_alias(
            session=session,
            league_id=league.id,
            name=args.name,
            alias=args.alias,
            actor=_actor(args),
        )
    _out(f"{info.name} is also known as {', '.join(info.aliases)}")
    return EXIT_OK


@_guard
def _player_merge(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        info = store_players.merge_players(
            session=session,
            league_id=league.id,
            keep=args.keep,
            merge=args.merge,
            actor=_actor(args),
        )
    _out(f"Merged '{args.merge}' into {info.name}")
    return EXIT_OK


# --- league rules and strikes ------------------------------------------------------------


def _setting(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise CliError(f"--set {text!r}: write KEY=VALUE, e.g. --set toc_rp_required=1000")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw  # plain text, e.g. --set owner=Olga
    return key.strip(), value


@_guard
def _league_show(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        rules = get_league_rules(session=session, league_id=league.id)
    if args.json:
        _dump({"preset": league.preset, "overrides": dict(league.overrides), **rules.to_dict()})
        return EXIT_OK
    _out(f"League {league.name}: preset {league.preset}")
    for key, value in rules.to_dict().items():
        mark = " (override)" if key in league.overrides else ""
        _out(f"  {key} = {json.dumps(value)}{mark}")
    return EXIT_OK


@_guard
def _league_set(args: argparse.Namespace) -> int:
    from storage.league_rules import update_league_rules

    with _database(args) as (session, league):
        overrides = dict(league.overrides)
        for text in args.set or ():
            key, value = _setting(text)
            overrides[key] = value
        for key in args.unset or ():
            if key not in overrides:
                raise CliError(f"{key} is not overridden")
            del overrides[key]
        change = update_league_rules(
            session=session,
            league_id=league.id,
            preset=args.preset,
            overrides=overrides,
            actor=_actor(args),
            confirm=args.confirm,
        )
    _out(f"League {league.name}: preset {args.preset or league.preset}, overrides {overrides}")
    from bot.features.td.wording import rules_change_reply

    _out(rules_change_reply(change).text)
    return EXIT_OK


@_guard
def _strike_add(args: argparse.Namespace) -> int:
    from storage.seasons import get_season

    with _database(args) as (session, league):
        season = get_season(session=session, league_id=league.id, name=args.season)
        strike = store_players.add_strike(
            session=session,
            league_id=league.id,
            name=args.player,
            season_id=season.id,
            level=args.level,
            reason=args.reason,
            actor=_actor(args),
            day=_day(args.date or "today"),
        )
    given = strike.date.isoformat() if strike.date else ""
    _out(f"Strike {strike.level} for {strike.player} in {strike.season} ({given}): {strike.reason}")
    return EXIT_OK


@_guard
def _strike_list(args: argparse.Namespace) -> int:
    with _database(args) as (session, league):
        strikes = store_players.list_strikes(session=session, league_id=league.id, name=args.player)
    for s in strikes:
        _out(f"{s.at.date().isoformat()} {s.player}: strike {s.level} ({s.season}) {s.reason}")
    return EXIT_OK


# --- registration ------------------------------------------------------------------------


@_guard
def _league_list(args: argparse.Namespace) -> int:
    engine = make_engine(_url(args))
    try:
        upgrade_schema(engine)
        with session_scope(engine) as session:
            leagues = list_leagues(session=session)
    finally:
        engine.dispose()
    if args.json:
        _dump(
            [{"id": x.id, "name": x.name, "guild": x.guild_id, "preset": x.preset} for x in leagues]
        )
        return EXIT_OK
    if not leagues:
        _out("No leagues yet: the first recorded event starts one.")
    for x in leagues:
        where = f"Discord server {x.guild_id} (--guild {x.guild_id})" if x.guild_id else "no server"
        _out(f"{x.name}: {where}, preset {x.preset}")
    return EXIT_OK

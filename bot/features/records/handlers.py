"""League records on the command line: the handlers of ``bot.features.records.commands``.

Each is ``handler(ctx, **options) -> Reply`` like every command's: the command line's runner
(``bot.surfaces.cli.commands``) opens the database and finds the league (``--guild ID``, else
the database's only league, else the command line's own), and prints the reply, or its
``data`` as JSON for ``--json``. A user mistake raises; the runner words it
(``bot.errors.describe``) and writes nothing.
"""

from __future__ import annotations

import csv
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.command.model import Context
from bot.errors import BadOption
from bot.features.league import wording as views
from bot.features.league.reads import TERMINAL_PAGE
from bot.reply import Reply
from storage import events as store_events
from storage import players as store_players
from storage.csv_import import import_csv_file
from storage.event_files import import_event_file
from storage.event_import import StoreEvents, correct_events, import_events, revive_events
from storage.leagues import get_league_rules, list_leagues
from storage.seasons import list_seasons
from storage.standings import RESULT_COLUMNS, iter_result_rows, season_standings

log = logging.getLogger(__name__)


def _lines(*lines: str, data: Any = None) -> Reply:
    return Reply(title="", text="\n".join(lines), data=data)


# --- event -------------------------------------------------------------------------------

_CSV_ONLY = ("season", "location", "date", "kind")


def _csv_options(csv_options: dict[str, Any]) -> dict[str, Any]:
    missing = [o for o in ("location", "date") if csv_options.get(o) is None]
    if missing:
        raise BadOption(f"a CSV import needs --{' --'.join(missing)}")
    # the season defaults to the current one, the kind to regular
    return {
        "location": csv_options["location"],
        "day": csv_options["date"],
        "season": csv_options.get("season"),
        "kind": csv_options.get("kind") or "regular",
    }


def _outcome_json(o: store_events.ImportOutcome) -> dict[str, Any]:
    return {
        "status": o.status,
        "event": o.event.id,
        "points": {p.player: {"rp": p.rp, "bp": p.bp} for p in o.points},
    }


def _import(
    ctx: Context,
    *,
    file: str,
    correct: bool,
    allow_new: bool | None,
    new_player: tuple[str, ...] | None,
    confirm: bool | None,
    json: bool,
    unvoid: bool | None = None,
    **csv_options: Any,
) -> Reply:
    """Store a file's events, all or nothing; report them once the transaction committed.

    A JSON file is streamed (``storage.event_files``); only each event's brief outcome is
    kept (its points too for ``--json``).
    """
    path = Path(file)
    kind = path.suffix.lower()
    if kind not in (".json", ".csv"):
        raise BadOption(f"{path.name}: import a .json or .csv file")
    if kind == ".json" and any(csv_options.get(o) is not None for o in _CSV_ONLY):
        raise BadOption("--season/--location/--date/--kind are for CSV files; JSON carries them")
    options: dict[str, Any] = {
        "allow_new": True if allow_new else list(new_player or ()),
        "allow_suspended": bool(confirm),
    }
    store: StoreEvents = import_events
    if correct:
        store = revive_events if unvoid else correct_events
    first: list[store_events.ImportOutcome] = []
    brief: list[store_events.ImportOutcome] = []
    data: list[dict[str, Any]] = []

    def keep(o: store_events.ImportOutcome) -> None:
        if json:
            data.append(_outcome_json(o))
        if not first:
            first.append(o)
        brief.append(replace(o, points=(), changes={}))

    with ctx.transaction() as session:
        league = ctx.league(session)
        if kind == ".csv":  # a new night streamed (storage.event_files)
            keep(
                import_csv_file(
                    path,
                    session=session,
                    league_id=league.id,
                    actor=ctx.actor,
                    store=store,
                    **_csv_options(csv_options),
                    **options,
                )
            )
        else:
            import_event_file(
                path,
                session=session,
                league_id=league.id,
                actor=ctx.actor,
                sink=keep,
                store=store,
                **options,
            )
    if len(brief) != 1:
        return replace(views.import_report_reply(brief), data=data)
    reply = views.event_summary_reply(first[0])
    if first[0].changes:
        from bot.features.td.wording import points_changed_line

        reply = replace(reply, text=f"{reply.text}\n{points_changed_line(first[0].changes)}")
    return replace(reply, data=data)


def event_import(ctx: Context, **options: Any) -> Reply:
    """``pokerfloor event import FILE``: store an event file's results, all or nothing."""
    return _import(ctx, correct=False, **options)


def event_correct(ctx: Context, **options: Any) -> Reply:
    """``pokerfloor event correct FILE``: replace stored events' results (audited)."""
    return _import(ctx, correct=True, **options)


def event_list(
    ctx: Context, season: str | None = None, location: str | None = None, json: bool = False
) -> Reply:
    """``pokerfloor event list``: the league's events (a season's, a location's)."""
    from storage.leagues import get_location
    from storage.seasons import get_season

    with ctx.transaction() as session:
        league = ctx.league(session)
        season_id = (
            get_season(session=session, league_id=league.id, name=season).id if season else None
        )
        location_id = (
            get_location(session=session, league_id=league.id, name=location).id
            if location
            else None
        )
        found = store_events.list_events(
            session=session, league_id=league.id, season_id=season_id, location_id=location_id
        )
    pages = views.event_list_pages(found, **TERMINAL_PAGE)
    text = "\n\n".join(r.to_plain() for r in (pages if isinstance(pages, list) else [pages]))
    data = [
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
    return _lines(text, data=data)


def event_show(ctx: Context, id: int, json: bool = False) -> Reply:
    """``pokerfloor event show ID``: an event's points (``--json``: in the import format)."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        detail = store_events.get_event(session=session, league_id=league.id, event_id=id)
    return replace(views.event_summary_reply(detail), data=dict(detail.record))


def event_void(ctx: Context, id: int, reason: str) -> Reply:
    """``pokerfloor event void ID --reason``: the event stays on record but no longer counts."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        event = store_events.void_event(
            session=session, league_id=league.id, event_id=id, reason=reason, actor=ctx.actor
        )
    return _lines(f"Voided event {event.label}: {event.void_reason}")


# --- export ------------------------------------------------------------------------------


def _write_csv(path: Path, header: tuple[str, ...], rows: Any) -> int:
    count = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in rows:
            writer.writerow(row)
            count += 1
    return count


def export(ctx: Context, csv: str) -> Reply:
    """``pokerfloor export --csv DIR``: events, results, standings and players as CSV files."""
    folder = Path(csv)
    if folder.exists() and not folder.is_dir():
        raise BadOption(f"{folder}: exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    with ctx.transaction() as session:
        league = ctx.league(session)
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
    return _lines(*(f"{folder / name}: {count} rows" for name, count in written.items()))


# --- player ------------------------------------------------------------------------------


def player_list(ctx: Context) -> Reply:
    """``pokerfloor player list``: every player, with the other names he goes by."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        found = store_players.list_players(session=session, league_id=league.id)
    return _lines(
        *(f"{p.name} (also {', '.join(p.aliases)})" if p.aliases else p.name for p in found)
    )


def player_add(ctx: Context, name: str, allow_new: bool | None = None) -> Reply:
    """``pokerfloor player add NAME``: a new player (refused when it resembles a known one)."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        info = store_players.add_player(
            session=session,
            league_id=league.id,
            name=name,
            allow_new=bool(allow_new),
            actor=ctx.actor,
        )
    return _lines(f"Added player {info.name}")


def player_alias(ctx: Context, name: str, alias: str) -> Reply:
    """``pokerfloor player alias NAME ALIAS``: another name for a player."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        info = store_players.add_alias(
            session=session, league_id=league.id, name=name, alias=alias, actor=ctx.actor
        )
    return _lines(f"{info.name} is also known as {', '.join(info.aliases)}")


def player_merge(ctx: Context, keep: str, merge: str) -> Reply:
    """``pokerfloor player merge KEEP MERGE``: a duplicate's results move to KEEP."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        info = store_players.merge_players(
            session=session, league_id=league.id, keep=keep, merge=merge, actor=ctx.actor
        )
    return _lines(f"Merged '{merge}' into {info.name}")


# --- league rules and strikes ------------------------------------------------------------


def _setting(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise BadOption(f"--set {text!r}: write KEY=VALUE, e.g. --set toc_rp_required=1000")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw  # plain text, e.g. --set owner=Olga
    return key.strip(), value


def league_show(ctx: Context, json: bool = False) -> Reply:
    """``pokerfloor league show``: every rule value in force, overrides marked."""
    import json as json_text

    with ctx.transaction() as session:
        league = ctx.league(session)
        rules = get_league_rules(session=session, league_id=league.id)
    values = rules.to_dict()
    lines = [f"League {league.name}: preset {league.preset}"]
    for key, value in values.items():
        mark = " (override)" if key in league.overrides else ""
        lines.append(f"  {key} = {json_text.dumps(value)}{mark}")
    data = {"preset": league.preset, "overrides": dict(league.overrides), **values}
    return _lines(*lines, data=data)


def league_set(
    ctx: Context,
    preset: str | None = None,
    set: tuple[str, ...] | None = None,
    unset: tuple[str, ...] | None = None,
    confirm: bool | None = None,
) -> Reply:
    """``pokerfloor league set``: change the preset or overrides (re-scoring needs confirm)."""
    from bot.features.td.wording import rules_change_reply
    from storage.league_rules import update_league_rules

    with ctx.transaction() as session:
        league = ctx.league(session)
        overrides = dict(league.overrides)
        for text in set or ():
            key, value = _setting(text)
            overrides[key] = value
        for key in unset or ():
            if key not in overrides:
                raise BadOption(f"{key} is not overridden")
            del overrides[key]
        change = update_league_rules(
            session=session,
            league_id=league.id,
            preset=preset,
            overrides=overrides,
            actor=ctx.actor,
            confirm=bool(confirm),
        )
    return _lines(
        f"League {league.name}: preset {preset or league.preset}, overrides {overrides}",
        rules_change_reply(change).text,
    )


def strike_list(ctx: Context, player: str | None = None) -> Reply:
    """``pokerfloor strike list``: the league's strikes (a player's)."""
    with ctx.transaction() as session:
        league = ctx.league(session)
        strikes = store_players.list_strikes(session=session, league_id=league.id, name=player)
    return _lines(
        *(
            f"{s.at.date().isoformat()} {s.player}: strike {s.level} ({s.season}) {s.reason}"
            for s in strikes
        )
    )


def league_list(ctx: Context, json: bool = False) -> Reply:
    """``pokerfloor league list``: every league in the database and its server."""
    with ctx.transaction() as session:
        leagues = list_leagues(session=session)
    data = [{"id": x.id, "name": x.name, "guild": x.guild_id, "preset": x.preset} for x in leagues]
    if not leagues:
        return _lines("No leagues yet: the first recorded event starts one.", data=data)
    return _lines(
        *(
            f"{x.name}: "
            + (f"Discord server {x.guild_id} (--guild {x.guild_id})" if x.guild_id else "no server")
            + f", preset {x.preset}"
            for x in leagues
        ),
        data=data,
    )

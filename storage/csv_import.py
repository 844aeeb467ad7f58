"""A CSV finish list (one night) streamed into the league: read a row at a time, all or nothing.

``import_csv_file`` stores a new night whose rows are in place order without holding the file:
a scan (``rulings.scan_finish_csv``: the same errors as the whole-file parser) that also looks
up the league's known names a chunk at a time (``storage.csv_names``), then the write in chunks
of ``WRITE_ROWS`` inside the caller's one transaction, the event's record and its audit entry
in parts (``EventRecordPart``, ``AuditPart``) so that no statement binds the whole night.
Anything else (a correction, a night already stored, rows out of order) takes the whole path
(``storage.event_files.read_csv_event``), as before.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import os
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import replace
from json.encoder import encode_basestring_ascii
from typing import IO, Any

from sqlalchemy import JSON, String, bindparam, cast, insert
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from rulings import (
    EventFormatError,
    EventRecord,
    LeagueRules,
    PointsBreakdown,
    build_event,
    check_name,
    finish_groups,
    finish_list_points,
    iter_finish_csv,
    name_key,
    scan_finish_csv,
)
from storage.audit import HELD_AUDIT, add_audit_entries, utc_now
from storage.csv_names import NAMED, FileNames
from storage.db import insert_rows
from storage.event_files import check_import_path, current_season_name, read_csv_event
from storage.event_import import StoreEvents, import_events
from storage.event_points import component_values
from storage.events import (
    EventSummary,
    ImportOutcome,
    PlayerPoints,
    points_of,
    record_to_dict,
    sort_points,
)
from storage.import_plan import (
    WRITE_ROWS,
    PlannedEvent,
    check_played,
    check_suspensions,
    place_records,
)
from storage.league_models import (
    AuditEntry,
    AuditPart,
    Event,
    EventRecordPart,
    Location,
    Player,
    Result,
    Season,
)
from storage.leagues import get_league_rules
from storage.players import PlayerDirectory

log = logging.getLogger(__name__)


def import_csv_file(
    path: str | os.PathLike[str],
    *,
    session: Session,
    league_id: int,
    actor: str,
    location: str,
    day: dt.date,
    season: str | None = None,
    kind: str = "regular",
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
    store: StoreEvents = import_events,
    sink: Callable[[PlayerPoints], None] | None = None,
) -> ImportOutcome:
    """Import a ``position,player`` CSV finish list as one night, all or nothing.

    A new night (``import_events``) whose places never go down is streamed: the file is read
    a few times (checked, its names looked up, stored), a chunk of ``WRITE_ROWS`` rows at a
    time, and none of it is held whole: no record of the night, no map of its names (only of
    the league's players it names), no list of its points. The stored rows and the audit
    entry are the ones ``read_csv_event`` then ``store`` write, and errors are the same.
    Anything else (a correction, a night stored already, rows out of place order) takes that
    path: ``read_csv_event`` then ``store``.

    Args:
        path: The file (``.csv``).
        session: The caller's unit of work: a refused row anywhere rolls back every chunk.
        league_id: The league.
        actor: Who imports, for the audit log.
        location: Where the night was played.
        day: Its date.
        season: Its season; the league's current season when None.
        kind: Its kind (``regular`` unless said).
        now: The time of the import (UTC).
        allow_new: As for ``import_events``.
        allow_suspended: As for ``import_events``.
        store: ``import_events`` (a new night), ``correct_events`` or ``revive_events``.
        sink: Receives each player's points in finish order (ties in the file's order), and
            the outcome's ``points`` is then empty; when None the outcome holds them, sorted
            as ``import_events`` sorts them.

    Returns:
        What the import did to the night.

    Raises:
        As ``read_csv_event`` and ``store``.
    """
    check_import_path(path)
    rules = get_league_rules(session=session, league_id=league_id)
    chosen = season or current_season_name(session=session, league_id=league_id)
    if chosen is None:
        raise EventFormatError("season: missing, and the league has no season yet")
    options: dict[str, Any] = {
        "session": session,
        "league_id": league_id,
        "actor": actor,
        "now": now,
        "allow_new": allow_new,
        "allow_suspended": allow_suspended,
    }
    outcome = None
    if store is import_events:
        outcome = _stream_csv(path, rules, chosen, location, day, kind, sink, **options)
    if outcome is not None:
        return outcome
    record = read_csv_event(
        path,
        session=session,
        league_id=league_id,
        location=location,
        day=day,
        season=chosen,
        kind=kind,
    )
    (outcome,) = store([record], **options)
    if sink is not None:
        for points in outcome.points:
            sink(points)
        outcome = replace(outcome, points=())
    return outcome


def _csv_lines(path: str | os.PathLike[str]) -> Iterator[str]:
    """The file's lines, read as the rows are (closed once read or dropped)."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        try:
            yield from handle
        except UnicodeDecodeError:
            raise EventFormatError("the file is not UTF-8 text") from None


def _active_night(session: Session, league_id: int, head: EventRecord) -> bool:
    """Whether the night (season, location, date, kind by name) is stored and active."""
    found = session.execute(
        sa_select(col(Event.id))
        .join(Season, col(Season.id) == col(Event.season_id))
        .join(Location, col(Location.id) == col(Event.location_id))
        .where(col(Event.league_id) == league_id)
        .where(col(Season.name_key) == name_key(head.season))
        .where(col(Location.name_key) == name_key(head.location))
        .where(col(Event.date) == head.date)
        .where(col(Event.kind) == head.kind)
        .where(col(Event.status) == "active")
        .limit(1)
    ).first()
    return found is not None


_Row = tuple[int, int, str]  # line number, place, name as written


def _stream_csv(
    path: str | os.PathLike[str],
    rules: LeagueRules,
    season: str,
    location: str,
    day: dt.date,
    kind: str,
    sink: Callable[[PlayerPoints], None] | None,
    *,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None,
    allow_new: bool | Collection[str],
    allow_suspended: bool | Collection[str],
) -> ImportOutcome | None:
    """Store a new night from a CSV in place order, streamed (None: not such a file/night).

    Each check happens in the order ``read_csv_event`` then ``import_events`` make it, so a
    file with several problems is refused for the same one.
    """

    def rows() -> Iterator[_Row]:
        return iter_finish_csv(_csv_lines(path))

    # The night's own fields are read_csv_event's to check after the rows; the head is built
    # first for the digest's opening text, and its error (if any) waits for the rows'.
    head: EventRecord | None = None
    try:
        head = dataclasses.replace(
            build_event(
                season=season,
                location=location,
                date=day,
                kind=kind,
                finish=[["-"]],
                max_receipt_cents=rules.receipt_max_cents,
            ),
            finish=(),
        )
    except EventFormatError as exc:
        head_error = exc
    names = FileNames(session, league_id, head)
    # read_csv_event: the rows (form, places, a name twice) checked in one reading, which also
    # looks up the league's names they list a chunk at a time
    count = scan_finish_csv(lambda: _csv_lines(path), each=names.add)
    if count is None:
        return None
    if head is None:
        raise head_error
    known, listed, digest = names.finish()
    # plan_import: the date, the names resolved (one player under two names), the places...
    at = utc_now(now)
    check_played(head.date, now=at)
    if _active_night(session, league_id, head):
        return None  # unchanged or refused: the whole path says which, as it always has
    if names.problem is not None:
        raise names.problem

    def canonical_rows() -> Iterator[tuple[int, int, str]]:
        for line, row_place, raw in rows():
            player = known.get(name_key(raw))
            yield line, row_place, raw if player is None else player[1]

    confirmed: bool | set[str] = (
        allow_new if isinstance(allow_new, bool) else {name_key(n) for n in allow_new}
    )
    seasons, locations = place_records(
        session, league_id, [head], confirmed=confirmed, actor=actor, at=at
    )
    sid, lid = seasons[name_key(head.season)][0], locations[name_key(head.location)][0]
    _check_suspended(session, league_id, rules, head, sid, lid, known, listed, allow_suspended)
    del listed
    night = _CsvNight(session, league_id, actor, at, head, known, allow_new)
    event_id = night.write_event(sid, lid, digest)
    scored = finish_list_points(
        finish_groups(canonical_rows()), rules, kind=head.kind, owner=rules.owner
    )
    kept: list[PlayerPoints] = []
    players = night.write_results(scored, sid, lid, sink or kept.append)
    summary = EventSummary(
        id=event_id,
        season=seasons[name_key(head.season)][1],
        location=locations[name_key(head.location)][1],
        date=head.date,
        kind=head.kind,
        status="active",
        void_reason=None,
        players=players,
    )
    log.info("import by %s: 1 imported (streamed CSV, %d players)", actor, players)
    return ImportOutcome("imported", summary, () if sink else sort_points(kept))


def _check_suspended(
    session: Session,
    league_id: int,
    rules: LeagueRules,
    head: EventRecord,
    season_id: int,
    location_id: int,
    known: Mapping[str, tuple[int, str]],
    listed: Mapping[str, str],
    allow: bool | Collection[str],
) -> None:
    """Refuse a suspended player (3.B) as ``import_events`` does: only known ones can be."""
    ids = {name_key(display): pid for pid, display in known.values()}
    named = replace(head, finish=tuple((known[name_key(raw)][1],) for raw in listed.values()))
    planned = PlannedEvent("imported", None, named, "", season_id, location_id)
    check_suspensions(
        session, league_id, rules, lambda name: ids.get(name_key(name)), [planned], {}, allow
    )


class _CsvNight:
    """One streamed night's writes: its event, then its results a chunk at a time, its audit last.

    No statement binds the whole record or audit entry: the event's ``record`` and the entry's
    ``after`` hold the night's head, and each chunk's finish groups (and points) go to a part
    of their own (``EventRecordPart``, ``AuditPart``), read back merged into them.
    """

    def __init__(
        self,
        session: Session,
        league_id: int,
        actor: str,
        at: dt.datetime,
        head: EventRecord,
        known: Mapping[str, tuple[int, str]],
        allow_new: bool | Collection[str],
    ) -> None:
        self.session, self.league_id, self.actor, self.at = session, league_id, actor, at
        self.head, self.allow_new = head, allow_new
        # the league's players the file names, by display name key (aliases resolved)
        self.known = {name_key(display): (pid, display) for pid, display in known.values()}
        # Look-alikes of known names are refused only unless all new names are allowed: that
        # check needs the league's names (and the file's new ones), as an import holds them.
        self.directory = None if allow_new is True else PlayerDirectory(session, league_id)
        bind = session.get_bind()
        postgres = bind.dialect.name == "postgresql"
        self.record_part = _part_insert(EventRecordPart, "event_id", postgres=postgres)
        self.audit_part = _part_insert(AuditPart, "audit_id", postgres=postgres)
        self.dumps: Callable[[Any], str] = (
            getattr(bind.dialect, "_json_serializer", None) or json.dumps
        )
        self.event_id = 0
        self.parts = 0
        self.postgres = postgres
        self.scored: dict[PointsBreakdown, dict[str, int]] = {}

    def write_event(self, season_id: int, location_id: int, digest: str) -> int:
        """Insert the event row, its record's head (the finish groups go to its parts)."""
        head = self.head
        values = {
            "league_id": self.league_id,
            "season_id": season_id,
            "location_id": location_id,
            "date": head.date,
            "kind": head.kind,
            "status": "active",
            "void_reason": None,
            "content_hash": digest,
            "record": record_to_dict(head),
        }
        self.session.flush()
        new_id = self.session.execute(insert(Event).returning(col(Event.id)), [values]).scalar_one()
        self.event_id = int(new_id)
        return self.event_id

    def _new_players(self, names: list[str]) -> dict[str, tuple[int, str]]:
        """Create the chunk's new players (audited): name key -> (id, display name)."""
        if not names:
            return {}
        if self.directory is not None:
            ids = self.directory.resolve(
                names, allow_new=self.allow_new, actor=self.actor, now=self.at
            )
            return {key: (pid, self.directory.display[key]) for key, pid in ids.items()}
        fresh = {name_key(n): check_name(n, "player name") for n in names}
        insert_rows(
            self.session,
            Player,
            [
                {"league_id": self.league_id, "display_name": display, "name_key": key}
                for key, display in fresh.items()
            ],
        )
        made: dict[str, tuple[int, str]] = {}
        given = {"league": self.league_id, "keys": list(fresh)}
        for key, pid, _ in self.session.execute(NAMED, given):
            made[key] = (int(pid or 0), fresh[key])
        if self.postgres or self.session.info.get(HELD_AUDIT) is not None:
            add_audit_entries(  # one COPY on PostgreSQL
                session=self.session,
                league_id=self.league_id,
                actor=self.actor,
                entries=[
                    ("player.add", f"player:{display}", None, {"name": display})
                    for display in fresh.values()
                ],
                now=self.at,
            )
        else:  # the same rows, their JSON written here rather than by a processor per value
            common = {"league_id": self.league_id, "actor": self.actor, "at": self.at}
            self.session.execute(
                _PLAYER_ADDED,
                [
                    {
                        **common,
                        "target": f"player:{display}",
                        "after": '{"name": ' + encode_basestring_ascii(display) + "}",
                    }
                    for display in fresh.values()
                ],
            )
        return made

    def write_results(
        self,
        scored: Iterator[tuple[str, int, int, PointsBreakdown]],
        season_id: int,
        location_id: int,
        sink: Callable[[PlayerPoints], None],
    ) -> int:
        """Write the players, results and record parts a chunk at a time, then the audit entry.

        The audit entry comes after the new players' own entries, as ``import_events`` writes
        them; its parts wait in a temporary file (a line each) until its id is known.

        Returns:
            How many players the night had.
        """
        head = self.head
        common = {
            "event_id": self.event_id,
            "season_id": season_id,
            "location_id": location_id,
            "is_counted": head.kind != "toc",
            "is_regular": head.kind == "regular",
        }
        players = 0
        chunk: list[tuple[str, int, int, PointsBreakdown]] = []
        last_place = 0
        with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as audit_parts:
            for item in scored:
                if item[1] != last_place and len(chunk) >= WRITE_ROWS:
                    self._flush(chunk, common, audit_parts, sink)
                    players += len(chunk)
                    chunk = []
                last_place = item[1]
                chunk.append(item)
            self._flush(chunk, common, audit_parts, sink)
            players += len(chunk)
            audit_id = self.session.execute(
                insert(AuditEntry).returning(col(AuditEntry.id)),
                [
                    {
                        "league_id": self.league_id,
                        "actor": self.actor,
                        "at": self.at,
                        "action": "event.import",
                        "target": f"event:{self.event_id}",
                        "before": None,
                        "after": {"record": record_to_dict(head), "points": {}},
                    }
                ],
            ).scalar_one()
            audit_parts.seek(0)
            for seq, line in enumerate(audit_parts):
                self.session.execute(
                    self.audit_part, {"owner": int(audit_id), "seq": seq, "body": line.rstrip("\n")}
                )
        return players

    def _flush(
        self,
        chunk: list[tuple[str, int, int, PointsBreakdown]],
        common: Mapping[str, Any],
        audit_parts: IO[str],
        sink: Callable[[PlayerPoints], None],
    ) -> None:
        """Write one chunk of whole tie groups: its new players, its results, its parts."""
        if not chunk:
            return
        made = self._new_players([n for n, *_ in chunk if name_key(n) not in self.known])
        rows = []
        groups: list[list[str]] = []
        pairs: dict[str, tuple[int, int]] = {}
        last = 0
        scored = self.scored
        for name, place, tie, breakdown in chunk:
            key = name_key(name)
            pid, display = self.known[key] if key in self.known else made[key]
            row = {**common, "player_id": pid, "position": place, "tie_size": tie}
            values = scored.get(breakdown)  # a few kinds of points a night: each worked out once
            if values is None:
                values = scored[breakdown] = component_values(breakdown)
            row.update(values)
            rows.append(row)
            if place != last:
                groups.append([])
                last = place
            groups[-1].append(name)
            result = points_of(display, row)
            pairs[display] = (result.rp, result.bp)
            sink(result)
        insert_rows(self.session, Result, rows)
        finish = self.dumps(groups)
        self.session.execute(
            self.record_part,
            {"owner": self.event_id, "seq": self.parts, "body": f'{{"finish": {finish}}}'},
        )
        self.parts += 1
        audit_parts.write(f'{{"record": {{"finish": {finish}}}, "points": {self.dumps(pairs)}}}\n')


_PLAYER_ADDED = insert(AuditEntry).values(
    action="player.add",
    before=bindparam("before", "null", type_=String()),
    after=bindparam("after", type_=String()),
)
"""A new player's audit row as ``add_audit_entries`` writes it, its JSON given as text."""


def _part_insert(model: Any, owner: str, *, postgres: bool) -> Any:
    """Insert one part whose body is JSON serialised already, bound as it is (not again).

    The body is a parameter, not a value in the statement: SQLAlchemy caches a statement's
    compiled form, and with it any value the statement holds.
    """
    body: Any = bindparam("body", type_=String())
    return insert(model).values(
        {
            owner: bindparam("owner"),
            "seq": bindparam("seq"),
            "body": cast(body, JSON()) if postgres else body,
        }
    )

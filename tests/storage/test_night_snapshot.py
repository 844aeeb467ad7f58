"""A night's snapshot that is not its log's replay is rebuilt from the log, once, at the load.

One case a way a snapshot can go wrong (unreadable, garbled, from an older version of the code,
edited by hand, rolled back to an earlier version of the night), on SQLite and PostgreSQL: the
next load gives exactly the night stored before, the log is untouched, and one audit entry
keeps the snapshot it replaced.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from rulings import (
    Arrival,
    Entry,
    Night,
    Room,
    bust_players,
    chart_to_data,
    load_league_rules,
    replay_night,
    sign_in,
    snapshot_to_data,
    start_play,
)
from storage.audit import AuditRecord, list_audit
from storage.db import core_table, session_scope
from storage.errors import StorageError
from storage.leagues import ensure_league
from storage.night_snapshot import repair_snapshot
from storage.tournament_models import Tournament, TournamentEntryRow
from storage.tournaments import (
    TournamentRecord,
    add_entry,
    get_open_tournament,
    get_tournament,
    latest_tournament,
    list_open_tournaments,
    open_tournament,
    undo_entry,
)
from tests.storage._league import NOW

CHANNEL = 2**62 + 11
RULES = load_league_rules()


def _night(engine: Engine) -> tuple[int, int]:
    """A running night of five with a bust and an undo; (league id, tournament id)."""
    rng = random.Random(7)
    with session_scope(engine) as s:
        league_id = ensure_league(session=s, actor="test", now=NOW).id
        rec = open_tournament(
            session=s,
            league_id=league_id,
            channel_id=CHANNEL,
            room=Room("Brewpub", "2026 Fall", 4, None),
            actor="td:ann",
            now=NOW,
        )
        night: Night
        entry: Entry
        for name in ("Ann", "Bob", "Cy", "Dee", "Eve"):
            night, entry, _ = sign_in(rec.night, name, Arrival(), RULES, rng)
            rec = add_entry(session=s, record=rec, night=night, entry=entry, actor="td", now=NOW)
        night, entry = start_play(rec.night)
        rec = add_entry(session=s, record=rec, night=night, entry=entry, actor="td", now=NOW)
        for name in ("Eve", "Dee"):
            night, entry = bust_players(rec.night, [name], None, rng, None, RULES)
            rec = add_entry(session=s, record=rec, night=night, entry=entry, actor="td", now=NOW)
    with session_scope(engine) as s:
        rec = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
        undo_entry(session=s, record=rec, actor="td", now=NOW)  # Dee is back
    return league_id, rec.id


def _stored(engine: Engine, tournament_id: int) -> dict[str, Any]:
    """The raw row and log, as the database holds them."""
    tournament, entry = core_table(Tournament), core_table(TournamentEntryRow)
    with engine.connect() as conn:
        row = conn.execute(
            select(tournament.c.chart, tournament.c.seq, tournament.c.status).where(
                tournament.c.id == tournament_id
            )
        ).one()
        entries = conn.execute(
            select(entry.c.seq, entry.c.data, entry.c.undone_at)
            .where(entry.c.tournament_id == tournament_id)
            .order_by(entry.c.seq)
        ).all()
    return {"chart": row[0], "seq": row[1], "status": row[2], "log": [tuple(e) for e in entries]}


def _set(engine: Engine, tournament_id: int, **values: Any) -> None:
    tournament = core_table(Tournament)
    with engine.begin() as conn:
        conn.execute(update(tournament).where(tournament.c.id == tournament_id).values(**values))


def _repairs(engine: Engine, league_id: int, tournament_id: int) -> list[AuditRecord]:
    with session_scope(engine) as s:
        audit = list_audit(session=s, league_id=league_id, target=f"tournament {tournament_id}")
    return [a for a in audit if a.action == "tournament repair"]


def _load(engine: Engine) -> TournamentRecord:
    with session_scope(engine) as s:
        return get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)


def _check_repaired(
    engine: Engine,
    league_id: int,
    tournament_id: int,
    before: dict[str, Any],
    bad: Any,
    why: str,
    bad_seq: int | None = None,
) -> None:
    """The load gives the night stored before; the log is as it was; one audit entry says so."""
    loaded = _load(engine)
    assert loaded.seq == before["seq"]
    assert loaded.night == replay_night(loaded.night.setup, loaded.night.log)
    assert _stored(engine, tournament_id) == before  # snapshot rewritten exactly, log untouched
    (repair,) = _repairs(engine, league_id, tournament_id)
    assert repair.before == {"snapshot": bad, "seq": before["seq"] if bad_seq is None else bad_seq}
    assert repair.actor == "pokerfloor"
    assert repair.after is not None
    assert repair.after["why"].startswith(why)
    assert repair.after["seq"] == before["seq"]
    again = _load(engine)  # once: the next load finds it sound
    assert again.night == loaded.night
    assert len(_repairs(engine, league_id, tournament_id)) == 1


def test_a_sound_snapshot_is_read_as_it_is_and_never_repaired(engine):
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    assert before["chart"]["seq"] == before["seq"]
    for _ in range(2):
        rec = _load(engine)
        assert rec.night == replay_night(rec.night.setup, rec.night.log)
    assert _stored(engine, tid) == before
    assert _repairs(engine, league_id, tid) == []


def test_a_garbled_snapshot_is_rebuilt_from_the_log(engine):
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    bad = {"players": 3, "seated": "Ann"}
    _set(engine, tid, chart=bad)
    _check_repaired(engine, league_id, tid, before, bad, "unreadable")


def test_a_snapshot_that_is_not_json_is_rebuilt_from_the_log(engine):
    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL's json column refuses text that is not JSON when written")
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE tournament SET chart = '{\"players\": [' WHERE id = :id"), {"id": tid}
        )
    _check_repaired(engine, league_id, tid, before, '{"players": [', "unreadable")


def test_a_snapshot_written_before_the_seal_and_true_to_its_log_is_sealed_quietly(engine):
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    old = chart_to_data(_load(engine).night.chart)  # format 1: the chart's data, no seal
    _set(engine, tid, chart=old)
    loaded = _load(engine)
    assert loaded.night == replay_night(loaded.night.setup, loaded.night.log)
    assert _stored(engine, tid) == before  # sealed as the code writes it now
    assert _repairs(engine, league_id, tid) == []  # an upgrade: no repair to tell anyone


def test_a_snapshot_written_by_an_older_version_and_wrong_is_rebuilt_from_the_log(engine):
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    old = chart_to_data(_load(engine).night.chart)  # format 1: the chart's data, no seal
    old["players"] = dict(old["players"])
    old["players"]["ann"] = ["Ann", 999_999, False, 0]  # and a stack that is not the log's
    _set(engine, tid, chart=old)
    _check_repaired(engine, league_id, tid, before, old, "format 1")


def test_a_snapshot_edited_by_hand_is_rebuilt_from_the_log(engine):
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    edited = {**before["chart"], "players": dict(before["chart"]["players"])}
    edited["players"]["ann"] = ["Ann", 999_999, False, 0]  # a stack typed in, seal kept
    _set(engine, tid, chart=edited)
    _check_repaired(engine, league_id, tid, before, edited, "check")


def test_a_snapshot_rolled_back_to_an_earlier_version_is_rebuilt_from_the_log(engine):
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    rec = _load(engine)
    earlier = replay_night(rec.night.setup, rec.night.log[:3])
    old = snapshot_to_data(earlier.chart, 3)  # what the row held three writes in
    _set(engine, tid, chart=old, seq=3, status=earlier.chart.status)
    why = f"at version 3, its log at {before['seq']}"
    _check_repaired(engine, league_id, tid, before, old, why, bad_seq=3)


def test_every_way_of_loading_a_night_repairs_it(engine):
    league_id, tid = _night(engine)
    before = _stored(engine, tid)
    loads: list[Callable[[Session], TournamentRecord]] = [
        lambda s: get_tournament(session=s, tournament_id=tid),
        lambda s: latest_tournament(session=s, league_id=league_id),
        lambda s: list_open_tournaments(session=s, league_id=league_id)[0],
        lambda s: get_open_tournament(session=s, channel_id=CHANNEL, for_update=True),
    ]
    for i, load in enumerate(loads, start=1):
        _set(engine, tid, chart={"garbled": i})
        with session_scope(engine) as s:
            assert load(s).seq == before["seq"]
        assert _stored(engine, tid) == before
        assert len(_repairs(engine, league_id, tid)) == i


def test_a_night_repaired_by_another_instance_meanwhile_is_not_repaired_twice(engine):
    league_id, tid = _night(engine)
    _set(engine, tid, chart={"garbled": True})
    with session_scope(engine) as s:
        stale = s.get(Tournament, tid)  # this instance read the garbled row
        assert stale is not None
        s.expunge(stale)
    _load(engine)  # another instance loads and repairs it
    with session_scope(engine) as s:
        s.add(stale)
        chart, seq = repair_snapshot(s, stale, "unreadable")
    assert len(_repairs(engine, league_id, tid)) == 1
    assert (chart, seq) == (_load(engine).night.chart, _stored(engine, tid)["seq"])


def test_a_log_that_cannot_be_replayed_is_refused_and_nothing_changes(engine):
    _, tid = _night(engine)
    entry = core_table(TournamentEntryRow)
    with engine.begin() as conn:
        conn.execute(
            update(entry)
            .where(entry.c.tournament_id == tid, entry.c.seq == 2)
            .values(data={"kind": "teleport"})
        )
    _set(engine, tid, chart={"garbled": True})
    before = _stored(engine, tid)
    with pytest.raises(StorageError, match="cannot be replayed"):
        _load(engine)
    assert _stored(engine, tid) == before

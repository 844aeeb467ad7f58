"""The night's log is the truth: replayed from nothing, it gives exactly the stored night.

Random nights (hypothesis draws the director's actions: sign-ins, the start, busts, moves,
balances, buttons, awards, undos and the finish; refused ones write nothing) are decided by
``rulings`` and stored by ``storage.tournaments`` as the /tournament handlers do, on SQLite
and PostgreSQL. At the end the stored log (undone entries left out) replayed from an empty
night equals the stored chart snapshot, the log kept beside it and the night the actions made;
and when the snapshot of such a night is left wrong (garbled, from an older version, edited by
hand, rolled back to an earlier write), the next load rebuilds exactly the night stored before
from the log, once, and the audit log keeps the snapshot it replaced.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from rulings import (
    Arrival,
    Entry,
    LateEntry,
    Night,
    Room,
    TablesBalanced,
    TournamentError,
    balance_tables,
    bust_players,
    chart_to_data,
    finish_night,
    load_league_rules,
    move_player,
    note_award,
    replay_night,
    set_button,
    sign_in,
    start_play,
)
from storage.audit import list_audit
from storage.db import core_table, session_scope
from storage.leagues import ensure_league
from storage.tournament_models import Tournament, TournamentEntryRow
from storage.tournaments import (
    TournamentRecord,
    add_entry,
    get_open_tournament,
    latest_tournament,
    list_entries,
    open_tournament,
    undo_entry,
)
from tests.storage._league import NOW

RULES = load_league_rules()
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ike", "Jo", "Kim", "Lou"]
_channels = itertools.count(2**61)  # one channel per night: the nights of a run never meet

Decide = Callable[[Night], tuple[Night, Entry]]


def _decision(draw: Any, night: Night, rng: random.Random) -> Decide | str:
    """One director action on ``night`` as drawn: a decision, or ``"undo"``."""
    chart = night.chart
    names = [chart.name(k) for k in chart.players]
    seated = [chart.name(k) for k in chart.seated]
    tables = list(chart.tables) or [1]
    action = draw(
        st.sampled_from(
            ["sign_in"] * 6
            + ["bust"] * 4
            + ["move", "balance", "award", "undo"] * 2
            + ["start", "button", "finish"]
        )
    )
    if action == "sign_in":
        name = draw(st.sampled_from(NAMES))
        arrival = Arrival(
            early_signin=draw(st.booleans()),
            on_time=draw(st.booleans()),
            new_players_brought=draw(st.integers(0, 2)),
        )
        late = LateEntry(big_blind=draw(st.sampled_from([100, 400])))
        return lambda n: sign_in(n, name, arrival, RULES, rng, late)[:2]
    if action == "start":
        return start_play
    if action == "bust":
        who = draw(st.lists(st.sampled_from(seated or ["Zed"]), min_size=1, max_size=2))
        chips = [draw(st.integers(1, 3)) * 1000 for _ in who] if len(who) > 1 else None
        late = LateEntry(big_blind=200)
        return lambda n: bust_players(n, who, chips, rng, late, RULES)
    if action == "move":
        name = draw(st.sampled_from(names or ["Zed"]))
        table = draw(st.sampled_from(tables))
        seat = draw(st.none() | st.integers(1, 5))
        return lambda n: move_player(n, name, table, seat, rng)
    if action == "balance":
        return lambda n: balance_tables(n, rng)
    if action == "button":
        table, seat = draw(st.sampled_from(tables)), draw(st.integers(1, 5))
        return lambda n: set_button(n, table, seat)
    if action == "award":
        award = draw(st.sampled_from(["bounty", "premium", "second_chance"]))
        name = draw(st.sampled_from(names or ["Zed"]))
        chips = draw(st.integers(0, 3))
        return lambda n: note_award(n, award, name, chips=chips, hand="quads")
    if action == "finish":
        counts = {chart.name(k): 1000 * (i + 1) for i, k in enumerate(chart.seated)}
        return lambda n: finish_night(n, counts if len(counts) > 1 else None)
    return "undo"


def _act(engine: Engine, channel: int, decide: Decide | str) -> Entry | str | None:
    """Read the night, decide, store (as ``_write`` does): what was stored, None when refused."""
    try:
        with session_scope(engine) as session:
            record = get_open_tournament(
                session=session, channel_id=channel, with_log=True, for_update=True
            )
            if decide == "undo":
                undo_entry(session=session, record=record, actor="td:ann", now=NOW)
                return "undo"
            assert not isinstance(decide, str)
            night, entry = decide(record.night)
            if isinstance(entry, TablesBalanced) and not entry.moves and not entry.broken:
                return None  # nothing changed: nothing stored
            add_entry(
                session=session, record=record, night=night, entry=entry, actor="td:ann", now=NOW
            )
    except TournamentError:
        return None  # refused: nothing written
    return entry


def _stored(session: Session, league_id: int, channel: int) -> TournamentRecord:
    return latest_tournament(session=session, league_id=league_id, channel_id=channel)


def _row(engine: Engine, tournament_id: int) -> dict[str, Any]:
    """The tournament row's snapshot columns and its log, as stored."""
    tournament, entry = core_table(Tournament), core_table(TournamentEntryRow)
    with engine.connect() as conn:
        chart, seq, status = conn.execute(
            select(tournament.c.chart, tournament.c.seq, tournament.c.status).where(
                tournament.c.id == tournament_id
            )
        ).one()
        log = conn.execute(
            select(entry.c.seq, entry.c.data, entry.c.undone_at)
            .where(entry.c.tournament_id == tournament_id)
            .order_by(entry.c.seq)
        ).all()
    return {"chart": chart, "seq": seq, "status": status, "log": [tuple(e) for e in log]}


@dataclass
class Played:
    """A random night as stored: its ids, the log the actions made, every version of its row."""

    league_id: int
    channel: int
    room: Room
    live: list[Entry]
    writes: int
    versions: list[dict[str, Any]]  # the row after each write, the opening first


def _play(engine: Engine, data: st.DataObject, seed: int, seats: int) -> Played:
    """Open a night and store the drawn actions as the /tournament handlers do."""
    rng = random.Random(seed)
    channel = next(_channels)
    room = Room("Brewpub", "2026 Fall", seats, None)
    with session_scope(engine) as session:
        league_id = ensure_league(session=session, actor="test", now=NOW).id
        tournament_id = open_tournament(
            session=session, league_id=league_id, channel_id=channel, room=room, actor="td:ann"
        ).id
    played = Played(league_id, channel, room, [], 0, [_row(engine, tournament_id)])
    for _ in range(data.draw(st.integers(0, 60), label="actions")):
        with session_scope(engine) as session:
            night = _stored(session, league_id, channel).night
        if night.chart.status == "finished":
            break
        done = _act(engine, channel, _decision(data.draw, night, rng))
        if done is None:
            continue
        played.writes += 1
        played.versions.append(_row(engine, tournament_id))
        if done == "undo":
            played.live.pop()
        else:
            assert not isinstance(done, str)
            played.live.append(done)
    return played


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 5))
def test_the_stored_log_replayed_from_nothing_is_the_stored_night(
    engine: Engine, data: st.DataObject, seed: int, seats: int
):
    played = _play(engine, data, seed, seats)
    room, live, writes = played.room, played.live, played.writes
    with session_scope(engine) as session:
        stored = _stored(session, played.league_id, played.channel)
        every = list_entries(session=session, tournament_id=stored.id)
    kept = [e.entry for e in every if e.undone_at is None]
    assert kept == live  # the stored log is the actions' log, undone entries marked
    replayed = replay_night(room, kept)
    assert replayed.chart == stored.night.chart  # the snapshot is the log's replay
    assert replayed == replay_night(room, live)
    assert stored.seq == writes  # one number for every entry written or undone
    undone = sum(1 for e in every if e.undone_at is not None)
    assert len(every) + undone == writes  # each write is an entry, or an undo marking one


GARBLED = st.one_of(
    st.integers(-(10**6), 10**6),
    st.text(max_size=6),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(
        st.sampled_from(["players", "seated", "status", "tables", "format", "seq", "check"]),
        st.integers(-2, 3) | st.text(max_size=3) | st.lists(st.integers(1, 3), max_size=2),
        max_size=5,
    ),
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 5))
def test_a_snapshot_left_wrong_is_rebuilt_from_the_log_to_exactly_the_stored_night(
    engine: Engine, data: st.DataObject, seed: int, seats: int
):
    played = _play(engine, data, seed, seats)
    with session_scope(engine) as session:
        stored = _stored(session, played.league_id, played.channel)
    before = _row(engine, stored.id)
    assert before == played.versions[-1]
    how = data.draw(st.sampled_from(["garbled", "older format", "hand edit", "rolled back"]))
    bad: dict[str, Any] = {"chart": before["chart"], "seq": before["seq"]}
    if how == "garbled":
        bad["chart"] = data.draw(GARBLED, label="snapshot")
    elif how == "older format":  # what the code wrote before snapshots were sealed
        bad["chart"] = chart_to_data(stored.night.chart)
    elif how == "hand edit":  # a table added by hand, the seal left as it was
        bad["chart"] = {**before["chart"], "tables": [*before["chart"]["tables"], 99]}
    else:  # the row as it was some writes ago, its log kept
        k = data.draw(st.integers(0, len(played.versions) - 1), label="version")
        bad = {key: played.versions[k][key] for key in ("chart", "seq", "status")}
    tournament = core_table(Tournament)
    with engine.begin() as conn:
        conn.execute(update(tournament).where(tournament.c.id == stored.id).values(**bad))

    with session_scope(engine) as session:
        again = _stored(session, played.league_id, played.channel)
    assert again.night.chart == stored.night.chart  # exactly the night stored before
    assert again.seq == stored.seq
    assert _row(engine, stored.id) == before  # the same snapshot, sealed; the log untouched
    with session_scope(engine) as session:
        audit = list_audit(
            session=session, league_id=played.league_id, target=stored.target, limit=999
        )
        _stored(session, played.league_id, played.channel)  # loaded again: nothing to repair
    repairs = [a for a in audit if a.action == "tournament repair"]
    upgraded = how == "older format"  # true to its log: sealed quietly, nothing to tell
    changed = not upgraded and (bad["chart"] != before["chart"] or bad["seq"] != before["seq"])
    assert len(repairs) == (1 if changed else 0)
    if changed:
        assert repairs[0].before == {"snapshot": bad["chart"], "seq": bad["seq"]}
    with session_scope(engine) as session:
        after = list_audit(
            session=session, league_id=played.league_id, target=stored.target, limit=999
        )
    assert after == audit  # repaired once

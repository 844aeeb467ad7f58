"""The night's log is the truth: replayed from nothing, it gives exactly the stored night.

Random nights (hypothesis draws the director's actions: sign-ins, the start, busts, moves,
balances, buttons, awards, undos and the finish; refused ones write nothing) are decided by
``rulings`` and stored by ``storage.tournaments`` as the /tournament handlers do, on SQLite
and PostgreSQL. At the end the stored log (undone entries left out) replayed from an empty
night equals the stored chart snapshot, the log kept beside it and the night the actions made.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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
    finish_night,
    load_league_rules,
    move_player,
    note_award,
    replay_night,
    set_button,
    sign_in,
    start_play,
)
from storage.db import session_scope
from storage.leagues import ensure_league
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


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 5))
def test_the_stored_log_replayed_from_nothing_is_the_stored_night(
    engine: Engine, data: st.DataObject, seed: int, seats: int
):
    rng = random.Random(seed)
    channel = next(_channels)
    room = Room("Brewpub", "2026 Fall", seats, None)
    with session_scope(engine) as session:
        league_id = ensure_league(session=session, actor="test", now=NOW).id
        open_tournament(
            session=session, league_id=league_id, channel_id=channel, room=room, actor="td:ann"
        )
    live: list[Entry] = []  # the log the actions made (an undo takes the last one back)
    writes = 0
    for _ in range(data.draw(st.integers(0, 60), label="actions")):
        with session_scope(engine) as session:
            night = _stored(session, league_id, channel).night
        if night.chart.status == "finished":
            break
        done = _act(engine, channel, _decision(data.draw, night, rng))
        if done is None:
            continue
        writes += 1
        if done == "undo":
            live.pop()
        else:
            assert not isinstance(done, str)
            live.append(done)

    with session_scope(engine) as session:
        stored = _stored(session, league_id, channel)
        every = list_entries(session=session, tournament_id=stored.id)
    kept = [e.entry for e in every if e.undone_at is None]
    assert kept == live  # the stored log is the actions' log, undone entries marked
    replayed = replay_night(room, kept)
    assert replayed.chart == stored.night.chart  # the snapshot is the log's replay
    assert replayed == replay_night(room, live)
    assert stored.seq == writes  # one number for every entry written or undone
    undone = sum(1 for e in every if e.undone_at is not None)
    assert len(every) + undone == writes  # each write is an entry, or an undo marking one

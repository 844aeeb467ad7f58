"""/tournament finish writes with one statement per kind of write, whatever the field's size.

Statements are counted, not timed: every statement SQLAlchemy sends and every PostgreSQL
COPY (``storage.db.insert_rows``), for a finish of N new players and of 2N, on SQLite and on
PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.engine import Engine

from bot.command.model import Context
from bot.config import Settings
from bot.database import Database
from bot.features.tournament import finish as tf
from bot.features.tournament import handlers as t
from storage.audit import list_audit
from storage.db import session_scope
from storage.events import get_event
from storage.league_models import Player, Result
from storage.leagues import add_location, ensure_league
from storage.players import PlayerDirectory, add_alias
from storage.seasons import add_season

NOW = dt.datetime(2026, 11, 20, 23, 0, tzinfo=dt.UTC)


@contextmanager
def _counting(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Count the statements sent, by their first words (a COPY counted as one)."""
    seen: Counter[str] = Counter()

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen[" ".join(statement.split()[:3])] += 1

    if engine.dialect.name == "postgresql":
        import psycopg

        real_copy = psycopg.Cursor.copy

        def copy(self: Any, statement: Any, *args: Any, **kwargs: Any) -> Any:
            seen[" ".join(str(statement).split()[:2])] += 1
            return real_copy(self, statement, *args, **kwargs)

        monkeypatch.setattr(psycopg.Cursor, "copy", copy)
    event.listen(engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", before)
        monkeypatch.undo()


def _finish_night(engine: Engine, channel: int, location: str, names: list[str]) -> Context:
    """Open a night at ``location``, sign in ``names``, start it; return the context."""
    ctx = Context(
        surface="console",
        settings=Settings(_env_file=None),
        db=Database(engine),
        actor="test",
        channel_id=channel,
        now=lambda: NOW,
        extras={"rng": random.Random(1)},
    )
    t.open(ctx, location=location, tables=-(-len(names) // 8), seats=8)
    for name in names:
        t.register(ctx, player=name, on_time=True)
    t.start(ctx)
    return ctx


def test_finish_sends_as_many_statements_for_2n_players_as_for_n(engine, monkeypatch):
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test", now=NOW)
        for location in ("Brewpub", "Alehouse", "Tavern"):
            add_location(session=s, league_id=league.id, name=location, actor="test")
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="test")
    counts = []
    for channel, (location, size) in enumerate(
        [("Brewpub", 4), ("Alehouse", 6), ("Tavern", 12)], start=1
    ):
        names = [f"{location} Regular {i:02d}" for i in range(size)]
        ctx = _finish_night(engine, channel, location, names)
        chips = ", ".join(f"{name} {1000 + i}" for i, name in enumerate(names))
        with _counting(engine, monkeypatch) as seen:
            reply = tf.finish(ctx, chips=chips)
        counts.append(seen)
        assert "Stored as event" in reply.text
        with session_scope(engine) as s:
            stored = s.execute(
                select(func.count())
                .select_from(Result)
                .join(Player)
                .where(
                    Player.display_name.in_(names)  # type: ignore[attr-defined]
                )
            ).scalar_one()
            added = [
                e.target
                for e in list_audit(session=s, league_id=league.id, limit=999)
                if e.action == "player.add" and e.target.startswith(f"player:{location}")
            ]
        assert stored == size  # every player's result, each new player added and audited
        assert sorted(added) == sorted(f"player:{name}" for name in names)
    # The first finish of the league may differ (nothing stored yet); 6 and 12 players send
    # the same statements, each as often: one per kind of write, not one per player.
    assert counts[1] == counts[2]
    assert sum(counts[2].values()) < 30


def test_a_finish_audits_its_new_players_then_its_event_then_itself(engine, monkeypatch):
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test", now=NOW)
        add_location(session=s, league_id=league.id, name="Brewpub", actor="test")
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="test")
        PlayerDirectory(s, league.id).resolve(["Known Kim"], allow_new=True, now=NOW)
        add_alias(session=s, league_id=league.id, name="Known Kim", alias="KK", actor="test")
    ctx = _finish_night(engine, 1, "Brewpub", ["New Ann", "KK", "New Bea", "New Cid"])
    with _counting(engine, monkeypatch) as seen:
        reply = tf.finish(ctx, chips="New Ann 300, Known Kim 200, New Bea 150, New Cid 100")
    assert "Stored as event" in reply.text
    finish = ("player.add", "event.import", "tournament finish")
    with session_scope(engine) as s:
        audit = [
            e
            for e in list_audit(session=s, league_id=league.id, limit=999)[::-1]
            if e.action in finish and e.target != "player:Known Kim"
        ]
        event_id = int(audit[3].target.removeprefix("event:"))
        points = get_event(session=s, league_id=league.id, event_id=event_id).points
    assert [(e.action, e.target, e.before, e.after) for e in audit[:3]] == [
        ("player.add", f"player:{name}", None, {"name": name})
        for name in ("New Ann", "New Bea", "New Cid")
    ]
    assert [e.action for e in audit[3:]] == ["event.import", "tournament finish"]
    assert {p.player: p.position for p in points} == {
        "New Ann": 1,
        "Known Kim": 2,  # signed in by an alias: the player's own result
        "New Bea": 3,
        "New Cid": 4,
    }
    after = audit[3].after
    assert after is not None
    assert after == {
        "record": after["record"],
        "points": {p.player: [p.rp, p.bp] for p in points},
    }
    assert all(e.at == NOW for e in audit)
    # the statements a finish sends (a COPY counted as one; known players: their strikes read)
    assert sum(seen.values()) <= {"postgresql": 9, "sqlite": 12}[engine.dialect.name]

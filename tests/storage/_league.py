"""Helpers shared by the league storage tests: a league and events from plain dicts."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import Session

from rulings import parse_event
from storage.event_import import correct_events, import_events
from storage.events import ImportOutcome
from storage.league_rules import update_league_rules
from storage.leagues import LeagueInfo, ensure_league

NOW = dt.datetime(2027, 1, 6, 3, 0, tzinfo=dt.UTC)  # after every night the tests record


def make_league(session: Session, **overrides: Any) -> LeagueInfo:
    league = ensure_league(session=session, actor="test", now=NOW)
    if overrides:
        update_league_rules(session=session, league_id=league.id, overrides=overrides, actor="test")
    return league


def event(
    finish: list[list[str]],
    *,
    date: str = "2026-11-20",
    location: str = "Brewpub",
    season: str = "2026 Fall",
    kind: str = "regular",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "season": season,
        "location": location,
        "date": date,
        "kind": kind,
        "finish": finish,
        **extra,
    }


def load(
    session: Session, league: LeagueInfo, *events: dict[str, Any], **kwargs: Any
) -> list[ImportOutcome]:
    kwargs.setdefault("actor", "test")
    kwargs.setdefault("now", NOW)
    store = correct_events if kwargs.pop("correct", False) else import_events
    return store([parse_event(e) for e in events], session=session, league_id=league.id, **kwargs)


ISSUE_EVENT = event(
    [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]],
    bounties={"Alice": 2},
    premium_hands=[{"player": "Bob", "hand": "quads"}],
    played=["Frank"],
    second_chance_winners=["Frank"],
    receipts=[{"player": "Alice", "amount": "12.50", "ref": "R-1001"}],
)
"""The example event of issue 5."""


def snapshot(engine: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in primary-key order: what a refused input must not change."""
    from sqlalchemy import select
    from sqlmodel import SQLModel

    import storage.models  # noqa: F401  (registers every table)

    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            query = select(table).order_by(*table.primary_key.columns)
            out[table.name] = [tuple(row) for row in conn.execute(query)]
    return out


def refused(engine: Any, action: Any, error: Any, match: str) -> Any:
    """Run ``action(session)`` in its own transaction; it must raise ``error`` (message matching
    ``match``) and leave every table as it was. Returns the exception."""
    import pytest

    from storage.db import session_scope

    before = snapshot(engine)
    with pytest.raises(error, match=match) as caught, session_scope(engine) as s:
        action(s)
    assert snapshot(engine) == before
    return caught.value

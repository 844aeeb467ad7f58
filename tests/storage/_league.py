"""Helpers shared by the league storage tests: a league and events from plain dicts."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import Session

from rulings import parse_event
from storage.events import ImportOutcome, import_events
from storage.leagues import LeagueInfo, ensure_league, update_league_rules

NOW = dt.datetime(2026, 11, 21, 3, 0, tzinfo=dt.UTC)


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
    return import_events(
        [parse_event(e) for e in events], session=session, league_id=league.id, **kwargs
    )


ISSUE_EVENT = event(
    [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]],
    bounties={"Alice": 2},
    premium_hands=[{"player": "Bob", "hand": "quads"}],
    second_chance_winners=["Frank"],
    receipts=[{"player": "Alice", "amount": "12.50", "ref": "R-1001"}],
)
"""The example event of issue 5."""

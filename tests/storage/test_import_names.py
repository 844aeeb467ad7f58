"""An import whose every name is confirmed reads only those names, and resolves them the same."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlmodel import Session, col

from rulings import EventFormatError
from storage.db import session_scope
from storage.league_models import Player, Result
from storage.players import add_alias
from tests.storage._league import event, load, make_league


def _players(s: Session, league_id: int) -> int:
    return int(s.scalar(select(func.count()).where(col(Player.league_id) == league_id)) or 0)


def test_a_confirmed_night_resolves_aliases_and_known_names_without_the_whole_league(engine):
    with session_scope(engine) as s:
        league = make_league(s)
        load(s, league, event([["Alice"], ["Robert"], ["Carol"], ["Dave"]]))
        add_alias(session=s, league_id=league.id, name="Robert", alias="Bobby", actor="test")
        known = _players(s, league.id)
        # every name confirmed (as /tournament finish confirms its night's): Bobby is Robert,
        # alice is Alice, Zoë is new; Robert's own name is not among the names given
        (outcome,) = load(
            s,
            league,
            event([["Bobby"], ["alice"], ["Zoë"]], date="2026-11-27"),
            allow_new=["Bobby", "alice", "Zoë", "Brewpub", "2026 Fall"],
        )
        assert [p.player for p in outcome.points] == ["Robert", "Alice", "Zoë"]
        assert _players(s, league.id) == known + 1
        played = s.scalar(select(func.count()).where(col(Result.event_id) == outcome.event.id))
        assert played == 3


def test_a_confirmed_night_naming_one_player_twice_is_refused_as_before(engine):
    with session_scope(engine) as s:
        league = make_league(s)
        load(s, league, event([["Robert"], ["Carol"]]))
        add_alias(session=s, league_id=league.id, name="Robert", alias="Bobby", actor="test")
        with pytest.raises(EventFormatError):
            load(
                s,
                league,
                event([["Bobby"], ["Robert"]], date="2026-11-27"),
                allow_new=["Bobby", "Robert", "Brewpub", "2026 Fall"],
            )

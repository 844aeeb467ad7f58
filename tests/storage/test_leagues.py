from __future__ import annotations

import pytest

from rulings import LeagueConfigError
from storage.audit import list_audit
from storage.errors import AlreadyExists, NotFound
from storage.league_rules import update_league_rules
from storage.leagues import (
    add_location,
    ensure_league,
    get_league,
    get_league_rules,
    get_location,
)
from storage.seasons import add_season, get_season, list_seasons, set_current_season
from tests.storage._league import event, load, make_league


def test_one_league_per_guild_and_a_default_league(session):
    default = ensure_league(session=session, actor="t")
    guild = ensure_league(session=session, guild_id=987654321012345678, preset="poker-pub")
    assert ensure_league(session=session, actor="t") == default
    assert get_league(session=session, guild_id=987654321012345678) == guild
    assert get_league_rules(session=session, league_id=guild.id).regular_points[:2] == (100, 80)
    with pytest.raises(NotFound):
        get_league(session=session, guild_id=1)
    with pytest.raises(LeagueConfigError):
        ensure_league(session=session, name="other", preset="nope")


@pytest.mark.parametrize("guild_id", [2**63, 2**64 + 5, -1])
def test_a_guild_id_the_database_cannot_store_names_no_league(session, guild_id):
    ensure_league(session=session, guild_id=987654321012345678)
    with pytest.raises(NotFound, match=f"there is no league for guild {guild_id}"):
        get_league(session=session, guild_id=guild_id)


def test_rules_overrides_are_checked_stored_and_audited(session):
    league = make_league(session)
    change = update_league_rules(
        session=session, league_id=league.id, overrides={"receipt_bp_per_dollar": 10}, actor="t"
    )
    assert change.rules.receipt_bp_per_dollar == 10
    with pytest.raises(LeagueConfigError):
        update_league_rules(
            session=session, league_id=league.id, overrides={"no_such": 1}, actor="t"
        )
    assert get_league_rules(session=session, league_id=league.id).receipt_bp_per_dollar == 10
    [entry] = list_audit(session=session, league_id=league.id, target="league:default", limit=1)
    assert entry.action == "league.rules"
    assert entry.after == {"preset": "btown", "overrides": {"receipt_bp_per_dollar": 10}}


def test_similar_location_and_season_names_are_questioned(session):
    league = make_league(session)
    load(session, league, event([["A"]], location="Brewpub"))
    with pytest.raises(AlreadyExists, match="looks like the existing 'Brewpub'"):
        load(session, league, event([["A"]], location="Brew Pub", date="2026-11-27"))
    with pytest.raises(AlreadyExists, match="exists already"):
        add_location(session=session, league_id=league.id, name="brewpub", actor="t")
    with pytest.raises(NotFound, match="did you mean 'Brewpub'"):
        get_location(session=session, league_id=league.id, name="Brewpb")


def test_2_4_a_a_new_season_becomes_current_and_current_can_be_set(session):
    league = make_league(session)
    load(session, league, event([["A"]], season="2026 Spring", date="2026-04-01"))
    load(session, league, event([["A"]], season="2026 Fall", date="2026-11-20"))
    assert get_season(session=session, league_id=league.id).name == "2026 Fall"
    added = add_season(session=session, league_id=league.id, name="2027 Spring", actor="t")
    assert added.is_current
    assert [s.name for s in list_seasons(session=session, league_id=league.id)] == [
        "2026 Spring",
        "2026 Fall",
        "2027 Spring",
    ]
    assert get_season(session=session, league_id=league.id).name == "2027 Spring"
    # Importing an older season's night does not move the league back.
    load(session, league, event([["A"]], season="2025 Fall", date="2025-11-20"), allow_new=True)
    assert get_season(session=session, league_id=league.id).name == "2027 Spring"
    set_current_season(session=session, league_id=league.id, name="2026 fall", actor="t")
    current = [s.name for s in list_seasons(session=session, league_id=league.id) if s.is_current]
    assert current == ["2026 Fall"]
    with pytest.raises(AlreadyExists):
        add_season(session=session, league_id=league.id, name="2026 fall", actor="t")

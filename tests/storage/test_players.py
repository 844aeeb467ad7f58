from __future__ import annotations

import pytest

from storage.attendance import players_by_attendance
from storage.errors import AlreadyExists, DuplicatePlayerError, MergeError, NotFound
from storage.events import list_events, void_event
from storage.player_links import link_player
from storage.players import (
    add_alias,
    add_player,
    add_strike,
    get_player,
    get_player_by_discord,
    list_players,
    list_strikes,
    merge_players,
)
from storage.seasons import get_season
from storage.standings import season_standings, season_toc
from tests.storage._league import NOW, event, load, make_league


def test_jon_smith_is_reported_as_a_likely_duplicate_of_john_smith(session):
    league = make_league(session)
    add_player(session=session, league_id=league.id, name="John Smith", actor="t")
    with pytest.raises(DuplicatePlayerError) as caught:
        load(session, league, event([["Jon Smith"], ["Alice"]]))
    assert caught.value.suggestion == "John Smith"
    assert "'Jon Smith' looks like the existing player 'John Smith'" in str(caught.value)
    assert [p.name for p in list_players(session=session, league_id=league.id)] == ["John Smith"]


def test_confirmed_new_player_is_created(session):
    league = make_league(session)
    add_player(session=session, league_id=league.id, name="John Smith", actor="t")
    load(session, league, event([["Jon Smith"]]), allow_new=["jon smith"])
    names = [p.name for p in list_players(session=session, league_id=league.id)]
    assert names == ["John Smith", "Jon Smith"]


def test_names_match_case_and_spacing_insensitively(session):
    league = make_league(session)
    load(session, league, event([["Mary  Ann"]]))
    load(session, league, event([["mary ann"]], date="2026-11-27"))
    [row] = season_standings(session=session, league_id=league.id).rows
    assert (row.row.player, row.row.events) == ("Mary Ann", 2)


def test_alias_resolves_in_later_imports(session):
    league = make_league(session)
    load(session, league, event([["Robert Paulson"]]))
    add_alias(session=session, league_id=league.id, name="robert paulson", alias="Bob", actor="t")
    load(session, league, event([["Bob"]], date="2026-11-27"))
    [row] = season_standings(session=session, league_id=league.id).rows
    assert (row.row.player, row.row.rp, row.row.events) == ("Robert Paulson", 2400, 2)
    assert get_player(session=session, league_id=league.id, name="BOB").name == "Robert Paulson"
    with pytest.raises(AlreadyExists, match="already names"):
        add_alias(
            session=session, league_id=league.id, name="Robert Paulson", alias="bob", actor="t"
        )


def test_merge_moves_results_and_keeps_the_old_name_as_alias(session):
    league = make_league(session)
    load(session, league, event([["John Smith"]]))
    load(session, league, event([["Jon Smith"]], date="2026-11-27"), allow_new=True)
    merged = merge_players(
        session=session, league_id=league.id, keep="John Smith", merge="Jon Smith", actor="t"
    )
    assert merged.aliases == ("Jon Smith",)
    [row] = season_standings(session=session, league_id=league.id).rows
    assert (row.row.player, row.row.rp, row.row.events, row.row.wins) == ("John Smith", 2400, 2, 2)
    # The old spelling now resolves to the kept player.
    load(session, league, event([["jon smith"]], date="2026-12-04"))
    assert len(list_players(session=session, league_id=league.id)) == 1


def test_merge_refuses_two_people_who_played_the_same_event(session):
    league = make_league(session)
    load(session, league, event([["John Smith"], ["Jon Smith"]]), allow_new=True)
    with pytest.raises(MergeError, match="both played"):
        merge_players(
            session=session, league_id=league.id, keep="John Smith", merge="Jon Smith", actor="t"
        )
    with pytest.raises(MergeError, match="same player"):
        merge_players(
            session=session, league_id=league.id, keep="John Smith", merge="john smith", actor="t"
        )


def test_discord_link_is_one_player_per_user(session):
    league = make_league(session)
    load(session, league, event([["Ann"], ["Ben"]]))
    link_player(session=session, league_id=league.id, name="Ann", discord_id=1234, actor="t")
    assert (
        get_player_by_discord(session=session, league_id=league.id, discord_id=1234).name == "Ann"
    )
    with pytest.raises(AlreadyExists, match="Ann"):
        link_player(session=session, league_id=league.id, name="Ben", discord_id=1234, actor="t")
    with pytest.raises(NotFound, match="did you mean 'Ann'"):
        get_player(session=session, league_id=league.id, name="Anne")


def test_3_b_a_strike_three_forfeits_the_season_and_the_toc(session):
    league = make_league(session, toc_rp_required=1000, toc_bp_required=200)
    load(session, league, event([["Moe"], ["Curly"]]))
    season = get_season(session=session, league_id=league.id)
    add_strike(
        session=session,
        league_id=league.id,
        name="Moe",
        season_id=season.id,
        level=3,
        reason="fighting",
        actor="t",
        now=NOW,
    )
    [strike] = list_strikes(session=session, league_id=league.id, name="moe")
    assert (strike.player, strike.season, strike.level) == ("Moe", "2026 Fall", 3)
    rows = {
        r.row.player: r.row for r in season_standings(session=session, league_id=league.id).rows
    }
    assert (rows["Moe"].rp, rows["Moe"].bp, rows["Moe"].events) == (0, 0, 1)
    toc = {s.player: s.status for s in season_toc(session=session, league_id=league.id).rows}
    assert toc["Moe"] == "forfeited"


def test_players_aliases_seasons_and_locations_match_by_one_name_key(session):
    # NFKC, spaces and case: the same rulings.name_key everywhere a name is looked up.
    from storage.leagues import add_location, get_location
    from storage.seasons import add_season

    league = make_league(session)
    add_player(session=session, league_id=league.id, name="José Cruz", actor="t")
    add_alias(session=session, league_id=league.id, name="jose\u0301 cruz", alias="Ｊｃ", actor="t")
    assert get_player(session=session, league_id=league.id, name="JOSÉ  CRUZ").name == "José Cruz"
    assert get_player(session=session, league_id=league.id, name="jc").name == "José Cruz"
    add_season(session=session, league_id=league.id, name="2027 Ｓｐｒｉｎｇ", actor="t")
    # stored as NFKC (rulings.check_name), so every door shows the same text
    assert get_season(session=session, league_id=league.id, name="2027 spring").name == (
        "2027 Spring"
    )
    add_location(session=session, league_id=league.id, name="Tap Room", actor="t")
    assert (
        get_location(session=session, league_id=league.id, name="ＴＡＰ ＲＯＯＭ").name
        == "Tap Room"
    )
    with pytest.raises(AlreadyExists):
        add_location(session=session, league_id=league.id, name="tap\u00a0room", actor="t")


def test_players_by_attendance_puts_this_seasons_regulars_first(session):
    league = make_league(session)
    load(
        session,
        league,
        event([["Ann"], ["Bob"]], date="2026-01-10", season="2026 Spring"),
        event([["Cy"], ["Dee"]], date="2026-11-13"),
        event([["Cy"], ["Bob"]], date="2026-11-20"),
        event([["Eve"]], date="2026-11-27"),
    )
    add_player(session=session, league_id=league.id, name="Abe", actor="t")  # never played
    fall = get_season(session=session, league_id=league.id, name="2026 Fall").id
    # This season's nights first (Cy 2; then Bob, Eve and Dee 1 each, by their latest night),
    # then Ann (spring only), then who never played, by name.
    order = ["Cy", "Eve", "Bob", "Dee", "Ann", "Abe"]
    assert players_by_attendance(session=session, league_id=league.id, season_id=fall) == order

    (eve_night,) = [
        e for e in list_events(session=session, league_id=league.id) if e.date.day == 27
    ]
    void_event(session=session, league_id=league.id, event_id=eve_night.id, reason="dup", actor="t")
    order = ["Cy", "Bob", "Dee", "Ann", "Abe", "Eve"]  # a void night counts for nothing
    assert players_by_attendance(session=session, league_id=league.id, season_id=fall) == order
    no_season = ["Bob", "Cy", "Dee", "Ann", "Abe", "Eve"]  # latest night, then by name
    assert players_by_attendance(session=session, league_id=league.id, season_id=None) == no_season

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session

from storage.errors import NotFound
from storage.leagues import LeagueInfo
from storage.standings import (
    RESULT_COLUMNS,
    _by_location,
    _overall,
    iter_result_rows,
    location_champions,
    season_standings,
    season_toc,
    standing_rows,
)
from tests.storage._league import event, load, make_league


def _table(session: Session, league: LeagueInfo, **kwargs: Any) -> list[tuple[Any, ...]]:
    table = season_standings(session=session, league_id=league.id, **kwargs)
    return [(r.rank, r.row.player, r.row.rp, r.row.bp, r.row.events) for r in table.rows]


def test_standings_sum_every_event_of_the_season_and_rank_them(session):
    league = make_league(session)
    load(
        session,
        league,
        event([["Ann"], ["Ben"], ["Cat"]], date="2026-11-06"),
        event([["Ben"], ["Ann"]], date="2026-11-13", location="Tap Room"),
        event(
            [["Cat"]],
            date="2026-11-20",
            played=["Ann"],
            receipts=[{"player": "Ann", "amount": "10"}],
        ),
    )
    assert _table(session, league) == [
        (1, "Ann", 2000, 650, 3),
        (2, "Ben", 2000, 450, 2),  # same RP: the other point kind breaks the tie
        (3, "Cat", 1900, 400, 2),
    ]
    assert _table(session, league, by="bp")[0][:2] == (1, "Ann")
    assert _table(session, league, location="tap room") == [
        (1, "Ben", 1200, 250, 1),
        (2, "Ann", 800, 200, 1),
    ]
    with pytest.raises(NotFound, match="did you mean 'Tap Room'"):
        season_standings(session=session, league_id=league.id, location="Tap Rom")


def test_seasons_are_separate_and_the_default_is_the_current_one(session):
    league = make_league(session)
    load(session, league, event([["Old"]], season="2026 Spring", date="2026-04-01"))
    load(session, league, event([["New"]], season="2026 Fall", date="2026-11-20"))
    assert _table(session, league) == [(1, "New", 1200, 250, 1)]
    assert _table(session, league, season="2026 spring") == [(1, "Old", 1200, 250, 1)]


def test_second_chance_and_toc_events_do_not_count_as_events_played(session):
    league = make_league(session)
    load(
        session,
        league,
        event([["Ann"], ["Ben"]]),
        event([["Ben"]], kind="second_chance"),
        event([["Ann"], ["Ben"]], kind="toc", date="2026-12-20"),
    )
    rows = season_standings(session=session, league_id=league.id).rows
    assert [(r.row.player, r.row.rp, r.row.bp, r.row.events, r.row.wins) for r in rows] == [
        ("Ann", 1200, 250, 1, 1),
        ("Ben", 800, 200 + 250, 1, 0),
    ]


def test_4_d_shemp_qualifies_by_conversion_and_larry_is_300_bp_short(session):
    league = make_league(session)  # btown: 1,500 RP and 1,500 BP
    load(
        session,
        league,
        event(
            [["Shemp"], ["Moe"]],
            bounties={"Shemp": 1},
            second_chance_winners=["Shemp"],
            receipts=[{"player": "Shemp", "amount": "200.00"}],
        ),
        event(
            [["Larry"], ["Curly"]],
            date="2026-11-27",
            bounties={"Larry": 1},
            second_chance_winners=["Larry"],
            receipts=[{"player": "Larry", "amount": "60.99"}],
        ),
    )
    rows = {
        r.row.player: r.row for r in season_standings(session=session, league_id=league.id).rows
    }
    assert (rows["Shemp"].rp, rows["Shemp"].bp) == (1250, 4500)
    assert (rows["Larry"].rp, rows["Larry"].bp) == (1250, 1700)
    toc = {s.player: s for s in season_toc(session=session, league_id=league.id).rows}
    assert (toc["Shemp"].status, toc["Shemp"].extra_chips) == ("conversion", 0)
    assert (toc["Larry"].status, toc["Larry"].bp_short) == ("not_qualified", 300)
    assert toc["Moe"].status == "not_qualified"


def test_location_champions_are_the_rp_leaders_of_each_location(session):
    league = make_league(session)
    load(
        session,
        league,
        event([["Ann"], ["Ben"]]),
        event([["Ben"], ["Ann"]], location="Tap Room"),
        event([["Ben"], ["Ann"]], location="Tap Room", date="2026-11-27"),
    )
    season = season_standings(session=session, league_id=league.id)
    assert season.rows[0].row.player == "Ben"
    from storage.seasons import get_season

    sid = get_season(session=session, league_id=league.id).id
    assert location_champions(session=session, league_id=league.id, season_id=sid) == {
        "Brewpub": "Ann",
        "Tap Room": "Ben",
    }
    # The TOC adds up per-location rows; that must equal the season's own aggregate.
    per_location = _by_location(session, league.id, sid, set())
    assert sorted(_overall(per_location), key=repr) == sorted(
        standing_rows(session=session, league_id=league.id, season_id=sid), key=repr
    )


def test_result_rows_stream_for_export(session):
    league = make_league(session)
    load(session, league, event([["Ann"], ["Ben"]]))
    rows = list(iter_result_rows(session=session, league_id=league.id))
    assert len(rows) == 2
    first = dict(zip(RESULT_COLUMNS, rows[0], strict=True))
    assert (first["player"], first["position"], first["rp"], first["bp"]) == ("Ann", 1, 1200, 250)


def test_no_season_yet_is_a_clear_error(session):
    league = make_league(session)
    with pytest.raises(NotFound, match="no seasons yet"):
        season_standings(session=session, league_id=league.id)

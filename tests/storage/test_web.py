"""The pages' read-only queries on SQLite and PostgreSQL: the race, the stamp, a player's view."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from storage.errors import NotFound
from storage.events import void_event
from storage.leagues import ensure_league
from storage.players import add_strike
from storage.seasons import get_season
from storage.standings import season_standings
from storage.web import player_view, season_view, site_stamp, toc_view, web_league
from tests.storage._league import event, load, make_league


@pytest.fixture
def league(session: Session):
    league = make_league(session)
    load(
        session,
        league,
        event([["Ann"], ["Ben"], ["Cal"]], date="2026-09-01"),
        event([["Ben"], ["Ann"]], date="2026-09-08", location="Tap Room"),
        event([["Cal"], ["Ben"], ["Ann"]], date="2026-09-15"),
        event([["Ann"], ["Dee"]], date="2026-03-01", season="2026 Spring"),
        allow_new=True,
    )
    return league


def test_points_race_is_cumulative_and_ends_at_the_standings(session, league):
    view = season_view(session=session, league_id=league.id)
    table = season_standings(session=session, league_id=league.id)
    assert [n for n, _ in view.race.lines] == [r.row.player for r in table.rows]
    assert [v[-1] for _, v in view.race.lines] == [r.row.rp for r in table.rows]
    ann = dict(view.race.lines)["Ann"]
    assert ann == (1200, 2000, 2700)  # 1st, 2nd, 3rd
    assert [e.location for e in view.race.events] == ["Brewpub", "Tap Room", "Brewpub"]


def test_points_race_at_one_location_and_without_void_events(session, league):
    view = season_view(session=session, league_id=league.id, location="Brewpub")
    assert dict(view.race.lines)["Ann"] == (1200, 1900)
    void_event(session=session, league_id=league.id, event_id=3, reason="wrong night", actor="t")
    view = season_view(session=session, league_id=league.id)
    assert len(view.race.events) == 2
    assert dict(view.race.lines)["Ann"] == (1200, 2000)


def test_the_stamp_moves_with_every_write(session, league):
    first = site_stamp(session=session, league_id=league.id)
    assert first.version > 0
    assert first.changed is not None
    assert site_stamp(session=session, league_id=league.id) == first
    season = get_season(session=session, league_id=league.id)
    add_strike(
        session=session, league_id=league.id, name="Cal", season_id=season.id, level=1,
        reason="late", actor="t",
    )  # fmt: skip
    assert site_stamp(session=session, league_id=league.id).version > first.version


def test_player_view_totals_rank_toc_and_strikes(session, league):
    season = get_season(session=session, league_id=league.id)
    add_strike(
        session=session, league_id=league.id, name="Dee", season_id=season.id, level=3,
        reason="collusion", actor="t",
    )  # fmt: skip
    view = player_view(session=session, league_id=league.id, name="ann")
    assert view.player.name == "Ann"
    assert view.season == "2026 Fall"
    assert view.rank is not None
    assert (view.rank.rank, view.rank.row.rp) == (2, 2700)  # Ben has 2,800
    assert [(t.season, t.rp, t.events) for t in view.totals] == [
        ("2026 Fall", 2700, 3),
        ("2026 Spring", 1200, 1),
    ]
    assert [r.date.isoformat() for r in view.results][:2] == ["2026-09-15", "2026-09-08"]
    assert view.toc is not None
    assert view.toc.status == "not_qualified"
    dee = player_view(session=session, league_id=league.id, name="Dee")
    assert dee.strikes[0].suspension.forfeits_season
    assert dee.totals[-1].forfeited is False  # strike 3 in the Fall; the Spring points stand
    forfeits = toc_view(session=session, league_id=league.id).forfeited
    assert forfeits == {"Dee"}
    with pytest.raises(NotFound, match="did you mean 'Ann'"):
        player_view(session=session, league_id=league.id, name="Anne")


def test_the_pages_pick_the_league_as_the_command_line_does(session):
    with pytest.raises(NotFound):
        web_league(session=session)
    one = ensure_league(session=session, guild_id=111, actor="t")
    assert web_league(session=session).id == one.id  # the only league
    two = ensure_league(session=session, guild_id=222, actor="t")
    with pytest.raises(NotFound, match="several leagues"):
        web_league(session=session)
    assert web_league(session=session, guild_id=222).id == two.id

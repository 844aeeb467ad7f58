"""League nights in storage: one series per location and weekday, RSVPs once, no-shows."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import Session, select

from rulings import NightError, NightSeries
from storage.errors import AlreadyExists, NotFound
from storage.league_models import AuditEntry
from storage.leagues import LeagueInfo, add_location
from storage.nights import (
    NightInfo,
    add_rsvp,
    cancel_night,
    claim_discord_event,
    list_nights,
    night_on,
    no_show_counts,
    record_no_shows,
    remove_rsvp,
    rsvps,
    schedule_night,
    series_for_event,
    set_discord_event,
    sync_discord_rsvps,
)
from tests.storage._league import make_league

THU = dt.date(2026, 12, 3)
TODAY = dt.date(2026, 12, 1)
NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)


def _weekly(location: str = "Pub 33", weekday: int = 3, first: dt.date = THU) -> NightSeries:
    return NightSeries(location=location, weekday=weekday, start=dt.time(19, 0), first=first)


@pytest.fixture
def league(session: Session) -> LeagueInfo:
    league = make_league(session)
    add_location(session=session, league_id=league.id, name="Pub 33", actor="t")
    add_location(session=session, league_id=league.id, name="Brewpub", actor="t")
    return league


@pytest.fixture
def night(session: Session, league: LeagueInfo) -> NightInfo:
    return schedule_night(session=session, league_id=league.id, series=_weekly(), actor="td")


def test_schedule_stores_the_series_and_audits_it(session, league, night):
    assert [n.series for n in list_nights(session=session, league_id=league.id)] == [_weekly()]
    actions = session.exec(select(AuditEntry.action)).all()
    assert "night.schedule" in actions


def test_a_second_series_for_the_same_location_and_weekday_is_refused(session, league, night):
    before = list_nights(session=session, league_id=league.id)
    with pytest.raises(AlreadyExists, match="already has a night on Thursdays"):
        schedule_night(session=session, league_id=league.id, series=_weekly(), actor="td")
    assert list_nights(session=session, league_id=league.id) == before


def test_an_unknown_location_is_refused(session, league):
    with pytest.raises(NotFound, match="no location 'Mars Base'"):
        schedule_night(
            session=session, league_id=league.id, series=_weekly("Mars Base"), actor="td"
        )
    assert list_nights(session=session, league_id=league.id) == []


def test_the_discord_event_is_claimed_once(session, night):
    assert claim_discord_event(session=session, series_id=night.id, claimant="a")
    assert not claim_discord_event(session=session, series_id=night.id, claimant="b")
    set_discord_event(session=session, series_id=night.id, event_id=555)
    found = series_for_event(session=session, event_id=555)
    assert found is not None
    assert found[1].id == night.id
    assert series_for_event(session=session, event_id=556) is None


def test_rsvp_counts_a_name_once(session, night):
    assert add_rsvp(
        session=session,
        info=night,
        day=THU,
        name="Bea",
        discord_id=1,
        source="discord",
        today=TODAY,
    )
    assert not add_rsvp(
        session=session,
        info=night,
        day=THU,
        name="bea",
        discord_id=None,
        source="command",
        today=TODAY,
    )
    assert [r.name for r in rsvps(session=session, info=night, day=THU)] == ["Bea"]


def test_rsvp_to_a_cancelled_night_is_refused(session, league, night):
    cancel_night(
        session=session, league_id=league.id, location="Pub 33", day=THU, actor="td", now=NOW
    )
    info = night_on(session=session, league_id=league.id, day=dt.date(2026, 12, 10))
    with pytest.raises(NightError, match="cancelled"):
        add_rsvp(
            session=session,
            info=info,
            day=THU,
            name="Bea",
            discord_id=None,
            source="command",
            today=TODAY,
        )
    assert rsvps(session=session, info=info, day=THU) == []


def test_cancelling_the_series_removes_it(session, league, night):
    add_rsvp(
        session=session,
        info=night,
        day=THU,
        name="Bea",
        discord_id=None,
        source="command",
        today=TODAY,
    )
    cancel_night(session=session, league_id=league.id, location="Pub 33", day=None, actor="td")
    assert list_nights(session=session, league_id=league.id) == []
    with pytest.raises(NotFound, match="no league night"):
        night_on(session=session, league_id=league.id, day=THU)


def test_remove_rsvp_by_member_or_name(session, night):
    for name, member in (("Ann", 1), ("Bea", None)):
        add_rsvp(
            session=session,
            info=night,
            day=THU,
            name=name,
            discord_id=member,
            source="x",
            today=TODAY,
        )
    assert remove_rsvp(session=session, info=night, day=THU, discord_id=1) == 1
    assert remove_rsvp(session=session, info=night, day=THU, name="BEA") == 1
    assert remove_rsvp(session=session, info=night, day=THU, name="Cy") == 0
    assert rsvps(session=session, info=night, day=THU) == []


def test_sync_catches_up_presses_missed_while_down_and_keeps_typed_rsvps(session, night):
    add_rsvp(
        session=session,
        info=night,
        day=THU,
        name="Ann",
        discord_id=1,
        source="discord",
        today=TODAY,
    )
    add_rsvp(
        session=session,
        info=night,
        day=THU,
        name="Typed",
        discord_id=None,
        source="command",
        today=TODAY,
    )
    added, removed = sync_discord_rsvps(
        session=session, info=night, day=THU, members={2: "Bea", 3: "Cy"}, today=TODAY
    )
    assert (added, removed) == (2, 1)
    assert sorted(r.name for r in rsvps(session=session, info=night, day=THU)) == [
        "Bea",
        "Cy",
        "Typed",
    ]


def test_no_shows_are_recorded_once_and_counted_per_player(session, league, night):
    for name in ("Ann", "Bea", "Cy"):
        add_rsvp(
            session=session,
            info=night,
            day=THU,
            name=name,
            discord_id=None,
            source="x",
            today=TODAY,
        )
    for _ in range(2):  # a finish replayed records the same no-shows
        names = record_no_shows(
            session=session,
            league_id=league.id,
            info=night,
            day=THU,
            signed_in=["bea"],
            season_id=None,
        )
    assert names == ("Ann", "Cy")
    assert no_show_counts(session=session, league_id=league.id) == [("Ann", 1), ("Cy", 1)]

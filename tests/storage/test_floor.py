"""Floor calls and rulings in storage: numbered per league, rulings amend, lists and counts."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import Session, select

from storage.db import session_scope
from storage.errors import NotFound
from storage.floor import (
    Suggestion,
    add_floor_call,
    add_ruling,
    get_floor_call,
    list_rulings,
    rulings_by_section,
    rulings_citing,
    set_floor_call_post,
)
from storage.guild_settings import ensure_guild_league
from storage.league_models import AuditEntry
from storage.leagues import LeagueInfo
from tests.storage._league import make_league, refused

NOW = dt.datetime(2026, 12, 1, 21, 0, tzinfo=dt.UTC)
BOOK = "btown-poker-league"


@pytest.fixture
def league(session: Session) -> LeagueInfo:
    return make_league(session)


def _call(session: Session, league: LeagueInfo, note: str = "dealer exposed a card") -> int:
    return add_floor_call(
        session=session,
        league_id=league.id,
        caller="Bea",
        note=note,
        actor="discord:1:bea",
        table=2,
        seat=5,
        suggestions=[Suggestion(BOOK, "2.G.d.6", "Betting Procedure")],
        now=NOW,
    ).number


def test_calls_are_numbered_per_league_from_one(session, league):
    other = ensure_guild_league(session=session, guild_id=42, actor="t")

    numbers = [_call(session, league), _call(session, league), _call(session, other)]

    assert numbers == [1, 2, 1]


def test_a_call_keeps_its_caller_seat_note_and_suggestions(session, league):
    number = _call(session, league)

    call = get_floor_call(session=session, league_id=league.id, number=number)

    assert (call.caller, call.table, call.seat, call.note) == ("Bea", 2, 5, "dealer exposed a card")
    assert call.suggestions == (Suggestion(BOOK, "2.G.d.6", "Betting Procedure"),)
    assert call.called_at == NOW
    assert call.thread_id is None


def test_the_discord_post_and_thread_are_remembered_on_the_call(session, league):
    number = _call(session, league)
    call = get_floor_call(session=session, league_id=league.id, number=number)

    set_floor_call_post(session=session, call_id=call.id, message_id=77, thread_id=77)

    again = get_floor_call(session=session, league_id=league.id, number=number)
    assert (again.message_id, again.thread_id) == (77, 77)


def test_a_ruling_is_stored_with_its_citation_and_audited(session, league):
    number = _call(session, league)

    _, ruling = add_ruling(
        session=session,
        league_id=league.id,
        number=number,
        decision="Misdeal",
        actor="discord:9:dana",
        given_by="Dana",
        book=BOOK,
        section="2.G.d.6",
        now=NOW,
    )

    assert (ruling.decision, ruling.section, ruling.given_by, ruling.amended) == (
        "Misdeal",
        "2.G.d.6",
        "Dana",
        False,
    )
    entry = session.exec(select(AuditEntry).where(AuditEntry.action == "floor.ruling")).one()
    assert entry.actor == "discord:9:dana"
    assert entry.target == f"floor:{number}"
    assert entry.after == {"decision": "Misdeal", "book": BOOK, "section": "2.G.d.6", "by": "Dana"}


def test_a_second_ruling_amends_the_first_which_no_longer_counts(session, league):
    number = _call(session, league)
    for decision in ("Misdeal", "Play on"):
        add_ruling(
            session=session,
            league_id=league.id,
            number=number,
            decision=decision,
            actor="td",
            given_by="Dana",
            book=BOOK,
            section="2.G.d.6",
        )

    listed = list_rulings(session=session, league_id=league.id)

    assert [(r.decision, r.amended) for r in listed] == [("Play on", True)]
    cited = rulings_citing(session=session, guild_id=None, book=BOOK, section="2.G.d.6")
    assert [r.decision for r in cited] == ["Play on"]
    amended = session.exec(select(AuditEntry).where(AuditEntry.action == "floor.ruling")).all()
    assert amended[-1].before == {"decision": "Misdeal", "book": BOOK, "section": "2.G.d.6"}


def test_ruling_on_a_call_that_does_not_exist_is_refused_and_writes_nothing(engine):
    with session_scope(engine) as s:
        league = make_league(s)

    def act(session: Session) -> None:
        add_ruling(
            session=session, league_id=league.id, number=9, decision="x", actor="t", given_by="t"
        )

    refused(engine, act, NotFound, "no floor call #9")


def test_rulings_are_listed_newest_first_and_searched(session, league):
    for note, decision, section in (
        ("oversized chip", "It is a call", "2.G.d.6"),
        ("string bet 100% sure", "Raise stands", "2.G.d.7"),
        ("exposed card", "Misdeal", None),
    ):
        number = _call(session, league, note)
        add_ruling(
            session=session,
            league_id=league.id,
            number=number,
            decision=decision,
            actor="td",
            given_by="Dana",
            book=BOOK if section else None,
            section=section,
        )

    def found(query: str | None) -> list[str]:
        return [r.decision for r in list_rulings(session=session, league_id=league.id, query=query)]

    assert found(None) == ["Misdeal", "Raise stands", "It is a call"]
    assert found("CHIP") == ["It is a call"]  # the note, any case
    assert found("misdeal") == ["Misdeal"]  # the decision
    assert found("2.G.d") == ["Raise stands", "It is a call"]  # the section
    assert found("100%") == ["Raise stands"]  # % is a character, not a wildcard
    assert found("nothing like it") == []


def test_rulings_citing_a_rule_are_the_league_s_own(session, league):
    number = _call(session, league)
    add_ruling(
        session=session,
        league_id=league.id,
        number=number,
        decision="A call",
        actor="td",
        given_by="Dana",
        book=BOOK,
        section="2.G.d.6",
    )

    assert len(rulings_citing(session=session, guild_id=None, book=BOOK, section="2.G.d.6")) == 1
    assert rulings_citing(session=session, guild_id=42, book=BOOK, section="2.G.d.6") == []
    assert rulings_citing(session=session, guild_id=None, book=BOOK, section="2.G.d.7") == []
    pages = rulings_by_section(session=session, league_id=league.id, book=BOOK)
    assert [r.decision for r in pages["2.G.d.6"]] == ["A call"]

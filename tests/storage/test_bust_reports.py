"""Players' own bust reports: pending beside the night, answered once, audited with both names."""

import random

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from rulings import Arrival, Room, TournamentError, load_league_rules, sign_in, start_play
from storage.audit import list_audit
from storage.bust_reports import (
    add_bust_report,
    answer_bust_report,
    get_bust_report,
    list_bust_reports,
)
from storage.db import session_scope
from storage.errors import AlreadyExists, NotFound
from storage.leagues import ensure_league
from storage.tournaments import (
    add_entry,
    get_open_tournament,
    get_tournament,
    list_open_tournaments,
    open_tournament,
    signed_in_name,
)
from tests.storage._league import NOW

CHANNEL = 2**62 + 7
RULES = load_league_rules()
DAN = 900_000_000_000_000_777


def dump(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as conn:
        return {
            t: [tuple(r) for r in conn.execute(text(f"select * from {t} order by 1"))]
            for t in ("tournament", "tournament_entry", "bust_report", "audit_log")
        }


def night(engine: Engine) -> tuple[int, int]:
    """A running night of Ann, Bob and Dan: (league, tournament)."""
    rng = random.Random(5)
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test", now=NOW)
        rec = open_tournament(
            session=s,
            league_id=league.id,
            channel_id=CHANNEL,
            room=Room("Brewpub", "2026 Fall", 8, None),
            actor="td:ann",
            now=NOW,
        )
        for name in ("Ann", "Bob", "Dan"):
            after, entry, _ = sign_in(rec.night, name, Arrival(), RULES, rng)
            rec = add_entry(session=s, record=rec, night=after, entry=entry, actor="td:ann")
        after, started = start_play(rec.night)
        rec = add_entry(session=s, record=rec, night=after, entry=started, actor="td:ann")
        return league.id, rec.id


def report(engine: Engine, tournament_id: int, name: str = "Dan") -> int:
    with session_scope(engine) as s:
        return add_bust_report(
            session=s,
            tournament_id=tournament_id,
            name=name,
            discord_id=DAN,
            actor=f"discord:{DAN}:dan",
            now=NOW,
        ).id


def test_a_report_waits_beside_the_night_and_counts_for_nothing(engine):
    league_id, tid = night(engine)
    with session_scope(engine) as s:
        before = get_open_tournament(session=s, channel_id=CHANNEL)
    report_id = report(engine, tid)
    with session_scope(engine) as s:
        after = get_open_tournament(session=s, channel_id=CHANNEL)
        assert after.night.chart == before.night.chart  # no seat, no position, no points
        assert after.seq == before.seq
        (waiting,) = list_bust_reports(session=s, tournament_id=tid)
        assert (waiting.id, waiting.name, waiting.discord_id) == (report_id, "Dan", DAN)
        assert get_bust_report(session=s, report_id=report_id) == waiting
        audit = list_audit(session=s, league_id=league_id)[0]
        assert (audit.action, audit.actor) == ("tournament bust report", f"discord:{DAN}:dan")


def test_reporting_twice_leaves_one_pending_report(engine):
    _, tid = night(engine)
    report(engine, tid)
    before = dump(engine)
    with pytest.raises(AlreadyExists, match="reported already"):
        report(engine, tid, name=" dan ")
    assert dump(engine) == before


@pytest.mark.parametrize("decision", ["confirm", "reject"])
def test_an_answer_takes_the_report_once_and_names_both(engine, decision):
    league_id, tid = night(engine)
    report_id = report(engine, tid)
    with session_scope(engine) as s:
        taken = answer_bust_report(
            session=s, report_id=report_id, decision=decision, actor="discord:1:tdmike", now=NOW
        )
        assert taken.name == "Dan"
    with session_scope(engine) as s:
        assert list_bust_reports(session=s, tournament_id=tid) == []
        audit = list_audit(session=s, league_id=league_id)[0]
    assert audit.action == f"tournament bust report {decision}"
    assert audit.actor == "discord:1:tdmike"
    assert audit.before is not None
    assert audit.before["reported_by"] == f"discord:{DAN}:dan"
    before = dump(engine)
    with pytest.raises(NotFound, match="answered already"), session_scope(engine) as s:
        answer_bust_report(session=s, report_id=report_id, decision=decision, actor="x")
    assert dump(engine) == before


def test_a_confirm_written_to_another_night_is_refused(engine):
    _, tid = night(engine)
    report_id = report(engine, tid)
    before = dump(engine)
    with pytest.raises(TournamentError, match="finished"), session_scope(engine) as s:
        answer_bust_report(
            session=s, report_id=report_id, decision="confirm", actor="x", tournament_id=tid + 1
        )
    assert dump(engine) == before


def test_the_reads_a_report_needs(engine):
    league_id, tid = night(engine)
    with session_scope(engine) as s:
        assert [r.id for r in list_open_tournaments(session=s, league_id=league_id)] == [tid]
        assert get_tournament(session=s, tournament_id=tid).night.chart.remaining == 3
        assert signed_in_name(session=s, tournament_id=tid, seq=3) == "Dan"
        with pytest.raises(NotFound):
            signed_in_name(session=s, tournament_id=tid, seq=4)  # the start, not a sign-in
        with pytest.raises(NotFound):
            get_tournament(session=s, tournament_id=tid + 1)

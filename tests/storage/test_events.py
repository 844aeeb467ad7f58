from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from rulings import parse_event
from storage.audit import list_audit
from storage.db import session_scope
from storage.errors import (
    AlreadyExists,
    DuplicateReceiptError,
    EventConflictError,
    NotFound,
    StorageError,
)
from storage.event_import import import_events
from storage.events import (
    ImportOutcome,
    content_hash,
    get_event,
    list_events,
    record_to_dict,
    void_event,
)
from storage.league_models import Event, Result
from storage.standings import season_standings
from tests.storage._league import ISSUE_EVENT, NOW, event, load, make_league


def _points(outcome: ImportOutcome) -> dict[str, tuple[int, int]]:
    return {p.player: (p.rp, p.bp) for p in outcome.points}


def _count(session: Session, table: type) -> int:
    return int(session.execute(select(func.count()).select_from(table)).scalar_one())


def test_issue_example_event_points_per_component(session):
    league = make_league(session)
    [outcome] = load(session, league, ISSUE_EVENT)
    assert outcome.status == "imported"
    assert _points(outcome) == {
        "Alice": (1200 + 2 * 50, 250 + 240),
        "Bob": (800 + 100, 200),
        "Carol": (650, 75),
        "Dave": (650, 75),
        "Eve": (500, 0),
        "Frank": (0, 250),
    }
    alice = outcome.points[0]
    assert alice.breakdown == {"finish": (1200, 250), "bounty": (100, 0), "receipt": (0, 240)}
    assert outcome.event.players == 6


def test_2_g_e_2_tied_for_third_share_third_and_fourth(session):
    league = make_league(session)
    [outcome] = load(session, league, event([["A"], ["B"], ["Carol", "Dave"], ["E"]]))
    carol = next(p for p in outcome.points if p.player == "Carol")
    assert (carol.position, carol.tie_size, carol.rp, carol.bp) == (3, 2, 650, 75)
    eve = next(p for p in outcome.points if p.player == "E")
    assert eve.position == 5


def test_1_c_b_receipt_of_12_50_earns_240_bp(session):
    league = make_league(session)
    [outcome] = load(
        session,
        league,
        event([["A"], ["B"]], played=["Zed"], receipts=[{"player": "Zed", "amount": "12.50"}]),
    )
    zed = next(p for p in outcome.points if p.player == "Zed")
    assert (zed.position, zed.rp, zed.bp) == (None, 0, 240)


def test_same_event_twice_changes_nothing(engine):
    with session_scope(engine) as s:
        league = make_league(s)
        load(s, league, ISSUE_EVENT)
    with session_scope(engine) as s:
        before = (_count(s, Result), len(list_audit(session=s, league_id=league.id, limit=999)))
        # Same night typed differently: names in another case, same content.
        again = dict(ISSUE_EVENT, finish=[["alice"], ["BOB"], ["Dave", "Carol"], ["Eve"]])
        [outcome] = load(s, league, again)
        assert outcome.status == "unchanged"
        assert outcome.event.id == 1
        assert (_count(s, Result), len(list_audit(session=s, league_id=league.id, limit=999))) == (
            before
        )


def test_other_content_for_a_stored_event_is_refused(session):
    league = make_league(session)
    load(session, league, event([["A"], ["B"]]))
    with pytest.raises(EventConflictError, match="event correct"):
        load(session, league, event([["B"], ["A"]]))


def test_correction_replaces_and_audit_keeps_both(session):
    league = make_league(session)
    load(session, league, event([["Ann"], ["Ben"]]))
    [outcome] = load(session, league, event([["Ben"], ["Ann"]]), correct=True)
    assert outcome.status == "corrected"
    assert _points(outcome) == {"Ben": (1200, 250), "Ann": (800, 200)}
    detail = get_event(session=session, league_id=league.id, event_id=outcome.event.id)
    assert [p.player for p in detail.points] == ["Ben", "Ann"]
    [entry] = list_audit(session=session, league_id=league.id, target="event:1", limit=1)
    assert entry.action == "event.correct"
    assert entry.before is not None
    assert entry.after is not None
    assert entry.before["points"] == {"Ann": [1200, 250], "Ben": [800, 200]}
    assert entry.after["points"] == {"Ben": [1200, 250], "Ann": [800, 200]}
    assert entry.at.tzinfo is not None


def test_import_is_all_or_nothing(engine):
    with session_scope(engine) as s:
        league = make_league(s)
    good = event([["A"], ["B"]], receipts=[{"player": "A", "amount": "5", "ref": "R-1"}])
    bad = event(
        [["C"], ["D"]], date="2026-11-27", receipts=[{"player": "C", "amount": "5", "ref": "R-1"}]
    )
    with pytest.raises(DuplicateReceiptError, match="R-1"), session_scope(engine) as s:
        load(s, league, good, bad)
    with session_scope(engine) as s:
        assert _count(s, Event) == 0
        assert _count(s, Result) == 0


def test_receipt_reference_counts_once_per_location(session):
    league = make_league(session)
    receipt = [{"player": "A", "amount": "5", "ref": "R-7"}]
    load(session, league, event([["A"]], receipts=receipt))
    load(session, league, event([["A"]], location="Tap Room", receipts=receipt))  # other bar: fine
    with pytest.raises(DuplicateReceiptError, match="already counted"):
        load(session, league, event([["A"]], date="2026-11-27", receipts=receipt))


def test_void_needs_a_reason_and_drops_the_event_from_standings(session):
    league = make_league(session)
    load(session, league, event([["A"], ["B"]]), event([["B"], ["A"]], date="2026-11-27"))
    with pytest.raises(StorageError, match="reason"):
        void_event(session=session, league_id=league.id, event_id=1, reason="  ", actor="t")
    voided = void_event(
        session=session, league_id=league.id, event_id=1, reason="wrong night", actor="t", now=NOW
    )
    assert (voided.status, voided.void_reason) == ("void", "wrong night")
    rows = season_standings(session=session, league_id=league.id).rows
    assert [(r.row.player, r.row.rp, r.row.events) for r in rows] == [("B", 1200, 1), ("A", 800, 1)]
    with pytest.raises(AlreadyExists, match="void already"):
        void_event(session=session, league_id=league.id, event_id=1, reason="again", actor="t")
    with pytest.raises(NotFound):
        void_event(session=session, league_id=league.id, event_id=99, reason="x", actor="t")


def test_owner_plays_but_earns_nothing_and_nobody_moves_up(session):
    league = make_league(session, owner="Olga")
    [outcome] = load(session, league, event([["Olga"], ["B"], ["C"]]))
    assert _points(outcome) == {"Olga": (0, 0), "B": (800, 200), "C": (700, 150)}


def test_list_show_and_round_trip_of_the_import_format(session):
    league = make_league(session)
    load(session, league, ISSUE_EVENT, event([["X"]], date="2026-11-27", location="Tap Room"))
    listed = list_events(session=session, league_id=league.id)
    assert [(e.id, e.location, e.players) for e in listed] == [
        (1, "Brewpub", 6),
        (2, "Tap Room", 1),
    ]
    detail = get_event(session=session, league_id=league.id, event_id=1)
    reparsed = parse_event(detail.record)
    assert content_hash(reparsed) == content_hash(parse_event(ISSUE_EVENT))
    assert record_to_dict(reparsed)["receipts"] == [
        {"player": "Alice", "amount": "12.50", "ref": "R-1001"}
    ]
    with pytest.raises(NotFound, match="#42"):
        get_event(session=session, league_id=league.id, event_id=42)


def test_same_event_twice_in_one_file_is_reported_unchanged(session: Session):
    league = make_league(session)
    outcomes = load(session, league, event([["A"], ["B"]]), event([["A"], ["B"]]))
    assert [o.status for o in outcomes] == ["imported", "unchanged"]
    with pytest.raises(EventConflictError, match="twice"):
        load(session, league, event([["A"]], date="2026-12-01"), event([["B"]], date="2026-12-01"))


def test_bulk_import_of_many_events(session):
    league = make_league(session)
    names = [f"Player {chr(65 + i)}{chr(65 + j)}" for i in range(4) for j in range(5)]
    records = [
        parse_event(event([[n] for n in names[k:] + names[:k]], date=f"2026-10-{k + 1:02d}"))
        for k in range(10)
    ]
    outcomes = import_events(
        records, session=session, league_id=league.id, actor="t", allow_new=True
    )
    assert [o.status for o in outcomes] == ["imported"] * 10
    assert _count(session, Result) == 200

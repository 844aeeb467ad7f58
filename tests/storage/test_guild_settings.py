"""Server settings (director role, results channel, ping role, preset) and director edits."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from rulings import EventFormatError, Receipt, build_event, parse_finish_text
from storage.audit import list_audit
from storage.errors import (
    DuplicatePlayerError,
    DuplicateReceiptError,
    NotFound,
    StorageError,
)
from storage.event_changes import EventEdit, amend_event, record_guild_events
from storage.events import get_event, void_event
from storage.guild_settings import (
    KEEP,
    get_guild_settings,
    update_guild_settings,
)
from storage.league_models import AuditEntry, League, Player
from storage.leagues import league_for
from tests.storage._league import ISSUE_EVENT, NOW, load, make_league

GUILD = 4242


def _count(session: Session, table: type) -> int:
    return int(session.execute(select(func.count()).select_from(table)).scalar_one())


def test_reading_a_new_server_gives_defaults_and_writes_nothing(session):
    settings = get_guild_settings(session=session, guild_id=GUILD)
    assert settings.league_id is None
    assert settings.preset == "btown"
    assert settings.director_role_id is None
    assert _count(session, League) == 0
    with pytest.raises(NotFound, match="no league yet"):
        league_for(session=session, guild_id=GUILD)


def test_settings_change_is_audited_and_keep_leaves_the_rest(session):
    before, after = update_guild_settings(
        session=session,
        guild_id=GUILD,
        actor="discord:1:boss",
        director_role_id=11,
        results_channel_id=22,
        now=NOW,
    )
    assert before.director_role_id is None
    assert (after.director_role_id, after.results_channel_id) == (11, 22)
    _, again = update_guild_settings(
        session=session,
        guild_id=GUILD,
        actor="discord:1:boss",
        clock_ping_role_id=33,
        results_channel_id=None,
        preset="poker-pub",
        now=NOW,
    )
    assert again.director_role_id == 11  # kept
    assert again.results_channel_id is None  # cleared
    assert (again.clock_ping_role_id, again.preset) == (33, "poker-pub")
    assert get_guild_settings(session=session, guild_id=GUILD) == again
    audit = list_audit(session=session, league_id=again.league_id or 0)
    entry = next(e for e in audit if e.action == "settings.update")
    assert entry.actor == "discord:1:boss"
    assert entry.before == {
        "preset": "btown",
        "director_role_id": 11,
        "results_channel_id": 22,
        "clock_ping_role_id": None,
    }
    assert entry.after is not None
    assert entry.after["preset"] == "poker-pub"


def test_bad_settings_change_nothing(session):
    with pytest.raises(StorageError, match="unknown league preset"):
        update_guild_settings(session=session, guild_id=GUILD, actor="x", preset="vegas")
    with pytest.raises(StorageError, match="at least one"):
        update_guild_settings(session=session, guild_id=GUILD, actor="x")
    with pytest.raises(StorageError, match="Discord id"):
        update_guild_settings(session=session, guild_id=GUILD, actor="x", director_role_id=-5)
    assert _count(session, League) == 0
    assert KEEP is not None


def _text_event(rules, current):
    del rules
    return [
        build_event(
            season=current or "2026 Fall",
            location="Brewpub",
            date="2026-11-20",
            kind="regular",
            finish=parse_finish_text("1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve"),
        )
    ]


def test_record_guild_events_creates_the_league_and_scores_the_tie(session):
    [outcome] = record_guild_events(
        session=session, guild_id=GUILD, build=_text_event, actor="discord:1:boss", now=NOW
    )
    assert outcome.status == "imported"
    points = {p.player: (p.rp, p.bp) for p in outcome.points}
    # 2.G.e.2: two players tied for 3rd share 3rd and 4th.
    assert points["Carol"] == points["Dave"] == (650, 75)
    assert league_for(session=session, guild_id=GUILD).guild_id == GUILD
    again = record_guild_events(
        session=session, guild_id=GUILD, build=_text_event, actor="discord:1:boss", now=NOW
    )
    assert again[0].status == "unchanged"


def test_1_c_b_receipt_added_later_earns_240_bp_for_12_50(session):
    league = make_league(session)
    [stored] = load(session, league, ISSUE_EVENT)
    outcome = amend_event(
        session=session,
        league_id=league.id,
        event_id=stored.event.id,
        edit=EventEdit(receipt=Receipt("Eve", 1250, "R-2000", "https://img/r.png")),
        actor="discord:1:boss",
        now=NOW,
    )
    assert outcome.status == "corrected"
    eve = next(p for p in outcome.points if p.player == "Eve")
    assert (eve.rp, eve.bp) == (500, 240)
    record = get_event(session=session, league_id=league.id, event_id=stored.event.id).record
    assert record["receipts"][-1] == {
        "player": "Eve",
        "amount": "12.50",
        "ref": "R-2000",
        "image_url": "https://img/r.png",
    }
    actions = [e.action for e in list_audit(session=session, league_id=league.id)]
    assert actions[:2] == ["event.amend", "event.correct"]
    with pytest.raises(EventFormatError, match="R-1001"):  # twice in this event
        amend_event(
            session=session,
            league_id=league.id,
            event_id=stored.event.id,
            edit=EventEdit(receipt=Receipt("Bob", 500, "R-1001")),
            actor="x",
        )
    [other] = load(session, league, {**ISSUE_EVENT, "date": "2026-11-27", "receipts": []})
    with pytest.raises(DuplicateReceiptError, match="R-2000"):  # counted at another event
        amend_event(
            session=session,
            league_id=league.id,
            event_id=other.event.id,
            edit=EventEdit(receipt=Receipt("Bob", 500, "R-2000")),
            actor="x",
        )


def test_6_1_c_bounty_is_set_not_added_and_awards_go_to_players_of_the_event(session):
    league = make_league(session)
    [stored] = load(session, league, ISSUE_EVENT)
    eid = stored.event.id
    outcome = amend_event(
        session=session,
        league_id=league.id,
        event_id=eid,
        edit=EventEdit(bounty=("alice", 3)),
        actor="x",
    )
    alice = next(p for p in outcome.points if p.player == "Alice")
    assert alice.breakdown["bounty"] == (150, 0)  # 3 chips x 50 RP, not 2 + 3
    same = amend_event(
        session=session,
        league_id=league.id,
        event_id=eid,
        edit=EventEdit(bounty=("Alice", 3)),
        actor="x",
    )
    assert same.status == "unchanged"
    players = _count(session, Player)
    with pytest.raises(EventFormatError, match="Zed did not play this event"):
        amend_event(
            session=session,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(second_chance_winner="Zed"),
            actor="x",
        )
    assert _count(session, Player) == players  # no player 'Zed' was created


def test_likely_duplicate_name_is_refused_and_nothing_changes(session):
    league = make_league(session)
    [stored] = load(session, league, ISSUE_EVENT)
    audits = _count(session, AuditEntry)
    finish = EventEdit(finish=parse_finish_text("1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve, 6 Carrol"))
    with pytest.raises(DuplicatePlayerError) as caught:
        amend_event(
            session=session,
            league_id=league.id,
            event_id=stored.event.id,
            edit=finish,
            actor="x",
            reason="Carrol was left out",
        )
    assert caught.value.suggestion == "Carol"
    assert _count(session, AuditEntry) == audits
    ok = amend_event(
        session=session,
        league_id=league.id,
        event_id=stored.event.id,
        edit=finish,
        actor="x",
        reason="Carrol was left out",
        allow_new=["Carrol"],
    )
    assert any(p.player == "Carrol" for p in ok.points)


def test_correction_needs_a_reason_and_void_events_are_not_changed(session):
    league = make_league(session)
    [stored] = load(session, league, ISSUE_EVENT)
    eid = stored.event.id
    new_finish = parse_finish_text("1 Bob, 2 Alice, 3 Carol=Dave, 5 Eve")
    with pytest.raises(StorageError, match="reason"):
        amend_event(
            session=session,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(finish=new_finish),
            actor="x",
        )
    fixed = amend_event(
        session=session,
        league_id=league.id,
        event_id=eid,
        edit=EventEdit(finish=new_finish),
        actor="x",
        reason="places 1 and 2 swapped",
    )
    assert fixed.points[0].player == "Bob"
    amend = next(e for e in list_audit(session=session, league_id=league.id))
    assert amend.after == {
        "change": "finish order replaced",
        "reason": "places 1 and 2 swapped",
        "points": {"Alice": [-400, -50], "Bob": [400, 50]},
    }
    with pytest.raises(EventFormatError):
        amend_event(
            session=session,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(finish=(("Bob",), ("Bob",))),
            actor="x",
            reason="typo",
        )
    void_event(session=session, league_id=league.id, event_id=eid, reason="wrong night", actor="x")
    with pytest.raises(StorageError, match="void"):
        amend_event(
            session=session,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(bounty=("Bob", 1)),
            actor="x",
        )

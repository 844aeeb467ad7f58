import random

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from rulings import (
    Arrival,
    Room,
    TournamentError,
    bust_players,
    entry_to_data,
    load_league_rules,
    replay_night,
    sign_in,
    start_play,
)
from storage.audit import add_audit_entry, holding_audit, list_audit
from storage.db import session_scope
from storage.errors import AlreadyExists, NotFound
from storage.leagues import ensure_league
from storage.tournaments import (
    add_entry,
    claim_night_thread,
    get_open_tournament,
    latest_tournament,
    list_entries,
    night_thread,
    open_tournament,
    tournament_status_line,
    tournament_status_lines,
    undo_entry,
)
from tests.storage._league import NOW

CHANNEL = 2**62 + 5
RULES = load_league_rules()


def dump(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as conn:
        return {
            t: [tuple(r) for r in conn.execute(text(f"select * from {t} order by 1, 2"))]
            for t in ("tournament", "tournament_entry", "audit_log")
        }


def opened(engine: Engine, players: int = 6) -> int:
    rng = random.Random(3)
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test", now=NOW)
        rec = open_tournament(
            session=s,
            league_id=league.id,
            channel_id=CHANNEL,
            room=Room("Brewpub", "2026 Fall", 4, 2),
            actor="td:ann",
            now=NOW,
        )
        for i in range(players):
            night, entry, _ = sign_in(rec.night, f"P{i}", Arrival(), RULES, rng)
            rec = add_entry(session=s, record=rec, night=night, entry=entry, actor="td:ann")
        return league.id


def test_a_night_is_stored_and_read_back_the_same(engine):
    opened(engine)
    with session_scope(engine) as s:
        rec = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
        assert len(rec.night.chart.seated) == 6
        assert replay_night(rec.night.setup, rec.night.log) == rec.night
        assert rec.night.setup == Room("Brewpub", "2026 Fall", 4, 2)


def test_one_open_tournament_per_channel(engine):
    league_id = opened(engine)
    before = dump(engine)
    with pytest.raises(AlreadyExists), session_scope(engine) as s:
        open_tournament(
            session=s, league_id=league_id, channel_id=CHANNEL, room=Room("Pub"), actor="x"
        )
    assert dump(engine) == before


def test_every_entry_is_audited_with_who_did_it(engine):
    league_id = opened(engine, players=2)
    with session_scope(engine) as s:
        audit = list_audit(session=s, league_id=league_id)
        actions = [a.action for a in audit if a.target.startswith("tournament")]
        assert actions == ["tournament register", "tournament register", "tournament open"]
        assert {a.actor for a in audit if a.target.startswith("tournament")} == {"td:ann"}


def test_undo_marks_the_entry_and_restores_the_chart(engine):
    league_id = opened(engine, players=3)
    with session_scope(engine) as s:
        before = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
        night, started = start_play(before.night)
        rec = add_entry(session=s, record=before, night=night, entry=started, actor="td")
        night, entry = bust_players(rec.night, ["P1"], None)
        add_entry(session=s, record=rec, night=night, entry=entry, actor="td")
    with session_scope(engine) as s:
        rec = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
        after, undone = undo_entry(session=s, record=rec, actor="td:bob")
        assert undone == entry
    with session_scope(engine) as s:
        again = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
        assert again.night.chart == after.night.chart
        assert "p1" in again.night.chart.seated
        entries = list_entries(session=s, tournament_id=again.id)
        assert [e.undone_at is not None for e in entries][-1] is True  # kept, marked
        assert list_audit(session=s, league_id=league_id)[0].actor == "td:bob"


def test_a_stale_write_is_refused_and_changes_nothing(engine):
    opened(engine, players=2)
    with session_scope(engine) as s:
        stale = get_open_tournament(session=s, channel_id=CHANNEL)
    with session_scope(engine) as s:
        fresh = get_open_tournament(session=s, channel_id=CHANNEL)
        night, entry, _ = sign_in(fresh.night, "Q", Arrival(), RULES, random.Random(1))
        add_entry(session=s, record=fresh, night=night, entry=entry, actor="td")
    before = dump(engine)
    night, entry, _ = sign_in(stale.night, "R", Arrival(), RULES, random.Random(1))
    with pytest.raises(TournamentError, match="try again"), session_scope(engine) as s:
        add_entry(session=s, record=stale, night=night, entry=entry, actor="td")
    assert dump(engine) == before


def test_no_open_tournament_is_a_clear_error(engine):
    with pytest.raises(NotFound, match="no tournament is open"), session_scope(engine) as s:
        get_open_tournament(session=s, channel_id=CHANNEL)
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test", now=NOW)
    with pytest.raises(NotFound), session_scope(engine) as s:
        latest_tournament(session=s, league_id=league.id)


def test_a_locked_read_then_write_commits_on_both_databases(engine):
    opened(engine, players=2)
    with session_scope(engine) as s:
        rec = get_open_tournament(session=s, channel_id=CHANNEL, for_update=True)
        night, entry = start_play(rec.night)
        add_entry(session=s, record=rec, night=night, entry=entry, actor="td", now=NOW)
    with session_scope(engine) as s:
        again = get_open_tournament(session=s, channel_id=CHANNEL)
        assert again.night.chart.status == "running"
        assert again.seq == rec.seq + 1


def test_the_status_line_for_the_clock_message(engine):
    with session_scope(engine) as s:
        assert tournament_status_line(session=s, channel_id=CHANNEL) is None
    opened(engine, players=3)
    with session_scope(engine) as s:
        line = tournament_status_line(session=s, channel_id=CHANNEL)
    assert line == "Tournament: 3 players left, average stack 18,000"
    with session_scope(engine) as s:  # several channels at once say what each alone says
        lines = tournament_status_lines(session=s, channel_ids=[CHANNEL, CHANNEL + 1])
    assert lines == {CHANNEL: line, CHANNEL + 1: None}


def test_a_night_keeps_the_first_thread_made_for_it(engine):
    guild, other_guild = 2**62 + 11, 2**62 + 12
    with session_scope(engine) as s:
        league = ensure_league(session=s, guild_id=guild, actor="test", now=NOW)
        ensure_league(session=s, guild_id=other_guild, actor="test", now=NOW)
        rec = open_tournament(
            session=s, league_id=league.id, channel_id=CHANNEL, room=Room("Pub"), actor="td"
        )
    with session_scope(engine) as s:
        assert night_thread(session=s, tournament_id=rec.id, guild_id=guild) is None
        kept = claim_night_thread(session=s, tournament_id=rec.id, guild_id=guild, thread_id=501)
        assert kept == 501
    with session_scope(engine) as s:  # a second instance's thread, made at the same time
        kept = claim_night_thread(session=s, tournament_id=rec.id, guild_id=guild, thread_id=502)
        assert kept == 501
        assert night_thread(session=s, tournament_id=rec.id, guild_id=guild) == 501
    before = dump(engine)
    with pytest.raises(NotFound), session_scope(engine) as s:  # another server's night
        claim_night_thread(session=s, tournament_id=rec.id, guild_id=other_guild, thread_id=9)
    assert dump(engine) == before


def test_a_write_decided_on_a_night_changed_meanwhile_is_refused_and_writes_nothing(engine):
    opened(engine)
    with session_scope(engine) as s:
        stale = get_open_tournament(session=s, channel_id=CHANNEL)
    with session_scope(engine) as s:  # another director stores a sign-in first
        rec = get_open_tournament(session=s, channel_id=CHANNEL)
        night, entry, _ = sign_in(rec.night, "Quick", Arrival(), RULES, random.Random(1))
        add_entry(session=s, record=rec, night=night, entry=entry, actor="td:bob", now=NOW)
    before = dump(engine)
    night, entry, _ = sign_in(stale.night, "Slow", Arrival(), RULES, random.Random(2))
    with pytest.raises(TournamentError, match="changed while"), session_scope(engine) as s:
        add_entry(session=s, record=stale, night=night, entry=entry, actor="td:ann", now=NOW)
    assert dump(engine) == before  # no snapshot, no log entry, no audit row
    with session_scope(engine) as s:
        names = {
            e.name
            for e in get_open_tournament(session=s, channel_id=CHANNEL).night.chart.players.values()
        }
    assert "Quick" in names
    assert "Slow" not in names


def test_an_entry_is_stored_with_its_snapshot_and_one_audit_row(engine):
    league_id = opened(engine, players=2)
    with session_scope(engine) as s:
        rec = get_open_tournament(session=s, channel_id=CHANNEL)
        night, entry, _ = sign_in(rec.night, "Late Lou", Arrival(), RULES, random.Random(1))
        stored = add_entry(session=s, record=rec, night=night, entry=entry, actor="td:ann", now=NOW)
    with session_scope(engine) as s:
        again = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
        audit = list_audit(session=s, league_id=league_id, target=rec.target, limit=1)
        logged = list_entries(session=s, tournament_id=rec.id)
    assert again.seq == stored.seq == rec.seq + 1
    assert again.night == replay_night(again.night.setup, again.night.log)
    assert again.night.chart == night.chart
    assert logged[-1].entry == entry
    assert logged[-1].seq == again.seq
    assert (audit[0].action, audit[0].actor, audit[0].after) == (
        "tournament register",
        "td:ann",
        entry_to_data(entry),
    )
    assert audit[0].at == NOW


@pytest.mark.parametrize("held_rows", [1, 12])  # folded into the entry's statement, or not
def test_audit_rows_held_for_an_entry_are_stored_before_its_own_in_their_order(engine, held_rows):
    league_id = opened(engine, players=2)
    with session_scope(engine) as s:
        rec = get_open_tournament(session=s, channel_id=CHANNEL)
        night, entry, _ = sign_in(rec.night, "Late Lou", Arrival(), RULES, random.Random(1))
        with holding_audit(s) as held:
            for i in range(held_rows):
                add_audit_entry(
                    session=s,
                    league_id=league_id,
                    actor="td:ann",
                    action="player.add",
                    target=f"player:P{i}",
                    after={"name": f"P{i}"},
                    now=NOW,
                )
            assert len(held) == held_rows  # held, not written yet
            add_entry(
                session=s, record=rec, night=night, entry=entry, actor="td:ann", audit_first=held
            )
            assert held == []  # taken by the entry's write
    with session_scope(engine) as s:
        audit = list_audit(session=s, league_id=league_id, limit=held_rows + 1)[::-1]
    assert [(a.action, a.target, a.after) for a in audit] == [
        *(("player.add", f"player:P{i}", {"name": f"P{i}"}) for i in range(held_rows)),
        ("tournament register", rec.target, entry_to_data(entry)),
    ]


def test_audit_rows_held_and_not_taken_are_written_at_the_end_of_the_block(engine):
    league_id = opened(engine, players=0)
    with session_scope(engine) as s:
        with holding_audit(s) as held:
            add_audit_entry(session=s, league_id=league_id, actor="a", action="x.kept", target="t")
            assert len(held) == 1
        add_audit_entry(session=s, league_id=league_id, actor="a", action="x.after", target="t")
    with session_scope(engine) as s:
        actions = [a.action for a in list_audit(session=s, league_id=league_id, limit=2)]
    assert actions == ["x.after", "x.kept"]

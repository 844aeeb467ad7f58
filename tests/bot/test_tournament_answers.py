"""A whole tournament night through the /tournament handlers, on a real database."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from bot.command.model import Context
from bot.config import Settings
from bot.database import Database
from bot.features.clock.handlers import ClockDoor
from bot.features.tournament import finish as tf
from bot.features.tournament import handlers as t
from bot.features.tournament import views as tv
from bot.features.tournament.commands import TOURNAMENT
from rulings import ClockAction, RulingsError, position_at, replay_night
from storage.audit import list_audit
from storage.clocks import add_clock, get_clock
from storage.db import create_schema, make_engine, session_scope
from storage.leagues import add_location, ensure_league
from storage.players import add_player
from storage.seasons import add_season
from storage.standings import season_standings
from storage.tournaments import get_open_tournament

NOW = dt.datetime(2026, 11, 20, 23, 0, tzinfo=dt.UTC)
CHANNEL = 555


@pytest.fixture
def engine(tmp_path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'night.db'}")
    create_schema(eng)
    with session_scope(eng) as s:
        league = ensure_league(session=s, actor="test", now=NOW)
        add_location(session=s, league_id=league.id, name="Brewpub", actor="test")
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="test")
    yield eng
    eng.dispose()


def ctx_for(engine: Engine, *, seed: int = 1, actor: str = "console:ann") -> Context:
    return Context(
        surface="console",
        settings=Settings(_env_file=None),
        db=Database(engine),
        actor=actor,
        channel_id=CHANNEL,
        now=lambda: NOW,
        extras={"rng": random.Random(seed)},
    )


def dump(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as conn:
        return {
            name: [tuple(r) for r in conn.execute(text(f"select * from {name}"))]
            for name in ("tournament", "tournament_entry", "audit_log", "event", "result")
        }


def test_every_tournament_command_names_a_handler():
    for command in TOURNAMENT:
        assert command.path[0] == "tournament"
        assert len(command.description) <= 100
        assert callable(command.resolve())


def test_a_whole_night_from_sign_in_to_stored_results(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="brewpub", tables=2, seats=4)
    players = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
    for name in players:
        t.register(ctx, player=name, on_time=True)
    full = t.register(ctx, player="Ivy", early=True)
    assert "reserve list #1" in full.text
    t.start(ctx)
    late = t.register(ctx, player="Jo", big_blind=600)
    assert "reserve list #2" in late.text
    assert "16,800" in late.text
    first = t.bust(ctx, players="Cy")
    # Ivy takes Cy's seat (she counts); Jo still waits and counts once he sits down.
    assert "Cy**: 9th" in first.text
    assert "Seated from the reserve list: Ivy" in first.text
    two = t.bust(ctx, players="Gus, Fay", chips="5000, 9000")
    assert "Fay**: 8th" in two.text
    assert "Gus**: 9th" in two.text
    assert "now one place lower (a reserve player sat down): Cy 10th" in two.text
    t.balance(ctx)
    for name in ("Hal", "Eve", "Ann", "Jo"):
        t.bust(ctx, players=name)
        t.balance(ctx)
    seats = tv.seats(ctx)
    assert "Stacks are starting stacks" in seats.text
    status = tv.status(ctx)
    assert "Players left: 3" in status.text
    t.bust(ctx, players="Ivy")
    done = tf.finish(ctx, chips="Dee 120000, Bob 80000")
    assert "Stored as event" in done.text
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test")
        table = season_standings(session=s, league_id=league.id, season="2026 Fall")
    order = [r.row.player for r in table.rows]
    assert order == ["Dee", "Bob", "Ivy", "Jo", "Ann", "Eve", "Hal", "Fay", "Gus", "Cy"]
    shown = tf.show(ctx, json=True).data
    assert shown["status"] == "finished"
    assert shown["location"] == "Brewpub"
    assert [b["player"] for b in shown["busted"]][:2] == ["Ivy", "Jo"]
    assert set(shown) == {
        "status", "location", "season", "tables", "reserve", "busted", "remaining",
        "average_stack",
    }  # fmt: skip


def test_show_json_has_the_documented_shape_while_running(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub", seats=8)
    for name in ("Ann", "Bob", "Cy"):
        t.register(ctx, player=name)
    data = tf.show(ctx, json=True).data
    assert data["status"] == "registering"
    assert data["season"] == "2026 Fall"
    seat = data["tables"][0]["seats"][0]
    assert set(seat) == {"seat", "player", "stack"}
    assert seat["stack"] == 18000
    assert data["remaining"] == 3
    assert data["average_stack"] == 18000
    assert data["reserve"] == []
    assert data["busted"] == []


@pytest.mark.parametrize(
    ("command", "options", "message"),
    [
        ("bust", {"players": "Zed"}, "did not sign in"),
        ("bust", {"players": "Ann, Bob", "chips": "100"}, "chip count"),
        ("bust", {"players": "Ann, ann", "chips": "1, 2"}, "named twice"),
        ("register", {"player": "Ann"}, "already signed in"),
        ("register", {"player": "Late"}, "big blind"),
        ("move", {"player": "Ann", "table": 7}, "no table 7"),
        ("move", {"player": "Ann", "table": 1, "seat": 9}, "seats 1-8"),
        ("chop", {"leader": "Cy"}, "not at a table"),
        ("finish", {"chips": "Ann 10"}, "give the chip count"),
        ("finish", {"chips": "Ann ten"}, "name and a chip count"),
    ],
)
def test_bad_input_is_one_clear_line_and_nothing_written(engine, command, options, message):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob", "Cy"):
        t.register(ctx, player=name)
    t.start(ctx)
    t.bust(ctx, players="Cy")
    before = dump(engine)
    with pytest.raises(RulingsError, match=message) as info:
        getattr(tf if command in {"chop", "finish"} else t, command)(ctx, **options)
    assert "\n" not in str(info.value)
    assert dump(engine) == before


def test_a_bust_with_no_tournament_is_refused(engine):
    before = dump(engine)
    with pytest.raises(RulingsError, match="no tournament is open"):
        t.bust(ctx_for(engine), players="Ann")
    assert dump(engine) == before


def test_a_sign_in_like_a_known_player_needs_new_player(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    t.register(ctx, player="John Smith")
    ctx2 = ctx_for(engine)
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test")
        add_player(session=s, league_id=league.id, name="Jonathan Smyth", actor="test")
    before = dump(engine)
    with pytest.raises(RulingsError, match="looks like the existing player"):
        t.register(ctx2, player="Jonathan Smith")
    assert dump(engine) == before
    assert "Jonathan Smith" in t.register(ctx2, player="Jonathan Smith", confirm=True).text


def test_undo_is_repeatable_and_audited_with_who(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob", "Cy"):
        t.register(ctx, player=name)
    t.start(ctx)
    before = tf.show(ctx, json=True).data
    t.bust(ctx, players="Cy")
    t.move(ctx, player="Bob", table=1)
    undo_ctx = ctx_for(engine, actor="console:bob")
    assert "the move Bob" in t.undo(undo_ctx).text
    assert "the bust of Cy" in t.undo(undo_ctx).text
    assert tf.show(ctx, json=True).data == before
    with pytest.raises(RulingsError, match="start"):
        t.undo(undo_ctx)
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test")
        audit = list_audit(session=s, league_id=league.id, limit=3)
    assert [(a.action, a.actor) for a in audit[:2]] == [
        ("tournament undo", "console:bob"),
        ("tournament undo", "console:bob"),
    ]


def test_late_sign_in_reads_the_channels_clock_and_closes_after_the_first_break(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob"):
        t.register(ctx, player=name)
    t.start(ctx)
    with session_scope(engine) as s:
        clock = add_clock(
            session=s,
            guild_id=1,
            channel_id=CHANNEL,
            structure="btown",
            started_at=NOW - dt.timedelta(minutes=5),
            created_by=7,
        )
    level_one = clock.state.structure.steps[0]
    reply = t.register(ctx, player="Late")
    removed = 2 * level_one.big_blind  # type: ignore[union-attr]
    assert f"late -{removed:,}" in reply.text
    assert "Registration: open (late)" in tv.status(ctx).text
    later = ctx_for(engine)
    later.now = lambda: NOW + dt.timedelta(hours=3)
    before = dump(engine)
    with pytest.raises(RulingsError, match="end of the first break"):
        t.register(later, player="Too Late")
    assert dump(engine) == before


def test_2_d_d_a_table_receiving_three_redraws_and_the_clock_pauses(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub", tables=2, seats=8)
    for i in range(16):
        t.register(ctx, player=f"P{i:02d}")
    t.start(ctx)
    with session_scope(engine) as s:
        clock = add_clock(
            session=s,
            guild_id=1,
            channel_id=CHANNEL,
            structure="btown",
            started_at=NOW - dt.timedelta(minutes=5),
            created_by=7,
        )
    table_two = [s["player"] for s in tf.show(ctx, json=True).data["tables"][1]["seats"]]
    t.bust(ctx, players=", ".join(table_two[:6]), chips=", ".join(str(n) for n in range(1, 7)))
    reply = t.balance(ctx)
    assert reply.text.count("-> table 2") == 3
    assert "Table 2 received three or more players: redraw for the button (2.D.d)" in reply.text
    assert "the clock is paused until /clock resume" in reply.text
    with session_scope(engine) as s:
        assert position_at(get_clock(session=s, clock_id=clock.id).state, NOW).is_paused


def test_button_then_seats_of_one_table(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub", tables=2, seats=4)
    for name in ("Ann", "Bob", "Cy", "Dee"):
        t.register(ctx, player=name)
    assert "button is at seat 2" in t.button(ctx, table=1, seat=2).text
    one = tv.seats(ctx, table=1)
    assert [f.name for f in one.fields] == ["Table 1"]
    with pytest.raises(RulingsError, match="no table 5"):
        tv.seats(ctx, table=5)


def test_names_are_escaped_for_discord_and_plain_in_the_console(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    reply = t.register(ctx, player="**Big** Al")
    assert "\\*\\*Big\\*\\* Al" in reply.text
    assert "**Big** Al" in reply.to_plain()


def test_a_restart_mid_night_carries_on_from_the_database(engine, tmp_path):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub", tables=3, seats=6)
    for i in range(15):
        t.register(ctx, player=f"P{i:02d}")
    t.start(ctx)
    t.bust(ctx, players="P03")
    t.balance(ctx)
    url = str(engine.url)
    engine.dispose()
    again = make_engine(url)  # a new process: nothing but the database
    ctx2 = ctx_for(again, seed=9)
    for name in ("P04", "P05", "P06"):
        t.bust(ctx2, players=name)
        t.balance(ctx2)
    # The last balance moved nobody: it stored nothing, so undo takes back the bust.
    assert "the bust of P06" in t.undo(ctx2).text
    with session_scope(again) as s:
        record = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
    # The stored chart is exactly the replay of the stored log.
    assert replay_night(record.night.setup, record.night.log).chart == record.night.chart
    assert tf.show(ctx2, json=True).data["remaining"] == 12  # 15 signed in, 3 busts stand
    again.dispose()


def test_2_d_d_with_a_live_clock_service_the_redraw_pauses_it_through_the_service(engine):
    calls: list[tuple[int, ClockAction]] = []

    class Service:
        def now(self) -> dt.datetime:
            return NOW

        async def act(self, channel_id: int, action: ClockAction, **_: object) -> object:
            calls.append((channel_id, action))
            return type("Record", (), {"id": 42})()

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        ctx = ctx_for(engine)
        ctx.clock = ClockDoor(Service(), loop)  # type: ignore[arg-type]
        t.open(ctx, location="Brewpub", tables=2, seats=8)
        for i in range(16):
            t.register(ctx, player=f"P{i:02d}")
        t.start(ctx)
        table_two = [s["player"] for s in tf.show(ctx, json=True).data["tables"][1]["seats"]]
        t.bust(ctx, players=", ".join(table_two[:6]), chips=", ".join(map(str, range(1, 7))))
        reply = t.balance(ctx)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
    assert calls == [(CHANNEL, ClockAction.PAUSE)]
    assert "the clock is paused until /clock resume" in reply.text


def test_a_big_room_fits_one_seating_chart(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub", tables=30, seats=2)
    for i in range(61):
        t.register(ctx, player=f"P{i:02d}")
    chart = tv.seats(ctx)
    assert len(chart.fields) == 25
    assert "Tables 1-25 of 30" in chart.text
    assert "Reserve list: P60" in chart.text
    assert [f.name for f in tv.seats(ctx, table=30).fields] == ["Table 30"]

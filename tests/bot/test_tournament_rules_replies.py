"""Issue 19: /tournament applies the book the same way everywhere, and says what it did."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from bot.command.model import Context, Surface
from bot.config import Settings
from bot.database import Database
from bot.features.league import handlers as league_answers
from bot.features.tournament import finish as tf
from bot.features.tournament import handlers as t
from rulings import RulingsError, build_event
from storage.db import create_schema, make_engine, session_scope
from storage.event_import import import_events
from storage.leagues import add_location, ensure_league
from storage.players import add_player
from storage.seasons import add_season
from storage.tournaments import get_open_tournament

NOW = dt.datetime(2026, 11, 20, 23, 0, tzinfo=dt.UTC)
CHANNEL = 556


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


def ctx_for(engine: Engine, *, seed: int = 1, surface: Surface = "console") -> Context:
    return Context(
        surface=surface,
        settings=Settings(_env_file=None),
        db=Database(engine),
        actor="console:ann",
        channel_id=CHANNEL,
        now=lambda: NOW,
        extras={"rng": random.Random(seed)},
    )


def log_length(engine: Engine) -> int:
    with session_scope(engine) as s:
        record = get_open_tournament(session=s, channel_id=CHANNEL, with_log=True)
    return len(record.night.log)


def test_a_balance_that_moves_nobody_does_not_use_up_an_undo(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob", "Cy"):
        t.register(ctx, player=name)
    t.start(ctx)
    t.bust(ctx, players="Cy")
    stored = log_length(engine)
    assert "nobody moves" in t.balance(ctx).text
    assert log_length(engine) == stored
    assert "the bust of Cy" in t.undo(ctx).text


def test_2_d_a_b_the_balance_reply_says_when_a_seat_was_drawn(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub", tables=2, seats=4)
    for i in range(8):
        t.register(ctx, player=f"P{i}")
    t.start(ctx)
    first = tf.show(ctx, json=True).data["tables"][0]["seats"]
    t.bust(ctx, players=first[0]["player"])
    t.bust(ctx, players=first[1]["player"])
    reply = t.balance(ctx)  # 2 against 4: one player moves to table 1, whose button is unknown
    assert "-> table 1" in reply.text
    assert "Table 1: the seat was drawn (no button given" in reply.text


def store_nights(engine: Engine, player: str, dates: list[str]) -> None:
    records = [
        build_event(
            season="2026 Fall", location="Brewpub", date=d, kind="regular",
            finish=[["Zed"], [player]],
        )
        for d in dates
    ]  # fmt: skip
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test")
        import_events(records, session=s, league_id=league.id, actor="test", allow_new=True)


def test_2_c_b_2_new_player_chips_first_night_only(engine):
    store_nights(engine, "Bea Thornton", ["2026-11-10", "2026-11-17"])
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    reply = t.register(ctx, player="Bea Thornton", new_player=True)
    assert "18,000 chips" in reply.text
    assert "Not given: new player: 2 nights already stored; the chips are for the first " in (
        reply.text
    )
    first = t.register(ctx, player="Cal Newman", new_player=True)
    assert "22,000 chips" in first.text
    assert "new player 4,000" in first.text


def test_2_c_b_2_new_player_and_confirming_a_look_alike_name_are_separate(engine):
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="test")
        add_player(session=s, league_id=league.id, name="Jonathan Smyth", actor="test")
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    # The chips alone do not take a look-alike name; confirm alone gives no chips.
    with pytest.raises(RulingsError, match="looks like the existing player"):
        t.register(ctx, player="Jonathan Smith", new_player=True)
    plain = t.register(ctx, player="Jonathan Smith", confirm=True)
    assert "18,000 chips" in plain.text
    t.undo(ctx)
    both = t.register(ctx, player="Jonathan Smith", confirm=True, new_player=True)
    assert "22,000 chips" in both.text


def test_2_c_b_2_stack_gives_no_new_player_chips_to_a_returning_player(engine):
    store_nights(engine, "Bea Thornton", ["2026-11-10"])
    ctx = ctx_for(engine)
    returning = league_answers.stack(ctx, player="Bea Thornton", new_player=True)
    assert "1 night already stored" in returning.text + str(returning.fields)
    assert "18,000" in returning.title + returning.text
    new = league_answers.stack(ctx, player="Cal Newman", new_player=True)
    assert "22,000" in new.title + new.text


def test_open_warns_when_a_result_is_stored_for_the_same_bar_and_date(engine):
    store_nights(engine, "Bea Thornton", [NOW.date().isoformat()])
    reply = t.open(ctx_for(engine), location="Brewpub", tables=1)
    assert "a result is already stored for Brewpub on 2026-11-20" in reply.text
    assert "(/td correct)" in reply.text
    assert "event correct" not in reply.text
    assert "1 table." in reply.text  # not "1 tables"


def test_open_says_nothing_when_no_result_is_stored_that_night(engine):
    store_nights(engine, "Bea Thornton", ["2026-11-13"])
    reply = t.open(ctx_for(engine), location="Brewpub")
    assert "already stored" not in reply.text


def test_a_stored_result_refuses_the_finish_naming_the_surfaces_command(engine):
    store_nights(engine, "Bea Thornton", [NOW.date().isoformat()])
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob"):
        t.register(ctx, player=name)
    t.start(ctx)
    with pytest.raises(RulingsError, match=r"correct that event \(/td correct\)"):
        tf.finish(ctx, chips="Ann 20000, Bob 16000")


def test_1_e_d_late_extras_are_reported_not_given_early_as_birthday(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob"):
        t.register(ctx, player=name)
    t.start(ctx)
    reply = t.register(ctx, player="Cy", early=True, birthday=True, big_blind=600)
    assert "16,800 chips" in reply.text
    assert "Not given: signed in early: late players get no extra chips (1.E.d)" in reply.text
    assert "Not given: birthday event: late players get no extra chips (1.E.d)" in reply.text


def test_1_e_d_a_late_big_blind_not_in_the_structure_is_refused_with_the_valid_ones(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob"):
        t.register(ctx, player=name)
    t.start(ctx)
    stored = log_length(engine)
    with pytest.raises(RulingsError) as refused:
        t.register(ctx, player="Cy", big_blind=700)
    message = str(refused.value)
    assert "\n" not in message
    assert "700 is not a big blind of the btown structure" in message
    assert "200, 400, 600, 800, 1,000, 2,000" in message
    assert log_length(engine) == stored


def test_start_in_the_console_names_the_command_not_a_button(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for name in ("Ann", "Bob"):
        t.register(ctx, player=name)
    reply = t.start(ctx)
    assert reply.buttons == ()
    assert "the button" not in reply.text
    assert "/clock start btown" in reply.text


def test_finish_points_group_digits_as_everywhere(engine):
    ctx = ctx_for(engine)
    t.open(ctx, location="Brewpub")
    for i in range(10):
        t.register(ctx, player=f"P{i}")
    t.start(ctx)
    done = tf.finish(ctx, chips=", ".join(f"P{i} {1000 * (i + 1)}" for i in range(10)))
    points = done.fields[0].value
    assert re.search(r"1st P9: \d{1,3}(,\d{3})* RP, \d{1,3}(,\d{3})* BP", points)
    assert " / " not in points

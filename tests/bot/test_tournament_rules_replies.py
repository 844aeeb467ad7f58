"""Issue 19: /tournament applies the book the same way everywhere, and says what it did."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from bot.command.model import Context, Surface
from bot.config import Settings
from bot.database import Database
from bot.features.league import handlers as league_answers
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
    first = t.show(ctx, json=True).data["tables"][0]["seats"]
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

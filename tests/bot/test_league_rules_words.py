"""Issue 19: /toc and /standings say the book's numbers once, and name unknown players."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

import rulings
from bot.command.model import Context
from bot.config import Settings
from bot.database import Database
from bot.features.league import handlers as league_answers
from rulings import build_event
from storage.db import create_schema, make_engine, session_scope
from storage.errors import NotFound
from storage.event_import import import_events
from storage.leagues import ensure_league

NOW = dt.datetime(2026, 11, 25, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def engine(tmp_path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'league.db'}")
    create_schema(eng)
    record = build_event(
        season="2026 Fall", location="Brewpub", date="2026-11-20", kind="regular",
        finish=[["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]], bounties={"Alice": 2},
    )  # fmt: skip
    with session_scope(eng) as s:
        league = ensure_league(session=s, actor="test", now=NOW)
        import_events([record], session=s, league_id=league.id, actor="test", allow_new=True)
    yield eng
    eng.dispose()


def ctx_for(engine: Engine) -> Context:
    return Context(
        surface="cli",
        settings=Settings(_env_file=None),
        db=Database(engine),
        actor="cli",
        now=lambda: NOW,
    )


def test_4_d_toc_short_wording_comes_from_the_json_values(engine):
    ctx = ctx_for(engine)
    (row,) = league_answers.toc(ctx, player="Alice", json=True).data
    reply = league_answers.toc(ctx, player="Alice")
    rp, bp = row["rp_short"], row["bp_short"]
    assert f"Short: {rp:,} RP and " in reply.text
    assert f", or {bp:,} BP by conversion" in reply.text
    assert reply.text.count("Short") == 1


def test_toc_staff_honours_player_and_refuses_unknown_names(engine):
    ctx = ctx_for(engine)
    one = league_answers.toc(ctx, player="Bob", staff=("Eve",), json=True).data
    assert [r["player"] for r in one] == ["Bob"]
    everyone = league_answers.toc(ctx, staff=("Eve",), json=True).data
    assert next(r for r in everyone if r["player"] == "Eve")["status"] == "qualified"
    with pytest.raises(NotFound, match="there is no player 'Evee'; did you mean 'Eve'"):
        league_answers.toc(ctx, staff=("Evee",), json=True)
    with pytest.raises(NotFound, match="there is no player 'Bobb'; did you mean 'Bob'"):
        league_answers.toc(ctx, player="Bobb", staff=("Eve",))


def test_a_player_who_does_not_exist_is_named_as_such_not_as_pointless(engine):
    ctx = ctx_for(engine)
    for ask in (league_answers.toc, league_answers.standings):
        with pytest.raises(NotFound, match="there is no player 'Bea'") as info:
            ask(ctx, player="Bea")
        assert "has no points" not in str(info.value)


def test_a_bad_receipt_amount_names_the_amount_once(engine):
    from bot.features.td import handlers as td

    with pytest.raises(rulings.EventFormatError) as refused:
        td.receipt(ctx_for(engine), event=1, player="Alice", amount="abc")
    assert str(refused.value).startswith("receipt: amount 'abc' is not a dollar amount")
    assert "amount: amount" not in str(refused.value)


def test_an_award_for_a_look_alike_of_a_player_asks_did_you_mean():
    record = build_event(
        season="2026 Fall", location="Brewpub", date="2026-11-20", kind="regular",
        finish=[["Alice"], ["Bob"]], bounties={"Alcie": 1},
    )  # fmt: skip
    with pytest.raises(rulings.EventFormatError) as refused:
        rulings.check_awards(record)
    assert str(refused.value) == (
        "bounties: Alcie did not play this event; did you mean 'Alice'? If not, add Alcie to "
        "played first"
    )


def test_the_console_shows_mentions_as_words_and_no_live_update_promise(engine):
    from bot.features.clock.wording import status_reply
    from bot.reply import Reply

    assert Reply("Linked", "<@123> is linked").to_plain() == "Linked\n\nmember 123 is linked"
    record = _clock_record(engine)
    assert "updated every 30 seconds" in (status_reply(record, NOW).footer or "")
    assert "updated every" not in (status_reply(record, NOW, live=False).footer or "")


def _clock_record(engine: Engine):
    from storage.clocks import add_clock

    with session_scope(engine) as s:
        return add_clock(
            session=s, guild_id=1, channel_id=9, structure="btown", started_at=NOW, created_by=7
        )

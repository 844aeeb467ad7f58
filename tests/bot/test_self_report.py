"""A player's own bust (/out, "I'm out") through the handlers, on a real database.

The console has no Discord member, so ``/out`` is Discord's; here its handlers run with a
``Context`` as the Discord runner makes it (``user_id`` set, a director's or not). The whole
path through the fake Discord is ``tests/bot/test_self_report_discord.py``.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from bot.command.model import Context
from bot.config import Settings
from bot.database import Database
from bot.errors import BadOption
from bot.features.tournament import finish as tf
from bot.features.tournament import handlers as t
from bot.features.tournament import reports
from bot.features.tournament import views as tv
from bot.reply import Reply
from rulings import Chart, RulingsError, TournamentError
from storage.audit import list_audit
from storage.db import create_schema, make_engine, session_scope
from storage.errors import AlreadyExists, NotFound
from storage.guild_settings import ensure_guild_league, update_guild_settings
from storage.leagues import add_location
from storage.player_links import link_player
from storage.players import add_player
from storage.seasons import add_season
from storage.tournaments import get_open_tournament

NOW = dt.datetime(2026, 11, 20, 23, 0, tzinfo=dt.UTC)
GUILD = 900_000_000_000_000_100
CHANNEL = 900_000_000_000_000_200
RESULTS = 900_000_000_000_000_300
TD, DAN, EVE, ZED = 11, 21, 22, 23


@pytest.fixture
def engine(tmp_path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'night.db'}")
    create_schema(eng)
    with session_scope(eng) as s:
        league = ensure_guild_league(session=s, guild_id=GUILD, actor="test")
        add_location(session=s, league_id=league.id, name="Brewpub", actor="test")
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="test")
        for name, member in (("Dan", DAN), ("Eve", EVE)):
            add_player(session=s, league_id=league.id, name=name, allow_new=True, actor="test")
            link_player(session=s, league_id=league.id, discord_id=member, name=name, actor="t")
        add_player(session=s, league_id=league.id, name="Ann", allow_new=True, actor="test")
    yield eng
    eng.dispose()


def setting(engine: Engine, *, on: bool) -> None:
    with session_scope(engine) as s:
        update_guild_settings(
            session=s, guild_id=GUILD, actor="test", self_report=on, results_channel_id=RESULTS
        )


def director(engine: Engine) -> Context:
    return Context(
        surface="discord",
        settings=Settings(_env_file=None),
        db=Database(engine),
        guild_id=GUILD,
        actor=f"discord:{TD}:tdmike",
        user_id=TD,
        channel_id=CHANNEL,
        now=lambda: NOW,
        extras={"rng": random.Random(1), "display_name": "TD Mike"},
    )


def member(engine: Engine, user_id: int, name: str) -> Context:
    return replace(
        director(engine),
        actor=f"discord:{user_id}:{name}",
        user_id=user_id,
        is_director=False,
        is_manager=False,
        channel_id=CHANNEL + 1,  # /out works from any channel of the server
        extras={"display_name": name},
    )


def night(engine: Engine) -> dict[str, Reply]:
    """Ann, Dan and Eve signed in and playing; the sign-in replies by name."""
    td = director(engine)
    t.open(td, "Brewpub")
    signed = {name: t.register(td, name) for name in ("Ann", "Dan", "Eve")}
    t.start(td)
    return signed


def dump(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as conn:
        return {
            name: [tuple(r) for r in conn.execute(text(f"select * from {name}"))]
            for name in ("tournament", "tournament_entry", "bust_report", "audit_log")
        }


def chart(engine: Engine) -> Chart:
    with session_scope(engine) as s:
        return get_open_tournament(session=s, channel_id=CHANNEL).night.chart


def posted(reply: Reply) -> Reply:
    """The report's post for the directors (the reply's announce effect)."""
    (effect,) = reply.effects
    assert effect.kind == "announce"
    post: Reply = effect.value
    return post


def button(reply: Reply, label: str) -> tuple[str, ...]:
    """The arguments a button's custom id carries (after ``pf:<action>:``)."""
    (found,) = [b for b in reply.buttons if b.label == label]
    return tuple(found.custom_id.split(":")[2:])


def test_the_seat_message_has_an_im_out_button_only_when_the_league_says_so(engine):
    setting(engine, on=False)
    td = director(engine)
    t.open(td, "Brewpub")
    assert t.register(td, "Ann").buttons == ()
    setting(engine, on=True)
    reply = t.register(td, "Dan")
    ((label, custom_id),) = [(b.label, b.custom_id) for b in reply.buttons]
    with session_scope(engine) as s:
        record = get_open_tournament(session=s, channel_id=CHANNEL)
    assert (label, custom_id) == ("I'm out", f"pf:out:{record.id}:{record.seq}")


def test_out_is_refused_while_the_league_has_it_off(engine):
    setting(engine, on=False)
    night(engine)
    before = dump(engine)
    with pytest.raises(BadOption, match="tell a director"):
        reports.out(member(engine, DAN, "dan"))
    assert dump(engine) == before


def test_a_report_is_pending_counts_for_nothing_and_reaches_the_directors(engine):
    setting(engine, on=True)
    night(engine)
    before = chart(engine)
    reply = reports.out(member(engine, DAN, "dan"))
    assert reply.private
    assert "a director will confirm" in reply.text
    post = posted(reply)
    assert "**Dan** (table 1 seat" in post.text
    assert f"<@{DAN}>" in (post.footer or "")
    assert [b.label for b in post.buttons] == ["Confirm", "Reject"]
    assert all(b.custom_id.startswith("pf:bust_report:") for b in post.buttons)
    assert chart(engine) == before  # seats, players left and finish order unchanged
    status = tv.status(director(engine))
    assert "Players left: 3" in status.text
    assert "Dan" in status.fields[-1].value
    # Twice is one pending report.
    rows = dump(engine)["bust_report"]
    with pytest.raises(AlreadyExists, match="reported already"):
        reports.out(member(engine, DAN, "dan"))
    assert dump(engine)["bust_report"] == rows == rows[:1]


def test_the_button_reports_for_its_own_player_only(engine):
    setting(engine, on=True)
    signed = night(engine)
    args = button(signed["Dan"], "I'm out")
    before = dump(engine)
    with pytest.raises(BadOption, match="That is Dan's seat"):
        reports.out_button(member(engine, EVE, "eve"), *args)
    with pytest.raises(BadOption, match="/me link"):
        reports.out_button(member(engine, ZED, "zed"), *args)
    with pytest.raises(BadOption, match="out of date"):
        reports.out_button(member(engine, DAN, "dan"), "x", "1")
    assert dump(engine) == before
    reply = reports.out_button(member(engine, DAN, "dan"), *args)
    assert "**Dan**" in posted(reply).text


def test_someone_not_seated_cannot_report(engine):
    setting(engine, on=True)
    td = director(engine)
    t.open(td, "Brewpub")
    t.register(td, "Ann")
    t.register(td, "Dan")
    before = dump(engine)
    with pytest.raises(TournamentError, match="play has not begun"):
        reports.out(member(engine, DAN, "dan"))
    with pytest.raises(BadOption, match="not signed in"):
        reports.out(member(engine, EVE, "eve"))
    assert dump(engine) == before
    t.register(td, "Eve")
    t.start(td)
    t.bust(td, "Eve")
    with pytest.raises(TournamentError, match="busted in position 3"):
        reports.out(member(engine, EVE, "eve"))


def test_confirm_is_an_ordinary_bust_with_both_names_audited_and_undo(engine):
    setting(engine, on=True)
    night(engine)
    post = posted(reports.out(member(engine, DAN, "dan")))
    td = replace(director(engine), channel_id=RESULTS)  # pressed in the results channel
    with pytest.raises(BadOption, match="out of date"):
        reports.report_decision(td, "maybe", "1")
    answered = reports.report_decision(td, *button(post, "Confirm"))
    assert answered.title == "Bust confirmed"
    assert "Confirmed by TD Mike" in answered.text
    assert "**Dan**: 3rd" in answered.text  # /tournament bust's own words
    assert answered.buttons == ()
    assert "dan" not in chart(engine).seated
    assert dump(engine)["bust_report"] == []
    with session_scope(engine) as s:
        league = ensure_guild_league(session=s, guild_id=GUILD, actor="test")
        audit = list_audit(session=s, league_id=league.id)
    confirm = next(a for a in audit if a.action == "tournament bust report confirm")
    bust = next(a for a in audit if a.action == "tournament bust")
    assert confirm.actor == bust.actor == f"discord:{TD}:tdmike"
    assert confirm.before is not None
    assert confirm.before["reported_by"] == f"discord:{DAN}:dan"
    # A second press finds it done and writes nothing.
    before = dump(engine)
    with pytest.raises(NotFound, match="answered already"):
        reports.report_decision(td, *button(post, "Confirm"))
    assert dump(engine) == before
    assert "the bust of Dan" in t.undo(director(engine)).text
    assert "dan" in chart(engine).seated


def test_reject_drops_the_report_audited_and_nothing_else(engine):
    setting(engine, on=True)
    night(engine)
    before = chart(engine)
    post = posted(reports.out(member(engine, DAN, "dan")))
    td = replace(director(engine), channel_id=RESULTS)
    answered = reports.report_decision(td, *button(post, "Reject"))
    assert answered.title == "Bust report rejected"
    assert "Dan stays in: rejected by TD Mike" in answered.text
    assert chart(engine) == before
    assert dump(engine)["bust_report"] == []
    with session_scope(engine) as s:
        league = ensure_guild_league(session=s, guild_id=GUILD, actor="test")
        last = list_audit(session=s, league_id=league.id)[0]
    assert (last.action, last.actor) == ("tournament bust report reject", f"discord:{TD}:tdmike")
    assert "Dan" not in str(tv.status(director(engine)).fields)


def test_a_stale_report_cannot_be_confirmed(engine):
    setting(engine, on=True)
    night(engine)
    td = director(engine)
    post = posted(reports.out(member(engine, DAN, "dan")))
    t.bust(td, "Dan")  # the director recorded it himself meanwhile
    before = dump(engine)
    with pytest.raises(TournamentError, match=r"Nothing to confirm: Dan is not at a table"):
        reports.report_decision(td, *button(post, "Confirm"))
    assert dump(engine) == before
    assert "Dan" not in str(tv.status(td).fields)  # a report of a busted player is not listed
    post = posted(reports.out(member(engine, EVE, "eve")))
    tf.finish(td, chips="Ann 30000, Eve 24000")
    with pytest.raises(RulingsError, match="tournament has finished"):
        reports.report_decision(td, *button(post, "Confirm"))
    assert reports.report_decision(td, *button(post, "Reject")).title == "Bust report rejected"

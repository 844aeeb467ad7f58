"""End to end: the sign-in form, the receipt photo, context menus, user install (Discord).

The bust form is in test_forms_bust_discord.py (it needs play started: its own night).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import text
from sqlmodel import Session

from bot.features import find
from bot.surfaces.discord import LeagueBot
from bot.surfaces.discord.forms import CHECKS, build_modal, field_layout, read_submission
from storage.events import get_event, list_events
from storage.leagues import league_for
from storage.player_links import link_player
from storage.players import add_player
from tests.bot.conftest import make_bot
from tests.fakediscord import (
    EPHEMERAL,
    GUILD_ID,
    MANAGE_GUILD,
    FakeDiscord,
    start_bot,
    stop_bot,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

DIRECTOR_ID = 900_000_000_000_000_421
ANN_MEMBER = 900_000_000_000_000_621
PLAYERS = ("Ann", "Bob", "Cy", "Dee", "Jonathan Smith")
BOSS: dict[str, Any] = {"user_id": DIRECTOR_ID, "permissions": MANAGE_GUILD, "username": "tdmike"}


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    footer = (embed.get("footer") or {}).get("text") or ""
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields, footer])


def _private(message: dict[str, Any]) -> bool:
    return bool(int(message.get("flags") or 0) & EPHEMERAL)


async def _director(fake: FakeDiscord, command: str, sub: list[str], **options: Any) -> Any:
    it = await fake.interact(command, options, sub=sub, **BOSS)
    return await it.settled()


async def _signed_in(bot: LeagueBot) -> list[str]:
    """Every entry of the night's log (a sign-in, a bust ...), as stored."""

    def rows(*, session: Session) -> list[str]:
        found = session.execute(text("select kind, data from tournament_entry order by seq"))
        return [f"{r[0]} {r[1]}" for r in found]

    return await bot.db.run(rows)


async def _open_night(bot: LeagueBot) -> dict[str, Any]:
    def record(*, session: Session) -> dict[str, Any]:
        from storage.tournaments import get_open_tournament
        from tests.fakediscord import CHANNEL_ID

        night = get_open_tournament(session=session, channel_id=CHANNEL_ID).night
        return {night.chart.name(k): k in night.chart.seated for k in night.chart.players}

    return await bot.db.run(record)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def league(fake: FakeDiscord, bot: LeagueBot) -> None:
    await _director(fake, "td", ["season", "add"], name="2026 Fall")
    await _director(fake, "td", ["location", "add"], name="Brewpub")

    def players(*, session: Session) -> None:
        league = league_for(session=session, guild_id=GUILD_ID)
        now = dt.datetime.now(dt.UTC)
        for name in PLAYERS:
            add_player(session=session, league_id=league.id, name=name, actor="test", now=now)
        link_player(
            session=session, league_id=league.id, discord_id=ANN_MEMBER, name="Ann", actor="test"
        )

    await bot.db.run(players)
    opened = await _director(fake, "tournament", ["open"], location="Brewpub", seats=6, tables=1)
    assert "Tournament open" in _text(opened)


async def _register_form(fake: FakeDiscord, **options: Any) -> tuple[Any, dict[str, Any]]:
    it = await fake.interact("tournament", options, sub=["register"], **BOSS)
    body = await it.response()
    assert body["type"] == 9, body  # MODAL
    return it, body["data"]


async def test_register_with_no_player_answers_a_form_built_from_its_options(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    _, modal = await _register_form(fake)
    assert modal["custom_id"] == "pf:form:tournament.register"
    fields = {c["component"]["custom_id"]: c["component"] for c in modal["components"]}
    command = find(("tournament", "register"))
    assert list(fields) == [cid for cid, _ in field_layout(command)]
    assert fields["player"]["type"] == 3  # a string select of the league's players
    signed = set(await _open_night(bot))  # nobody already signed in is offered again
    offered = {o["value"] for o in fields["player"]["options"]}
    assert offered >= set(PLAYERS) - signed
    assert not offered & signed
    assert fields[CHECKS]["type"] == 22  # the checkboxes
    assert [o["value"] for o in fields[CHECKS]["options"]] == [
        "early",
        "on_time",
        "birthday",
        "new_player",
        "confirm",
    ]
    typed = fields["player.typed"]  # a name the list lacks, typed in the form itself
    assert typed["type"] == 4
    assert not typed["required"]  # the list or this: checked on submit
    assert not fields["player"]["required"]
    labels = {c["component"]["custom_id"]: c["label"] for c in modal["components"]}
    assert labels["player.typed"] == "Or type a name"
    assert fields["brought"]["type"] == 4  # a number typed, checked by bind on submit
    assert fields["brought"]["value"] == "0"


async def test_submitting_the_form_signs_the_player_in_once(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    _, modal = await _register_form(fake)
    answers = {"player": ["Bob"], CHECKS: ["early", "on_time"], "brought": "1"}
    first = await fake.submit_modal(modal, answers, **BOSS)
    shown = _text(await first.settled())
    assert "Signed in" in shown
    assert "Bob" in shown
    assert (await _open_night(bot)).get("Bob") is True
    count = len(await _signed_in(bot))

    # The same form submitted again (a double tap, a retry): one sign-in, one line.
    again = await fake.submit_modal(modal, answers, **BOSS)
    body = await again.settled()
    assert _private(body)
    assert "already signed in" in _text(body)
    assert len(await _signed_in(bot)) == count


async def test_a_form_survives_a_restart(
    fake: FakeDiscord, bot: LeagueBot, db_url: str, league: None
):
    _, modal = await _register_form(fake)
    other = make_bot(fake, db_url)  # another instance answers the form the first one opened
    try:
        await start_bot(fake, other)
        it = await fake.submit_modal(modal, {"player": ["Cy"]}, **BOSS)
        assert "Signed in" in _text(await it.settled())
    finally:
        await stop_bot(other)
        other.engine.dispose()
    assert (await _open_night(bot)).get("Cy") is True


async def test_a_bad_number_in_the_form_is_one_line_and_nothing_written(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    _, modal = await _register_form(fake)
    before = await _signed_in(bot)
    it = await fake.submit_modal(modal, {"player": ["Dee"], "brought": "lots"}, **BOSS)
    body = await it.settled()
    assert _private(body)
    assert "brought: 'lots' is not a whole number" in _text(body)
    assert await _signed_in(bot) == before


async def test_a_form_with_no_player_is_one_line(fake: FakeDiscord, bot: LeagueBot, league: None):
    _, modal = await _register_form(fake)
    before = await _signed_in(bot)
    it = await fake.submit_modal(modal, {CHECKS: ["early"]}, **BOSS)  # no name picked or typed
    body = await it.settled()
    assert _private(body)
    line = (body["embeds"][0].get("description") or "").replace("\\", "").strip()
    assert line == "player: is required; pick one in the list or type one in the form."
    assert await _signed_in(bot) == before


async def test_a_name_typed_in_the_form_signs_a_walk_in_in(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    _, modal = await _register_form(fake)
    assert "Walk-in Wally" not in [
        o["value"] for o in modal["components"][0]["component"]["options"]
    ]
    answers = {"player.typed": "  Walk-in   Wally ", CHECKS: ["new_player"]}
    it = await fake.submit_modal(modal, answers, **BOSS)
    shown = _text(await it.settled())
    assert "Signed in" in shown
    assert "Walk-in Wally" in shown
    assert (await _open_night(bot)).get("Walk-in Wally") is True
    count = len(await _signed_in(bot))

    again = await fake.submit_modal(modal, answers, **BOSS)  # a double tap: one sign-in
    body = await again.settled()
    assert _private(body)
    assert "already signed in" in _text(body)
    assert len(await _signed_in(bot)) == count


async def test_a_name_both_picked_and_typed_is_one_line_and_nothing_written(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    _, modal = await _register_form(fake)
    before = await _signed_in(bot)
    it = await fake.submit_modal(modal, {"player": ["Dee"], "player.typed": "Eve"}, **BOSS)
    body = await it.settled()
    assert _private(body)
    line = (body["embeds"][0].get("description") or "").replace("\\", "").strip()
    assert line == "player: pick one in the list or type one, not both (Dee and Eve)."
    assert await _signed_in(bot) == before
    night = await _open_night(bot)
    assert "Dee" not in night
    assert "Eve" not in night


async def test_a_typed_name_like_a_known_player_needs_the_confirm_box(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    _, modal = await _register_form(fake)
    before = await _signed_in(bot)
    it = await fake.submit_modal(modal, {"player.typed": "Jonathon Smith"}, **BOSS)
    body = await it.settled()
    assert _private(body)
    shown = _text(body)
    assert "'Jonathon Smith' looks like the existing player 'Jonathan Smith'" in shown
    assert "or confirm 'Jonathon Smith' is a new player" in shown  # the form's Confirm box
    assert await _signed_in(bot) == before

    _, modal = await _register_form(fake)
    confirmed = {"player.typed": "Jonathon Smith", CHECKS: ["confirm"]}
    it = await fake.submit_modal(modal, confirmed, **BOSS)
    assert "Signed in" in _text(await it.settled())
    night = await _open_night(bot)
    assert night.get("Jonathon Smith") is True
    assert "Jonathan Smith" not in night


async def test_a_player_cannot_open_the_directors_form(fake: FakeDiscord, league: None):
    it = await fake.interact("tournament", {}, sub=["register"])
    body = await it.settled()
    assert _private(body)
    assert (await it.response())["type"] != 9


async def test_options_given_with_the_command_fill_the_form_in(fake: FakeDiscord, league: None):
    _, modal = await _register_form(fake, birthday=True, brought=2)
    fields = {c["component"]["custom_id"]: c["component"] for c in modal["components"]}
    ticked = [o["value"] for o in fields[CHECKS]["options"] if o["default"]]
    assert ticked == ["birthday"]
    assert fields["brought"]["value"] == "2"


async def test_a_receipt_photo_that_is_not_an_image_is_refused(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    text_file = fake.add_attachment("receipt.txt", b"not a photo", "text/plain")

    def receipts(*, session: Session) -> int:
        stored = session.execute(text("select count(*) from receipt")).scalar_one()
        audited = session.execute(text("select count(*) from audit_log")).scalar_one()
        return int(stored) + int(audited)

    before = await bot.db.run(receipts)
    it = await fake.interact(
        "td",
        {"event": 1, "player": "Ann", "amount": "12.50", "photo": text_file["id"]},
        sub=["receipt"],
        option_types={"photo": 11},
        resolved={"attachments": {text_file["id"]: text_file}},
        **BOSS,
    )
    body = await it.settled()
    assert _private(body)
    assert "photo: receipt.txt is not an image" in _text(body)
    assert "\n" not in (body["embeds"][0].get("description") or "").strip()
    assert await bot.db.run(receipts) == before


async def test_find_rule_on_a_message_answers_privately(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.context_menu(
        "Find rule", target_message={"content": "is one oversized chip a call or a raise?"}
    )
    body = await it.settled()
    assert _private(body)
    assert "oversized" in _text(body).lower()


async def test_player_card_on_a_member_shows_his_standing_privately(
    fake: FakeDiscord, league: None
):
    stored = await _director(
        fake, "td", ["result"], finish="1 Ann, 2 Bob", location="Brewpub", date="2026-10-02"
    )
    assert "Ann" in _text(stored)
    await _director(fake, "td", ["strike"], player="Ann", level=1, reason="left early")
    it = await fake.context_menu(
        "Player card", target_user={"id": ANN_MEMBER, "username": "ann"}, **BOSS
    )
    body = await it.settled()
    assert _private(body)
    shown = _text(body)
    assert "Ann, 2026 Fall" in shown
    assert "**#1** of 2" in shown  # her standing
    assert "TOC: **" in shown
    assert "Strike 1 (2026 Fall): left early" in shown
    assert "left early" in shown


async def test_player_card_on_a_member_not_linked_is_one_line(fake: FakeDiscord, league: None):
    it = await fake.context_menu("Player card", target_user={"id": 42, "username": "stranger"})
    body = await it.settled()
    assert _private(body)
    assert "not linked to a player" in _text(body)


async def test_synced_commands_carry_where_they_may_be_installed(fake: FakeDiscord, bot: LeagueBot):
    synced = {(c.get("type", 1), c["name"]): c for c in fake.commands["global"]}
    for name in ("hand", "rule"):
        assert sorted(synced[(1, name)]["integration_types"]) == [0, 1]
        assert sorted(synced[(1, name)]["contexts"]) == [0, 1, 2]
    for name in ("tournament", "td", "standings", "toc", "me", "clock", "night"):
        assert synced[(1, name)]["integration_types"] == [0], name
        assert synced[(1, name)]["contexts"] == [0], name
    assert synced[(3, "Find rule")]["integration_types"] == [0, 1]
    assert synced[(2, "Player card")]["contexts"] == [0]


async def test_rule_in_a_direct_message_uses_the_bundled_books(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("rule", {"query": "oversized chip"}, guild_id=None)
    body = await it.settled()
    assert "oversized" in _text(body).lower()


async def test_a_league_command_in_a_direct_message_is_refused(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("standings", {}, guild_id=None)
    body = await it.settled()
    assert "only inside a league's server" in _text(body)


async def _stored_event(fake: FakeDiscord, bot: LeagueBot, day: str) -> int:
    stored = await _director(
        fake, "td", ["result"], finish="1 Ann, 2 Bob", location="Brewpub", date=day
    )
    assert "Ann" in _text(stored)

    def newest(*, session: Session) -> int:
        league = league_for(session=session, guild_id=GUILD_ID)
        return max(e.id for e in list_events(session=session, league_id=league.id))

    return int(await bot.db.run(newest))


async def test_the_receipt_form_takes_a_photo_upload(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    event = await _stored_event(fake, bot, "2026-10-03")
    it = await fake.interact("td", {"event": event}, sub=["receipt"], **BOSS)
    body = await it.response()
    assert body["type"] == 9
    modal = body["data"]
    fields = {c["component"]["custom_id"]: c["component"] for c in modal["components"]}
    assert list(fields) == ["event", "player", "amount", "ref", "photo"]
    assert fields["event"]["value"] == str(event)  # given with the command: filled in
    assert fields["photo"]["type"] == 19  # a file upload

    # A file that is not an image: one line, nothing written.
    pdf = fake.add_attachment("receipt.pdf", b"%PDF-1.4", "application/pdf")
    refused = await fake.submit_modal(
        modal,
        {"player": ["Ann"], "amount": "12.50", "ref": "R-77", "photo": [pdf["id"]]},
        resolved={"attachments": {pdf["id"]: pdf}},
        **BOSS,
    )
    body = await refused.settled()
    assert _private(body)
    assert "photo: receipt.pdf is not an image" in _text(body)

    def receipts(*, session: Session) -> list[Any]:
        league = league_for(session=session, guild_id=GUILD_ID)
        return list(
            get_event(session=session, league_id=league.id, event_id=event).record.get("receipts")
            or []
        )

    assert await bot.db.run(receipts) == []

    photo = fake.add_attachment("receipt.jpg", b"\xff\xd8 fake jpeg", "image/jpeg")
    done = await fake.submit_modal(
        modal,
        {"player": ["Ann"], "amount": "12.50", "ref": "R-77", "photo": [photo["id"]]},
        resolved={"attachments": {photo["id"]: photo}},
        **BOSS,
    )
    assert "240 BP" in _text(await done.settled())  # 1.C.b: 20 BP a full dollar
    (kept,) = await bot.db.run(receipts)
    assert kept["image_url"] == photo["url"]  # the receipt's evidence link


async def test_an_option_the_form_does_not_ask_is_not_dropped(fake: FakeDiscord, league: None):
    it = await fake.interact("tournament", {"big_blind": 400}, sub=["register"], **BOSS)
    body = await it.settled()
    assert _private(body)
    shown = _text(body).replace("\\", "")  # the message is escaped for Discord's markdown
    assert "big_blind: give player too, or leave big_blind out to use the form." in shown


async def test_hand_and_rule_work_in_a_server_without_the_bot(fake: FakeDiscord, bot: LeagueBot):
    # Installed on a member's own account, used in a server that has no league here.
    elsewhere = 900_000_000_000_000_177
    rule = await fake.interact("rule", {"query": "oversized chip"}, guild_id=elsewhere)
    assert "oversized" in _text(await rule.settled()).lower()
    hand = await fake.interact(
        "hand", {"cards": "As Ks vs Qh Qd", "board": "2c 7d 9h Jc 3s"}, guild_id=None
    )
    assert "Player 2 wins" in _text(await hand.settled())


async def test_a_league_with_nobody_to_pick_still_gets_the_form_to_type_a_name():
    # The league's first night: no player yet, so no list, only the field to type a name.
    modal = build_modal(find(("tournament", "register")), {"player": []}, {}).to_dict()
    ids = [c["component"]["custom_id"] for c in modal["components"]]
    assert ids == ["player.typed", CHECKS, "brought"]
    typed = read_submission(
        find(("tournament", "register")),
        {"components": [{"type": 18, "component": {"custom_id": "player.typed", "value": "Ann"}}]},
    )
    assert typed == {"player": "Ann"}

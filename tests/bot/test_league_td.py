"""End to end: /td director commands through the real client and the fake Discord.

Each test owns a Discord server of its own (``guild``: its settings name the director role and
the results channel; ``league``: one night already recorded there), so any test passes alone
and in any order.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import func, select
from sqlmodel import Session

import rulings
from bot.surfaces.discord import LeagueBot
from storage.audit import list_audit
from storage.event_changes import record_guild_events
from storage.events import get_event, list_events
from storage.guild_settings import get_guild_settings, update_guild_settings
from storage.league_models import AuditEntry, League, Result
from storage.leagues import get_league
from tests.fakediscord import EPHEMERAL, GUILD_ID, MANAGE_GUILD, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

DIRECTOR_ROLE = 900_000_000_000_000_700
PING_ROLE = 900_000_000_000_000_701
RESULTS_CHANNEL = 900_000_000_000_000_800
DIRECTOR_ID = 900_000_000_000_000_401
BOSS_ID = 900_000_000_000_000_402


_GUILDS = itertools.count(GUILD_ID + 7_000)


@pytest_asyncio.fixture(loop_scope="module")
async def guild(bot: LeagueBot) -> int:
    """A server of this test's own, whose settings name the director role and results channel."""
    guild_id = next(_GUILDS)
    await bot.db.run(
        update_guild_settings,
        guild_id=guild_id,
        actor="test",
        director_role_id=DIRECTOR_ROLE,
        results_channel_id=RESULTS_CHANNEL,
        clock_ping_role_id=PING_ROLE,
    )
    return guild_id


@pytest_asyncio.fixture(loop_scope="module")
async def league(bot: LeagueBot, guild: int) -> int:
    """``guild`` with one night recorded: 1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve (Gus played)."""

    def build(rules: rulings.LeagueRules, current: str | None) -> list[Any]:
        return [
            rulings.build_event(
                season="2026 Fall",
                location="Brewpub",
                date=dt.date(2026, 11, 20),
                kind="regular",
                finish=rulings.parse_finish_text("1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve"),
                played=("Gus",),
                max_receipt_cents=rules.receipt_max_cents,
            )
        ]

    await bot.db.run(record_guild_events, guild_id=guild, build=build, actor="test", allow_new=True)
    return guild


def _flags(body: dict[str, Any]) -> int:
    return int(body.get("flags") or 0)


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    footer = (embed.get("footer") or {}).get("text") or ""
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields, footer])


def _role(role_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "color": 0,
        "hoist": False,
        "position": 1,
        "permissions": "0",
        "managed": False,
        "mentionable": True,
        "flags": 0,
    }


def _channel(channel_id: int, guild_id: int) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 0,
        "name": "results",
        "permissions": "0",
        "guild_id": str(guild_id),
    }


async def _counts(bot: LeagueBot) -> tuple[int, int, int]:
    def count(*, session: Session) -> tuple[int, int, int]:
        return tuple(  # type: ignore[return-value]
            int(session.execute(select(func.count()).select_from(t)).scalar_one())
            for t in (League, AuditEntry, Result)
        )

    return await bot.db.run(count)


async def td(
    fake: FakeDiscord, guild: int, sub: list[str], options: dict[str, Any], **kw: Any
) -> Any:
    kw.setdefault("guild_id", guild)
    kw.setdefault("user_id", DIRECTOR_ID)
    kw.setdefault("roles", [DIRECTOR_ROLE])
    kw.setdefault("username", "tdmike")
    return await fake.interact("td", options, sub=sub, **kw)


async def td_result_file(
    fake: FakeDiscord, guild: int, file: dict[str, Any], **options: Any
) -> Any:
    """``/td result`` with ``file`` attached: Discord sends its id and, resolved, its payload."""
    return await td(
        fake,
        guild,
        ["result"],
        {"file": file["id"], **options},
        option_types={"file": 11},
        resolved={"attachments": {file["id"]: file}},
    )


async def test_td_is_hidden_by_default_permissions(fake: FakeDiscord, bot: LeagueBot):
    td_cmd = next(c for c in fake.commands["global"] if c["name"] == "td")
    assert int(td_cmd["default_member_permissions"]) == MANAGE_GUILD
    subs = {o["name"] for o in td_cmd["options"]}
    assert {"result", "correct", "void", "bounty", "receipt", "settings", "season"} <= subs


async def test_player_is_refused_privately_and_nothing_is_written(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    before = await _counts(bot)
    it = await fake.interact(
        "td", {"finish": "1 Alice, 2 Bob", "location": "Brewpub"}, sub=["result"], guild_id=guild
    )
    data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL
    assert "Only the league's directors" in data["embeds"][0]["description"]
    assert await _counts(bot) == before
    # A role that is not the director role changes nothing either.
    other = await td(fake, guild, ["season", "add"], {"name": "2027 Spring"}, roles=[PING_ROLE])
    assert _flags((await other.response())["data"]) & EPHEMERAL
    assert await _counts(bot) == before


async def test_manager_sets_director_role_and_results_channel(fake: FakeDiscord, bot: LeagueBot):
    guild = next(_GUILDS)  # a server with nothing set yet
    posted_before = len(fake.messages.get(RESULTS_CHANNEL, []))
    it = await fake.interact(
        "td",
        {
            "director_role": str(DIRECTOR_ROLE),
            "results_channel": str(RESULTS_CHANNEL),
            "clock_ping_role": str(PING_ROLE),
        },
        sub=["settings"],
        guild_id=guild,
        user_id=BOSS_ID,
        username="owner",
        permissions=MANAGE_GUILD,
        option_types={"director_role": 8, "results_channel": 7, "clock_ping_role": 8},
        resolved={
            "roles": {
                str(DIRECTOR_ROLE): _role(DIRECTOR_ROLE, "TD"),
                str(PING_ROLE): _role(PING_ROLE, "Players"),
            },
            "channels": {str(RESULTS_CHANNEL): _channel(RESULTS_CHANNEL, guild)},
        },
    )
    reply = await it.settled()
    assert _flags(reply) & EPHEMERAL
    assert "Director role (changed)" in _text(reply)
    settings = await bot.db.run(get_guild_settings, guild_id=guild)
    assert settings.director_role_id == DIRECTOR_ROLE
    assert settings.results_channel_id == RESULTS_CHANNEL
    assert settings.clock_ping_role_id == PING_ROLE
    posted = await fake.wait_message(RESULTS_CHANNEL, posted_before + 1)
    assert posted["allowed_mentions"] == {"parse": []}


async def test_director_records_a_finish_with_a_tie_and_it_is_posted_and_audited(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    posted_before = len(fake.messages.get(RESULTS_CHANNEL, []))
    it = await td(
        fake,
        guild,
        ["result"],
        {
            "finish": "1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve",
            "location": "Brewpub",
            "season": "2026 Fall",
            "date": "2026-11-20",
            "played": "Gus",
        },
    )
    reply = await it.settled()
    assert it.ack_seconds is not None
    assert it.ack_seconds < 3.0
    text = _text(reply)
    assert not _flags(reply) & EPHEMERAL
    assert "Imported" in text
    # 2.G.e.2: Carol and Dave tied for 3rd share 3rd and 4th: 650 RP and 75 BP each.
    assert "T3 Carol: 650 RP, 75 BP" in text
    assert "T3 Dave: 650 RP, 75 BP" in text
    assert "1 more played without points" in text
    post = await fake.wait_message(RESULTS_CHANNEL, posted_before + 1)
    assert post["allowed_mentions"] == {"parse": []}
    assert "Recorded by tdmike" in _text(post)

    stored = await bot.db.run(get_league, guild_id=guild)
    audit = await bot.db.run(list_audit, league_id=stored.id)
    assert any(
        e.action == "event.import" and e.actor == f"discord:{DIRECTOR_ID}:tdmike" for e in audit
    )


async def test_likely_duplicate_name_gets_a_suggestion_and_nothing_is_written(
    fake: FakeDiscord, bot: LeagueBot, league: int
):
    guild = league
    before = await _counts(bot)
    it = await td(
        fake,
        guild,
        ["result"],
        {"finish": "1 Allice, 2 Bob", "location": "Brewpub", "date": "2026-11-27"},
    )
    reply = await it.settled()
    assert _flags(reply) & EPHEMERAL
    assert "'Allice' looks like the existing player 'Alice'" in _text(reply)
    assert await _counts(bot) == before
    ok = await td(
        fake,
        guild,
        ["result"],
        {
            "finish": "1 Allice, 2 Bob",
            "location": "Brewpub",
            "date": "2026-11-27",
            "new_players": "Allice",
        },
    )
    assert "Imported" in _text(await ok.settled())


async def test_awards_on_a_stored_event_recompute_its_points(
    fake: FakeDiscord, bot: LeagueBot, league: int
):
    guild = league
    stored = await bot.db.run(get_league, guild_id=guild)
    first = (await bot.db.run(list_events, league_id=stored.id))[0].id
    bounty = await td(fake, guild, ["bounty"], {"event": first, "player": "alice", "chips": 2})
    text = _text(await bounty.settled())
    assert "Alice: 1,300 RP, 250 BP" in text  # 1,200 + 2 bounty chips x 50 RP
    assert "Change: bounty chips of alice set to 2" in text

    photo = fake.add_attachment("receipt.png", b"\x89PNG fake", "image/png")
    receipt = await td(
        fake,
        guild,
        ["receipt"],
        {"event": first, "player": "Eve", "amount": "12.50", "ref": "R-1001", "photo": photo["id"]},
        option_types={"photo": 11},
        resolved={"attachments": {photo["id"]: photo}},
    )
    # 1.C.b: 20 BP for every full dollar: $12.50 earns 240 BP.
    assert "Eve: 500 RP, 240 BP" in _text(await receipt.settled())
    detail = await bot.db.run(get_event, league_id=stored.id, event_id=first)
    assert detail.record["receipts"][0]["image_url"] == photo["url"]

    again = await td(
        fake, guild, ["receipt"], {"event": first, "player": "Bob", "amount": "5", "ref": "R-1001"}
    )
    refused = await again.settled()
    assert _flags(refused) & EPHEMERAL
    assert "R-1001" in _text(refused)

    hand = await td(fake, guild, ["premium"], {"event": first, "player": "Bob", "hand": "quads"})
    assert "premium hand (quads) for Bob" in _text(await hand.settled())
    win = await td(fake, guild, ["second_chance"], {"event": first, "player": "Eve"})
    assert "Eve: 500 RP, 490 BP" in _text(await win.settled())
    # 6: an award names a player of the event; an unknown name creates nobody.
    nobody = await td(fake, guild, ["second_chance"], {"event": first, "player": "Frank"})
    assert "Frank did not play this event" in _text(await nobody.settled())
    # 3: remove:yes takes an award back, saying the points it removes.
    back = await td(
        fake, guild, ["receipt"], {"event": first, "player": "Eve", "ref": "r-1001", "remove": True}
    )
    assert "Points: Eve −240 BP" in _text(await back.settled())
    again = await td(
        fake, guild, ["receipt"], {"event": first, "player": "Eve", "ref": "R-1001", "remove": True}
    )
    gone = await again.settled()
    assert _flags(gone) & EPHEMERAL
    assert "there is no receipt R-1001" in _text(gone)


async def test_json_results_file_is_downloaded_and_imported(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    night = {
        "season": "2026 Fall",
        "location": "Brewpub",
        "date": "2026-11-27",
        "kind": "regular",
        "finish": [["Bob"], ["Alice"], ["Carol"]],
        "bounties": {"Bob": 1},
    }
    file = fake.add_attachment("night.json", json.dumps(night).encode())
    it = await td_result_file(fake, guild, file)
    text = _text(await it.settled())
    assert "Bob: 1,250 RP, 250 BP" in text
    csv_file = fake.add_attachment("night.csv", b"position,player\n1,Carol\n2,Dave\n", "text/csv")
    it = await td_result_file(fake, guild, csv_file, location="Brewpub", date="2026-11-28")
    assert "Carol: 1,200 RP, 250 BP" in _text(await it.settled())


async def test_oversized_or_malformed_files_are_refused_before_writing(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    before = await _counts(bot)
    big = fake.add_attachment("huge.json", b"{}")
    big["size"] = 5_000_000
    it = await td_result_file(fake, guild, big)
    reply = await it.settled()
    assert _flags(reply) & EPHEMERAL
    assert "at most 1,000,000" in _text(reply)
    bad = fake.add_attachment("bad.json", b'{"season": "2026 Fall", "finish": ')
    it = await td_result_file(fake, guild, bad)
    reply = await it.settled()
    assert _flags(reply) & EPHEMERAL
    assert "not valid JSON" in _text(reply)
    gone = fake.add_attachment("gone.json", b"{}")
    del fake.files[int(gone["id"])]  # the CDN answers 404
    it = await td_result_file(fake, guild, gone)
    reply = await it.settled()
    assert _flags(reply) & EPHEMERAL
    assert "could not download gone.json" in _text(reply)
    assert await _counts(bot) == before


async def test_correct_void_and_strike(fake: FakeDiscord, bot: LeagueBot, league: int):
    guild = league
    stored = await bot.db.run(get_league, guild_id=guild)
    events = await bot.db.run(list_events, league_id=stored.id)
    last = events[-1].id
    fixed = await td(
        fake,
        guild,
        ["correct"],
        {"event": last, "finish": "1 Dave, 2 Carol", "reason": "places swapped"},
    )
    text = _text(await fixed.settled())
    assert "Reason: places swapped" in text
    assert "Dave: 1,200 RP" in text

    void = await td(fake, guild, ["void"], {"event": last, "reason": "played on the wrong night"})
    assert "voided" in _text(await void.settled())
    assert (await bot.db.run(get_event, league_id=stored.id, event_id=last)).event.status == "void"

    strike = await td(fake, guild, ["strike"], {"player": "Bob", "level": 1, "reason": "slow play"})
    assert "Suspended for the next 3 events" in _text(await strike.settled())
    three = await td(fake, guild, ["strike"], {"player": "Bob", "level": 4, "reason": "x"})
    assert "strike level must be 1 to 3" in _text(await three.settled())


async def test_only_a_server_manager_changes_settings(
    fake: FakeDiscord, bot: LeagueBot, league: int
):
    guild = league
    look = await td(fake, guild, ["settings"], {})
    shown = await look.settled()
    assert _flags(shown) & EPHEMERAL
    assert f"<@&{DIRECTOR_ROLE}>" in _text(shown)
    change = await td(fake, guild, ["settings"], {"preset": "poker-pub"})
    refused = await change.settled()
    assert _flags(refused) & EPHEMERAL
    assert "Manage Server" in _text(refused)
    assert (await bot.db.run(get_guild_settings, guild_id=guild)).preset == "btown"


async def test_seasons_and_locations(fake: FakeDiscord, bot: LeagueBot, league: int):
    guild = league
    add = await td(fake, guild, ["season", "add"], {"name": "2027 Spring"})
    assert "2027 Spring" in _text(await add.settled())
    listed = await td(fake, guild, ["season", "list"], {})
    assert "2026 Fall" in _text(await listed.settled())
    near = await td(fake, guild, ["location", "add"], {"name": "Brew pub"})
    assert "looks like the existing" in _text(await near.settled())
    ok = await td(fake, guild, ["location", "add"], {"name": "Brew pub", "confirm": True})
    assert "Brew pub" in _text(await ok.settled())


async def test_director_autocomplete_lists_players(fake: FakeDiscord, bot: LeagueBot, league: int):
    guild = league
    it = await td(
        fake, guild, ["bounty"], {"event": 1, "player": "al", "chips": 1}, focused="player"
    )
    body = await it.response()
    names = [c["name"] for c in body["data"]["choices"]]
    assert names[:1] == ["Alice"]


async def test_td_in_a_direct_message_is_refused(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("td", {"name": "x"}, sub=["season", "add"], guild_id=None)
    data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL


async def test_typed_names_are_escaped_in_the_confirmation_and_the_post(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    posted_before = len(fake.messages.get(RESULTS_CHANNEL, []))
    it = await td(
        fake,
        guild,
        ["result"],
        {
            "finish": "1 **Bold** Bob, 2 ||Spoiler||, 3 `Tick`",
            "location": "Brew**pub**",
            "season": "2026 Fall",
            "date": "2026-11-20",
        },
    )
    text = _text(await it.settled())
    assert "\\*\\*Bold\\*\\* Bob: 1,200 RP" in text
    assert "\\|\\|Spoiler\\|\\|" in text
    assert "\\`Tick\\`" in text
    assert "Brew\\*\\*pub\\*\\*" in text
    assert "3 players" in text
    # Another test's post may still land in the shared channel: look for this one's.
    for count in range(posted_before + 1, posted_before + 4):
        post = await fake.wait_message(RESULTS_CHANNEL, count)
        if "\\*\\*Bold\\*\\* Bob" in _text(post):
            break
    else:
        raise AssertionError("the escaped names were not posted to the results channel")


async def test_8_an_uploaded_amount_1e3_is_refused_as_on_the_command_line(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    before = await _counts(bot)
    text = (
        '{"season": "2026 Fall", "location": "Brewpub", "date": "2026-11-27", "kind": "regular",'
        ' "finish": [["Bob"]], "receipts": [{"player": "Bob", "amount": 1e3}]}'
    )
    file = fake.add_attachment("night.json", text.encode())
    it = await td_result_file(fake, guild, file)
    refused = await it.settled()
    assert _flags(refused) & EPHEMERAL
    assert "at most two decimals" in _text(refused)
    assert await _counts(bot) == before

"""End to end: /me, /me link with the directors' Approve/Refuse, /td link|unlink (fake Discord)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import delete, func, select, update
from sqlmodel import Session, col

from bot.surfaces.discord import LeagueBot
from storage.league_models import AuditEntry, Player
from storage.leagues import league_for
from storage.link_models import LinkRequest, PlayerLink
from storage.player_links import link_player
from tests.fakediscord import EPHEMERAL, GUILD_ID, MANAGE_GUILD, PLAYER_ID, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

DIRECTOR_ROLE = 900_000_000_000_000_710
RESULTS_CHANNEL = 900_000_000_000_000_810
DIRECTOR_ID = 900_000_000_000_000_411
BOSS_ID = 900_000_000_000_000_412
OTHER_ID = 900_000_000_000_000_413
THIRD_ID = 900_000_000_000_000_414


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    footer = (embed.get("footer") or {}).get("text") or ""
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields, footer])


def _buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in message.get("components") or [] for c in row["components"]]


def _user(user_id: int, name: str) -> dict[str, Any]:
    return {"id": str(user_id), "username": name, "discriminator": "0", "avatar": None}


async def _links(bot: LeagueBot) -> list[tuple[int, int]]:
    def read(*, session: Session) -> list[tuple[int, int]]:
        rows = session.execute(select(col(PlayerLink.player_id), col(PlayerLink.discord_id))).all()
        return sorted((int(p), int(d)) for p, d in rows)

    return await bot.db.run(read)


async def _audits(bot: LeagueBot) -> int:
    def count(*, session: Session) -> int:
        return int(session.execute(select(func.count()).select_from(AuditEntry)).scalar_one())

    return await bot.db.run(count)


async def request_post(fake: FakeDiscord, player: str) -> dict[str, Any]:
    """The link request for ``player`` in the results channel (other posts may come first)."""
    seen = 0
    while True:
        seen += 1
        post: dict[str, Any] = await fake.wait_message(RESULTS_CHANNEL, seen)
        if _text(post).startswith("Link request") and f"**{player}**" in _text(post):
            return post


async def edited(press: Any) -> dict[str, Any]:
    """The message a button press left: edited in the callback, or after a deferred update."""
    body = await press.response(wait_s=30)
    if body["type"] == 7:
        return dict(body["data"])
    assert body["type"] == 6  # deferred under load; the edit follows
    await press._until(lambda: bool(press.edits), 30)
    return dict(press.edits[0])


async def director(fake: FakeDiscord, sub: list[str], options: dict[str, Any], **kw: Any) -> Any:
    member = options.get("member")
    extra: dict[str, Any] = {}
    if member is not None:
        extra = {
            "option_types": {"member": 6},
            "resolved": {"users": {str(member): _user(int(member), "someone")}},
        }
    return await fake.interact(
        "td",
        options,
        sub=sub,
        user_id=DIRECTOR_ID,
        roles=[DIRECTOR_ROLE],
        username="tdmike",
        **extra,
        **kw,
    )


async def me(fake: FakeDiscord, options: dict[str, Any] | None = None, **kw: Any) -> Any:
    it = await fake.interact("me", options or {}, **kw)
    return await it.settled()


async def _reset(bot: LeagueBot, *, alice: bool) -> None:
    """No links (or only the player's own, to Alice), whatever ran before."""

    def run(*, session: Session) -> None:
        session.execute(delete(PlayerLink))
        session.execute(delete(LinkRequest))
        session.execute(update(Player).values(discord_id=None))
        if alice:
            league = league_for(session=session, guild_id=GUILD_ID)
            link_player(
                session=session, league_id=league.id, discord_id=PLAYER_ID, name="Alice", actor="t"
            )

    await bot.db.run(run)


@pytest_asyncio.fixture(loop_scope="module")
async def unlinked(league: None, bot: LeagueBot) -> None:
    await _reset(bot, alice=False)


@pytest_asyncio.fixture(loop_scope="module")
async def alice(league: None, bot: LeagueBot) -> None:
    await _reset(bot, alice=True)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def league(fake: FakeDiscord, bot: LeagueBot) -> AsyncIterator[None]:
    it = await fake.interact(
        "td",
        {"director_role": str(DIRECTOR_ROLE), "results_channel": str(RESULTS_CHANNEL)},
        sub=["settings"],
        user_id=BOSS_ID,
        permissions=MANAGE_GUILD,
        option_types={"director_role": 8, "results_channel": 7},
        resolved={
            "roles": {
                str(DIRECTOR_ROLE): {
                    "id": str(DIRECTOR_ROLE),
                    "name": "TD",
                    "color": 0,
                    "hoist": False,
                    "position": 1,
                    "permissions": "0",
                    "managed": False,
                    "mentionable": True,
                    "flags": 0,
                }
            },
            "channels": {
                str(RESULTS_CHANNEL): {
                    "id": str(RESULTS_CHANNEL),
                    "type": 0,
                    "name": "results",
                    "permissions": "0",
                    "guild_id": str(GUILD_ID),
                }
            },
        },
    )
    await it.settled()
    for finish, date in (
        ("1 Alice, 2 Bob, 3 Carol", "2026-11-06"),
        ("1 Bob, 2 Alice", "2026-11-13"),
    ):
        it = await director(
            fake,
            ["result"],
            {"finish": finish, "location": "Brewpub", "date": date, "season": "2026 Fall"},
        )
        assert "Imported" in _text(await it.settled())
    yield


async def test_me_before_linking_says_how_to_link(
    fake: FakeDiscord, bot: LeagueBot, unlinked: None
):
    reply = await me(fake)
    assert int(reply.get("flags") or 0) & EPHEMERAL
    assert "/me link player:" in _text(reply)


async def test_me_link_asks_the_directors_and_a_director_approves(
    fake: FakeDiscord, bot: LeagueBot, unlinked: None
):
    audits = await _audits(bot)
    reply = await me(fake, {"action": "link", "player": "alice"})
    assert int(reply.get("flags") or 0) & EPHEMERAL
    assert "The directors were asked to link you to **Alice**" in _text(reply)
    request = await request_post(fake, "Alice")
    assert request["allowed_mentions"] == {"parse": []}
    assert f"<@{PLAYER_ID}>" in _text(request)
    approve, refuse = _buttons(request)
    assert approve["label"] == "Approve"
    assert refuse["label"] == "Refuse"
    assert await _links(bot) == []  # asking writes nothing
    assert await _audits(bot) == audits

    # The player cannot approve his own request.
    press = await fake.press(1, approve["custom_id"], components=request["components"])
    body = await press.settled()
    assert "Only the league's directors" in _text(body)
    assert await _links(bot) == []

    press = await fake.press(
        1,
        approve["custom_id"],
        components=request["components"],
        user_id=DIRECTOR_ID,
        roles=[DIRECTOR_ROLE],
        username="tdmike",
    )
    shown = await edited(press)  # the request message, edited in place
    assert "is linked to **Alice** by tdmike" in _text(shown)
    assert not _buttons(shown)
    assert len(await _links(bot)) == 1
    assert await _audits(bot) == audits + 1


async def test_me_shows_rank_points_toc_and_last_results(
    fake: FakeDiscord, bot: LeagueBot, alice: None
):
    reply = await me(fake)
    text = _text(reply)
    assert int(reply.get("flags") or 0) & EPHEMERAL
    # Alice: 1st (1,200 RP, 250 BP) and 2nd (800 RP, 200 BP).
    assert "Alice" in text.splitlines()[0]
    assert "2,000 RP, 450 BP, 2 events, 1 win" in text
    assert "TOC: **Not qualified yet**. Short" in text
    assert "No strikes on the record." in text
    assert "Last five results" in text
    assert "2026-11-13 Brewpub: 2nd, 800 RP, 200 BP" in text
    assert "2026-11-06 Brewpub: 1st, 1,200 RP, 250 BP" in text


async def test_one_member_per_player_and_one_player_per_member(
    fake: FakeDiscord, bot: LeagueBot, alice: None
):
    before = await _links(bot)
    audits = await _audits(bot)
    taken = await me(fake, {"action": "link", "player": "Alice"}, user_id=OTHER_ID)
    assert "'Alice' is linked to another member" in _text(taken)
    again = await me(fake, {"action": "link", "player": "Bob"})
    assert "you are linked to 'Alice'" in _text(again)
    direct = await director(fake, ["link"], {"player": "Bob", "member": str(PLAYER_ID)})
    assert "that member is linked to 'Alice' already" in _text(await direct.settled())
    direct = await director(fake, ["link"], {"player": "Alice", "member": str(OTHER_ID)})
    assert "'Alice' is linked to another member already" in _text(await direct.settled())
    unknown = await me(fake, {"action": "link", "player": "Alise"}, user_id=OTHER_ID)
    assert "did you mean 'Alice'" in _text(unknown)
    assert await _links(bot) == before
    assert await _audits(bot) == audits


async def test_a_refused_request_links_nothing(fake: FakeDiscord, bot: LeagueBot, alice: None):
    await me(fake, {"action": "link", "player": "Carol"}, user_id=THIRD_ID)
    request = await request_post(fake, "Carol")
    refuse = _buttons(request)[1]
    before = await _links(bot)
    press = await fake.press(
        1,
        refuse["custom_id"],
        components=request["components"],
        user_id=DIRECTOR_ID,
        roles=[DIRECTOR_ROLE],
        username="tdmike",
    )
    assert "tdmike refused linking" in _text(await edited(press))
    assert await _links(bot) == before


async def test_td_link_and_unlink(fake: FakeDiscord, bot: LeagueBot, alice: None):
    it = await director(fake, ["link"], {"player": "Bob", "member": str(OTHER_ID)})
    assert f"<@{OTHER_ID}> is linked to **Bob**" in _text(await it.settled())
    mine = await me(fake, user_id=OTHER_ID)
    assert "Bob" in _text(mine).splitlines()[0]
    it = await director(fake, ["unlink"], {"player": "Bob"})
    assert f"<@{OTHER_ID}> is no longer linked to **Bob**" in _text(await it.settled())
    assert "/me link player:" in _text(await me(fake, user_id=OTHER_ID))
    it = await director(fake, ["unlink"], {"player": "Bob"})
    assert "'Bob' is not linked to a member" in _text(await it.settled())
    player = await fake.interact("td", {"player": "Alice"}, sub=["unlink"])
    assert "Only the league's directors" in _text(await player.settled())
    assert len(await _links(bot)) == 1  # Alice's link is still there


async def test_standings_and_toc_mark_the_callers_own_row(
    fake: FakeDiscord, bot: LeagueBot, alice: None
):
    it = await fake.interact("standings", {})
    text = _text(await it.settled())
    mine = [line for line in text.splitlines() if line.startswith("» ") and "you:" not in line]
    assert len(mine) == 1
    assert "Alice" in mine[0]
    assert "» you: #" in text
    other = await fake.interact("standings", {}, user_id=THIRD_ID)  # not linked: no mark
    assert "» " not in _text(await other.settled())
    it = await fake.interact("toc", {})
    toc = _text(await it.settled())
    rows = [line for line in toc.splitlines() if line.startswith("» ") and "you (" not in line]
    assert rows[0].startswith("» Alice")


async def test_standings_chart_attaches_the_points_race_png(
    fake: FakeDiscord, bot: LeagueBot, alice: None
):
    it = await fake.interact("standings", {"chart": True})
    body = await it.settled()
    assert [a["filename"] for a in body.get("attachments") or []] == ["points-race.png"]
    assert "Standings" in _text(body)
    plain = await fake.interact("standings", {})
    assert not (await plain.settled()).get("attachments")


def _requests_for(fake: FakeDiscord, player: str) -> list[dict[str, Any]]:
    return [
        m
        for m in fake.messages.get(RESULTS_CHANNEL, [])
        if _text(m).startswith("Link request") and f"**{player}**" in _text(m)
    ]


async def _nth_request(fake: FakeDiscord, player: str, n: int) -> dict[str, Any]:
    """The ``n``-th link request for ``player`` in the results channel (waits for it)."""
    seen = found = 0
    while True:
        seen += 1
        post: dict[str, Any] = await fake.wait_message(RESULTS_CHANNEL, seen)
        if _text(post).startswith("Link request") and f"**{player}**" in _text(post):
            found += 1
            if found == n:
                return post


async def _asked_at(bot: LeagueBot, member: int) -> list[str]:
    def read(*, session: Session) -> list[str]:
        rows = session.execute(
            select(col(LinkRequest.asked_at)).where(col(LinkRequest.discord_id) == member)
        ).all()
        zone = zoneinfo.ZoneInfo(bot.settings.timezone)  # shown in the league's time zone
        local = [
            (at if at.tzinfo else at.replace(tzinfo=dt.UTC)).astimezone(zone) for (at,) in rows
        ]
        return [f"{at:%Y-%m-%d} at {at:%H:%M} {at.tzname()}" for at in local]

    return await bot.db.run(read)


async def test_one_open_link_request_per_member_until_a_director_answers(
    fake: FakeDiscord, bot: LeagueBot, unlinked: None
):
    posted = len(_requests_for(fake, "Bob"))
    asked = await me(fake, {"action": "link", "player": "Bob"}, user_id=OTHER_ID)
    assert "The directors were asked to link you to **Bob**" in _text(asked)
    first = await _nth_request(fake, "Bob", posted + 1)
    [when] = await _asked_at(bot, OTHER_ID)

    # Asking again, for him or anyone, is refused privately and posts nothing.
    for player in ("Bob", "Carol"):
        again = await me(fake, {"action": "link", "player": player}, user_id=OTHER_ID)
        assert int(again.get("flags") or 0) & EPHEMERAL
        assert _text(again).strip() == "Sorry\n" + (
            f"you asked to be linked to 'Bob' on {when}; wait for a director's answer "
            "(or ask again 24 hours after)"
        ), _text(again)
    # Another member is not held up by him.
    carol = len(_requests_for(fake, "Carol"))
    other = await me(fake, {"action": "link", "player": "Carol"}, user_id=THIRD_ID)
    assert "The directors were asked to link you to **Carol**" in _text(other)
    await _nth_request(fake, "Carol", carol + 1)
    assert len(_requests_for(fake, "Bob")) == posted + 1

    # A refusal answers it: he may ask again, and that request is posted.
    refuse = _buttons(first)[1]
    press = await fake.press(
        1,
        refuse["custom_id"],
        components=first["components"],
        user_id=DIRECTOR_ID,
        roles=[DIRECTOR_ROLE],
        username="tdmike",
    )
    assert "tdmike refused linking" in _text(await edited(press))
    assert await _asked_at(bot, OTHER_ID) == []
    asked = await me(fake, {"action": "link", "player": "Bob"}, user_id=OTHER_ID)
    assert "The directors were asked to link you to **Bob**" in _text(asked)
    second = await _nth_request(fake, "Bob", posted + 2)

    # An approval answers it too.
    approve = _buttons(second)[0]
    press = await fake.press(
        1,
        approve["custom_id"],
        components=second["components"],
        user_id=DIRECTOR_ID,
        roles=[DIRECTOR_ROLE],
        username="tdmike",
    )
    assert "is linked to **Bob** by tdmike" in _text(await edited(press))
    assert await _asked_at(bot, OTHER_ID) == []


async def test_td_link_answers_the_members_open_request(
    fake: FakeDiscord, bot: LeagueBot, unlinked: None
):
    posted = len(_requests_for(fake, "Bob"))
    asked = await me(fake, {"action": "link", "player": "Bob"}, user_id=OTHER_ID)
    assert "The directors were asked to link you to **Bob**" in _text(asked)
    await _nth_request(fake, "Bob", posted + 1)  # its post has landed (none leaks into the next)
    assert len(await _asked_at(bot, OTHER_ID)) == 1
    it = await director(fake, ["link"], {"player": "Bob", "member": str(OTHER_ID)})
    assert f"<@{OTHER_ID}> is linked to **Bob**" in _text(await it.settled())
    assert await _asked_at(bot, OTHER_ID) == []
    # Unlinked later, he may ask again at once: nothing of the old request holds him up.
    it = await director(fake, ["unlink"], {"player": "Bob"})
    assert "no longer linked" in _text(await it.settled())
    again = await me(fake, {"action": "link", "player": "Bob"}, user_id=OTHER_ID)
    assert "The directors were asked to link you to **Bob**" in _text(again)
    await _nth_request(fake, "Bob", posted + 2)


async def test_an_unanswered_link_request_stops_blocking_after_24_hours(
    fake: FakeDiscord, bot: LeagueBot, unlinked: None
):
    await me(fake, {"action": "link", "player": "Carol"}, user_id=THIRD_ID)
    refused = await me(fake, {"action": "link", "player": "Carol"}, user_id=THIRD_ID)
    assert "you asked to be linked to 'Carol' on " in _text(refused)

    def age(*, session: Session, hours: float) -> None:
        at = dt.datetime.now(dt.UTC) - dt.timedelta(hours=hours)
        session.execute(update(LinkRequest).values(asked_at=at))

    await bot.db.run(age, hours=23.9)
    refused = await me(fake, {"action": "link", "player": "Carol"}, user_id=THIRD_ID)
    assert "you asked to be linked to 'Carol' on " in _text(refused)
    await bot.db.run(age, hours=24.1)
    posted = len(_requests_for(fake, "Carol"))
    asked = await me(fake, {"action": "link", "player": "Carol"}, user_id=THIRD_ID)
    assert "The directors were asked to link you to **Carol**" in _text(asked)
    await _nth_request(fake, "Carol", posted + 1)

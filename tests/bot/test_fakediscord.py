"""The fake Discord refuses what Discord refuses (so e2e tests catch real violations)."""

from __future__ import annotations

import pytest

from tests.fakediscord import DiscordError, validate_choices, validate_commands, validate_message


def test_fake_refuses_what_discord_refuses():
    good = {"name": "rule", "description": "Look up a rule", "options": []}
    validate_commands([good], is_global=True)
    for bad in (
        {**good, "name": "Rule"},
        {**good, "name": "r" * 33},
        {**good, "description": ""},
        {**good, "description": "d" * 101},
        {**good, "options": [{"name": f"o{i}", "type": 3, "description": "x"} for i in range(26)]},
    ):
        with pytest.raises(DiscordError):
            validate_commands([bad], is_global=True)
    with pytest.raises(DiscordError):
        validate_commands([{**good, "name": f"c{i}"} for i in range(101)], is_global=True)


def test_message_limits():
    validate_message({"content": "x" * 2000})
    for bad in (
        {"content": "x" * 2001},
        {"embeds": [{"description": "d" * 4097}]},
        {"embeds": [{"title": "t" * 257}]},
        {"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]},
        {"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]},
        {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
        {},
    ):
        with pytest.raises(DiscordError) as caught:
            validate_message(bad)
        assert caught.value.code in (50035, 50006)


def test_choice_limits():
    validate_choices({"choices": [{"name": "n", "value": "v"}] * 25})
    with pytest.raises(DiscordError):
        validate_choices({"choices": [{"name": "n", "value": "v"}] * 26})
    with pytest.raises(DiscordError):
        validate_choices({"choices": [{"name": "n" * 101, "value": "v"}]})


# -- modals, context menus, install flags (forms) ---------------------------------------------


def _label(child: dict[str, object], label: str = "Player") -> dict[str, object]:
    return {"type": 18, "label": label, "component": child}


def test_modal_limits():
    from tests.fakediscord import validate_modal

    text = {"type": 4, "custom_id": "brought", "style": 1}
    good = {"title": "Sign a player in", "custom_id": "pf:form:x", "components": [_label(text)]}
    validate_modal(good)
    many = [_label({**text, "custom_id": f"f{i}"}) for i in range(6)]
    for bad in (
        {**good, "title": "t" * 46},
        {**good, "custom_id": "c" * 101},
        {**good, "components": many},
        {**good, "components": []},
        {**good, "components": [_label({"type": 2, "custom_id": "b"})]},  # a button: no
        {**good, "components": [_label(text, "l" * 46)]},
        {**good, "components": [_label({**text, "label": "Brought"})]},
        {**good, "components": [_label(text), _label(text)]},  # the same custom id twice
        {**good, "components": [_label({"type": 3, "custom_id": "p", "options": []})]},
    ):
        with pytest.raises(DiscordError):
            validate_modal(bad)


def test_install_flags_are_checked_at_sync():
    good = {"name": "rule", "description": "Look up a rule", "options": []}
    validate_commands(
        [{**good, "integration_types": [0, 1], "contexts": [0, 1, 2]}], is_global=True
    )
    validate_commands([{"name": "Find rule", "type": 3, "contexts": [0]}], is_global=True)
    for bad in (
        {**good, "integration_types": [2]},
        {**good, "contexts": []},
        {**good, "contexts": [0, 3]},
        {"name": "Find rule", "type": 3, "description": "no"},
        {
            **good,
            "options": [
                {"name": "x", "type": 1, "description": "s", "contexts": [0]},
            ],
        },
    ):
        with pytest.raises(DiscordError):
            validate_commands([bad], is_global=True)


async def test_a_thread_is_made_once_on_a_message_the_channel_has():
    import aiohttp

    from tests.fakediscord import FakeDiscord

    fake = FakeDiscord()
    await fake.start()
    try:
        async with aiohttp.ClientSession() as http:
            base = f"{fake.api_base}/channels/77/messages"
            async with http.post(base, json={"content": "call"}) as posted:
                message = await posted.json()
            thread_url = f"{base}/{message['id']}/threads"
            body = {"name": "Floor call #1", "auto_archive_duration": 1440}
            async with http.post(thread_url, json=body) as made:
                thread = await made.json()
            async with http.post(thread_url, json=body) as again:
                assert again.status == 400  # one thread per message
            async with http.post(f"{base}/123/threads", json=body) as unknown:
                assert unknown.status == 404
        assert thread["id"] == message["id"]  # Discord gives the thread the message's id
        assert fake.threads[int(message["id"])]["parent_id"] == "77"
    finally:
        await fake.stop()


async def test_a_bot_a_test_left_running_is_closed_with_the_fake(tmp_path):
    """A test that fails between start_bot and stop_bot must not hang the module's loop.

    discord.py reconnects for ever once its gateway goes, and its shard swallows the cancel
    that closes the event loop; the fake closes what was started against it instead.
    """
    from bot.surfaces.discord import EXTENSIONS, LeagueBot
    from storage.db import make_engine
    from tests.fakediscord import FakeDiscord, start_bot

    fake = FakeDiscord()
    await fake.start()
    url = f"sqlite:///{tmp_path / 'left.db'}"
    bot = LeagueBot(fake.settings(database_url=url), make_engine(url), extensions=EXTENSIONS)
    try:
        task = await start_bot(fake, bot)
        assert not bot.is_closed()
    finally:
        await fake.stop()
        bot.engine.dispose()
    assert bot.is_closed()
    assert task.done()

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

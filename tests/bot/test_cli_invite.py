from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from bot.surfaces.cli import main
from bot.surfaces.cli.invite import MENTION_ANY_ROLE, PERMISSIONS, SEND_TTS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_invite_url_has_both_scopes_and_the_permissions_the_bot_uses(
    capsys: pytest.CaptureFixture[str],
):
    code, out, err = run(capsys, "invite", "987654321098765432")
    assert code == 0
    url = urlsplit(out.strip())
    assert (url.scheme, url.netloc, url.path) == ("https", "discord.com", "/oauth2/authorize")
    query = parse_qs(url.query)
    assert query["client_id"] == ["987654321098765432"]
    assert query["scope"] == ["bot applications.commands"]
    bits = int(query["permissions"][0])
    for name in ("View Channels", "Send Messages", "Embed Links", "Read Message History"):
        assert bits & PERMISSIONS[name]
    # Nothing more: no admin, no moderation. Manage Roles makes the role a night's reminder
    # pings, Create Events the league's weekly night (issue 20).
    assert bits == 1024 | 2048 | 16384 | 32768 | 65536 | 1 << 28 | 1 << 44
    assert "Send Messages" in err


def test_invite_can_ask_to_ping_a_role_that_is_not_mentionable(
    capsys: pytest.CaptureFixture[str],
):
    code, out, _ = run(capsys, "invite", "987654321098765432", "--ping-any-role")
    assert code == 0
    bits = int(parse_qs(urlsplit(out.strip()).query)["permissions"][0])
    assert bits & MENTION_ANY_ROLE[1]


@pytest.mark.parametrize("bad", ["12345", "abc", "98765432109876543210123"])
def test_invite_refuses_what_is_not_an_application_id(capsys: pytest.CaptureFixture[str], bad):
    code, out, err = run(capsys, "invite", bad)
    assert code == 2
    assert out == ""
    assert "is not an application id" in err
    assert err.count("\n") == 1


def test_invite_asks_for_text_to_speech_only_with_tts(capsys: pytest.CaptureFixture[str]):
    code, out, _ = run(capsys, "invite", "987654321098765432")
    assert code == 0
    assert not int(parse_qs(urlsplit(out.strip()).query)["permissions"][0]) & SEND_TTS[1]
    code, out, err = run(capsys, "invite", "987654321098765432", "--tts")
    assert code == 0
    bits = int(parse_qs(urlsplit(out.strip()).query)["permissions"][0])
    assert bits == sum(PERMISSIONS.values()) | 4096  # Discord's SEND_TTS_MESSAGES
    assert "Send Text-to-Speech Messages" in err

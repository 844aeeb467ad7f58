"""WEB_PORT and PUBLIC_URL: read from the environment, blank is unset, bad values refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.config import Settings


def test_blank_means_not_served_and_not_linked(monkeypatch):
    monkeypatch.setenv("WEB_PORT", "")
    monkeypatch.setenv("PUBLIC_URL", " ")
    settings = Settings(_env_file=None)
    assert settings.web_port is None
    assert settings.public_url is None


def test_values_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("WEB_PORT", "8080")
    monkeypatch.setenv("PUBLIC_URL", "https://poker.example.org/")
    settings = Settings(_env_file=None)
    assert settings.web_port == 8080
    assert settings.public_url == "https://poker.example.org"


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("web_port", 0, "port number from 1 to 65535"),
        ("web_port", 70000, "port number from 1 to 65535"),
        ("public_url", "poker.example.org", "must start with http:// or https://"),
    ],
)
def test_bad_values_are_refused_at_start_up(name, value, words):
    with pytest.raises(ValidationError, match=words):
        Settings(_env_file=None, **{name: value})

"""Settings read exactly the documented environment variables; .env.example lists them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_without_environment(monkeypatch: pytest.MonkeyPatch):
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    s = Settings(_env_file=None)
    assert s.discord_token is None
    assert not s.has_token
    assert s.database_url == "sqlite:///pokerfloor.db"
    assert s.discord_api_base == "https://discord.com/api/v10"
    assert s.discord_gateway_url.startswith("wss://gateway.discord.gg")


def test_reads_the_exact_variable_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    env = {
        "DISCORD_TOKEN": "abc",
        "DATABASE_URL": "postgresql+psycopg://u@h/db",
        "DISCORD_GUILD_ID": "123",
        "TIMEZONE": "Europe/Paris",
        "RULEBOOK_DIR": str(tmp_path),
        "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10/",
        "DISCORD_GATEWAY_URL": "ws://127.0.0.1:9/gateway",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = Settings(_env_file=None)
    assert s.discord_token is not None
    assert s.discord_token.get_secret_value() == "abc"
    assert s.has_token
    assert s.database_url == env["DATABASE_URL"]
    assert s.discord_guild_id == 123
    assert s.timezone == "Europe/Paris"
    assert s.rulebook_dir == tmp_path
    assert s.discord_api_base == "http://127.0.0.1:9/api/v10"
    assert s.discord_gateway_url == env["DISCORD_GATEWAY_URL"]


def test_empty_variables_mean_not_set(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DISCORD_TOKEN", "")
    monkeypatch.setenv("DISCORD_GUILD_ID", "")
    s = Settings(_env_file=None)
    assert s.discord_token is None
    assert s.discord_guild_id is None


def test_env_example_documents_every_field():
    text = (ROOT / ".env.example").read_text()
    for name in Settings.model_fields:
        assert f"\n{name.upper()}=" in text, name


def test_unknown_time_zone_is_refused_at_start_up():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="unknown time zone 'Mars/Base'"):
        Settings(_env_file=None, timezone="Mars/Base")

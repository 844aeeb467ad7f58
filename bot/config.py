"""Settings: every environment variable the bot reads, typed and defaulted.

Build one ``Settings`` in ``bot.cli`` (or a test) and pass it down; nothing else reads
``os.environ``. Values come from the environment, then from ``.env`` in the working directory.
"""

from __future__ import annotations

import logging
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

log = logging.getLogger(__name__)

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"


class Settings(BaseSettings):
    """The bot's configuration, read from environment variables of exactly these names.

    Attributes:
        discord_token: ``DISCORD_TOKEN``; without it ``pokerfloor`` opens the console.
        database_url: ``DATABASE_URL``; SQLite file in the working directory by default,
            ``postgresql+psycopg://user@host/db`` for PostgreSQL.
        discord_guild_id: ``DISCORD_GUILD_ID``; a development server to sync commands to
            (instantly) instead of globally.
        timezone: ``TIMEZONE``; the league's IANA time zone, e.g. ``America/Indiana/Indianapolis``.
        rulebook_dir: ``RULEBOOK_DIR``; a folder of extra rulebooks (``*.txt``) loaded on top of
            the bundled ones.
        discord_api_base: ``DISCORD_API_BASE``; REST base including the version path.
        discord_gateway_url: ``DISCORD_GATEWAY_URL``; the gateway websocket URL.
        web_port: ``WEB_PORT``; when set, ``pokerfloor run`` also serves the public league
            pages (``bot.web``) on this port.
        public_url: ``PUBLIC_URL``; where those pages are reached from outside (e.g.
            ``https://poker.example.org``); when set, ``/rule`` answers link to the passage.
    """

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    discord_token: SecretStr | None = None
    database_url: str = "sqlite:///pokerfloor.db"
    discord_guild_id: int | None = None
    timezone: str = "America/Indiana/Indianapolis"
    rulebook_dir: Path | None = None
    discord_api_base: str = DEFAULT_API_BASE
    discord_gateway_url: str = DEFAULT_GATEWAY_URL
    web_port: int | None = None
    public_url: str | None = None

    @field_validator(
        "discord_token", "discord_guild_id", "rulebook_dir", "web_port", "public_url", mode="before"
    )
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        """Treat an empty variable (``DISCORD_TOKEN=``) as not set."""
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("web_port")
    @classmethod
    def _port_range(cls, value: int | None) -> int | None:
        """A TCP port: 1 to 65535."""
        if value is not None and not 1 <= value <= 65535:
            raise ValueError("must be a port number from 1 to 65535")
        return value

    @field_validator("public_url")
    @classmethod
    def _public_base(cls, value: str | None) -> str | None:
        """An http(s) base; links append ``/rules/...`` to it."""
        if value is None:
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("discord_api_base")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        """discord.py appends paths starting with ``/`` to the base."""
        return value.rstrip("/")

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        """Refuse a time zone name the system does not know, at start-up."""
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r} (use an IANA name)") from exc
        return value

    @property
    def has_token(self) -> bool:
        """Whether a Discord token is configured (otherwise the console runs)."""
        return self.discord_token is not None and bool(self.discord_token.get_secret_value())

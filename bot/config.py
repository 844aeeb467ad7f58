"""Settings: every environment variable the bot reads, typed and defaulted.

Build one ``Settings`` in ``bot.surfaces.cli`` (or a test) and pass it down; nothing else reads
``os.environ``. Values come from the environment, then from ``.env`` in the working directory.
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
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
        shard_count: ``SHARD_COUNT``; how many gateway shards the bot has in all (None: what
            Discord recommends).
        shard_ids: ``SHARD_IDS``; the shards this process runs, e.g. ``0,1`` (None: all), to
            split the shards across processes.
        clock_lease_seconds: ``CLOCK_LEASE_SECONDS``; how long a clock stays with a bot
            instance that stopped renewing its lease (another one takes over after that).
        web_port: ``WEB_PORT``; when set, ``pokerfloor run`` also serves the public league
            pages (``bot.surfaces.web``) on this port.
        public_url: ``WEB_BASE_URL`` (or ``PUBLIC_URL``, its older name); where those pages
            are reached from outside (e.g. ``https://poker.example.org``); when set, ``/rule``
            answers link to the passage, and ``/clock status`` and the clock's status message
            to the channel's live page (``/live/<channel>``).
        backup_dir: ``BACKUP_DIR``; when set, ``pokerfloor run`` backs every league up into
            this folder on a schedule (one instance of several takes each backup).
        backup_every: ``BACKUP_EVERY``; how often: ``6h``, ``30m``, ``1d`` or seconds
            (at least a minute).
        backup_keep: ``BACKUP_KEEP``; how many scheduled backups the folder keeps (the newest).
    """

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    discord_token: SecretStr | None = None
    database_url: str = "sqlite:///pokerfloor.db"
    discord_guild_id: int | None = None
    timezone: str = "America/Indiana/Indianapolis"
    rulebook_dir: Path | None = None
    discord_api_base: str = DEFAULT_API_BASE
    discord_gateway_url: str = DEFAULT_GATEWAY_URL
    shard_count: int | None = Field(default=None, ge=1)
    shard_ids: str | None = None
    clock_lease_seconds: float = Field(default=10.0, ge=1.0, le=300.0)
    web_port: int | None = None
    public_url: str | None = Field(
        default=None, validation_alias=AliasChoices("WEB_BASE_URL", "PUBLIC_URL", "public_url")
    )
    backup_dir: Path | None = None
    backup_every: dt.timedelta = dt.timedelta(hours=6)
    backup_keep: int = Field(default=28, ge=1)

    @field_validator(
        "discord_token",
        "discord_guild_id",
        "rulebook_dir",
        "shard_count",
        "shard_ids",
        "web_port",
        "public_url",
        "backup_dir",
        mode="before",
    )
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        """Treat an empty variable (``DISCORD_TOKEN=``) as not set."""
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("backup_every", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        """``6h``, ``30m``, ``1d``, ``90s`` or plain seconds; at least a minute."""
        if isinstance(value, str):
            text = value.strip().lower()
            units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
            number, unit = (text[:-1], text[-1]) if text[-1:] in units else (text, "s")
            try:
                value = dt.timedelta(seconds=float(number) * units[unit])
            except ValueError:
                raise ValueError("use a duration such as 6h, 30m, 1d or seconds") from None
        if isinstance(value, int | float):
            value = dt.timedelta(seconds=value)
        if isinstance(value, dt.timedelta) and value < dt.timedelta(minutes=1):
            raise ValueError("must be at least a minute")
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

    @field_validator("shard_ids")
    @classmethod
    def _shard_list(cls, value: str | None) -> str | None:
        """``SHARD_IDS`` is a comma-separated list of shard numbers."""
        if value is None:
            return None
        parts = [p.strip() for p in value.split(",") if p.strip()]
        if not parts or not all(p.isdigit() for p in parts):
            raise ValueError(f"SHARD_IDS must be shard numbers separated by commas, not {value!r}")
        return ",".join(parts)

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        """``SHARD_IDS`` needs ``SHARD_COUNT``, and each id must be below it."""
        ids = self.shards
        if ids is not None:
            if self.shard_count is None:
                raise ValueError("SHARD_IDS needs SHARD_COUNT (the number of shards in all)")
            if max(ids) >= self.shard_count:
                raise ValueError(f"SHARD_IDS go from 0 to SHARD_COUNT - 1 ({self.shard_count - 1})")
        return self

    @property
    def shards(self) -> list[int] | None:
        """``SHARD_IDS`` as numbers (None: every shard)."""
        return None if self.shard_ids is None else [int(p) for p in self.shard_ids.split(",")]

    @property
    def has_token(self) -> bool:
        """Whether a Discord token is configured (otherwise the console runs)."""
        return self.discord_token is not None and bool(self.discord_token.get_secret_value())

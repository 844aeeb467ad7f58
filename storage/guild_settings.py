"""A Discord server's league settings: roles, results channel, preset, home rulebook.

One league per Discord server (``storage.leagues``); its Discord-only settings live in the
``guild_setting`` table. Reading never writes: a server with no league yet reads as the
defaults (no director role, no results channel, the ``btown`` preset, the default home
rulebook). Every change is in the audit log with its before and after.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import select
from sqlmodel import Session, col

from rulings import league_presets
from storage.audit import add_audit_entry
from storage.errors import NotFound, StorageError
from storage.guild_settings_models import GuildSetting
from storage.league_models import League
from storage.league_rules import update_league_rules
from storage.leagues import LeagueInfo, ensure_league, get_league

log = logging.getLogger(__name__)

DEFAULT_PRESET = "btown"
RULEBOOK_CHARS = 100


class _Keep:
    """The type of ``KEEP``: leave a setting as it is."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Final = _Keep()
"""Pass for a setting that must not change (``None`` clears it)."""


@dataclass(frozen=True)
class GuildSettings:
    """A server's league settings.

    Attributes:
        guild_id: The Discord server.
        league_id: Its league, or None before the first write creates it.
        preset: The league rules preset (``btown`` until changed).
        director_role_id: Members with this role may use the director commands.
        results_channel_id: Where every director write is announced.
        clock_ping_role_id: The role the tournament clock pings on level changes.
        rulebook: The league's own rulebook (a book name), ranked first by /rule; None for
            the bot's default home book.
        live_page: The league shows its live pages (``/live``); on by default.
        clock_tts: Level announcements are text-to-speech messages; off by default.
        self_checkin: Players may check themselves in (``/checkin``), a director approving
            each; off by default.
        night_thread: A night's bust-outs and results summary are posted in a thread of the
            tournament's channel (made on the first post), not in the channel; off by default.
        self_report: Players may report their own bust (``/out``), a director confirming
            each; off by default.
    """

    guild_id: int
    league_id: int | None = None
    preset: str = DEFAULT_PRESET
    director_role_id: int | None = None
    results_channel_id: int | None = None
    clock_ping_role_id: int | None = None
    rulebook: str | None = None
    live_page: bool = True
    clock_tts: bool = False
    self_checkin: bool = False
    night_thread: bool = False
    self_report: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The settings a director can change, for the audit log.

        ``rulebook`` (``live_page``, ``clock_tts``) is there only once a league changed it
        from its default, so the entries of leagues that never did read as before it existed.
        """
        values: dict[str, Any] = {
            "preset": self.preset,
            "director_role_id": self.director_role_id,
            "results_channel_id": self.results_channel_id,
            "clock_ping_role_id": self.clock_ping_role_id,
        }
        if self.rulebook is not None:
            values["rulebook"] = self.rulebook
        if not self.live_page:
            values["live_page"] = False
        if self.clock_tts:
            values["clock_tts"] = True
        if self.self_checkin:
            values["self_checkin"] = True
        if self.night_thread:
            values["night_thread"] = True
        if self.self_report:
            values["self_report"] = True
        return values


def _settings(session: Session, guild_id: int, league: LeagueInfo | None) -> GuildSettings:
    if league is None:
        return GuildSettings(guild_id=guild_id)
    row = session.get(GuildSetting, league.id)
    return GuildSettings(
        guild_id=guild_id,
        league_id=league.id,
        preset=league.preset,
        director_role_id=row.director_role_id if row else None,
        results_channel_id=row.results_channel_id if row else None,
        clock_ping_role_id=row.clock_ping_role_id if row else None,
        rulebook=row.rulebook if row else None,
        live_page=row.live_page if row else True,
        clock_tts=row.clock_tts if row else False,
        self_checkin=row.self_checkin if row else False,
        night_thread=row.night_thread if row else False,
        self_report=row.self_report if row else False,
    )


def get_guild_settings(*, session: Session, guild_id: int) -> GuildSettings:
    """Return a server's settings; the defaults when it has no league yet (nothing written)."""
    try:
        league: LeagueInfo | None = get_league(session=session, guild_id=guild_id)
    except NotFound:
        league = None
    return _settings(session, guild_id, league)


def ensure_guild_league(
    *, session: Session, guild_id: int, actor: str, now: dt.datetime | None = None
) -> LeagueInfo:
    """Return a server's league, creating it (``btown`` rules) on its first write."""
    return ensure_league(
        session=session, guild_id=guild_id, preset=DEFAULT_PRESET, actor=actor, now=now
    )


def update_guild_settings(
    *,
    session: Session,
    guild_id: int,
    actor: str,
    director_role_id: int | _Keep | None = KEEP,
    results_channel_id: int | _Keep | None = KEEP,
    clock_ping_role_id: int | _Keep | None = KEEP,
    preset: str | None = None,
    rulebook: str | _Keep | None = KEEP,
    live_page: bool | _Keep = KEEP,
    clock_tts: bool | _Keep = KEEP,
    self_checkin: bool | _Keep = KEEP,
    night_thread: bool | _Keep = KEEP,
    self_report: bool | _Keep = KEEP,
    confirm: bool = False,
    now: dt.datetime | None = None,
) -> tuple[GuildSettings, GuildSettings]:
    """Change a server's settings; ``KEEP`` leaves one as it is, None clears it.

    Args:
        session: The unit of work.
        guild_id: The Discord server.
        actor: Who changes them, for the audit log.
        director_role_id: The director role.
        results_channel_id: The results channel.
        clock_ping_role_id: The clock's ping role.
        preset: A league rules preset (``rulings.league_presets()``); None keeps it.
        rulebook: The league's own rulebook name (the caller checks it is a loaded book;
            here only its shape is checked).
        live_page: Show (True) or hide the league's live pages.
        clock_tts: Send level announcements as text-to-speech messages.
        self_checkin: Let players check themselves in, each approved by a director.
        night_thread: Post a night's bust-outs and results in a thread of its own.
        self_report: Let players report their own bust, each confirmed by a director.
        confirm: Confirms a preset change that re-scores the current season's stored events.
        now: The time of the change (UTC).

    Returns:
        The settings before and after.

    Raises:
        StorageError: nothing to change, an id that is not a Discord id, or a rulebook name
            that is blank or longer than 100 characters.
        LeagueConfigError: an unknown preset (nothing is changed).
        UnconfirmedRescoreError: a preset change that re-scores stored events, unconfirmed.
    """
    changes: dict[str, int | str | _Keep | None] = {
        "director_role_id": director_role_id,
        "results_channel_id": results_channel_id,
        "clock_ping_role_id": clock_ping_role_id,
    }
    given = {k: v for k, v in changes.items() if not isinstance(v, _Keep)}
    switches = {
        k: v
        for k, v in (
            ("live_page", live_page),
            ("clock_tts", clock_tts),
            ("self_checkin", self_checkin),
            ("night_thread", night_thread),
            ("self_report", self_report),
        )
        if isinstance(v, bool)
    }
    if not given and not switches and preset is None and isinstance(rulebook, _Keep):
        raise StorageError("give at least one setting to change")
    for key, value in given.items():
        if value is not None and (type(value) is not int or value <= 0):
            raise StorageError(f"{key.removesuffix('_id').replace('_', ' ')} must be a Discord id")
    if preset is not None and preset.strip().lower() not in league_presets():
        known = ", ".join(league_presets())
        raise StorageError(f"unknown league preset '{preset}' (known: {known})")
    if not isinstance(rulebook, _Keep):
        given["rulebook"] = _rulebook_name(rulebook)
    given.update(switches)
    league = ensure_guild_league(session=session, guild_id=guild_id, actor=actor, now=now)
    before = _settings(session, guild_id, league)
    if preset is not None and preset.strip().lower() != league.preset:
        update_league_rules(
            session=session,
            league_id=league.id,
            preset=preset.strip().lower(),
            actor=actor,
            confirm=confirm,
            now=now,
        )
        league = get_league(session=session, guild_id=guild_id)
    if given:
        row = session.get(GuildSetting, league.id) or GuildSetting(league_id=league.id)
        for key, value in given.items():
            setattr(row, key, value)
        session.add(row)
        session.flush()
    after = _settings(session, guild_id, league)
    add_audit_entry(
        session=session,
        league_id=league.id,
        actor=actor,
        action="settings.update",
        target=f"league:{league.name}",
        before=before.as_dict(),
        after=after.as_dict(),
        now=now,
    )
    return before, after


def _rulebook_name(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise StorageError("a rulebook name must not be blank")
    name = value.strip()
    if len(name) > RULEBOOK_CHARS:
        raise StorageError(f"a rulebook name has at most {RULEBOOK_CHARS} characters")
    return name


def guild_rulebooks(*, session: Session) -> dict[int, str]:
    """Every server that chose its own home rulebook: guild id -> book name."""
    rows = session.execute(
        select(col(League.guild_id), col(GuildSetting.rulebook))
        .join(GuildSetting, col(GuildSetting.league_id) == col(League.id))
        .where(col(GuildSetting.rulebook).is_not(None), col(League.guild_id).is_not(None))
    )
    return {int(guild_id): str(book) for guild_id, book in rows}

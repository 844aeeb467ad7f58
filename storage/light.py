"""Reads of a SQLite league database with the standard library alone (no SQLAlchemy, no sqlmodel).

A short command line that only needs the league's rules (``pokerfloor hand``) would spend most of
its life importing SQLAlchemy, sqlmodel and Alembic to read one row. ``read_leagues`` reads the
``league`` table of a SQLite file with ``sqlite3`` instead, as storage stores it (``preset`` and
the JSON ``overrides`` of ``storage.league_models.League``). It answers only when it can answer
exactly what the full path would: a ``sqlite:///`` file that exists, opened read-only, whose
schema is at the newest migration. Anything else (PostgreSQL, an in-memory database, a missing
file, a database that still needs a migration, a locked or unreadable file) returns None, and
the caller takes the full path, which opens, migrates and reads through storage.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rulings import LeagueRules, load_league_rules
from storage.errors import NotFound

log = logging.getLogger(__name__)

DEFAULT_LEAGUE = "default"
"""The name of the command line's own league (the one with no Discord server)."""

_MIGRATIONS = Path(__file__).parent / "migrations" / "versions"
_REVISION = re.compile(r'^(down_revision|revision)\b[^=]*=\s*["\']([^"\']+)["\']', re.MULTILINE)
_BUSY_SECONDS = 5.0


@dataclass(frozen=True)
class LeagueRow:
    """A league as stored: its rules are ``preset`` with ``overrides`` applied."""

    id: int
    name: str
    guild_id: int | None
    preset: str
    overrides: dict[str, Any]


def sqlite_file(url: str) -> Path | None:
    """The file of a ``sqlite:///path`` URL (any ``sqlite+driver``); None for anything else.

    ``sqlite://`` and ``sqlite:///:memory:`` (in memory) are not files.

    >>> sqlite_file("sqlite:///pokerfloor.db"), sqlite_file("sqlite:////srv/pf.db?timeout=5")
    (PosixPath('pokerfloor.db'), PosixPath('/srv/pf.db'))
    >>> sqlite_file("postgresql+psycopg://pf@db/pf") is None, sqlite_file("sqlite://") is None
    (True, True)
    """
    head, sep, path = url.partition(":///")
    if not sep or not (head == "sqlite" or head.startswith("sqlite+")):
        return None
    path = path.split("?", 1)[0]
    if not path or path == ":memory:" or path.startswith("file:"):
        return None
    return Path(path)


@functools.cache
def head_revision() -> str | None:
    """The newest migration's revision, read from the migration files' text (no Alembic).

    None when the files do not name exactly one head (then no light read is trusted).
    """
    revisions: set[str] = set()
    parents: set[str] = set()
    for script in _MIGRATIONS.glob("*.py"):
        for kind, value in _REVISION.findall(script.read_text(encoding="utf-8")):
            (revisions if kind == "revision" else parents).add(value)
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def read_leagues(url: str) -> tuple[LeagueRow, ...] | None:
    """Every league of the SQLite database at ``url``, by id, read with ``sqlite3``.

    Returns:
        The leagues; None when only the full path can answer (see the module docstring).
    """
    path = sqlite_file(url)
    head = head_revision()
    if path is None or head is None or not path.is_file():
        return None
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=_BUSY_SECONDS)
        try:
            version = conn.execute("SELECT version_num FROM alembic_version").fetchall()
            if version != [(head,)]:
                return None
            rows = conn.execute(
                "SELECT id, name, guild_id, preset, overrides FROM league ORDER BY id"
            ).fetchall()
        finally:
            conn.close()
        return tuple(_row(*row) for row in rows)
    except (sqlite3.Error, ValueError, TypeError) as exc:
        log.debug("light read of %s refused (%s); taking the full path", path, exc)
        return None


def _row(id_: int, name: str, guild_id: int | None, preset: str, overrides: Any) -> LeagueRow:
    loaded = json.loads(overrides) if isinstance(overrides, str | bytes) else overrides
    if loaded is not None and not isinstance(loaded, dict):
        raise ValueError("league.overrides is not a JSON object")
    return LeagueRow(int(id_), str(name), guild_id, str(preset), dict(loaded or {}))


def league_of(leagues: Iterable[LeagueRow], guild_id: int | None) -> LeagueRow | None:
    """A server's league, or the command line's own (``DEFAULT_LEAGUE``) for guild None."""
    for league in leagues:
        if guild_id is not None and league.guild_id == guild_id:
            return league
        if guild_id is None and league.name == DEFAULT_LEAGUE:
            return league
    return None


def only_league_guild_of(guild_ids: Sequence[int | None]) -> int | None:
    """The league a command line without ``--guild`` speaks for, from every league's guild id.

    The database's only league (a Discord server's, or the command line's own); with none yet,
    or with the command line's own among several, the command line's own (None).

    Raises:
        NotFound: several Discord servers' leagues and no league of the command line's own.
    """
    if len(guild_ids) == 1:
        return guild_ids[0]
    if not guild_ids or any(guild_id is None for guild_id in guild_ids):
        return None
    ids = ", ".join(str(guild_id) for guild_id in guild_ids)
    raise NotFound(f"this database holds several leagues; pick one with --guild ({ids})")


def league_rules_in(leagues: Iterable[LeagueRow], guild_id: int | None) -> LeagueRules:
    """The rules of a server's league (guild None: the command line's own), from ``read_leagues``.

    The default preset's rules when there is no such league yet, as
    ``bot.features.league.reads.league_rules_for`` answers on the full path.

    Raises:
        LeagueConfigError: the stored preset or overrides are not valid rules.
    """
    league = league_of(leagues, guild_id)
    if league is None:
        return load_league_rules()
    return load_league_rules(league.preset, league.overrides)

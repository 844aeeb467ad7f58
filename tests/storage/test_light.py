"""storage.light: the league rows of a SQLite file read with sqlite3, as storage reads them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.features.league.reads import league_rules_for
from storage.db import make_engine, session_scope, upgrade_schema
from storage.errors import NotFound
from storage.league_rules import update_league_rules
from storage.leagues import ensure_league, only_league_guild
from storage.light import league_rules_in, only_league_guild_of, read_leagues

GUILD = 987654321012345678


def _database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'pokerfloor.db'}"
    engine = make_engine(url)
    upgrade_schema(engine)
    with session_scope(engine) as session:
        default = ensure_league(session=session, actor="t")
        update_league_rules(
            session=session,
            league_id=default.id,
            overrides={"receipt_bp_per_dollar": 10},
            actor="t",
        )
        ensure_league(session=session, guild_id=GUILD, preset="poker-pub", actor="t")
    engine.dispose()
    return url


def test_the_light_read_gives_the_rules_storage_gives(tmp_path: Path) -> None:
    url = _database(tmp_path)
    leagues = read_leagues(url)
    assert leagues is not None
    assert [(row.name, row.guild_id, row.preset) for row in leagues] == [
        ("default", None, "btown"),
        (f"guild-{GUILD}", GUILD, "poker-pub"),
    ]
    engine = make_engine(url)
    with session_scope(engine) as session:
        for guild_id in (None, GUILD, 1):
            full = league_rules_for(session=session, guild_id=guild_id)
            assert league_rules_in(leagues, guild_id) == full
        assert only_league_guild_of([r.guild_id for r in leagues]) == only_league_guild(
            session=session
        )
    engine.dispose()
    assert league_rules_in(leagues, None).receipt_bp_per_dollar == 10
    assert league_rules_in(leagues, GUILD).regular_points[:2] == (100, 80)


def test_a_database_behind_the_newest_migration_is_left_to_the_full_path(
    tmp_path: Path,
) -> None:
    url = _database(tmp_path)
    with sqlite3.connect(tmp_path / "pokerfloor.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0014'")
    assert read_leagues(url) is None


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "postgresql+psycopg://postgres@127.0.0.1:5432/test",
        "sqlite:///no/such/folder/pokerfloor.db",
    ],
)
def test_what_is_not_an_existing_sqlite_file_is_left_to_the_full_path(url: str) -> None:
    assert read_leagues(url) is None


def test_a_file_that_is_not_a_league_database_is_left_to_the_full_path(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    path.write_bytes(b"not a database at all")
    assert read_leagues(f"sqlite:///{path}") is None


def test_several_servers_and_no_league_of_its_own_ask_for_guild() -> None:
    assert only_league_guild_of([]) is None
    assert only_league_guild_of([GUILD]) == GUILD
    assert only_league_guild_of([None, GUILD]) is None
    with pytest.raises(NotFound, match="pick one with --guild"):
        only_league_guild_of([GUILD, 1])

"""A league's own home rulebook: the guild_setting.rulebook column and migration 0005."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import inspect, text

import storage.db
from storage.audit import list_audit
from storage.db import session_scope, upgrade_schema
from storage.errors import StorageError
from storage.guild_settings import (
    KEEP,
    get_guild_settings,
    guild_rulebooks,
    update_guild_settings,
)
from tests.storage._league import NOW

GUILD = 4242
OTHER_GUILD = 4343
MIGRATIONS = Path(storage.db.__file__).parent / "migrations"


def test_a_new_server_has_no_home_book(session):
    assert get_guild_settings(session=session, guild_id=GUILD).rulebook is None
    assert guild_rulebooks(session=session) == {}


def test_setting_the_home_book_keeps_the_rest_and_is_audited(session):
    update_guild_settings(
        session=session, guild_id=GUILD, actor="discord:1:boss", director_role_id=11, now=NOW
    )
    before, after = update_guild_settings(
        session=session, guild_id=GUILD, actor="discord:1:boss", rulebook=" poker-pub ", now=NOW
    )
    assert before.rulebook is None
    assert after.rulebook == "poker-pub"  # stored trimmed
    assert after.director_role_id == 11  # kept
    assert get_guild_settings(session=session, guild_id=GUILD) == after
    assert guild_rulebooks(session=session) == {GUILD: "poker-pub"}
    audit = list_audit(session=session, league_id=after.league_id or 0)
    entry = next(e for e in audit if e.after and "rulebook" in e.after)
    assert entry.action == "settings.update"
    assert entry.actor == "discord:1:boss"
    assert entry.before is not None
    assert "rulebook" not in entry.before
    assert entry.after is not None
    assert entry.after["rulebook"] == "poker-pub"


def test_keep_leaves_the_home_book_and_none_clears_it(session):
    update_guild_settings(session=session, guild_id=GUILD, actor="a", rulebook="poker-pub")
    _, kept = update_guild_settings(
        session=session, guild_id=GUILD, actor="a", results_channel_id=22, rulebook=KEEP
    )
    assert kept.rulebook == "poker-pub"
    _, cleared = update_guild_settings(session=session, guild_id=GUILD, actor="a", rulebook=None)
    assert cleared.rulebook is None
    assert cleared.results_channel_id == 22
    assert guild_rulebooks(session=session) == {}


def test_each_server_has_its_own_home_book(session):
    update_guild_settings(session=session, guild_id=GUILD, actor="a", rulebook="poker-pub")
    update_guild_settings(session=session, guild_id=OTHER_GUILD, actor="a", rulebook="our-book")
    update_guild_settings(session=session, guild_id=5555, actor="a", director_role_id=7)
    assert guild_rulebooks(session=session) == {GUILD: "poker-pub", OTHER_GUILD: "our-book"}


@pytest.mark.parametrize("bad", ["", "   ", "x" * 101])
def test_a_blank_or_overlong_book_name_is_refused_and_nothing_is_written(session, bad):
    with pytest.raises(StorageError, match="rulebook name"):
        update_guild_settings(session=session, guild_id=GUILD, actor="a", rulebook=bad)
    settings = get_guild_settings(session=session, guild_id=GUILD)
    assert settings.league_id is None  # not even the league was created
    assert settings.rulebook is None


def test_a_longest_allowed_name_round_trips(session):
    name = "b" * 100
    _, after = update_guild_settings(session=session, guild_id=GUILD, actor="a", rulebook=name)
    assert get_guild_settings(session=session, guild_id=GUILD).rulebook == name
    assert after.rulebook == name


# -- migration 0005 on a database made by the earlier revisions --------------------------------


def test_0005_adds_the_column_to_existing_settings_and_reverts(bare_engine):
    upgrade_schema(bare_engine, "0004")
    with bare_engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO league (id, name, guild_id, preset, overrides) "
                "VALUES (1, 'Pub', 4242, 'btown', '{}')"
            )
        )
        conn.execute(text("INSERT INTO guild_setting (league_id, director_role_id) VALUES (1, 11)"))
    assert "rulebook" not in {c["name"] for c in inspect(bare_engine).get_columns("guild_setting")}
    upgrade_schema(bare_engine)
    with session_scope(bare_engine) as session:
        settings = get_guild_settings(session=session, guild_id=GUILD)
        assert (settings.director_role_id, settings.rulebook) == (11, None)
        update_guild_settings(session=session, guild_id=GUILD, actor="a", rulebook="poker-pub")
    with session_scope(bare_engine) as session:
        assert guild_rulebooks(session=session) == {GUILD: "poker-pub"}
    upgrade_schema(bare_engine)  # at head already: nothing to do
    with bare_engine.begin() as conn:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = conn
        command.downgrade(config, "0004")
    columns = {c["name"] for c in inspect(bare_engine).get_columns("guild_setting")}
    assert "rulebook" not in columns
    assert "director_role_id" in columns

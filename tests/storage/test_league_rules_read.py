"""The league rules every ``/hand`` reads: one light statement, never stale (issue 23).

``storage.league_rules.read_league_rules`` reads the league's row on every call and keeps only
the parse of a given preset and overrides, so a change made through another engine (another
bot process sharing the database) is in force on the next request. Run on SQLite (a file two
engines open) and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from rulings import load_league_rules
from storage.db import create_schema, make_engine, scratch_schema, session_scope
from storage.guild_settings import update_guild_settings
from storage.league_rules import read_league_rules, update_league_rules
from storage.leagues import ensure_league, get_league_rules
from tests.conftest import SKIP_POSTGRES, postgres_url

GUILD = 987_654_321_012_345_678


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param(
            "postgres",
            id="postgres",
            marks=[
                pytest.mark.postgres,
                pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1"),
            ],
        ),
    ]
)
def two_engines(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    """Two engines on one database: this bot process's, and another process's."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/league.db"
        ours = make_engine(url)
        create_schema(ours)
        theirs = make_engine(url)
        yield ours, theirs
        ours.dispose()
        theirs.dispose()
        return
    with scratch_schema(postgres_url()) as ours:
        theirs = make_engine(ours.url.render_as_string(hide_password=False))
        yield ours, theirs
        theirs.dispose()


def _set_overrides(engine: Engine, guild_id: int, **overrides: object) -> None:
    with session_scope(engine) as session:
        league = ensure_league(session=session, guild_id=guild_id, actor="test")
        update_league_rules(session=session, league_id=league.id, overrides=overrides, actor="t")


def test_a_rules_change_by_another_process_is_in_force_on_the_next_request(two_engines):
    ours, theirs = two_engines
    _set_overrides(theirs, GUILD, receipt_bp_per_dollar=10)
    first = read_league_rules(ours, GUILD)
    assert first is not None
    assert first.receipt_bp_per_dollar == 10
    assert read_league_rules(ours, GUILD) is first  # the same rules, parsed once

    _set_overrides(theirs, GUILD, receipt_bp_per_dollar=3)
    changed = read_league_rules(ours, GUILD)
    assert changed is not None
    assert changed.receipt_bp_per_dollar == 3

    _set_overrides(theirs, GUILD, receipt_bp_per_dollar=10)  # back: the earlier parse serves
    back = read_league_rules(ours, GUILD)
    assert back is not None
    assert back.receipt_bp_per_dollar == 10


def test_a_directors_preset_change_in_the_server_settings_is_in_force_on_the_next_request(
    two_engines,
):
    ours, theirs = two_engines
    assert read_league_rules(ours, GUILD) == load_league_rules()  # no league yet: the default
    with session_scope(theirs) as session:
        update_guild_settings(
            session=session, guild_id=GUILD, actor="director", preset="poker-pub", confirm=True
        )
    rules = read_league_rules(ours, GUILD)
    assert rules == load_league_rules("poker-pub")


def test_a_hand_on_discord_uses_the_rules_another_process_just_stored(two_engines):
    from bot.command.model import Context
    from bot.config import Settings
    from bot.database import Database
    from bot.features.hand.handlers import hand

    ours, theirs = two_engines
    ctx = Context(
        surface="discord", settings=Settings(_env_file=None), db=Database(ours), guild_id=GUILD
    )
    royal = "As Ks Qs Js Ts"
    assert "earns 200 RP" in str(hand(ctx, royal))  # no league yet: btown's points
    _set_overrides(theirs, GUILD, premium_hand_rp={"royal_flush": 25})
    assert "earns 25 RP" in str(hand(ctx, royal))  # the next request: the new points


def test_the_light_read_answers_what_storage_answers(engine):
    with session_scope(engine) as session:
        ensure_league(session=session, actor="test")  # the database's own league (no server)
        league = ensure_league(session=session, guild_id=GUILD, preset="poker-pub", actor="t")
        update_league_rules(
            session=session,
            league_id=league.id,
            overrides={"premium_hand_rp": {"royal_flush": 50}, "owner": "Sam"},
            actor="t",
        )
    with session_scope(engine) as session:
        stored = get_league_rules(session=session, league_id=league.id)
    assert read_league_rules(engine, GUILD) == stored
    assert read_league_rules(engine, None) == load_league_rules()
    assert read_league_rules(engine, 1) == load_league_rules()  # a server with no league
    assert read_league_rules(engine, 2**64 + 5) == load_league_rules()  # beyond a stored id


def test_a_database_the_light_read_cannot_read_is_left_to_storage(bare_engine):
    assert read_league_rules(bare_engine, GUILD) is None  # no tables yet: storage says why

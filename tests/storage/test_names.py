"""Issue 19.4: one name normalisation at storage's write boundary, whatever door a name used."""

from typing import Any

import pytest

from rulings import NameFormatError, parse_event
from storage.db import session_scope
from storage.errors import AlreadyExists, StorageError
from storage.event_import import import_events
from storage.leagues import add_location
from storage.players import add_alias, add_player, add_strike, get_player, list_players
from storage.seasons import add_season
from storage.tournaments import signin_name
from tests.storage._league import NOW, event, make_league, refused

BAD_NAMES = [
    ("\u200b\u200d", "missing or empty"),
    ("Bea\x07", r"control character \(U\+0007\)"),
    ("Bea\x00", r"control character \(U\+0000\)"),
]


@pytest.fixture
def league(engine: Any) -> Any:
    with session_scope(engine) as s:
        return make_league(s)


def test_19_4_an_invisible_character_does_not_make_a_second_player(engine, league):
    with session_scope(engine) as s:
        add_player(session=s, league_id=league.id, name="A\u200bnn  Lee", actor="t")
    with session_scope(engine) as s:
        assert [p.name for p in list_players(session=s, league_id=league.id)] == ["Ann Lee"]
        assert get_player(session=s, league_id=league.id, name="Ann Lee").name == "Ann Lee"
    refused(
        engine,
        lambda s: add_player(session=s, league_id=league.id, name="Ann\u2060 Lee", actor="t"),
        AlreadyExists,
        "exists already",
    )


def test_19_4_an_import_file_name_meets_the_same_player(engine, league):
    with session_scope(engine) as s:
        add_player(session=s, league_id=league.id, name="Ｂｅａ", actor="t")
        [out] = import_events(
            [parse_event(event([["Be\u200ba"], ["Cal"]]))],
            session=s,
            league_id=league.id,
            actor="t",
            now=NOW,
        )
    assert out.points[0].player == "Bea"
    with session_scope(engine) as s:
        assert sorted(p.name for p in list_players(session=s, league_id=league.id)) == [
            "Bea",
            "Cal",
        ]


@pytest.mark.parametrize(("name", "message"), BAD_NAMES)
def test_19_4_a_bad_name_is_one_line_and_writes_nothing_at_every_door(
    engine, league, name, message
):
    with session_scope(engine) as s:
        add_player(session=s, league_id=league.id, name="Ann", actor="t")
    writes = [
        lambda s: add_player(session=s, league_id=league.id, name=name, actor="t"),
        lambda s: add_alias(session=s, league_id=league.id, name="Ann", alias=name, actor="t"),
        lambda s: add_season(session=s, league_id=league.id, name=name, actor="t"),
        lambda s: add_location(session=s, league_id=league.id, name=name, actor="t"),
        lambda s: signin_name(session=s, league_id=league.id, name=name, confirmed=True),
        lambda s: import_events(
            [parse_event(event([[name], ["Ann"]]))],
            session=s,
            league_id=league.id,
            actor="t",
            now=NOW,
        ),
    ]
    for write in writes:
        error = refused(engine, write, NameFormatError, message)
        assert "\n" not in str(error)


def test_19_4_a_nul_in_any_text_is_one_line_on_both_databases(engine, league):
    with session_scope(engine) as s:
        add_player(session=s, league_id=league.id, name="Ann", actor="t")
        season = add_season(session=s, league_id=league.id, name="2026 Fall", actor="t")
    error = refused(
        engine,
        lambda s: add_strike(
            session=s,
            league_id=league.id,
            name="Ann",
            season_id=season.id,
            level=1,
            reason="late\x00again",
            actor="t",
            now=NOW,
        ),
        StorageError,
        "NUL character",
    )
    assert "\n" not in str(error)

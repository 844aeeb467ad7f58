"""Issue 19.2/19.4: bad input that reaches storage gets one line and changes nothing."""

import datetime as dt
import json
import os
from typing import Any

import pytest

from rulings import EventFormatError, ImportFileError, build_event, parse_event
from storage.db import session_scope
from storage.errors import (
    AlreadyExists,
    DuplicatePlayerError,
    StorageError,
    UnconfirmedNameError,
)
from storage.event_changes import record_guild_events
from storage.event_files import check_import_path, decode_event_json, import_event_file
from storage.event_import import import_events
from storage.leagues import add_location, get_league
from storage.seasons import add_season
from tests.storage._league import NOW, event, make_league, refused


@pytest.fixture
def league(engine: Any) -> Any:
    with session_scope(engine) as s:
        return make_league(s)


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_19_4_a_json_file_nested_thousands_deep_is_one_line(engine, league, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(_deep(100_000))
    error = refused(
        engine,
        lambda s: import_event_file(path, session=s, league_id=league.id, actor="t", now=NOW),
        ImportFileError,
        "nested deeper than any event is",
    )
    assert "\n" not in str(error)
    with pytest.raises(ImportFileError, match="nested deeper"):
        decode_event_json(_deep(100_000), "deep.json")
    with pytest.raises(ImportFileError, match=r"deep.json is not valid JSON \(line 1, column 2\)"):
        decode_event_json("[x]", "deep.json")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_19_4_a_device_is_refused_before_it_is_read(engine, league, tmp_path):
    with pytest.raises(ImportFileError, match="zero is not a regular file"):
        check_import_path("/dev/zero")
    with pytest.raises(ImportFileError, match="is not a regular file"):
        check_import_path(tmp_path)
    refused(
        engine,
        lambda s: import_event_file("/dev/zero", session=s, league_id=league.id, actor="t"),
        ImportFileError,
        "not a regular file",
    )


def test_19_4_a_guild_id_beyond_64_bits_is_one_line(engine, league):
    for guild in (2**63, 2**70, -(2**63) - 1):
        with (
            pytest.raises(StorageError, match="beyond 64 bits") as caught,
            session_scope(engine) as s,
        ):
            get_league(session=s, guild_id=guild)
        assert "\n" not in str(caught.value)
    # the largest id that fits is only not there
    with pytest.raises(StorageError, match="no league for guild"), session_scope(engine) as s:
        get_league(session=s, guild_id=2**63 - 1)


def test_19_2_a_result_dated_in_the_future_is_refused(engine, league):
    tomorrow = (NOW + dt.timedelta(days=2)).date().isoformat()
    refused(
        engine,
        lambda s: import_events(
            [parse_event(event([["Ann"], ["Bea"]], date=tomorrow))],
            session=s,
            league_id=league.id,
            actor="t",
            now=NOW,
        ),
        EventFormatError,
        f"date: {tomorrow} has not happened yet",
    )


def test_19_2_tonight_is_today_somewhere_ahead_of_utc(engine, league):
    # 11:00 UTC on the 20th is already the evening of the 21st at UTC+13: tonight is playable.
    at = dt.datetime(2026, 11, 20, 11, 0, tzinfo=dt.UTC)
    with session_scope(engine) as s:
        [out] = import_events(
            [parse_event(event([["Ann"], ["Bea"]], date="2026-11-21"))],
            session=s,
            league_id=league.id,
            actor="t",
            now=at,
        )
    assert out.status == "imported"


def test_19_2_a_result_file_without_a_season_goes_to_the_current_season(engine, league, tmp_path):
    with session_scope(engine) as s:
        add_season(session=s, league_id=league.id, name="2026 Winter", actor="t")
    night = event([["Ann"], ["Bea"]])
    del night["season"]
    path = tmp_path / "night.json"
    path.write_text(json.dumps([night]))
    with session_scope(engine) as s:
        [out] = import_event_file(path, session=s, league_id=league.id, actor="t", now=NOW)
    assert out.event.season == "2026 Winter"


def _typed(location: str, season: str | None = None) -> Any:
    def build(rules: Any, current: str | None) -> list[Any]:
        return [
            build_event(
                season=season or current or "2026 Fall",
                location=location,
                date=dt.date(2026, 11, 20),
                kind="regular",
                finish=[["Ann"], ["Bea"]],
            )
        ]

    return build


@pytest.mark.parametrize(
    ("location", "season", "what", "name"),
    [("Mars Base", None, "location", "Mars Base"), ("Brewpub", "Nope", "season", "Nope")],
)
def test_19_2_td_result_with_a_new_place_that_resembles_nothing_asks_to_confirm(
    engine, league, location, season, what, name
):
    with session_scope(engine) as s:
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="t")
        add_location(session=s, league_id=league.id, name="Brewpub", actor="t")
    error = refused(
        engine,
        lambda s: record_guild_events(
            session=s, guild_id=None, build=_typed(location, season), actor="t", now=NOW
        ),
        UnconfirmedNameError,
        f"'{name}' is a new {what} .*confirm:yes",
    )
    assert (error.what, error.name) == (what, name)
    with session_scope(engine) as s:
        [out] = record_guild_events(
            session=s,
            guild_id=None,
            build=_typed(location, season),
            actor="t",
            allow_new=True,
            now=NOW,
        )
    assert (out.event.location, out.event.season) == (location, season or "2026 Fall")


def test_19_2_td_result_with_a_look_alike_place_names_the_existing_one(engine, league):
    with session_scope(engine) as s:
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="t")
        add_location(session=s, league_id=league.id, name="Brewpub", actor="t")
    refused(
        engine,
        lambda s: record_guild_events(
            session=s, guild_id=None, build=_typed("Brewpubb"), actor="t", now=NOW
        ),
        AlreadyExists,
        "looks like the existing 'Brewpub'",
    )


def test_19_2_a_league_s_first_location_needs_no_confirmation(engine, league):
    with session_scope(engine) as s:
        [out] = record_guild_events(
            session=s, guild_id=None, build=_typed("Brewpub"), actor="t", now=NOW
        )
    assert out.status == "imported"


def test_19_5_a_csv_finish_list_is_streamed_and_its_kind_defaults_to_regular(
    engine, league, tmp_path
):
    from storage.event_files import read_csv_event

    path = tmp_path / "night.csv"
    path.write_text("\ufeffposition,player\n1,Ann\n2,Bea\n2,Cal\n\n4,Dee\n", encoding="utf-8")
    with session_scope(engine) as s:
        add_season(session=s, league_id=league.id, name="2026 Winter", actor="t")
        record = read_csv_event(
            path, session=s, league_id=league.id, location="Brewpub", day=dt.date(2026, 11, 20)
        )
        [out] = import_events([record], session=s, league_id=league.id, actor="t", now=NOW)
    assert (record.kind, record.season) == ("regular", "2026 Winter")
    assert record.finish == (("Ann",), ("Bea", "Cal"), ("Dee",))
    assert out.status == "imported"


_NEWCOMERS = ("Alice", "Boris", "Chen", "Dmitri", "Esther", "Farouk", "Giulia", "Hiroshi")


@pytest.mark.parametrize(
    ("last_row", "error", "match"),
    [
        ("9,", EventFormatError, "finish CSV line 10: a player name is missing"),
        ("9,Bea Thorntn", DuplicatePlayerError, "'Bea Thorntn' looks like .*'Bea Thornton'"),
    ],
    ids=["malformed", "look-alike-of-a-known-player"],
)
def test_19_5_a_csv_whose_last_row_is_refused_writes_nothing_though_chunks_were_written(
    engine, league, tmp_path, monkeypatch, last_row, error, match
):
    """The night is stored a chunk at a time (3 rows here): a refusal at the last row still
    leaves every table as it was, on SQLite and PostgreSQL, in one line naming the row."""
    from storage import event_import, import_plan
    from storage.event_files import read_csv_event

    monkeypatch.setattr(import_plan, "WRITE_ROWS", 3)
    monkeypatch.setattr(event_import, "WRITE_ROWS", 3)
    with session_scope(engine) as s:
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="t")
        import_events(
            [parse_event(event([["Bea Thornton"], ["Cal"]], date="2026-11-13"))],
            session=s,
            league_id=league.id,
            actor="t",
            now=NOW,
            allow_new=True,
        )
    rows = [f"{i + 1},{name}" for i, name in enumerate(_NEWCOMERS)]
    path = tmp_path / "night.csv"
    path.write_text("\n".join(["position,player", *rows, last_row]) + "\n", encoding="utf-8")

    def import_night(s: Any) -> None:
        record = read_csv_event(
            path, session=s, league_id=league.id, location="Brewpub", day=dt.date(2026, 11, 20)
        )
        import_events([record], session=s, league_id=league.id, actor="t", now=NOW)

    refused_with = refused(engine, import_night, error, match)
    assert "\n" not in str(refused_with)
    # The same night without its bad row is stored whole, chunk after chunk.
    path.write_text("\n".join(["position,player", *rows]) + "\n", encoding="utf-8")
    with session_scope(engine) as s:
        record = read_csv_event(
            path, session=s, league_id=league.id, location="Brewpub", day=dt.date(2026, 11, 20)
        )
        [out] = import_events([record], session=s, league_id=league.id, actor="t", now=NOW)
    assert [p.player for p in out.points] == list(_NEWCOMERS)
    assert [p.position for p in out.points] == list(range(1, len(_NEWCOMERS) + 1))


def test_19_5_a_csv_needs_a_season_when_the_league_has_none(engine, league, tmp_path):
    from storage.event_files import read_csv_event

    path = tmp_path / "night.csv"
    path.write_text("position,player\n1,Ann\n", encoding="utf-8")
    with pytest.raises(EventFormatError, match="no season yet"), session_scope(engine) as s:
        read_csv_event(
            path, session=s, league_id=league.id, location="Brewpub", day=dt.date(2026, 11, 20)
        )
    with pytest.raises(ImportFileError, match="not a regular file"), session_scope(engine) as s:
        read_csv_event(
            tmp_path, session=s, league_id=league.id, location="Brewpub", day=dt.date(2026, 11, 20)
        )

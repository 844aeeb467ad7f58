"""Backups: a league backed up and restored is the same league, on SQLite and PostgreSQL and
across them; a restore is all or nothing; the scheduled backup runs in exactly one instance."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, insert, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from storage import backup, restore
from storage.audit import list_audit
from storage.backup import write_backup
from storage.backup_schedule import (
    claim_backup,
    finish_backup,
    get_last_backup,
    prune_backups,
    run_scheduled_backup,
)
from storage.csv_import import import_csv_file
from storage.db import (
    create_schema,
    head_revision,
    make_engine,
    scratch_schema,
    session_scope,
    upgrade_schema,
)
from storage.errors import BackupError
from storage.events import get_event, list_events, void_event
from storage.leagues import list_leagues
from storage.players import add_player, add_strike
from storage.restore import restore_backup
from storage.seasons import get_season
from storage.standings import season_standings, season_toc
from tests.conftest import SKIP_POSTGRES, postgres_url
from tests.storage._league import ISSUE_EVENT, NOW, event, load, make_league

POSTGRES = [
    pytest.mark.postgres,
    pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1"),
]


def _sqlite_file(tmp_path: Path, name: str) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / name}")
    try:
        yield engine
    finally:
        engine.dispose()


def _postgres(_tmp_path: Path, _name: str) -> Iterator[Engine]:
    with scratch_schema(postgres_url(), prefix="b", create=False) as engine:
        yield engine


KINDS = [
    pytest.param(_sqlite_file, id="sqlite"),
    pytest.param(_postgres, id="postgres", marks=POSTGRES),
]


@pytest.fixture(params=KINDS)
def source(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    yield from request.param(tmp_path, "source.db")


@pytest.fixture(params=KINDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    yield from request.param(tmp_path, "target.db")


def _fill(engine: Engine) -> None:
    """A league with events (one voided), strikes, a linked player and its audit log."""
    create_schema(engine)
    with session_scope(engine) as session:
        league = make_league(session)
        load(session, league, ISSUE_EVENT)
        load(
            session,
            league,
            event([["Bob"], ["Alice"], ["Eve"]], date="2026-11-21", location="Dive Bar"),
            event([["Zoë"], ["Bob"]], date="2026-11-22", kind="second_chance"),
        )
        add_player(session=session, league_id=league.id, name="Ünal", actor="test", now=NOW)
        season = get_season(session=session, league_id=league.id)
        add_strike(
            session=session,
            league_id=league.id,
            name="Eve",
            season_id=season.id,
            level=1,
            reason="late",
            actor="test",
            day=dt.date(2026, 11, 21),
            now=NOW,
        )
        last = list_events(session=session, league_id=league.id)[-1]
        void_event(
            session=session,
            league_id=league.id,
            event_id=last.id,
            reason="typo",
            actor="test",
            now=NOW,
        )


def _league(engine: Engine) -> dict[str, Any]:
    """What a director sees: standings, TOC, events and the audit log."""
    with session_scope(engine) as session:
        (league_id,) = session.execute(text("SELECT id FROM league")).one()
        return {
            "standings": season_standings(session=session, league_id=league_id),
            "toc": season_toc(session=session, league_id=league_id),
            "events": list_events(session=session, league_id=league_id),
            "audit": list_audit(session=session, league_id=league_id, limit=10_000),
        }


def _body(path: Path) -> list[str]:
    """A backup's lines after its header (which names the time and the database)."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return lines.read().splitlines()[1:]


def test_backup_then_restore_gives_the_same_league(source: Engine, target: Engine, tmp_path):
    _fill(source)
    before = _league(source)
    written = write_backup(source, tmp_path / "league.jsonl.gz")
    restored = restore_backup(target, written.path)

    assert restored.tables == written.tables
    assert written.tables["result"] > 0
    assert written.tables["audit_log"] > 0
    assert _league(target) == before
    again = write_backup(target, tmp_path / "again.jsonl.gz")
    assert _body(again.path) == _body(written.path)  # every row of every table, byte for byte


def test_a_csv_night_stored_in_parts_comes_back_the_same(source, target, tmp_path, monkeypatch):
    """A CSV night streamed in chunks of 3 rows (its record and audit entry kept in parts)
    reads the same after a backup and a restore: its record, points and audit entry."""
    from storage import csv_import

    monkeypatch.setattr(csv_import, "WRITE_ROWS", 3)
    _fill(source)
    night = tmp_path / "night.csv"
    rows = ["1,Bob", "2,Newcomer A", "2,Newcomer B", *(f"{i},Newcomer {i}" for i in range(4, 11))]
    night.write_text("\n".join(["position,player", *rows]) + "\n", encoding="utf-8")
    with session_scope(source) as session:
        (league_id,) = session.execute(text("SELECT id FROM league")).one()
        out = import_csv_file(
            night,
            session=session,
            league_id=league_id,
            actor="test",
            location="Dive Bar",
            day=dt.date(2026, 11, 27),
            now=NOW,
            allow_new=True,
        )

    def night_read(engine: Engine) -> Any:
        with session_scope(engine) as session:
            return get_event(session=session, league_id=league_id, event_id=out.event.id)

    before, detail = _league(source), night_read(source)
    written = write_backup(source, tmp_path / "league.jsonl.gz")
    restore_backup(target, written.path)

    assert written.tables["event_record_part"] == 4  # 10 rows: 3 (a tie in them), 3, 3, 1
    assert written.tables["audit_part"] == 4
    assert list(detail.record["finish"])[:2] == [["Bob"], ["Newcomer A", "Newcomer B"]]
    assert len(detail.points) == 10
    assert night_read(target) == detail
    assert _league(target) == before


def test_a_league_larger_than_a_batch_comes_back_whole(source, target, tmp_path, monkeypatch):
    """Every table read and written in many batches (a batch here: 2 rows or 300 characters)."""
    _fill(source)
    before = _league(source)
    monkeypatch.setattr(backup, "BATCH_ROWS", 2)
    monkeypatch.setattr(restore, "BATCH_ROWS", 2)
    monkeypatch.setattr(restore, "BATCH_CHARS", 300)
    written = write_backup(source, tmp_path / "league.jsonl.gz")
    restored = restore_backup(target, written.path)

    assert restored.tables == written.tables
    assert written.tables["result"] > 2
    assert _league(target) == before


def test_a_restored_database_goes_on_numbering_after_the_restored_rows(source, target, tmp_path):
    _fill(source)
    restore_backup(target, write_backup(source, tmp_path / "b.jsonl.gz").path)
    with session_scope(target) as session:
        (league,) = list_leagues(session=session)
        add_player(session=session, league_id=league.id, name="Newcomer", actor="test")
        load(session, league, event([["Newcomer"], ["Alice"]], date="2026-11-29"))
    assert len(_league(target)["events"]) == len(_league(source)["events"]) + 1


def test_restore_refuses_a_database_holding_a_league_and_changes_nothing(source: Engine, tmp_path):
    _fill(source)
    path = write_backup(source, tmp_path / "b.jsonl").path
    before = _league(source)
    with pytest.raises(BackupError, match=r"already holds league data.*--replace"):
        restore_backup(source, path)
    assert _league(source) == before


def test_restore_with_replace_puts_the_backup_in_place_of_what_was_there(source, tmp_path):
    _fill(source)
    path = write_backup(source, tmp_path / "b.jsonl.gz").path
    before = _league(source)
    with session_scope(source) as session:
        (league,) = list_leagues(session=session)
        load(session, league, event([["Late"], ["Alice"]], date="2026-11-30"))
    assert _league(source) != before
    restore_backup(source, path, replace=True)
    assert _league(source) == before


def _cut(path: Path, keep_lines: int) -> Path:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = path.with_name("cut.jsonl")
    cut.write_text("".join(lines[:keep_lines]), encoding="utf-8")
    return cut


def test_a_backup_cut_short_restores_nothing(source: Engine, target: Engine, tmp_path):
    _fill(source)
    path = write_backup(source, tmp_path / "b.jsonl").path
    total = len(path.read_text(encoding="utf-8").splitlines())
    with pytest.raises(BackupError, match="ends early"):
        restore_backup(target, _cut(path, total - 1))
    with session_scope(target) as session:
        assert session.execute(text("SELECT count(*) FROM result")).scalar_one() == 0
        assert session.execute(text("SELECT count(*) FROM league")).scalar_one() == 0


def test_a_failed_replace_keeps_the_old_league(source: Engine, tmp_path):
    _fill(source)
    before = _league(source)
    path = write_backup(source, tmp_path / "b.jsonl").path
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[-2] = "[not json\n"  # the last row of the last table is damaged
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(BackupError, match="damaged"):
        restore_backup(source, broken, replace=True)
    assert _league(source) == before


def _foreign_keys(engine: Engine) -> list[tuple[str, ...]]:
    """Every foreign key of the database: its table, columns, and what it refers to."""
    found = inspect(engine)
    return sorted(
        (
            table,
            ",".join(key["constrained_columns"]),
            key["referred_table"],
            ",".join(key["referred_columns"]),
            str(key.get("options")),
        )
        for table in found.get_table_names()
        for key in found.get_foreign_keys(table)
    )


def test_a_restored_database_still_checks_its_foreign_keys(source: Engine, target, tmp_path):
    _fill(source)
    upgrade_schema(target)
    keys = _foreign_keys(target)
    restore_backup(target, write_backup(source, tmp_path / "b.jsonl.gz").path)

    assert _foreign_keys(target) == keys
    assert ("result", "player_id", "player", "id", "{}") in keys
    with pytest.raises(IntegrityError), target.begin() as conn:
        conn.execute(text("UPDATE result SET player_id = 999999 WHERE id = 1"))


def test_a_backup_referring_to_rows_it_does_not_hold_restores_nothing(source, target, tmp_path):
    _fill(source)
    path = write_backup(source, tmp_path / "b.jsonl").path
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith('{"table":"result"'))
    column = json.loads(lines[at])["columns"].index("player_id")
    row = json.loads(lines[at + 1])
    row[column] = 999999  # a player the backup does not hold
    lines[at + 1] = json.dumps(row) + "\n"
    broken = tmp_path / "orphan.jsonl"
    broken.write_text("".join(lines), encoding="utf-8")
    upgrade_schema(target)
    keys = _foreign_keys(target)

    with pytest.raises(BackupError, match="table 'result'"):
        restore_backup(target, broken)
    with session_scope(target) as session:
        assert session.execute(text("SELECT count(*) FROM league")).scalar_one() == 0
    assert _foreign_keys(target) == keys


@pytest.mark.parametrize(
    ("first_line", "message"),
    [
        ("hello\n", "is not a pokerfloor backup"),
        (json.dumps({"format": "pokerfloor-backup", "version": 9, "revision": "0001"}), "format 9"),
        (
            json.dumps({"format": "pokerfloor-backup", "version": 1, "revision": "9999"}),
            "revision 9999, which this pokerfloor does not know",
        ),
    ],
)
def test_a_file_this_version_cannot_restore_is_refused(first_line, message, tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(first_line + "\n" + '{"end": {}}\n', encoding="utf-8")
    engine = make_engine("sqlite://")
    with pytest.raises(BackupError, match=message):
        restore_backup(engine, path)


def test_a_missing_file_is_one_clear_error(tmp_path):
    with pytest.raises(BackupError, match="cannot read the backup"):
        restore_backup(make_engine("sqlite://"), tmp_path / "nope.jsonl.gz")


def test_a_backup_into_a_missing_folder_is_one_clear_error(tmp_path):
    engine = make_engine("sqlite://")
    create_schema(engine)
    with pytest.raises(BackupError, match="cannot write the backup"):
        write_backup(engine, tmp_path / "no" / "such" / "b.jsonl.gz")
    assert not list(tmp_path.iterdir())


def test_a_backup_from_an_older_schema_is_migrated_into_the_current_one(target, tmp_path):
    """Taken at 0005 (keys only case-folded), restored at the head: 0006 re-keys the names."""
    old = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade_schema(old, "0005")
    meta = MetaData()
    meta.reflect(old)
    with old.begin() as conn:
        conn.execute(
            insert(meta.tables["league"]).values(id=1, name="Old", preset="btown", overrides={})
        )
        conn.execute(
            insert(meta.tables["player"]).values(
                id=1, league_id=1, display_name="Ｊｏｅ", name_key="ｊｏｅ"
            )
        )
    path = write_backup(old, tmp_path / "old.jsonl.gz").path
    old.dispose()
    with gzip.open(path, "rt") as lines:
        assert json.loads(lines.readline())["revision"] == "0005"

    restored = restore_backup(target, path)
    assert restored.revision == "0005"
    with session_scope(target) as session:
        assert session.execute(text("SELECT name_key FROM player")).scalar_one() == "joe"
        version = session.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    assert version == head_revision()


def test_the_backup_is_one_moment_even_while_the_league_is_written(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'live.db'}")
    _fill(engine)
    writer = make_engine(f"sqlite:///{tmp_path / 'live.db'}")

    def meanwhile(table: str) -> None:
        if table == "league":  # the league is written; its audit log is still to come
            with writer.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO audit_log (league_id, actor, at, action, target) "
                        "VALUES (1, 'late', '2026-12-01 00:00:00', 'note', 'x')"
                    )
                )

    written = write_backup(engine, tmp_path / "b.jsonl", on_table=meanwhile)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT count(*) FROM audit_log")).scalar_one()
    assert written.tables["audit_log"] == rows - 1
    writer.dispose()
    engine.dispose()


# -- the schedule ---------------------------------------------------------------------------

EVERY = dt.timedelta(hours=6)
LEASE = dt.timedelta(minutes=15)
T0 = dt.datetime(2026, 12, 1, 4, 0, tzinfo=dt.UTC)


def _claim(engine: Engine, owner: str, at: dt.datetime) -> bool:
    with session_scope(engine) as session:
        return claim_backup(session=session, owner_id=owner, now=at, every=EVERY, lease=LEASE)


def test_of_two_instances_exactly_one_takes_each_backup(engine: Engine):
    assert _claim(engine, "a", T0) is True
    assert _claim(engine, "b", T0) is False  # a holds it
    with session_scope(engine) as session:
        assert finish_backup(session=session, owner_id="a", now=T0 + dt.timedelta(seconds=5))
    assert _claim(engine, "b", T0 + dt.timedelta(hours=1)) is False  # not due yet
    later = T0 + EVERY + dt.timedelta(seconds=5)
    assert [_claim(engine, o, later) for o in ("b", "a")] == [True, False]


def test_a_backup_whose_instance_died_is_taken_over_when_its_lease_runs_out(engine: Engine):
    assert _claim(engine, "dead", T0)
    assert _claim(engine, "live", T0 + LEASE - dt.timedelta(seconds=1)) is False
    assert _claim(engine, "live", T0 + LEASE + dt.timedelta(seconds=1)) is True
    with session_scope(engine) as session:
        assert finish_backup(session=session, owner_id="dead", now=T0 + LEASE) is False


def test_the_scheduled_backup_keeps_the_newest_files_and_tells_when_it_ran(
    engine: Engine, tmp_path
):
    _fill_league_only(engine)
    folder = tmp_path / "backups"
    clock = [T0]
    taken = []
    for step in range(5):
        clock[0] = T0 + step * EVERY
        for owner in ("a", "b"):  # two instances tick at the same moment
            summary = run_scheduled_backup(
                engine, folder=folder, every=EVERY, keep=3, owner_id=owner, now=lambda: clock[0]
            )
            if summary is not None:
                taken.append(summary)
    assert len(taken) == 5
    names = sorted(p.name for p in folder.iterdir())
    assert names == [p.path.name for p in taken[-3:]]
    with session_scope(engine) as session:
        last = get_last_backup(session=session)
    assert last is not None
    assert last.ok_at == clock[0]
    assert last.path == str(taken[-1].path)
    assert last.size_bytes == taken[-1].path.stat().st_size
    assert last.error is None
    assert last.running_since is None


def test_a_failed_scheduled_backup_is_recorded_and_tried_again_next_time(engine: Engine, tmp_path):
    _fill_league_only(engine)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(BackupError, match="cannot write"):
        run_scheduled_backup(
            engine, folder=blocker, every=EVERY, keep=3, owner_id="a", now=lambda: T0
        )
    with session_scope(engine) as session:
        last = get_last_backup(session=session)
    assert last is not None
    assert last.ok_at is None
    assert last.error
    assert last.running_since is None
    assert _claim(engine, "a", T0 + dt.timedelta(minutes=1)) is False
    assert _claim(engine, "a", T0 + EVERY) is True


def test_pruning_touches_only_scheduled_backups(tmp_path):
    for name in ("pokerfloor-20261101T000000Z.jsonl.gz", "pokerfloor-20261102T000000Z.jsonl.gz"):
        (tmp_path / name).write_text("x")
    (tmp_path / "mine.jsonl.gz").write_text("x")
    gone = prune_backups(tmp_path, 1)
    assert [p.name for p in gone] == ["pokerfloor-20261101T000000Z.jsonl.gz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "mine.jsonl.gz",
        "pokerfloor-20261102T000000Z.jsonl.gz",
    ]


def _fill_league_only(engine: Engine) -> None:
    with session_scope(engine) as session:
        league = make_league(session)
        load(session, league, ISSUE_EVENT)

"""A CSV night streamed (``import_csv_file``) stores what the whole-list path stores."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

from rulings import EventFormatError, parse_event
from storage.audit import list_audit
from storage.csv_import import import_csv_file
from storage.db import session_scope
from storage.errors import DuplicatePlayerError, EventConflictError, SuspendedPlayerError
from storage.event_files import read_csv_event
from storage.event_import import correct_events, import_events
from storage.events import get_event
from storage.league_models import merge_part
from storage.leagues import get_league_rules
from storage.players import add_alias, add_strike
from storage.rescore import plan_rescore
from storage.seasons import add_season, get_season
from tests.storage._league import NOW, event, make_league, refused

DAY = dt.date(2026, 11, 20)


@pytest.fixture
def league(engine: Any) -> Any:
    with session_scope(engine) as s:
        league = make_league(s)
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="t", now=NOW)
        import_events(
            [parse_event(event([["Bea Thornton"], ["Cal Ortiz"], ["Dee"]], date="2026-11-13"))],
            session=s,
            league_id=league.id,
            actor="t",
            now=NOW,
            allow_new=True,
        )
        add_alias(session=s, league_id=league.id, name="Cal Ortiz", alias="Cally", actor="t")
    return league


class _Rollback(Exception):
    pass


def _stored(engine: Any) -> dict[str, Any]:
    """What an import leaves, ids left out (PostgreSQL does not reuse rolled-back ids)."""
    with engine.connect() as c:
        events = c.execute(text("SELECT id, record, content_hash, kind, status FROM event")).all()
        events = sorted(events, key=lambda row: row[0])
        ids = {row[0]: n for n, row in enumerate(events)}
        results = c.execute(
            text(
                "SELECT e.date, p.display_name, r.position, r.tie_size, r.rp, r.bp, r.finish_rp,"
                " r.finish_bp, r.second_chance_bp, r.is_counted, r.is_regular FROM result r"
                " JOIN player p ON p.id = r.player_id JOIN event e ON e.id = r.event_id"
                " ORDER BY e.date, r.position, p.display_name"
            )
        ).all()
        audit = c.execute(
            text('SELECT action, target, "before", "after" FROM audit_log ORDER BY id')
        ).all()
        players = c.execute(text("SELECT display_name, name_key FROM player ORDER BY 2")).all()
        audit_ids = [row[0] for row in c.execute(text("SELECT id FROM audit_log ORDER BY id"))]
        event_parts = _parts(c, "event_record_part", "event_id")
        audit_parts = _parts(c, "audit_part", "audit_id")
    target = {f"event:{i}": f"event:#{n}" for i, n in ids.items()}
    # The documents as their readers see them: the parts of a streamed night merged in.
    records = [_whole(row[1], event_parts.get(row[0], [])) for row in events]
    afters = [
        _whole(row[3], audit_parts.get(i, [])) for i, row in zip(audit_ids, audit, strict=True)
    ]
    return {
        "events": [(record, *row[2:]) for record, row in zip(records, events, strict=True)],
        "results": results,
        "audit": [
            (a, target.get(t, t), _whole(b, []), after)
            for (a, t, b, _), after in zip(audit, afters, strict=True)
        ],
        "players": players,
    }


def _parts(c: Any, table: str, owner: str) -> dict[int, list[Any]]:
    found: dict[int, list[Any]] = {}
    for key, body in c.execute(text(f"SELECT {owner}, body FROM {table} ORDER BY {owner}, seq")):
        found.setdefault(key, []).append(body)
    return found


def _whole(document: Any, parts: list[Any]) -> Any:
    """A JSON column's value (text on SQLite) with its parts merged in, as its readers do."""
    value = json.loads(document) if isinstance(document, str) else document
    for part in parts:
        merge_part(value, json.loads(part) if isinstance(part, str) else part)
    return value


def _both(engine: Any, league: Any, path: Any, **options: Any) -> tuple[Any, Any]:
    """Import ``path`` streamed, then (rolled back first) the whole path; what each stored."""

    def streamed(s: Any) -> Any:
        return import_csv_file(
            path,
            session=s,
            league_id=league.id,
            actor="t",
            location="Brewpub",
            day=DAY,
            now=NOW,
            **options,
        )

    def whole(s: Any) -> Any:
        record = read_csv_event(path, session=s, league_id=league.id, location="Brewpub", day=DAY)
        [out] = import_events(
            [record], session=s, league_id=league.id, actor="t", now=NOW, **options
        )
        return out

    return _rolled_back(engine, streamed), _rolled_back(engine, whole)


def _rolled_back(engine: Any, action: Any) -> tuple[Any, Any]:
    """Run ``action(session)``, read what it stored, roll it back: (its outcome, the read)."""
    kept = []

    def run() -> None:
        with session_scope(engine) as s:
            out = action(s)
            s.flush()
            kept.append((out, _snapshot_in(s)))
            raise _Rollback

    with pytest.raises(_Rollback):
        run()
    return kept[0]


def _snapshot_in(session: Any) -> dict[str, Any]:
    class _Bound:
        def connect(self) -> Any:
            return _NoClose(session.connection())

    return _stored(_Bound())


class _NoClose:
    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def __enter__(self) -> Any:
        return self.connection

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.mark.parametrize("chunk", [3, 10_000])
def test_a_streamed_csv_night_stores_what_the_whole_path_stores(
    engine, league, tmp_path, monkeypatch, chunk
):
    from storage import csv_import, import_plan

    monkeypatch.setattr(csv_import, "WRITE_ROWS", chunk)
    monkeypatch.setattr(import_plan, "WRITE_ROWS", chunk)
    rng = random.Random(chunk)
    names = ["bea thornton", "Cally", "Éva Ñúñez", *(f"Newcomer {i}" for i in range(17))]
    rng.shuffle(names)
    rows, place = [], 1
    while names:
        size = rng.choice([1, 1, 2, 3])
        group, names = names[:size], names[size:]
        rows += [f"{place},{n}" for n in group]
        place += len(group)
    path = tmp_path / "night.csv"
    path.write_text("position,player\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (streamed, stored), (whole, expected) = _both(engine, league, path, allow_new=True)
    assert stored == expected
    assert streamed == dataclasses.replace(
        whole, event=dataclasses.replace(whole.event, id=streamed.event.id)
    )
    assert streamed.event.players == len(rows)


def test_csv_import_streams_all_or_nothing(engine, league, tmp_path, monkeypatch):
    """Chunks of 3 rows: a refusal at the last row (a look-alike of a known player, found
    after two chunks of new players and results were written) leaves every table as it was."""
    from storage import csv_import

    monkeypatch.setattr(csv_import, "WRITE_ROWS", 3)
    rows = [f"{i + 1},Newcomer {chr(65 + i)}" for i in range(8)]
    path = tmp_path / "night.csv"
    for last, error, match in [
        ("9,", EventFormatError, "finish CSV line 10: a player name is missing"),
        ("9,Newcomer C", EventFormatError, r"place 9: Newcomer C is listed twice \(also at pl"),
        ("9,Bea Thorntn", DuplicatePlayerError, "'Bea Thorntn' looks like .*'Bea Thornton'"),
        ("11,Zed", EventFormatError, "line 10: place 11 should be 9"),
    ]:
        path.write_text("\n".join(["position,player", *rows, last]) + "\n", encoding="utf-8")

        def import_night(s: Any) -> None:
            import_csv_file(
                path,
                session=s,
                league_id=league.id,
                actor="t",
                location="Brewpub",
                day=DAY,
                now=NOW,
                allow_new=["Newcomer " + chr(65 + i) for i in range(8)],
            )

        assert "\n" not in str(refused(engine, import_night, error, match))
    path.write_text("\n".join(["position,player", *rows]) + "\n", encoding="utf-8")
    with session_scope(engine) as s:
        out = import_csv_file(
            path,
            session=s,
            league_id=league.id,
            actor="t",
            location="Brewpub",
            day=DAY,
            now=NOW,
            allow_new=True,
        )
    assert [p.position for p in out.points] == list(range(1, 9))
    assert out.status == "imported"


def test_a_streamed_csv_refuses_one_player_under_two_names_and_a_suspended_one(
    engine, league, tmp_path
):
    path = tmp_path / "night.csv"
    path.write_text("position,player\n1,Cal Ortiz\n2,Ann\n3,cally\n", encoding="utf-8")
    refused(
        engine,
        lambda s: import_csv_file(
            path,
            session=s,
            league_id=league.id,
            actor="t",
            location="Brewpub",
            day=DAY,
            now=NOW,
            allow_new=True,
        ),
        EventFormatError,
        "finish place of cally: 'Cal Ortiz' and 'cally' are the same player",
    )
    with session_scope(engine) as s:
        season = get_season(session=s, league_id=league.id)
        add_strike(
            session=s,
            league_id=league.id,
            name="Dee",
            season_id=season.id,
            level=3,
            reason="x",
            actor="t",
            day=dt.date(2026, 11, 14),
            now=NOW,
        )
    path.write_text("position,player\n1,Ann\n2,dee\n", encoding="utf-8")
    refused(
        engine,
        lambda s: import_csv_file(
            path,
            session=s,
            league_id=league.id,
            actor="t",
            location="Brewpub",
            day=DAY,
            now=NOW,
            allow_new=True,
        ),
        SuspendedPlayerError,
        "Dee",
    )


def test_a_csv_night_stored_already_or_corrected_takes_the_whole_path(engine, league, tmp_path):
    path = tmp_path / "night.csv"
    path.write_text("position,player\n1,Ann\n2,Dee\n", encoding="utf-8")
    options: dict[str, Any] = {
        "league_id": league.id,
        "actor": "t",
        "location": "Brewpub",
        "day": DAY,
        "now": NOW,
        "allow_new": True,
    }
    with session_scope(engine) as s:
        assert import_csv_file(path, session=s, **options).status == "imported"
    with session_scope(engine) as s:
        assert import_csv_file(path, session=s, **options).status == "unchanged"
    path.write_text("position,player\n1,Dee\n2,Ann\n", encoding="utf-8")
    refused(
        engine,
        lambda s: import_csv_file(path, session=s, **options),
        EventConflictError,
        "stored with other results",
    )
    seen: list[Any] = []
    with session_scope(engine) as s:
        out = import_csv_file(path, session=s, store=correct_events, sink=seen.append, **options)
    assert out.status == "corrected"
    assert out.points == ()
    assert [p.player for p in seen] == ["Dee", "Ann"]


def test_a_night_stored_in_parts_reads_as_the_whole_path_stored_it(
    engine, league, tmp_path, monkeypatch
):
    """Chunks of 3 rows: the event's record and its audit entry are kept in parts, and
    ``get_event``, ``list_audit`` and a re-score read them as one whole text would be read."""
    from storage import csv_import

    monkeypatch.setattr(csv_import, "WRITE_ROWS", 3)
    rows = ["1,Cally", "2,Newcomer A", "2,Newcomer B", *(f"{i},Newcomer {i}" for i in range(4, 11))]
    path = tmp_path / "night.csv"
    path.write_text("\n".join(["position,player", *rows]) + "\n", encoding="utf-8")

    def read(s: Any, out: Any) -> Any:
        detail = get_event(session=s, league_id=league.id, event_id=out.event.id)
        [entry] = list_audit(session=s, league_id=league.id, target=f"event:{out.event.id}")
        season = get_season(session=s, league_id=league.id)
        rules = get_league_rules(session=s, league_id=league.id)
        rules = dataclasses.replace(
            rules, regular_points=tuple(p + 1 for p in rules.regular_points)
        )
        rescore = plan_rescore(
            session=s, league_id=league.id, season_id=season.id, season=season.name, rules=rules
        )
        parts = s.execute(text("SELECT count(*) FROM event_record_part")).scalar_one()
        moved = sorted((u["rp"], u["finish_rp"]) for u in rescore.updates)  # ids left out
        return detail.record, detail.points, entry.action, entry.after, moved, parts

    def streamed(s: Any) -> Any:
        return read(
            s,
            import_csv_file(
                path,
                session=s,
                league_id=league.id,
                actor="t",
                location="Brewpub",
                day=DAY,
                now=NOW,
                allow_new=True,
            ),
        )

    def whole(s: Any) -> Any:
        record = read_csv_event(path, session=s, league_id=league.id, location="Brewpub", day=DAY)
        [out] = import_events(
            [record], session=s, league_id=league.id, actor="t", now=NOW, allow_new=True
        )
        return read(s, out)

    (*seen, parts), _ = _rolled_back(engine, streamed)
    (*expected, no_parts), _ = _rolled_back(engine, whole)
    assert (parts, no_parts) == (4, 0)  # 3 rows (a tie in them), 3, 3, then 1
    assert seen == expected
    record, _, action, after, updates = seen
    assert action == "event.import"
    assert after["record"] == record
    assert list(after["points"])[:3] == ["Cal Ortiz", "Newcomer A", "Newcomer B"]
    assert len(updates) == 3 + 10  # re-scored from the whole record: every finisher moves


def test_correcting_a_night_stored_in_parts_writes_its_record_whole(
    engine, league, tmp_path, monkeypatch
):
    from storage import csv_import

    monkeypatch.setattr(csv_import, "WRITE_ROWS", 2)
    path = tmp_path / "night.csv"
    names = [f"Newcomer {i}" for i in range(1, 8)]
    options: dict[str, Any] = {
        "league_id": league.id,
        "actor": "t",
        "location": "Brewpub",
        "day": DAY,
        "now": NOW,
        "allow_new": True,
    }
    path.write_text(
        "position,player\n" + "".join(f"{i},{n}\n" for i, n in enumerate(names, 1)),
        encoding="utf-8",
    )
    with session_scope(engine) as s:
        first = import_csv_file(path, session=s, **options)
    names.reverse()
    path.write_text(
        "position,player\n" + "".join(f"{i},{n}\n" for i, n in enumerate(names, 1)),
        encoding="utf-8",
    )
    with session_scope(engine) as s:
        out = import_csv_file(path, session=s, store=correct_events, **options)
        detail = get_event(session=s, league_id=league.id, event_id=first.event.id)
        entries = list_audit(session=s, league_id=league.id, target=f"event:{first.event.id}")
        parts = s.execute(text("SELECT count(*) FROM event_record_part")).scalar_one()
    assert out.status == "corrected"
    assert parts == 0
    assert detail.record["finish"] == [[n] for n in names]
    assert [e.action for e in entries] == ["event.correct", "event.import"]
    correct, imported = entries
    assert correct.before is not None
    assert correct.before["record"]["finish"] == imported.after["record"]["finish"]  # type: ignore[index]
    assert imported.after["record"]["finish"] == [[n] for n in reversed(names)]  # type: ignore[index]


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        ("1,Ann\n3,Bob\n", "finish CSV line 3: place 3 should be 2"),  # the rows' error first
        ("1,Ann\n2,Bob\n", "location"),  # then the night's own
    ],
)
def test_a_streamed_csv_refuses_rows_before_the_night_as_the_whole_path(
    engine, league, tmp_path, rows, match
):
    path = tmp_path / "night.csv"
    path.write_text("position,player\n" + rows, encoding="utf-8")
    with session_scope(engine) as s, pytest.raises(EventFormatError) as whole:
        read_csv_event(path, session=s, league_id=league.id, location=" ", day=DAY)
    streamed = refused(
        engine,
        lambda s: import_csv_file(
            path, session=s, league_id=league.id, actor="t", location=" ", day=DAY, now=NOW
        ),
        EventFormatError,
        match,
    )
    assert str(streamed) == str(whole.value)


def test_migration_0020_downgrade_puts_a_parted_night_back_whole(tmp_path, monkeypatch):
    from alembic import command
    from alembic.config import Config

    import storage.db
    from storage import csv_import
    from storage.db import create_schema, make_engine

    monkeypatch.setattr(csv_import, "WRITE_ROWS", 3)
    engine = make_engine(f"sqlite:///{tmp_path / 'league.db'}")
    create_schema(engine)
    with session_scope(engine) as s:
        league = make_league(s)
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="t", now=NOW)
    path = tmp_path / "night.csv"
    path.write_text(
        "position,player\n" + "".join(f"{i},Newcomer {i}\n" for i in range(1, 11)),
        encoding="utf-8",
    )
    with session_scope(engine) as s:
        out = import_csv_file(
            path,
            session=s,
            league_id=league.id,
            actor="t",
            location="Brewpub",
            day=DAY,
            now=NOW,
            allow_new=True,
        )
        record = get_event(session=s, league_id=league.id, event_id=out.event.id).record
        [entry] = list_audit(session=s, league_id=league.id, target=f"event:{out.event.id}")
    config = Config()
    config.set_main_option("script_location", str(Path(storage.db.__file__).parent / "migrations"))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0019")
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT record FROM event")).scalar_one()
        after = conn.execute(
            text("SELECT after FROM audit_log WHERE action = 'event.import'")
        ).scalar_one()
        tables = set(inspect(conn).get_table_names())
    assert json.loads(stored) == record
    assert json.loads(after) == entry.after
    assert len(record["finish"]) == 10
    assert not tables & {"event_record_part", "audit_part"}

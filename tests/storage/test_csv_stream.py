"""A CSV night streamed (``import_csv_file``) stores what the whole-list path stores."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from typing import Any

import pytest
from sqlalchemy import text

from rulings import EventFormatError, parse_event
from storage.csv_import import import_csv_file
from storage.db import session_scope
from storage.errors import DuplicatePlayerError, EventConflictError, SuspendedPlayerError
from storage.event_files import read_csv_event
from storage.event_import import correct_events, import_events
from storage.players import add_alias, add_strike
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
    target = {f"event:{i}": f"event:#{n}" for i, n in ids.items()}
    return {
        "events": [row[1:] for row in events],
        "results": results,
        "audit": [(a, target.get(t, t), b, af) for a, t, b, af in audit],
        "players": players,
    }


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

import pytest
from sqlalchemy import text


def test_engine_answers_queries(engine):
    with engine.connect() as conn:
        assert conn.execute(text("select 1 + 1")).scalar_one() == 2


def test_session_scope_rolls_back_on_error(engine):
    from storage.db import session_scope

    with engine.begin() as conn:
        conn.execute(text("create table probe (x integer)"))
    try:
        with session_scope(engine) as s:
            s.execute(text("insert into probe values (1)"))
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from probe")).scalar_one() == 0


def _audit_rows(league_id: int, count: int, *, actor: str = "copier") -> list[dict[str, object]]:
    import datetime as dt

    at = dt.datetime(2026, 11, 20, 23, 0, tzinfo=dt.UTC)
    return [
        {
            "league_id": league_id,
            "actor": actor,
            "at": at,
            "action": "player.add",
            "target": f"player:P{i}\ttab\\slash\nline",
            "before": None if i % 2 else {"reason": "late\x00", "n": [i, "ü"]},
            "after": {"name": f"P{i}"},
        }
        for i in range(count)
    ]


def test_insert_rows_stores_many_rows_as_one_insert_would(engine):
    """COPY on PostgreSQL, executemany on SQLite: the same rows read back, JSON and times.

    A NUL inside JSON is stored escaped (``\\u0000``), as an INSERT binds it.
    """
    from storage.audit import list_audit
    from storage.db import insert_rows, session_scope
    from storage.league_models import AuditEntry
    from storage.leagues import ensure_league

    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="t")
        rows = _audit_rows(league.id, 5)
        insert_rows(s, AuditEntry, rows)
    with session_scope(engine) as s:
        stored = [e for e in list_audit(session=s, league_id=league.id) if e.actor == "copier"]
    assert [(e.at, e.action, e.target, e.before, e.after) for e in reversed(stored)] == [
        (r["at"], r["action"], r["target"], r["before"], r["after"]) for r in rows
    ]


def test_insert_rows_stores_exactly_what_a_core_insert_stores(engine):
    """The raw stored values (dates as the dialect writes them, JSON text, JSON's null) are
    those of SQLAlchemy's own INSERT of the same rows, so queries read both alike."""
    from sqlalchemy import insert, text

    from storage.db import core_table, insert_rows, session_scope
    from storage.league_models import AuditEntry
    from storage.leagues import ensure_league

    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="t")
        insert_rows(s, AuditEntry, _audit_rows(league.id, 6, actor="fast"))
        s.execute(insert(core_table(AuditEntry)), _audit_rows(league.id, 6, actor="core"))
    with session_scope(engine) as s:
        raw = {
            actor: s.execute(
                text(
                    "SELECT at, action, target, CAST(before AS TEXT), CAST(after AS TEXT)"
                    " FROM audit_log WHERE actor = :actor ORDER BY id"
                ),
                {"actor": actor},
            ).all()
            for actor in ("fast", "core")
        }
    assert raw["fast"] == raw["core"]
    assert len(raw["fast"]) == 6


def test_insert_rows_refuses_what_cannot_be_stored_and_writes_nothing(engine):

    from storage.audit import list_audit
    from storage.db import insert_rows, session_scope
    from storage.errors import StorageError
    from storage.league_models import AuditEntry
    from storage.leagues import ensure_league

    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="t")
    with pytest.raises(StorageError, match="NUL"), session_scope(engine) as s:
        insert_rows(s, AuditEntry, _audit_rows(league.id, 4, actor="a\x00b"))
    with session_scope(engine) as s:
        assert [e.action for e in list_audit(session=s, league_id=league.id)] == ["league.create"]


def test_insert_rows_gives_a_left_out_column_its_default(engine):
    """A COPY names only some columns; the others get the model's defaults, as an INSERT does."""
    from sqlmodel import select

    from storage.db import insert_rows, session_scope
    from storage.league_models import Season
    from storage.leagues import ensure_league

    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="t")
        rows = [{"league_id": league.id, "name": n, "name_key": n.lower()} for n in ("S1", "S2")]
        insert_rows(s, Season, rows)
    with session_scope(engine) as s:
        stored = s.exec(select(Season.name, Season.is_current).order_by(Season.name)).all()
    assert [tuple(r) for r in stored] == [("S1", False), ("S2", False)]


def test_a_connection_the_server_ended_is_replaced_at_checkout_without_an_error(engine):
    """PostgreSQL restarts and idle timeouts end sessions: the next unit of work still runs.

    The pool looks at the idle connection's socket (no round trip) and connects again.
    """

    from storage.db import make_engine, session_scope

    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no server to end a connection")
    with session_scope(engine) as s:
        ended = s.execute(text("select pg_backend_pid()")).scalar_one()
    other = make_engine(engine.url.render_as_string(hide_password=False))
    try:
        with other.connect() as conn:  # waits up to 5 s for the backend to be gone
            assert conn.execute(text(f"select pg_terminate_backend({ended}, 5000)")).scalar_one()
    finally:
        other.dispose()
    with session_scope(engine) as s:  # would raise "server closed the connection" if reused
        now = s.execute(text("select pg_backend_pid()")).scalar_one()
    assert now != ended

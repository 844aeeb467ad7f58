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

"""A fresh machine: where ``TEST_DATABASE_URL`` does not answer, a throwaway PostgreSQL does."""

from __future__ import annotations

import socket

import pytest
from sqlalchemy import text

from storage.db import make_engine
from tests.conftest import SKIP_POSTGRES, answers, postgres_url, throwaway_postgres_url

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1"),
]


def test_a_port_nothing_listens_on_does_not_answer():
    with socket.socket() as held:  # bound, never listening: a connection there is refused
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        assert not answers(f"postgresql+psycopg://postgres@127.0.0.1:{port}/test")


def test_the_postgres_the_tests_use_answers():
    assert answers(postgres_url())


def test_a_dead_test_database_url_is_replaced_by_a_throwaway_server():
    url = throwaway_postgres_url()
    assert answers(url)
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TEMPORARY TABLE probe (n int)"))
            conn.execute(text("INSERT INTO probe VALUES (1), (2)"))
            assert conn.execute(text("SELECT sum(n) FROM probe")).scalar_one() == 3
            assert conn.execute(text("SHOW fsync")).scalar_one() == "off"
    finally:
        engine.dispose()

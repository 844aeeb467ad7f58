"""``pokerfloor web``'s refusals: one line, exit 2, and no file created."""

from __future__ import annotations

from pathlib import Path

from bot.cli import main
from storage.db import create_schema, make_engine


def test_a_missing_database_file_is_refused_not_created(tmp_path: Path, capsys):
    path = tmp_path / "nothing.db"
    assert main(["web", "--db", f"sqlite:///{path}"]) == 2
    assert "there is no database at" in capsys.readouterr().err
    assert not path.exists()


def test_a_database_without_a_league_is_refused(tmp_path: Path, capsys):
    path = tmp_path / "empty.db"
    path.touch()
    assert main(["web", "--db", f"sqlite:///{path}", "--port", "8"]) == 2
    assert "has no league yet" in capsys.readouterr().err


def test_a_bad_port_is_refused(tmp_path: Path, capsys):
    url = f"sqlite:///{tmp_path / 'league.db'}"
    engine = make_engine(url)
    create_schema(engine)
    engine.dispose()
    assert main(["web", "--db", url, "--port", "70000"]) == 2
    assert "use a port from 1 to 65535" in capsys.readouterr().err

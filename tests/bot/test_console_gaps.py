"""The console runs what the README lists for it: /tournament show, /standings chart:, /help."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import Settings
from bot.surfaces.cli import main
from bot.surfaces.console import Console, ConsoleContext
from storage.db import create_schema, make_engine


@pytest.fixture
def console(tmp_path: Path) -> Iterator[Console]:
    engine = make_engine(f"sqlite:///{tmp_path / 'gaps.db'}")
    create_schema(engine)
    yield Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    engine.dispose()


def _run(console: Console, *lines: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO("\n".join(lines) + "\n"), out, err, interactive=False)
    return code, out.getvalue(), err.getvalue()


def test_help_lists_admin_health_where_it_runs(console):
    _, out, _ = _run(console, "/help")
    assert "/admin health" in out
    assert "/admin sync" not in out  # Discord only


def test_tournament_show_answers_in_the_console(console):
    code, out, err = _run(console, "/td season add 2026 Fall", "/tournament show")
    assert code == 0
    assert err == "there has been no tournament yet; /tournament open starts one\n"
    code, out, err = _run(
        console, "/td location add Brewpub", "/tournament open Brewpub", "/tournament show"
    )
    assert (code, err) == (0, ""), err
    assert out.count("Tournament") >= 2 or out.count("tournament") >= 2


def test_standings_chart_saves_the_picture(console, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    night = tmp_path / "night.json"
    event = {
        "season": "2026 Fall",
        "location": "Brewpub",
        "date": "2026-11-20",
        "kind": "regular",
        "finish": [["Ann"], ["Bob"]],
    }
    night.write_text(json.dumps(event), encoding="utf-8")
    code, out, err = _run(console, f'/td result file:"{night}" confirm:yes', "/standings chart:yes")
    assert (code, err) == (0, ""), err
    saved = tmp_path / "points-race.png"
    assert f"(saved {saved})" in out
    assert saved.read_bytes().startswith(b"\x89PNG")


def test_piped_console_ends_well_after_a_mistake_without_quit(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("/nonsense\n/hand As Ks vs Qh Qd\n"))
    code = main(["console", "--db", f"sqlite:///{tmp_path / 'p.db'}"])
    out, err = capsys.readouterr()
    assert code == 0
    assert err.startswith("Unknown command 'nonsense'")
    assert "%" in out  # the hand was answered after the mistake

"""Output: plain text on the command line; on Discord every typed name escaped; grammar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.reply import escape, plain, plural
from bot.surfaces.cli import main


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_prints_no_markdown(capsys, tmp_path: Path):
    code, out, _ = _cli(capsys, "hand", "Ah Kh vs Ad Kd", "--board", "Qs Js Ts 9h 8h")
    assert code == 0
    assert "Split pot" in out
    assert "**" not in out
    code, out, _ = _cli(capsys, "rule", "oversized chip")
    assert code == 0
    assert "**" not in out
    night = {
        "season": "2026 Fall",
        "location": "Brewpub",
        "date": "2026-11-20",
        "kind": "regular",
        "finish": [["**Bold** Bob"], ["Alice"]],
    }
    file = tmp_path / "night.json"
    file.write_text(json.dumps(night), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'out.db'}"
    code, out, err = _cli(capsys, "event", "import", str(file), "--db", db)
    assert (code, err) == (0, "")
    assert "Imported. 2026 Fall" in out  # no bold markers around the outcome
    assert "1 **Bold** Bob: 1,200 RP" in out  # a typed name reads as typed
    assert "\\*" not in out


def test_typed_names_are_escaped_for_discord_and_read_as_typed_in_a_terminal():
    for name in ("**Bold** Bob", "||x||", "`tick`", "@everyone"):
        shown = escape(name)
        assert "**" not in shown.replace("\\*", "")
        assert plain(shown) == name


def test_grammar_counts_one_and_many():
    assert plural(1, "player") == "1 player"
    assert plural(2, "player") == "2 players"
    assert plural(1_000, "card") == "1,000 cards"


def test_an_event_of_one_player_says_1_player(capsys, tmp_path: Path):
    night = {
        "season": "S",
        "location": "L",
        "date": "2026-11-20",
        "kind": "regular",
        "finish": [["Solo"]],
    }
    file = tmp_path / "solo.json"
    file.write_text(json.dumps(night), encoding="utf-8")
    code, out, err = _cli(
        capsys, "event", "import", str(file), "--db", f"sqlite:///{tmp_path / 'solo.db'}"
    )
    assert (code, err) == (0, "")
    assert "1 player" in out
    assert "1 players" not in out

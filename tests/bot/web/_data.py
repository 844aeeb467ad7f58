"""A small league written through the command line, shared by the web tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.surfaces.cli import main

SCRIPT = "<script>alert(1)</script>"
QUOTE = '" onmouseover="alert(2)'
SEASON = "2026 Fall"
OLD_SEASON = "2026 Spring"


def _event(date: str, location: str, finish: list[list[str]], **extra: Any) -> dict[str, Any]:
    return {
        "season": extra.pop("season", SEASON),
        "location": location,
        "date": date,
        "kind": extra.pop("kind", "regular"),
        "finish": finish,
        **extra,
    }


EVENTS = [
    _event("2026-04-02", "Brewpub", [["Alice"], ["Bob"], ["Carol"]], season=OLD_SEASON),
    _event(
        "2026-09-03",
        "Brewpub",
        [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]],
        bounties={"Alice": 2},
        premium_hands=[{"player": "Bob", "hand": "quads"}],
    ),
    _event(
        "2026-09-10",
        "Tap Room",
        [[SCRIPT], ["Alice"], [QUOTE], ["Bob"]],
        played=["Frank"],
        second_chance_winners=["Frank"],
    ),
    _event(
        "2026-09-17",
        "Brewpub",
        [["Bob"], [SCRIPT], ["Alice"], ["Gus"]],
        played=["Carol"],
        receipts=[{"player": "Carol", "amount": "12.50", "ref": "R-1"}],
    ),
    _event("2026-09-24", "Tap Room", [["Carol"], ["Dave"], ["Eve"]]),
    _event("2026-10-01", "Brewpub", [["Dave"], ["Alice"], ["Bob"]]),
]


def cli(*argv: str) -> int:
    return main(list(argv))


def build_league(tmp_path: Path) -> str:
    """Import ``EVENTS`` (and void one, strike one player) with the CLI; return the URL."""
    url = f"sqlite:///{tmp_path / 'league.db'}"
    path = tmp_path / "events.json"
    path.write_text(json.dumps(EVENTS), encoding="utf-8")
    assert cli("event", "import", str(path), "--allow-new", "--db", url) == 0
    assert cli("event", "void", "6", "--reason", "wrong night", "--db", url) == 0
    assert cli("strike", "add", "Eve", "--level", "1", "--reason", "slow roll", "--db", url) == 0
    assert cli("strike", "add", "Frank", "--level", "3", "--reason", "collusion", "--db", url) == 0
    return url


def cli_json(capsys: Any, *argv: str) -> Any:
    capsys.readouterr()
    assert cli(*argv) == 0
    return json.loads(capsys.readouterr().out)

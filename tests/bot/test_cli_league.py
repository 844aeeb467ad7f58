from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from bot.surfaces.cli import main

ISSUE_EVENT: dict[str, Any] = {
    "season": "2026 Fall",
    "location": "Brewpub",
    "date": "2026-11-20",
    "kind": "regular",
    "finish": [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]],
    "bounties": {"Alice": 2},
    "played": ["Frank"],
    "premium_hands": [{"player": "Bob", "hand": "quads"}],
    "second_chance_winners": ["Frank"],
    "receipts": [{"player": "Alice", "amount": "12.50", "ref": "R-1001"}],
}


@pytest.fixture
def db(tmp_path: Path) -> list[str]:
    return ["--db", f"sqlite:///{tmp_path / 'league.db'}"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_import_then_standings_and_toc_json_shapes(tmp_path, db, capsys):
    code, out, err = run(capsys, "event", "import", write(tmp_path, "e.json", ISSUE_EVENT), *db)
    assert (code, err) == (0, "")
    assert "Imported" in out
    assert "Alice: 1,300 RP, 490 BP" in out
    code, out, _ = run(capsys, "standings", "--json", *db)
    assert code == 0
    rows = json.loads(out)
    assert rows[0] == {"player": "Alice", "rp": 1300, "bp": 490, "events": 1}
    assert [r["player"] for r in rows] == ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank"]
    code, out, _ = run(capsys, "toc", "--season", "2026 fall", "--json", *db)
    assert code == 0
    toc = json.loads(out)
    assert set(toc[0]) == {"player", "status", "extra_chips", "rp_short", "bp_short"}
    assert toc[0]["status"] in {"qualified", "conversion", "not_qualified"}


def test_importing_the_same_file_twice_changes_nothing(tmp_path, db, capsys):
    path = write(tmp_path, "e.json", ISSUE_EVENT)
    run(capsys, "event", "import", path, *db)
    code, out, _ = run(capsys, "event", "import", path, *db)
    assert code == 0
    assert "Already stored, nothing changed" in out
    _, out, _ = run(capsys, "event", "list", "--json", *db)
    assert len(json.loads(out)) == 1


def test_csv_import_takes_the_event_from_options(tmp_path, db, capsys):
    path = write(tmp_path, "finish.csv", "position,player\n1,Ann\n2,Ben\n3,Cat\n3,Dan\n")
    code, _, err = run(capsys, "event", "import", path, *db)
    assert code == 2
    assert err.count("\n") == 1
    assert (
        "--location --date" in err
    )  # 19.5: the kind defaults to regular, the season to the current
    options = [
        "--season",
        "S1",
        "--location",
        "Brewpub",
        "--date",
        "2026-11-20",
        "--kind",
        "regular",
    ]
    code, out, _ = run(capsys, "event", "import", path, *options, *db)
    assert code == 0
    assert "T3 Cat: 650 RP, 75 BP" in out
    code, out, _ = run(
        capsys, "event", "import", path, "--location", "Brewpub", "--date", "2026-11-13", *db
    )
    assert code == 0
    assert "S1" in out
    assert "regular" in out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "weekly"}, "kind"),
        ({"finish": [["A"], ["A"]]}, "A"),
        ({"receipts": [{"player": "Alice", "amount": "-3.00"}]}, "receipts entry 1"),
        ({"receipts": [{"player": "Alice", "amount": "5000.00"}]}, "receipts entry 1"),
        ({"date": "2026-13-45"}, "date"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, db, capsys, change, message):
    path = write(
        tmp_path, "bad.json", [dict(ISSUE_EVENT, date="2026-11-13"), {**ISSUE_EVENT, **change}]
    )
    code, out, err = run(capsys, "event", "import", path, *db)
    assert code == 2
    assert out == ""
    assert err.startswith("pokerfloor event import: event 2: ")
    assert err.count("\n") == 1
    assert message in err
    _, out, _ = run(capsys, "event", "list", "--json", *db)
    assert json.loads(out) == []


def test_position_gap_in_csv_names_the_line(tmp_path, db, capsys):
    path = write(tmp_path, "f.csv", "position,player\n1,Ann\n3,Ben\n")
    options = ["--season", "S", "--location", "L", "--date", "2026-11-20", "--kind", "regular"]
    code, _, err = run(capsys, "event", "import", path, *options, *db)
    assert code == 2
    assert "line" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [("{", "not valid JSON"), ("[]", "no events"), ("42", "JSON object")],
)
def test_malformed_files_exit_2(tmp_path, db, capsys, content, message):
    code, _, err = run(capsys, "event", "import", write(tmp_path, "x.json", content), *db)
    assert code == 2
    assert message in err
    code, _, err = run(capsys, "event", "import", str(tmp_path / "missing.json"), *db)
    assert (code, "No such file" in err) == (2, True)


def _only(night: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The night without its awards (and players out of the points), with ``changes``."""
    keep = ("season", "location", "date", "kind", "finish")
    return {**{k: v for k, v in night.items() if k in keep}, **changes}


def test_likely_duplicate_player_is_refused_until_confirmed(tmp_path, db, capsys):
    run(
        capsys,
        "event",
        "import",
        write(tmp_path, "a.json", _only(ISSUE_EVENT, finish=[["John Smith"]])),
        *db,
    )
    second = write(
        tmp_path,
        "b.json",
        _only(ISSUE_EVENT, date="2026-11-27", finish=[["Jon Smith"]]),
    )
    code, _, err = run(capsys, "event", "import", second, *db)
    assert code == 2
    assert "looks like the existing player 'John Smith'" in err
    code, _, _ = run(capsys, "event", "import", second, "--new-player", "Jon Smith", *db)
    assert code == 0
    code, out, _ = run(capsys, "player", "merge", "John Smith", "Jon Smith", *db)
    assert code == 0
    _, out, _ = run(capsys, "player", "list", *db)
    assert "John Smith (also Jon Smith)" in out.splitlines()


def test_event_show_void_and_correct(tmp_path, db, capsys):
    path = write(tmp_path, "e.json", ISSUE_EVENT)
    run(capsys, "event", "import", path, *db)
    code, out, _ = run(capsys, "event", "show", "1", "--json", *db)
    assert json.loads(out)["receipts"] == [{"player": "Alice", "amount": "12.50", "ref": "R-1001"}]
    fixed = write(
        tmp_path,
        "fixed.json",
        dict(ISSUE_EVENT, finish=[["Bob"], ["Alice"], ["Carol", "Dave"], ["Eve"]]),
    )
    code, _, err = run(capsys, "event", "import", fixed, *db)
    assert (code, "event correct" in err) == (2, True)
    code, out, _ = run(capsys, "event", "correct", fixed, *db)
    assert code == 0
    assert "Corrected" in out
    code, _, err = run(capsys, "event", "void", "1", "--reason", " ", *db)
    assert (code, err) == (2, "pokerfloor event void: --reason: is empty.\n")
    code, out, _ = run(capsys, "event", "void", "1", "--reason", "played at the wrong bar", *db)
    assert code == 0
    _, out, _ = run(capsys, "event", "list", *db)
    assert "void" in out
    _, out, _ = run(capsys, "standings", "--json", *db)
    assert json.loads(out) == []


def test_export_writes_csv_files(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "e.json", ISSUE_EVENT), *db)
    folder = tmp_path / "out"
    code, _, _ = run(capsys, "export", "--csv", str(folder), *db)
    assert code == 0
    with (folder / "results.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6
    assert (rows[0]["player"], rows[0]["rp"], rows[0]["receipt_bp"]) == ("Alice", "1300", "240")
    with (folder / "standings.csv").open(encoding="utf-8") as handle:
        assert next(csv.DictReader(handle))["player"] == "Alice"
    assert {p.name for p in folder.iterdir()} == {
        "events.csv",
        "results.csv",
        "standings.csv",
        "players.csv",
    }
    code, _, err = run(capsys, "export", "--csv", str(folder / "events.csv"), *db)
    assert (code, "not a folder" in err) == (2, True)


def test_database_url_comes_from_the_environment(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(capsys, "event", "import", write(tmp_path, "e.json", ISSUE_EVENT))
    assert code == 0
    assert (tmp_path / "env.db").exists()
    code, _, err = run(capsys, "standings", "--season", "Nope", "--db", "nonsense://x")
    assert code == 2
    assert err.startswith("pokerfloor standings: cannot use the database")


def test_unknown_season_suggests_the_closest(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "e.json", ISSUE_EVENT), *db)
    code, _, err = run(capsys, "standings", "--season", "2026 Fal", *db)
    assert (code, err) == (
        2,
        "pokerfloor standings: there is no season '2026 Fal'; did you mean '2026 Fall'?\n",
    )


def test_league_rules_overrides_change_the_points(tmp_path, db, capsys):
    code, out, _ = run(capsys, "league", "set", "--set", "receipt_bp_per_dollar=10", *db)
    assert code == 0
    code, out, _ = run(capsys, "league", "show", "--json", *db)
    shown = json.loads(out)
    assert (shown["preset"], shown["receipt_bp_per_dollar"]) == ("btown", 10)
    _, out, _ = run(
        capsys, "event", "import", write(tmp_path, "e.json", ISSUE_EVENT), "--json", *db
    )
    assert json.loads(out)[0]["points"]["Alice"] == {"rp": 1300, "bp": 250 + 120}
    code, _, err = run(capsys, "league", "set", "--set", "no_such=1", *db)
    assert (code, err) == (2, "pokerfloor league set: unknown league setting 'no_such'\n")
    code, _, err = run(capsys, "league", "set", "--preset", "nowhere", *db)
    assert code == 2
    assert "unknown league preset" in err


def test_3_b_strike_three_via_cli_forfeits_the_season(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "e.json", ISSUE_EVENT), *db)
    code, out, _ = run(
        capsys,
        "strike",
        "add",
        "alice",
        "--level",
        "3",
        "--reason",
        "chip dumping",
        "--date",
        "2026-11-21",
        *db,
    )
    assert code == 0  # the old spelling of td strike: the same reply, the suspension recorded
    assert out.startswith("Strike 3 for Alice\n")
    assert "Season: 2026 Fall\nGiven: 2026-11-21\nReason: chip dumping" in out
    code, _, err = run(capsys, "strike", "add", "Alice", "--level", "4", "--reason", "x", *db)
    assert code == 2
    assert "strike level must be 1 to 3" in err
    _, out, _ = run(capsys, "standings", "--json", *db)
    alice = next(r for r in json.loads(out) if r["player"] == "Alice")
    assert (alice["rp"], alice["bp"]) == (0, 0)

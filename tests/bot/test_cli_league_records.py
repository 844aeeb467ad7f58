"""Issue 11 through the command line: one line and exit 2 for every refusal, nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.surfaces.cli import main


@pytest.fixture
def db(tmp_path: Path) -> list[str]:
    return ["--db", f"sqlite:///{tmp_path / 'league.db'}"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def night(**changes: Any) -> dict[str, Any]:
    base = {
        "season": "2026 Fall",
        "location": "Brewpub",
        "date": "2026-11-20",
        "kind": "regular",
        "finish": [["Alice"], ["Bob"]],
    }
    return {**base, **changes}


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def refused(capsys: pytest.CaptureFixture[str], db: list[str], *argv: str) -> str:
    """The command exits 2 with one line, and the stored events are as they were."""
    _, before, _ = run(capsys, "event", "list", "--json", *db)
    code, out, err = run(capsys, *argv, *db)
    assert (code, out) == (2, "")
    assert err.startswith(f"pokerfloor {argv[0]} {argv[1]}: ")
    assert err.count("\n") == 1
    _, after, _ = run(capsys, "event", "list", "--json", *db)
    assert after == before
    return err


def test_1_c_an_alias_in_the_bounties_imports_for_its_player(tmp_path, db, capsys):
    assert run(capsys, "player", "add", "Alice", *db)[0] == 0
    assert run(capsys, "player", "alias", "Alice", "Ali", *db)[0] == 0
    code, out, err = run(
        capsys,
        "event",
        "import",
        write(tmp_path, "a.json", night(bounties={"Ali": 1})),
        "--json",
        *db,
    )
    assert (code, err) == (0, "")
    assert json.loads(out)[0]["points"]["Alice"] == {"rp": 1250, "bp": 250}
    err = refused(
        capsys, db, "event", "import", write(tmp_path, "b.json", night(finish=[["Alice"], ["Ali"]]))
    )
    assert "'Alice' and 'Ali' are the same player" in err


def test_2_4_a_season_add_makes_it_current_for_standings(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "a.json", night()), *db)
    code, out, _ = run(capsys, "season", "add", "2027 Spring", *db)
    assert code == 0
    assert "2027 Spring is now the current season" in out
    _, out, _ = run(capsys, "season", "current", *db)
    assert "2027 Spring" in out
    code, out, _ = run(capsys, "standings", "--json", *db)
    assert (code, json.loads(out)) == (0, [])
    run(capsys, "season", "current", "2026 Fall", *db)
    _, out, _ = run(capsys, "standings", "--json", *db)
    assert [r["player"] for r in json.loads(out)] == ["Alice", "Bob"]


def test_4_1_c_correct_needs_a_stored_night_and_unvoid_is_explicit(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "a.json", night()), *db)
    typo = write(tmp_path, "typo.json", night(date="2026-11-21", finish=[["Bob"], ["Alice"]]))
    assert "there is no stored event 2026-11-21" in refused(capsys, db, "event", "correct", typo)
    assert run(capsys, "event", "void", "1", "--reason", "wrong night", *db)[0] == 0
    fixed = write(tmp_path, "fixed.json", night(finish=[["Bob"], ["Alice"]]))
    assert "--unvoid" in refused(capsys, db, "event", "correct", fixed)
    code, out, _ = run(capsys, "event", "correct", fixed, "--unvoid", *db)
    assert code == 0
    _, out, _ = run(capsys, "event", "list", "--json", *db)
    assert [(e["id"], e["status"]) for e in json.loads(out)] == [(1, "active")]


def test_4_1_c_a_voided_night_is_imported_again(tmp_path, db, capsys):
    path = write(tmp_path, "a.json", night())
    run(capsys, "event", "import", path, *db)
    run(capsys, "event", "void", "1", "--reason", "typo", *db)
    assert run(capsys, "event", "import", path, *db)[0] == 0
    _, out, _ = run(capsys, "event", "list", "--json", *db)
    assert [(e["id"], e["status"]) for e in json.loads(out)] == [(1, "void"), (2, "active")]


def test_5_4_b_strike_three_shows_forfeited_in_toc_json(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "a.json", night()), *db)
    assert run(capsys, "strike", "add", "Bob", "--level", "3", "--reason", "x", *db)[0] == 0
    _, out, _ = run(capsys, "toc", "--json", *db)
    assert {r["player"]: r["status"] for r in json.loads(out)}["Bob"] == "forfeited"


def test_6_1_c_an_award_to_someone_who_did_not_play_is_refused(tmp_path, db, capsys):
    err = refused(
        capsys,
        db,
        "event",
        "import",
        write(tmp_path, "a.json", night(second_chance_winners=["Zed"])),
    )
    assert "Zed did not play this event; add Zed to played first" in err
    _, out, _ = run(capsys, "player", "list", *db)
    assert "Zed" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("event", "show", "9223372036854775808"), "is not an event number"),
        (("event", "void", "99999999999999999999", "--reason", "x"), "is not an event number"),
    ],
)
def test_8_ids_beyond_64_bits_are_one_line_and_exit_2(db, capsys, argv, message):
    assert message in refused(capsys, db, *argv)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"season": "S" * 5000}, "longer than 100 characters"),
        ({"date": "1999-12-31"}, "is outside 2000-01-01"),
        ({"receipts": [{"player": "Bob", "amount": "1e3"}]}, "at most two decimals"),
        ({"receipts": [{"player": "Bob", "amount": "AMOUNT"}]}, "at most two decimals"),
    ],
)
def test_8_bounds_on_the_import_path(tmp_path, db, capsys, changes, message):
    path = write(tmp_path, "a.json", night(**changes))
    text = Path(path).read_text(encoding="utf-8")
    Path(path).write_text(text.replace('"AMOUNT"', "1e3"), encoding="utf-8")  # a JSON number
    assert message in refused(capsys, db, "event", "import", path)


def test_8_an_import_over_20_mb_is_refused_before_reading(tmp_path, db, capsys):
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(20_000_001)
    assert "at most 20,000,000" in refused(capsys, db, "event", "import", str(big))


def test_5_3_b_strike_dates_and_the_suspension_on_import(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "a.json", night(date="2026-10-01")), *db)
    code, out, _ = run(
        capsys, "strike", "add", "Bob", "--level", "1", "--reason", "x", "--date", "2026-10-02", *db
    )
    assert code == 0
    assert "Given: 2026-10-02" in out
    later = write(tmp_path, "b.json", night(date="2026-10-09"))
    err = refused(capsys, db, "event", "import", later)
    assert "Bob is suspended (strike 1 on 2026-10-02): 3 of 3 events left (3.B)" in err
    assert err.rstrip().endswith("(--confirm)")
    assert run(capsys, "event", "import", later, "--confirm", *db)[0] == 0


def test_7_1_b_b_league_set_rescores_only_when_confirmed(tmp_path, db, capsys):
    run(capsys, "event", "import", write(tmp_path, "a.json", night()), *db)
    err = refused(capsys, db, "league", "set", "--set", "owner=Alice")
    assert "re-scores 1 stored event of 2026 Fall (1 player's points change)" in err
    code, out, _ = run(capsys, "league", "set", "--set", "owner=Alice", "--confirm", *db)
    assert code == 0
    assert "Re-scored 1 stored event of 2026 Fall: 1 player's points changed." in out
    _, out, _ = run(capsys, "standings", "--json", *db)
    assert {r["player"]: r["rp"] for r in json.loads(out)} == {"Alice": 0, "Bob": 800}

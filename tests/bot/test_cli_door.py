"""One door: every `pokerfloor` sub-command is a definition, its old spellings aliases of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.surfaces.cli import main


@pytest.fixture
def db(tmp_path: Path) -> list[str]:
    return ["--db", f"sqlite:///{tmp_path / 'league.db'}"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def night(tmp_path: Path, db: list[str], capsys, *names: str) -> None:
    event = {
        "season": "2026 Fall",
        "location": "Brewpub",
        "date": "2026-11-20",
        "kind": "regular",
        "finish": [[n] for n in names],
    }
    path = tmp_path / "night.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    code, _, err = run(capsys, "event", "import", str(path), "--allow-new", *db)
    assert code == 0, err


def test_td_season_add_is_spelled_as_on_discord(db, capsys):
    code, out, err = run(capsys, "td", "season", "add", "2026 Fall", *db)
    assert (code, err) == (0, "")
    assert "2026 Fall is now the current season" in out
    code, out, _ = run(capsys, "td", "season", "list", *db)
    assert "2026 Fall (current)" in out


def test_old_spelling_runs_the_same_command_with_one_deprecation_line(db, capsys):
    code, out, err = run(capsys, "season", "add", "2026 Fall", *db)
    assert code == 0
    assert err == "pokerfloor season add: deprecated, use: pokerfloor td season add\n"
    assert "2026 Fall is now the current season" in out


def test_strike_add_records_the_suspension_as_td_strike_does(tmp_path, db, capsys):
    night(tmp_path, db, capsys, "Bea", "Cal")
    old = run(capsys, "strike", "add", "Bea", "--level", "1", "--reason", "late", *db)
    new = run(capsys, "td", "strike", "Cal", "--level", "1", "--reason", "late", *db)
    assert old[0] == new[0] == 0
    assert old[2] == "pokerfloor strike add: deprecated, use: pokerfloor td strike\n"
    assert new[2] == ""
    # the same reply for both: the suspension and its rule (3.B)
    assert old[1].replace("Bea", "X") == new[1].replace("Cal", "X")
    assert "3.B" in old[1]


def test_td_siblings_take_the_player_the_same_way(tmp_path, db, capsys):
    night(tmp_path, db, capsys, "Bea", "Cal")
    assert run(capsys, "td", "bounty", "Bea", "--event", "1", "--chips", "2", *db)[0] == 0
    assert run(capsys, "td", "strike", "Bea", "--level", "1", "--reason", "late", *db)[0] == 0


@pytest.mark.parametrize("word", ["yes", "no"])
def test_a_yes_no_flag_takes_its_word_never_a_player_named_so(db, capsys, word):
    code, out, err = run(capsys, "stack", "--early", word)
    assert (code, err) == (0, "")
    assert "Starting stack for a player" in out
    assert ("signed in early" in out) is (word == "yes")


def test_a_yes_no_flag_before_a_name_leaves_the_name_alone(db, capsys):
    code, out, _ = run(capsys, "stack", "--early", "Bea")
    assert code == 0
    assert "Starting stack for Bea" in out
    assert "signed in early" in out


def test_the_command_line_never_cuts_a_name(tmp_path, db, capsys):
    long = "Bartholomew Fitzgerald-Montgomery"
    night(tmp_path, db, capsys, long, "Cal")
    for words in (("standings",), ("toc",)):
        code, out, _ = run(capsys, *words, *db)
        assert code == 0
        assert long in out, words

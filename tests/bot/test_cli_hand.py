from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from bot.features.hand.wording import TEXT_LIMIT, hand_reply, hand_reply_needs_thread
from bot.surfaces.cli import main
from rulings import load_league_rules

BTOWN = load_league_rules("btown")
POKER_PUB = load_league_rules("poker-pub")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_hand_readable_answer_on_the_flop(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "hand", "As Ks vs Qh Qd", "--board", "2c 7d 9h")
    assert code == 0
    assert err == ""
    assert "Odds on the flop" in out
    assert "Board: 2c 7d 9h" in out
    assert "Pair of Queens, 9-7-2 kickers" in out
    assert "wins 23.94%, ties 0.00%" in out
    assert "all 990 ways" in out


def test_cli_hand_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "hand", "As Ks vs Qh Qd", "--board", "2c 7d 9h Ah 3s", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"players", "board", "complete", "winners"}
    assert data["complete"] is True
    assert data["winners"] == [0]
    assert data["players"][0]["category"] == "Pair"
    assert data["players"][0]["best_five"] == ["As", "Ah", "Ks", "9h", "7d"]
    assert data["players"][0]["cards"] == ["As", "Ks"]
    assert (data["players"][0]["win"], data["players"][0]["tie"]) == (1.0, 0.0)


def test_cli_hand_lone_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "hand", "As Ks Qs Js Ts", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["players"][0]["name"] == "Royal flush"
    assert data["winners"] == [0]
    assert data["board"] == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hand", "1x Ks vs Qh Qd"], '"1x" is not a card'),
        (["hand", "As As vs Qh Qd"], "As appears twice"),
        (["hand", "As Ks vs Qh Qd", "--board", "2c"], "0, 3, 4 or 5 cards"),
        (["hand", "As Ks"], "A lone hand needs 5 to 7 cards"),
    ],
)
def test_cli_hand_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_cli_hand_as_a_process_has_no_traceback() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, bot.surfaces.cli; sys.exit(bot.surfaces.cli.main())",
            "hand",
            "As Kx",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        'pokerfloor hand: "Kx" is not a card: use rank 2-9/T/J/Q/K/A and suit s/h/d/c'
    )


def test_hand_reply_showdown_names_winner_and_kicker() -> None:
    reply = hand_reply("alice: Ks 3d vs bob: Qh Jh board 9s 9h 9d 9c 2c", rules=BTOWN)
    assert reply.title == "alice wins"
    assert "same four Nines; the kicker decides: K beats Q" in reply.text
    assert "all on the board" in reply.fields[0].value
    assert not reply.private


def test_hand_reply_split_mentions_odd_chips() -> None:
    reply = hand_reply("Ah Kd vs Ac Kh board 2c 3c 4d 5h 6s", rules=BTOWN)
    assert reply.title == "Split pot"
    assert "the board plays" in reply.text
    assert reply.citation is not None
    assert reply.citation == "btown-poker-league 6 (hand rankings), 2.G.d.5 (split pots)"


def test_hand_reply_premium_note_for_a_winning_royal() -> None:
    reply = hand_reply("Ah Kh vs 2c 2d board Qh Jh Th 2s 2h", rules=BTOWN)
    assert "200 RP + 100 BP" in reply.fields[0].value


def test_hand_reply_fits_discord_with_ten_named_players() -> None:
    names = [f"{'x' * 30}{i:02d}" for i in range(10)]
    holes = [
        "As Ks",
        "Qh Qd",
        "Jc Tc",
        "9s 9d",
        "8h 7h",
        "Ad 2d",
        "Kc Qc",
        "5s 4s",
        "3h 3c",
        "6c 6d",
    ]
    text = " vs ".join(f"{n}: {h}" for n, h in zip(names, holes, strict=True))
    reply = hand_reply(text, "2h 7c Th", rules=BTOWN)
    assert len(reply.to_text()) <= TEXT_LIMIT
    assert len(reply.fields) == 10


def test_needs_thread_for_preflop_enumeration_only() -> None:
    assert hand_reply_needs_thread("As Ks vs Qh Qd")
    assert not hand_reply_needs_thread("As Ks vs Qh Qd board 2c 7d 9h")
    assert not hand_reply_needs_thread("As Ks Qs Js Ts")
    assert not hand_reply_needs_thread("nonsense")


def test_hand_reply_in_a_poker_pub_league_says_nothing_of_points() -> None:
    reply = hand_reply("As Ks Qs Js Ts", rules=POKER_PUB)
    assert reply.title == "Royal flush"
    text = reply.to_text()
    assert "RP" not in text
    assert "BP" not in text
    assert "premium" not in text
    assert "btown" not in text.lower()
    assert reply.citation == "poker-pub Additional information (hand rankings)"


def test_hand_reply_split_in_a_poker_pub_league_cites_only_what_its_book_rules() -> None:
    reply = hand_reply("Ah Kd vs Ac Kh board 2c 3c 4d 5h 6s", rules=POKER_PUB)
    assert reply.title == "Split pot"
    assert reply.citation == "poker-pub Additional information (hand rankings)"


def test_hand_reply_in_a_btown_league_prices_the_royal_flush() -> None:
    reply = hand_reply("As Ks Qs Js Ts", rules=BTOWN)
    assert "200 RP + 100 BP" in reply.to_text()
    assert reply.citation == "btown-poker-league 6 (hand rankings)"


def test_cli_hand_answers_with_the_rules_of_the_league_in_use(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    # No database yet: the default preset's rules, and no database file is created.
    code, out, _ = run(capsys, "hand", "As Ks Qs Js Ts", "--db", db)
    assert code == 0
    assert "200 RP + 100 BP" in out
    assert not (tmp_path / "league.db").exists()
    assert main(["league", "set", "--preset", "poker-pub", "--db", db]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "hand", "As Ks Qs Js Ts", "--db", db)
    assert code == 0
    assert "Royal flush" in out
    assert "RP" not in out
    assert "btown" not in out.lower()
    assert "poker-pub Additional information" in out


def test_cli_hand_reads_a_sqlite_league_without_sqlalchemy(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    assert main(["league", "set", "--preset", "poker-pub", "--db", db]) == 0
    capsys.readouterr()
    script = (
        "import sys, bot.surfaces.cli; code = bot.surfaces.cli.main(); "
        "print(sorted(m for m in ('sqlalchemy', 'sqlmodel', 'alembic') if m in sys.modules)); "
        "sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "hand", "As Ks Qs Js Ts", "--db", db],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "poker-pub Additional information" in done.stdout
    assert done.stdout.strip().endswith("[]")


def _loaded_after(tmp_path, *argv: str) -> tuple[str, list[str], bool]:
    """Run ``pokerfloor *argv`` as a program in ``tmp_path``: its output, the heavy or
    unneeded modules it loaded, and whether the cyclic garbage collector is on at the end."""
    watched = (
        "sqlalchemy",
        "sqlmodel",
        "alembic",
        "pydantic",
        "discord",
        "rapidfuzz",
        "rulings.rulebook",
        "rulings.tournament",
        "rulings.league.recording",
        "rulings.league.standings",
    )
    script = (
        "import gc, sys, bot.surfaces.cli; code = bot.surfaces.cli.main(); "
        f"print(sorted(m for m in {watched!r} if m in sys.modules)); print(gc.isenabled()); "
        "sys.exit(code)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "RULEBOOK_DIR")}
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**env, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    *out, modules, collecting = done.stdout.strip().splitlines()
    return "\n".join(out), json.loads(modules.replace("'", '"')), collecting == "True"


def test_cli_pre_flop_hand_in_a_league_folder_loads_no_database_library(tmp_path) -> None:
    # Issue 18's start-up case: the league database is in the working directory.
    assert (
        subprocess.run(
            [sys.executable, "-m", "bot", "league", "set", "--preset", "poker-pub"],
            cwd=tmp_path,
            capture_output=True,
            check=False,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        ).returncode
        == 0
    )
    out, modules, collecting = _loaded_after(tmp_path, "hand", "As Ks vs Qh Qd")
    assert "wins 46.02%, ties 0.39%" in out
    assert "poker-pub" in out  # the league's rules were read, from the file, with sqlite3
    assert modules == []
    assert not collecting  # a one-shot command that never opened the database


def test_cli_command_that_opens_the_database_turns_the_collector_back_on(tmp_path) -> None:
    out, modules, collecting = _loaded_after(tmp_path, "td", "season", "add", "2026 Fall")
    assert "2026 Fall is now the current season" in out
    assert "sqlalchemy" in modules
    assert collecting


def test_cli_called_with_arguments_leaves_the_callers_collector_as_it_was(capsys, tmp_path) -> None:
    assert gc.isenabled()
    run(capsys, "hand", "As Ks Qs Js Ts")
    assert gc.isenabled()
    gc.disable()
    try:
        run(capsys, "hand", "As Ks Qs Js Ts")
        assert not gc.isenabled()
        db = f"sqlite:///{tmp_path / 'league.db'}"
        assert main(["td", "season", "add", "2026 Fall", "--db", db]) == 0  # opens it
        assert not gc.isenabled()
    finally:
        gc.enable()

"""The console router and ``pokerfloor console`` / no-sub-command behaviour."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.command.model import Command, Context, Opt
from bot.command.options import parse_line
from bot.config import Settings
from bot.errors import BadOption, UnknownCommandError
from bot.features import COMMANDS
from bot.reply import Reply
from bot.surfaces.console import Console, ConsoleContext
from rulings import RulingsError
from storage.db import create_schema, make_engine


def shout(ctx: Context, words: str | None = None) -> Reply:
    if not words:
        raise RulingsError("Say something to shout.")
    return Reply(title="Shout", text=words.upper())


def crash(ctx: Context) -> Reply:
    raise RuntimeError("internal detail")


EXTRA = (
    Command(
        ("shout",),
        "Shout the words",
        "tests.bot.test_console:shout",
        options=(Opt("words", "What to shout", positional=True),),
    ),
    Command(("crash",), "Hit a bug", "tests.bot.test_console:crash"),
)


@pytest.fixture
def console(tmp_path: Path) -> Console:
    engine = make_engine(f"sqlite:///{tmp_path / 'c.db'}")
    create_schema(engine)  # as `pokerfloor console` does (upgrade_schema) before the first line
    ctx = ConsoleContext(
        settings=Settings(_env_file=None), engine=engine, commands=(*COMMANDS, *EXTRA)
    )
    return Console(ctx)


def _run(console: Console, text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO(text), out, err, interactive=False)
    return code, out.getvalue(), err.getvalue()


def test_a_registered_command_answers(console: Console):
    reply = console.handle("/shout all in")
    assert reply is not None
    assert reply.text == "ALL IN"


def test_slash_is_optional_and_blank_lines_are_skipped(console: Console):
    assert console.handle("shout hi") is not None
    assert console.handle("   ") is None
    assert console.handle("# a comment") is None


def test_unknown_command_names_the_known_ones(console: Console):
    with pytest.raises(UnknownCommandError, match=r"Unknown command 'river'; try /rule, /hand, "):
        console.handle("/river")


def test_help_lists_every_registered_command(console: Console):
    code, out, err = _run(console, "/help\n")
    assert code == 0
    assert err == ""
    for name in ("/rule", "/hand", "/help"):
        assert name in out
    assert "**" not in out  # the terminal gets plain text


def test_user_mistake_prints_one_line_and_the_console_goes_on(console: Console):
    code, out, err = _run(console, "/shout\n/shout ok\n")
    assert err == "Say something to shout.\n"
    assert "OK" in out
    assert code == 0  # end of input: the mistake was answered on stderr


def test_bug_prints_an_apology_not_a_traceback(console: Console):
    code, _, err = _run(console, "/crash\n")
    assert code == 1
    assert "internal detail" not in err
    assert "went wrong" in err


def test_quit_stops_reading(console: Console):
    code, out, _ = _run(console, "quit\n/shout never\n")
    assert code == 0
    assert out == ""


RULE = Command(
    ("rule",),
    "Look up",
    "m:f",
    options=(Opt("query", "Q", positional=True), Opt("book", "B")),
)


def test_parse_line_discord_style():
    assert parse_line(RULE, "oversized chip book: btown") == {
        "query": "oversized chip",
        "book": "btown",
    }
    # a colon after a number is not an option name
    assert parse_line(RULE, "rule 2:30 break") == {"query": "rule 2:30 break"}
    assert parse_line(RULE, 'book:"poker pub" ') == {"book": "poker pub"}
    assert parse_line(RULE, 'q book:"a book:b"') == {"query": "q", "book": "a book:b"}
    with pytest.raises(BadOption, match="given twice"):
        parse_line(RULE, "x book:a book:b")
    with pytest.raises(BadOption, match="no option 'bok'; /rule takes query, book"):
        parse_line(RULE, "x bok:a")
    with pytest.raises(BadOption, match="book: is empty"):
        parse_line(RULE, "x book: ")


def _pokerfloor(args: list[str], stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


def test_pokerfloor_console_reads_stdin_and_exits_zero_at_eof(tmp_path: Path):
    done = _pokerfloor(["console"], "/help\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "/rule" in done.stdout
    assert (tmp_path / "pokerfloor.db").exists()  # embedded SQLite in the working directory


def test_pokerfloor_without_token_opens_the_console(tmp_path: Path):
    done = _pokerfloor([], "/nonsense\n", tmp_path)
    assert done.returncode == 0  # end of input: the mistake was answered on stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Unknown command 'nonsense'; try /rule, /hand, ")


def test_pokerfloor_run_without_token_is_one_line(tmp_path: Path):
    done = _pokerfloor(["run"], "", tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "pokerfloor: DISCORD_TOKEN is not set (see .env.example)"


def test_echo_rule_into_pokerfloor_console_prints_the_answer(tmp_path: Path):
    done = _pokerfloor(["console"], "/rule oversized chip\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2.G.d.6" in done.stdout
    assert "over-sized chip" in done.stdout
    assert done.stderr == ""


def test_console_hand_with_board_option(console: Console):
    reply = console.handle("/hand As Ks vs Qh Qd board: 2c 7d 9h Jc 3s")
    assert reply is not None
    assert reply.title == "Player 2 wins"


def test_quit_exits_zero_whatever_the_session_typed(console: Console):
    code, _, err = _run(console, "/nonsense\n/crash\nquit\n")
    assert code == 0
    assert err.count("\n") == 2  # both lines were still answered, each on one line


def test_make_run_exits_zero_after_quit(tmp_path: Path):
    done = _pokerfloor([], "/rule smoking\n/td season add\nquit\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "name: is required" in done.stderr

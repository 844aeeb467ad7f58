import argparse
import subprocess
import sys

from bot.features import COMMANDS
from bot.surfaces.cli import build_parser


def _leaves(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield words
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaves(child, (*words, name))


def test_every_sub_command_is_a_definition_or_its_old_spelling():
    parser = build_parser()
    assert parser.prog == "pokerfloor"
    spellings = {
        words for c in COMMANDS if "cli" in c.surfaces for words in (c.cli_path, *c.aliases)
    }
    assert set(_leaves(parser)) == spellings
    assert "hand" in parser.format_help()


def test_help_exits_zero():
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert "pokerfloor" in done.stdout


def test_usage_mistakes_are_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "bot", "rule", "--limit", "abc", "oversized chip"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "--limit" in lines[0]
    assert "Traceback" not in done.stderr

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


def _parsers(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, (*words, name))


def test_a_command_line_naming_a_command_parses_and_helps_as_with_every_command():
    # main() builds only the sub-commands under the first word (start-up time); each of
    # them, its groups and its help must read as in the parser of every command.
    whole = {words: p.format_help() for words, p in _parsers(build_parser()) if words}
    for first in {words[0] for words in whole}:
        part = {w: p.format_help() for w, p in _parsers(build_parser([first])) if w[:1] == (first,)}
        assert part == {w: text for w, text in whole.items() if w[0] == first}, first
    assert {w for w, _ in _parsers(build_parser(["no-such-command"]))} == {(), *whole}

import subprocess
import sys

from bot.surfaces.cli import SUBCOMMANDS, build_parser


def test_every_topic_registers_without_error():
    parser = build_parser()
    assert parser.prog == "pokerfloor"
    assert "commands" in SUBCOMMANDS  # every defined command (bot.features) is one
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

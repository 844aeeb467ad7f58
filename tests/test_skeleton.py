import subprocess
import sys

from bot.cli import SUBCOMMANDS, build_parser


def test_every_topic_registers_without_error():
    parser = build_parser()
    assert parser.prog == "pokerfloor"
    assert "hand" in SUBCOMMANDS


def test_help_exits_zero():
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert "pokerfloor" in done.stdout

"""bot's modules stay small: one job a module, each within the bound storage keeps too."""

from pathlib import Path

import bot

ROOT = Path(bot.__file__).parent
MAX_LINES = 600


def test_no_bot_module_is_beyond_600_lines():
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in ROOT.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}

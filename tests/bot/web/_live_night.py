"""A night typed in the console on one SQLite file, for the live-page tests."""

from __future__ import annotations

import io
from pathlib import Path

from bot.config import Settings
from bot.reply import Reply
from bot.surfaces.console import Console, ConsoleContext
from storage.db import create_schema, make_engine
from tests.bot.web._data import QUOTE, SCRIPT

PLAYERS = ["Ann", "Bob", SCRIPT, "Dee", QUOTE, "Fay", "Gus", "Hal", "Ivy", "Jo"]
"""Ten players at tables of four: two tables full, one with two, and nobody waiting."""


def console_night(tmp_path: Path) -> tuple[str, Console]:
    """A running night with a 20-minute clock in the console's channel (0); its URL and console.

    Call ``console.ctx.clock.close()`` at the end (the console's clock runs on a thread).
    """
    url = f"sqlite:///{tmp_path / 'night.db'}"
    engine = make_engine(url)
    create_schema(engine)
    console = Console(
        ConsoleContext(settings=Settings(_env_file=None), engine=engine, out=io.StringIO())
    )
    for line in (
        "/td season add 2026 Fall",
        "/td location add Brewpub",
        "/tournament open Brewpub seats: 4",
        *(f"/tournament register {p} on_time: yes" for p in PLAYERS),
        "/tournament start",
        "/clock start level_minutes: 20",
    ):
        say(console, line)
    return url, console


def say(console: Console, line: str) -> Reply:
    """One console line, which must be answered (not refused)."""
    reply = console.handle(line)
    assert reply is not None, line
    return reply


def transcript(console: Console, *lines: str) -> str:
    """Run lines the way a director types them; the printed answers."""
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO("\n".join(lines) + "\n"), out, err, interactive=False)
    assert code == 0, err.getvalue()
    return out.getvalue()

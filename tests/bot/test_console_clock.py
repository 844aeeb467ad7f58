"""The console runs the clock too: /clock start ... end, announcements printed as they fall due."""

from __future__ import annotations

import io
import os
import threading
import time
from pathlib import Path

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from storage.clocks import list_running_clocks
from storage.db import create_schema, make_engine


def test_console_clock_announces_levels_while_waiting_for_input(tmp_path: Path):
    engine = make_engine(f"sqlite:///{tmp_path / 'clock.db'}")
    create_schema(engine)
    console = Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    read_fd, write_fd = os.pipe()
    stdin = os.fdopen(read_fd, "r")
    out, err = io.StringIO(), io.StringIO()

    def type_slowly() -> None:
        with os.fdopen(write_fd, "w") as typing:
            typing.write("/clock start level_minutes:0.02 warnings:none\n")
            typing.flush()
            deadline = time.monotonic() + 20
            while "Level 2" not in out.getvalue() and time.monotonic() < deadline:
                time.sleep(0.05)  # the console is waiting for input meanwhile
            typing.write("/clock end\nquit\n")

    writer = threading.Thread(target=type_slowly)
    writer.start()
    try:
        code = console.run(stdin, out, err, interactive=False)
    finally:
        writer.join()
        stdin.close()
    assert (code, err.getvalue()) == (0, "")
    text = out.getvalue()
    assert "BTown Poker League clock started" in text
    assert "[clock] Level 2: blinds 200/400" in text
    assert console.ctx.db.run_sync(list_running_clocks) == []
    engine.dispose()


def test_console_clock_commands_refuse_bad_values_on_one_line(tmp_path: Path):
    engine = make_engine(f"sqlite:///{tmp_path / 'clock.db'}")
    create_schema(engine)
    console = Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    out, err = io.StringIO(), io.StringIO()
    lines = "/clock start level_minutes:0\n/clock add-time minutes:900\n/clock pause\n"
    code = console.run(io.StringIO(lines), out, err, interactive=False)
    assert code == 0  # end of input: the mistake was answered on stderr
    assert err.getvalue().splitlines() == [
        "level_minutes: 0 is below the smallest allowed, 0.02.",
        "minutes: 900 is above the largest allowed, 600.",
        "No clock is running in this channel. Start one with /clock start.",
    ]
    engine.dispose()


def test_console_clock_starts_the_leagues_structure_unless_one_is_named(tmp_path: Path):
    engine = make_engine(f"sqlite:///{tmp_path / 'clock.db'}")
    create_schema(engine)
    console = Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    out, err = io.StringIO(), io.StringIO()
    lines = (
        "/clock start\n/clock end\n"  # a new league: btown's preset, btown's structure
        "/td settings preset:poker-pub\n"
        "/clock start\n/clock end\n"  # now the Poker Pub's
        "/clock start structure:bar-league\n/clock end\n"  # a named structure still wins
    )
    code = console.run(io.StringIO(lines), out, err, interactive=False)
    assert (code, err.getvalue()) == (0, "")
    started = [line for line in out.getvalue().splitlines() if " clock started. " in line]
    assert [line.partition(" clock started. ")[::2] for line in started] == [
        ("BTown Poker League", "Level 1: blinds 100/200, 20:00 left"),
        ("The Poker Pub", "Level 1: blinds 25/50, 15:00 left"),
        ("Bar League", "Level 1: blinds 1/2, 30:00 left"),
    ], out.getvalue()
    engine.dispose()

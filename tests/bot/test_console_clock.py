"""The console runs the clock too: /clock start ... end, announcements printed as they fall due."""

from __future__ import annotations

import io
import os
import threading
import time
from pathlib import Path

from bot.config import Settings
from bot.console import Console, ConsoleContext
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
    assert code == 2
    assert err.getvalue().splitlines() == [
        "level_minutes: 0 is below the smallest allowed, 0.02.",
        "minutes: 900 is above the largest allowed, 600.",
        "No clock is running in this channel. Start one with /clock start.",
    ]
    engine.dispose()

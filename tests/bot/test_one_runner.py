"""The one runner (``bot.command.run``): who may run a command is enforced on every surface."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from bot.command.model import Command
from bot.command.run import computed, run_action, run_command
from bot.config import Settings
from bot.errors import NotDirectorError
from bot.features import ACTIONS, COMMANDS
from bot.surfaces.console import ConsoleContext


def _command(name: str) -> Command:
    return next(c for c in COMMANDS if c.name == name)


def _rows(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("select count(*) from audit_log")).scalar_one())


def test_a_directors_command_is_refused_to_a_player_and_writes_nothing(engine: Engine):
    console = ConsoleContext(settings=Settings(_env_file=None), engine=engine)
    player = dataclasses.replace(console.context(), is_director=False, is_manager=False)
    before = _rows(engine)
    with pytest.raises(NotDirectorError):
        run_command(_command("td season add"), player, {"name": "2026 Fall"})
    assert _rows(engine) == before
    director = console.context()
    reply = computed(run_command(_command("td season add"), director, {"name": "2026 Fall"}))
    assert "2026 Fall" in reply.to_plain()
    assert _rows(engine) > before


def test_settings_need_manage_server_and_private_commands_answer_privately(engine: Engine):
    console = ConsoleContext(settings=Settings(_env_file=None), engine=engine)
    director_only = dataclasses.replace(console.context(), is_manager=False)
    with pytest.raises(NotDirectorError, match="Manage Server"):
        run_command(_command("td settings"), director_only, {"preset": "poker-pub"})
    assert computed(run_command(_command("td settings"), console.context(), {})).private


def test_a_directors_button_is_refused_to_a_player(engine: Engine):
    console = ConsoleContext(settings=Settings(_env_file=None), engine=engine)
    player = dataclasses.replace(console.context(), is_director=False)
    action = next(a for a in ACTIONS if a.who.value == "director")
    with pytest.raises(NotDirectorError):
        run_action(action, player, ("1",))

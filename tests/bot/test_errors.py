"""bot.errors.describe: the one error path; which errors are user mistakes, what users read."""

from __future__ import annotations

from typing import Any

import pytest
from discord import app_commands

from bot.errors import APOLOGY, BadOption, NotDirectorError, describe, unwrap
from rulings import RulingsError
from storage.errors import NotFound


def is_user_error(error: BaseException) -> bool:
    return not describe(error)[1]


def user_message(error: BaseException) -> str:
    return describe(error)[0]


class _Cmd:
    qualified_name = "x"
    name = "x"


def test_domain_and_storage_errors_are_user_mistakes():
    assert is_user_error(RulingsError("bad"))
    assert is_user_error(NotFound("no such season"))
    assert is_user_error(BadOption("too long"))
    assert is_user_error(app_commands.CheckFailure("nope"))
    assert not is_user_error(RuntimeError("bug"))
    assert not is_user_error(KeyError("bug"))
    assert is_user_error(NotDirectorError())


def test_the_bot_errors_join_the_rulings_tree_not_discords():
    for cls in (BadOption, NotDirectorError):
        assert issubclass(cls, RulingsError)
        assert not issubclass(cls, app_commands.AppCommandError)


def test_a_bug_gets_the_apology_never_its_text():
    message, is_bug = describe(RuntimeError("secret internals"))
    assert (message, is_bug) == (APOLOGY, True)


def test_unwrap_finds_what_the_command_raised():
    original = RulingsError("As appears twice")
    wrapped = app_commands.CommandInvokeError(_Cmd(), original)  # type: ignore[arg-type]
    assert unwrap(wrapped) is original
    transformer: Any = app_commands.TransformerError.__new__(app_commands.TransformerError)
    transformer.__cause__ = original
    assert unwrap(transformer) is original


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (app_commands.MissingPermissions(["manage_guild"]), "Only the league's directors"),
        (app_commands.NoPrivateMessage(), "only inside a league's server"),
        (app_commands.CheckFailure(), "You can't use that command here."),
        (RulingsError("There is no season called 'Fall'."), "There is no season called 'Fall'."),
    ],
)
def test_user_messages_are_short_and_plain(error: Exception, expected: str):
    assert expected in user_message(error)

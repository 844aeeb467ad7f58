"""bot.tree: which errors are user mistakes, and what the user reads."""

from __future__ import annotations

from typing import Any

import pytest
from discord import app_commands

from bot.transformers import BadOption, tidy_text
from bot.tree import is_user_error, unwrap, user_message
from rulings import RulingsError
from storage.errors import NotFound


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


def test_tidy_text_collapses_and_limits():
    assert tidy_text("  As   Ks\n vs Qh Qd ", what="cards") == "As Ks vs Qh Qd"
    with pytest.raises(BadOption, match="Please type cards"):
        tidy_text("   ", what="cards")
    with pytest.raises(BadOption, match="at most 200"):
        tidy_text("x" * 201, what="cards")

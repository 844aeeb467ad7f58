"""Option parsing of /clock (the clock itself runs in tests/bot/test_clock_e2e.py)."""

from __future__ import annotations

import pytest

from bot.errors import BadOption
from bot.features.clock.handlers import parse_warning_minutes


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("5 1", (300.0, 60.0)), ("1, 5", (300.0, 60.0)), ("0.5", (30.0,)), ("none", ()), ("0", ())],
)
def test_warnings_option_reads_minutes(text: str, seconds: tuple[float, ...]):
    assert parse_warning_minutes(text) == seconds


def test_warnings_option_refuses_words():
    with pytest.raises(BadOption, match="not a list of minutes"):
        parse_warning_minutes("five")

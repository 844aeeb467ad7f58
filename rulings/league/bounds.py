"""Bounds on what a director may record, the same on every path (typed, imported, uploaded).

Names are checked in ``rulings.league.names``; record numbers (event ids) fit a signed 64-bit
integer; dates lie between ``FIRST_DATE`` and one year after today (today is a parameter: the
engine never reads a clock); an import file is at most ``MAX_IMPORT_BYTES``.

>>> import datetime as dt
>>> check_date(dt.date(2026, 11, 20), today=dt.date(2026, 11, 21))
datetime.date(2026, 11, 20)
>>> check_id("#12")
12
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from rulings.errors import EventFormatError

log = logging.getLogger(__name__)

MAX_ID = 2**63 - 1
"""The largest record number (a signed 64-bit integer, what both databases store)."""

FIRST_DATE = dt.date(2000, 1, 1)
"""No league night is older than this."""

MAX_IMPORT_BYTES = 20_000_000
"""The largest import file; a larger one is refused before it is read."""


def check_id(value: Any, what: str = "event") -> int:
    """Return a record number (an event's ``#12``) as an ``int`` within ``1..MAX_ID``.

    Args:
        value: An ``int`` or its digits as text (``"12"``, ``"#12"``).
        what: What it numbers, for the error.

    Returns:
        The number.

    Raises:
        EventFormatError: not a whole number from 1 to ``MAX_ID``.
    """
    text = value.strip().lstrip("#") if isinstance(value, str) else None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif text is not None and text.isascii() and text.isdigit():
        number = int(text)
    else:
        number = None
    if number is None or not 1 <= number <= MAX_ID:
        shown = value.strip() if isinstance(value, str) else value
        raise EventFormatError(f"{what}: {shown} is not an {what} number (1 to {MAX_ID})")
    return number


def latest_date(today: dt.date) -> dt.date:
    """The last date a record may carry: one year after ``today`` (Feb 29 -> Feb 28).

    >>> latest_date(dt.date(2028, 2, 29))
    datetime.date(2029, 2, 28)
    """
    try:
        return today.replace(year=today.year + 1)
    except ValueError:
        return today.replace(year=today.year + 1, day=28)


def check_date(day: dt.date, *, today: dt.date, what: str = "date") -> dt.date:
    """Refuse a date before ``FIRST_DATE`` or more than a year after ``today``.

    Args:
        day: The date recorded (an event's night, a strike).
        today: Today in the league's time zone.
        what: The field named in the error.

    Returns:
        ``day``.

    Raises:
        EventFormatError: outside the range.
    """
    last = latest_date(today)
    if not FIRST_DATE <= day <= last:
        raise EventFormatError(
            f"{what}: {day.isoformat()} is outside {FIRST_DATE.isoformat()} to "
            f"{last.isoformat()} (one year from today)"
        )
    return day


def check_import_size(size: int, name: str = "the file") -> int:
    """Refuse an import file larger than ``MAX_IMPORT_BYTES`` (before reading it).

    Args:
        size: Its size in bytes.
        name: Its name, for the error.

    Returns:
        ``size``.

    Raises:
        EventFormatError: too large.
    """
    if size > MAX_IMPORT_BYTES:
        raise EventFormatError(
            f"{name} is {size:,} bytes; an import file is at most {MAX_IMPORT_BYTES:,} "
            "(split it into several files)"
        )
    return size

"""The league's weekly nights before the first hand: a schedule, its dates, RSVPs and no-shows.

A league plays on a weekday at a host location (``/td night schedule``). This module turns that
schedule into dates and start times in the league's time zone, and an RSVP list into sign-ins
and no-shows. Time comes in as a parameter: the engine never reads a clock.

>>> series = NightSeries("Pub 33", weekday=parse_weekday("thu"), start=parse_night_start("19:00"),
...                      first=dt.date(2026, 12, 3))
>>> [d.isoformat() for d in night_dates(series, dt.date(2026, 12, 1), count=3)]
['2026-12-03', '2026-12-10', '2026-12-17']
>>> no_shows(["Ann", "Bea", "Cy"], signed_in=["bea", "Dee"])
('Ann', 'Cy')
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from rulings.errors import NightError
from rulings.league.names import name_key

NIGHT_HOURS = 4
"""A night's default length: the contractual time limit is "typically 4 hours" (2.F.a)."""

MAX_EVERY_WEEKS = 8
"""The longest gap between two nights of a series, in weeks."""

REMINDER_BEFORE = dt.timedelta(hours=2)
"""When the reminder goes out before a night starts, unless the league sets another time."""

MAX_REMIND = dt.timedelta(hours=48)
"""The earliest a reminder may go out before its night."""

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_HH_MM = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*$")


@dataclass(frozen=True)
class NightSeries:
    """A league's weekly night at one host location.

    Attributes:
        location: the host location's name.
        weekday: 0 for Monday ... 6 for Sunday.
        start: the local start time (the league's time zone).
        first: the first night of the series.
        every_weeks: 1 for weekly, 2 for every other week, ...
        ends: the last date a night may fall on, or None for no end.
        cancelled: dates of single nights called off.
        hours: how long a night lasts (the scheduled event's end).
        remind: how long before a night the reminder goes out (zero: no reminder).
    """

    location: str
    weekday: int
    start: dt.time
    first: dt.date
    every_weeks: int = 1
    ends: dt.date | None = None
    cancelled: frozenset[dt.date] = field(default_factory=frozenset)
    hours: int = NIGHT_HOURS
    remind: dt.timedelta = REMINDER_BEFORE

    def __post_init__(self) -> None:
        """Refuse a series that cannot exist."""
        if not 0 <= self.weekday <= 6:
            raise NightError(f"weekday must be 0-6, not {self.weekday}")
        if self.first.weekday() != self.weekday:
            raise NightError(f"{self.first.isoformat()} is not a {WEEKDAYS[self.weekday]}")
        if not 1 <= self.every_weeks <= MAX_EVERY_WEEKS:
            raise NightError(f"every: 1 to {MAX_EVERY_WEEKS} weeks, not {self.every_weeks}")
        if self.ends is not None and self.ends < self.first:
            raise NightError(f"ends: {self.ends.isoformat()} is before the first night")
        if not dt.timedelta(0) <= self.remind <= MAX_REMIND:
            raise NightError(f"remind: 0 to {MAX_REMIND.days * 24} hours before the night")

    def falls_on(self, day: dt.date) -> bool:
        """Whether the series has a night (cancelled or not) on ``day``."""
        if day < self.first or (self.ends is not None and day > self.ends):
            return False
        weeks, rest = divmod((day - self.first).days, 7)
        return rest == 0 and weeks % self.every_weeks == 0


def parse_weekday(text: str) -> int:
    """0-6 for a weekday's name or its first three letters, any case.

    >>> parse_weekday("Thursday"), parse_weekday("sun")
    (3, 6)
    """
    word = text.strip().lower()
    for number, name in enumerate(WEEKDAYS):
        if len(word) >= 3 and name.startswith(word):
            return number
    raise NightError(f"weekday: {text.strip()!r} is not a day of the week (e.g. thursday)")


def parse_night_start(text: str) -> dt.time:
    """A start time written HH:MM on a 24-hour clock.

    >>> parse_night_start("7:30")
    datetime.time(7, 30)
    """
    match = _HH_MM.match(text)
    if match is None or int(match[1]) > 23 or int(match[2]) > 59:
        raise NightError(f"time: {text.strip()!r} is not HH:MM (24-hour, e.g. 19:00)")
    return dt.time(int(match[1]), int(match[2]))


def first_night(weekday: int, today: dt.date) -> dt.date:
    """The first date on or after ``today`` that falls on ``weekday``.

    >>> first_night(3, dt.date(2026, 12, 1)).isoformat()
    '2026-12-03'
    """
    return today + dt.timedelta(days=(weekday - today.weekday()) % 7)


def night_dates(
    series: NightSeries, since: dt.date, *, count: int | None = None, until: dt.date | None = None
) -> list[dt.date]:
    """The series' nights on or after ``since`` that are not cancelled, oldest first.

    Stops after ``count`` nights, at ``until`` (inclusive) or at the series' end, whichever comes
    first; one of ``count`` or ``until`` (or the series' end) must bound it.
    """
    if count is None and until is None and series.ends is None:
        raise ValueError("night_dates needs count, until or a series with an end")
    return list(_dates(series, since, count=count, until=until))


def _dates(
    series: NightSeries, since: dt.date, *, count: int | None, until: dt.date | None
) -> Iterator[dt.date]:
    step = dt.timedelta(weeks=series.every_weeks)
    day = series.first
    if since > day:
        periods = -(-(since - day).days // step.days)
        day += step * periods
    found = 0
    while (count is None or found < count) and (until is None or day <= until):
        if series.ends is not None and day > series.ends:
            return
        if day not in series.cancelled:
            yield day
            found += 1
        day += step


def next_night(series: NightSeries, today: dt.date) -> dt.date | None:
    """The next night of the series on or after ``today``, or None when the series is over."""
    nights = night_dates(series, today, count=1)
    return nights[0] if nights else None


def night_window(series: NightSeries, day: dt.date, zone: str) -> tuple[dt.datetime, dt.datetime]:
    """When the night on ``day`` starts and ends, as aware UTC datetimes."""
    if not series.falls_on(day):
        raise NightError(f"{series.location} has no night on {day.isoformat()}")
    local = dt.datetime.combine(day, series.start, tzinfo=ZoneInfo(zone))
    start = local.astimezone(dt.UTC)
    return start, start + dt.timedelta(hours=series.hours)


def check_rsvp_night(series: NightSeries, day: dt.date, today: dt.date) -> dt.date:
    """``day`` if players may still RSVP to that night; else a one-line refusal."""
    if day < today:
        raise NightError(f"the night of {day.isoformat()} is over")
    if not series.falls_on(day):
        raise NightError(f"{series.location} has no night on {day.isoformat()}")
    if day in series.cancelled:
        raise NightError(f"the night of {day.isoformat()} at {series.location} is cancelled")
    return day


def reminder_at(
    series: NightSeries, day: dt.date, zone: str, before: dt.timedelta | None = None
) -> dt.datetime | None:
    """When the reminder for the night on ``day`` is due (UTC); None when it has none."""
    lead = series.remind if before is None else before
    if not lead:
        return None
    start, _ = night_window(series, day, zone)
    return start - lead


def reminder_due(series: NightSeries, day: dt.date, zone: str, now: dt.datetime) -> bool:
    """Whether the reminder of the night on ``day`` should go out at ``now``.

    From its time until the night starts: a reminder that could not go out on time (no bot
    process running) still goes out late, never after the night has begun.
    """
    due = reminder_at(series, day, zone)
    start, _ = night_window(series, day, zone)
    return due is not None and due <= now < start


def ordered_rsvps(rsvps: Iterable[str], signed_in: Iterable[str]) -> tuple[str, ...]:
    """The RSVP'd names not yet signed in, in RSVP order, each once (names compared by key).

    This is the order ``/tournament register`` offers names in, and the one-tap check-in list.

    >>> ordered_rsvps(["Ann", "bea", "Bea", "Cy"], signed_in=["CY"])
    ('Ann', 'bea')
    """
    seen = {name_key(name) for name in signed_in}
    out: list[str] = []
    for name in rsvps:
        key = name_key(name)
        if key not in seen:
            seen.add(key)
            out.append(name)
    return tuple(out)


def no_shows(rsvps: Iterable[str], signed_in: Iterable[str]) -> tuple[str, ...]:
    """Who said they were coming and never signed in: the same rule as ``ordered_rsvps``."""
    return ordered_rsvps(rsvps, signed_in)

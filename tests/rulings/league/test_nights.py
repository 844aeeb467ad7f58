import datetime as dt
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulings import (
    NIGHT_HOURS,
    NightError,
    NightSeries,
    check_rsvp_night,
    first_night,
    next_night,
    night_dates,
    night_window,
    no_shows,
    ordered_rsvps,
    parse_night_start,
    parse_weekday,
    reminder_at,
)

THU = dt.date(2026, 12, 3)


def _series(**kw: object) -> NightSeries:
    values: dict[str, object] = {
        "location": "Pub 33",
        "weekday": 3,
        "start": dt.time(19, 0),
        "first": THU,
    }
    values.update(kw)
    return NightSeries(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "day"), [("Thursday", 3), ("thu", 3), ("MON", 0), ("sunday", 6), (" fri ", 4)]
)
def test_parse_weekday(text, day):
    assert parse_weekday(text) == day


@pytest.mark.parametrize("text", ["th", "someday", "", "8"])
def test_parse_weekday_refuses_what_is_not_a_day(text):
    with pytest.raises(NightError, match="weekday"):
        parse_weekday(text)


@pytest.mark.parametrize("text", ["7pm", "19", "24:00", "19:60", "19:5", "noon", ""])
def test_parse_night_start_refuses_what_is_not_hh_mm(text):
    with pytest.raises(NightError, match="HH:MM"):
        parse_night_start(text)


def test_parse_night_start_reads_24_hour_time():
    assert parse_night_start("19:00") == dt.time(19, 0)
    assert parse_night_start("0:05") == dt.time(0, 5)


def test_first_night_is_on_or_after_today():
    assert first_night(3, dt.date(2026, 12, 1)) == THU
    assert first_night(3, THU) == THU
    assert first_night(2, THU) == dt.date(2026, 12, 9)


def test_weekly_series_skips_cancelled_nights():
    series = _series(cancelled=frozenset({dt.date(2026, 12, 10)}))
    assert night_dates(series, dt.date(2026, 12, 1), count=3) == [
        THU,
        dt.date(2026, 12, 17),
        dt.date(2026, 12, 24),
    ]


def test_every_other_week_and_an_end():
    series = _series(every_weeks=2, ends=dt.date(2027, 1, 14))
    assert night_dates(series, dt.date(2026, 12, 4), count=10) == [
        dt.date(2026, 12, 17),
        dt.date(2026, 12, 31),
        dt.date(2027, 1, 14),
    ]
    assert next_night(series, dt.date(2027, 1, 15)) is None


def test_an_unbounded_listing_is_refused():
    with pytest.raises(ValueError, match="count"):
        night_dates(_series(), THU)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"weekday": 2}, "not a wednesday"),
        ({"every_weeks": 0}, "every"),
        ({"every_weeks": 9}, "every"),
        ({"ends": dt.date(2026, 12, 1)}, "before the first night"),
    ],
)
def test_a_series_that_cannot_exist_is_refused(kw, message):
    with pytest.raises(NightError, match=message):
        _series(**kw)


def test_2_f_a_a_night_lasts_four_hours_in_the_league_time_zone():
    start, end = night_window(_series(), THU, "America/Indiana/Indianapolis")
    assert start == dt.datetime(2026, 12, 4, 0, 0, tzinfo=dt.UTC)  # 19:00 EST is 00:00 UTC
    assert end - start == dt.timedelta(hours=NIGHT_HOURS) == dt.timedelta(hours=4)


def test_night_window_follows_daylight_saving():
    summer = _series(weekday=3, first=dt.date(2026, 7, 2))
    start, _ = night_window(summer, dt.date(2026, 7, 2), "America/Indiana/Indianapolis")
    assert start.hour == 23  # 19:00 EDT


def test_reminder_is_two_hours_before_by_default():
    start, _ = night_window(_series(), THU, "UTC")
    assert reminder_at(_series(), THU, "UTC") == start - dt.timedelta(hours=2)
    assert reminder_at(_series(), THU, "UTC", dt.timedelta(minutes=30)) == start - dt.timedelta(
        minutes=30
    )


@pytest.mark.parametrize(
    ("day", "message"),
    [
        (dt.date(2026, 11, 26), "is over"),
        (dt.date(2026, 12, 4), "no night"),
        (dt.date(2026, 12, 10), "cancelled"),
    ],
)
def test_rsvp_to_a_past_missing_or_cancelled_night_is_refused(day, message):
    series = _series(first=dt.date(2026, 11, 26), cancelled=frozenset({dt.date(2026, 12, 10)}))
    with pytest.raises(NightError, match=message):
        check_rsvp_night(series, day, today=dt.date(2026, 12, 1))


def test_rsvp_to_a_coming_night_is_accepted():
    assert check_rsvp_night(_series(), THU, today=dt.date(2026, 12, 1)) == THU


def test_rsvps_offered_in_order_without_those_signed_in():
    assert ordered_rsvps(["Cy", "Ann", "ann", "Bea"], signed_in=["BEA"]) == ("Cy", "Ann")


def test_no_shows_are_the_rsvps_never_signed_in():
    assert no_shows(["Ann", "Bea", "Cy"], signed_in=["Bea", "Dee"]) == ("Ann", "Cy")
    assert no_shows([], signed_in=["Bea"]) == ()


@given(
    weekday=st.integers(0, 6),
    every=st.integers(1, 4),
    offset=st.integers(0, 400),
    count=st.integers(1, 12),
)
def test_every_listed_date_falls_on_the_series(weekday, every, offset, count):
    first = first_night(weekday, dt.date(2026, 1, 1))
    series = _series(weekday=weekday, first=first, every_weeks=every)
    since = first + dt.timedelta(days=offset)
    days = night_dates(series, since, count=count)
    assert len(days) == count
    assert all(series.falls_on(d) and d >= since and d.weekday() == weekday for d in days)
    assert all((b - a).days == 7 * every for a, b in itertools.pairwise(days))
    assert (days[0] - since).days < 7 * every

"""A league night from RSVP to no-shows, typed in the console, then read with the CLI."""

from __future__ import annotations

import datetime as dt
import io
import subprocess
import sys
import zoneinfo
from pathlib import Path

import pytest

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from rulings import WEEKDAYS
from storage.db import create_schema, make_engine


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'night.db'}"
    create_schema(make_engine(url))
    return url


def run(url: str, *lines: str) -> tuple[int, str, str]:
    engine = make_engine(url)
    console = Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO("\n".join(lines) + "\n"), out, err, interactive=False)
    engine.dispose()
    return code, out.getvalue(), err.getvalue()


def _tonight() -> dt.date:
    zone = zoneinfo.ZoneInfo(Settings(_env_file=None).timezone)
    return dt.datetime.now(zone).date()


def _schedule_tonight(db: str) -> None:
    weekday = WEEKDAYS[_tonight().weekday()]
    code, _, err = run(
        db,
        "/td season add 2026 Fall",
        "/td location add Pub 33",
        f"/td night schedule Pub 33 weekday: {weekday} time: 23:59",
    )
    assert (code, err) == (0, "")


def test_a_night_from_rsvp_to_no_shows(db):
    _schedule_tonight(db)
    code, out, err = run(
        db,
        *(f"/rsvp player: {p}" for p in ("Ann", "Bea", "Cy", "Dee")),
        "/night",
        "/tournament open Pub 33",
        "/tournament checkin Ann",
        "/tournament checkin Bea early: yes",
        "/tournament register Eve",
        "/tournament status",
        "/tournament start",
        "/tournament bust Bea",
        "/tournament bust Eve",
        "/tournament finish",
        "/td night noshows",
    )
    assert (code, err) == (0, "")
    assert "4 players coming\nAnn\nBea\nCy\nDee" in out  # the count first, then the names
    assert "RSVP 4 · signed in 3" in out
    assert "Bea: table" in out
    assert "signed in early 2,000" in out  # checkin gives register's stacks (2.C.b.1.A)
    assert "No-shows: Pub 33" in out
    assert "Cy: 1 night\nDee: 1 night" in out


def test_checkin_refuses_a_player_who_did_not_rsvp(db):
    _schedule_tonight(db)
    _, out, err = run(db, "/rsvp player: Ann", "/tournament open Pub 33", "/tournament checkin Zed")
    assert "Zed did not RSVP to tonight's night (RSVP'd: Ann)" in err + out
    _code, out, _ = run(db, "/tournament status")
    assert "signed in 0" in out


def test_rsvp_twice_counts_once_and_cancel_takes_it_back(db):
    _schedule_tonight(db)
    _, out, _ = run(db, "/rsvp player: Ann", "/rsvp player: ann", "/rsvp cancel player: Ann")
    assert "Ann is coming. 1 player coming." in out
    assert "ann was already on the list. 1 player coming." in out
    assert "Ann is off the list. 0 players coming." in out


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/td night schedule Mars Base weekday: thu time: 19:00", "no location 'Mars Base'"),
        ("/td night schedule Pub 33 weekday: thu time: 7pm", "is not HH:MM"),
        ("/td night schedule Pub 33 weekday: someday time: 19:00", "not a day of the week"),
        ("/rsvp night: 2020-01-02 player: Ann", "no league night"),
    ],
)
def test_bad_night_input_is_one_line_and_writes_nothing(db, line, message):
    _schedule_tonight(db)
    _, before, _ = run(db, "/td night list")
    _code, out, err = run(db, line)
    assert message in err + out
    assert len((err + out).strip().splitlines()) == 1
    assert run(db, "/td night list")[1] == before


def test_a_second_series_for_the_same_weekday_is_refused(db):
    _schedule_tonight(db)
    weekday = WEEKDAYS[_tonight().weekday()]
    _, out, err = run(db, f"/td night schedule Pub 33 weekday: {weekday} time: 19:00")
    assert f"already has a night on {weekday.capitalize()}s" in err + out


def test_rsvp_to_a_cancelled_night_is_refused(db):
    _schedule_tonight(db)
    day = _tonight().isoformat()
    _, out, err = run(db, f"/td night cancel Pub 33 date: {day}", f"/rsvp night: {day} player: Ann")
    assert "League night cancelled" in out
    assert "is cancelled" in err + out


def test_the_cli_has_the_same_commands(db):
    _schedule_tonight(db)
    run(db, "/rsvp player: Ann")
    result = subprocess.run(
        [sys.executable, "-m", "bot", "night", "--db", db],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "1 player coming" in result.stdout


def test_sign_in_autocomplete_offers_the_rsvps_not_signed_in_first(db):
    from bot.command.model import CONSOLE_CHANNEL
    from bot.features.night.tonight import rsvp_first_choices
    from storage.db import session_scope

    _schedule_tonight(db)
    run(db, "/tournament open Pub 33", "/tournament register Abe", "/tournament register Zoe")
    run(db, "/rsvp player: Yan", "/rsvp player: Bo", "/rsvp player: Zoe")
    engine = make_engine(db)
    with session_scope(engine) as session:
        names = rsvp_first_choices(
            session=session, guild_id=None, channel_id=CONSOLE_CHANNEL, typed="", today=_tonight()
        )
        typed = rsvp_first_choices(
            session=session, guild_id=None, channel_id=CONSOLE_CHANNEL, typed="y", today=_tonight()
        )
    engine.dispose()
    assert names[:2] == ["Yan", "Bo"]  # RSVP order; Zoe is signed in already
    assert "Zoe" not in names[:2]
    assert typed == ["Yan"]

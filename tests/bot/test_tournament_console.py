"""A whole tournament night typed in the console, then read back with the CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from storage.db import create_schema, make_engine, session_scope
from storage.leagues import get_league
from storage.standings import season_standings


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


PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]


def test_a_night_in_the_console_from_sign_in_to_stored_results(db):
    code, out, err = run(
        db,
        "/td season add 2026 Fall",
        "/td location add Brewpub",
        "/tournament open Brewpub seats: 4",
        *(f"/tournament register {p} on_time: yes" for p in PLAYERS),
        "/tournament start",
        "/tournament balance",
        "/tournament bust Fay",
        "/tournament bust Dee, Eve chips: 4000, 9000",
        "/tournament balance",
        "/tournament seats",
        "/tournament status",
        "/tournament finish chips: Cy 50000, Ann 40000, Bob 30000",
    )
    assert err == "", err
    assert code == 0
    assert "Eve**: 4th" in out or "Eve: 4th" in out
    assert "Final table" in out
    assert "Stored as event" in out
    engine = make_engine(db)
    with session_scope(engine) as s:
        league = get_league(session=s)
        table = season_standings(session=s, league_id=league.id, season="2026 Fall")
    engine.dispose()
    assert [r.row.player for r in table.rows] == ["Cy", "Ann", "Bob", "Eve", "Dee", "Fay"]
    # The CLI reads the same night back, in the JSON shape.
    shown = subprocess.run(
        [sys.executable, "-m", "bot", "tournament", "show", "--json", "--db", db],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["status"] == "finished"
    assert data["busted"] == [
        {"player": "Eve", "position": 4},
        {"player": "Dee", "position": 5},
        {"player": "Fay", "position": 6},
    ]
    assert data["remaining"] == 3
    text = subprocess.run(
        [sys.executable, "-m", "bot", "tournament", "show", "--db", db],
        capture_output=True,
        text=True,
        check=False,
    )
    assert text.returncode == 0, text.stderr
    assert "Status: finished" in text.stdout
    assert "Busted: 4. Eve, 5. Dee, 6. Fay" in text.stdout


def test_console_mistakes_are_one_line_and_change_nothing(db):
    run(db, "/td season add 2026 Fall", "/td location add Brewpub", "/tournament open Brewpub")
    engine = make_engine(db)
    with engine.connect() as conn:
        before = list(conn.execute(text("select * from tournament_entry")))
        audit = list(conn.execute(text("select count(*) from audit_log")))
    code, _, err = run(db, "/tournament bust Zed", "/tournament move Ann table: 3")
    with engine.connect() as conn:
        assert list(conn.execute(text("select * from tournament_entry"))) == before
        assert list(conn.execute(text("select count(*) from audit_log"))) == audit
    engine.dispose()
    assert code == 0  # end of input: the mistake was answered on stderr
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 2
    assert "play has not begun" in lines[0] or "did not sign in" in lines[0]


def test_start_offers_the_leagues_blind_structure_and_an_override_counts(db):
    from bot.surfaces.cli import main

    night = (
        "/td season add 2026 Fall",
        "/td location add Brewpub",
        "/tournament open Brewpub",
        "/tournament register Ann",
        "/tournament register Bob",
        "/tournament start",
    )
    assert main(["league", "set", "--preset", "poker-pub", "--db", db]) == 0
    code, out, err = run(db, *night)
    assert (code, err) == (0, "")
    assert "No clock runs here: /clock start poker-pub starts the league's structure." in out
    assert "the button" not in out

    # A league's own blind_structure (an override of its preset) is the one offered, and the
    # one /clock start runs without a structure.
    assert main(["league", "set", "--set", "blind_structure=bar-league", "--db", db]) == 0
    code, out, err = run(
        db,
        "/tournament finish chips: Ann 5000, Bob 3000",
        *night[2:],
        "/clock start",
        "/clock end",
    )
    assert (code, err) == (0, "")
    assert "No clock runs here: /clock start bar-league starts the league's structure." in out
    assert "Bar League clock started. Level 1: blinds 1/2" in out


def test_awards_noted_during_the_night_are_stored_with_its_result(db):
    code, out, err = run(
        db,
        "/td season add 2026 Fall",
        "/td location add Brewpub",
        "/tournament open Brewpub",
        "/tournament register Ann",
        "/tournament register Bob",
        "/tournament register Cy",
        "/tournament start",
        "/td bounty player:Bob chips:2",
        "/td bounty player:Bob chips:3",  # replaces the number
        "/td premium player:Cy hand:quads",
        "/td second_chance player:Cy",
        "/td second_chance player:Ann",
        "/tournament undo",  # takes back Ann's second-chance win
        "/td premium player:Ann hand:quads remove:yes",  # none noted: refused
        "/td premium player:Cy hand:royal_flush",
        "/td premium player:Cy hand:royal_flush remove:yes",
        "/tournament status",
        "/tournament bust Cy",
        "/tournament bust Bob",
        "/tournament finish",
    )
    assert err == "no quads is noted for Ann tonight\n", err
    assert code == 0  # that one refusal answered on stderr; everything else ran
    assert "Noted for tonight: Bob, bounty: 2 chips." in out
    assert "Took back the award: Ann, second-chance win." in out
    assert "Taken back: Cy's royal flush." in out
    status = out[out.index("Tournament: Brewpub") :]
    assert "Bounty chips: Bob 3" in status
    assert "Premium hands: Cy (quads)" in status
    assert "Second-chance wins: Cy\n" in status
    assert "Stored as event" in out

    engine = make_engine(db)
    with session_scope(engine) as session:
        league = get_league(session=session, guild_id=None)
        table = season_standings(session=session, league_id=league.id, season="2026 Fall")
        rows = {r.row.player: (r.row.rp, r.row.bp) for r in table.rows}
    engine.dispose()
    # BTown: 1st 1,200 RP + 250 BP; 2nd 800 + 200 and 3 bounty chips (150 RP); 3rd 700 + 150,
    # quads (100 RP) and a second-chance win (250 BP).
    assert rows == {"Ann": (1200, 250), "Bob": (950, 200), "Cy": (800, 400)}


def test_an_award_without_event_or_open_tournament_says_what_to_give(db):
    code, _, err = run(db, "/td season add 2026 Fall", "/td bounty player:Ann chips:1")
    assert code == 0  # end of input: the mistake was answered on stderr
    assert err == (
        "event: give the event's number (/td events); no tournament is open in this channel to "
        "note it for tonight\n"
    ), err

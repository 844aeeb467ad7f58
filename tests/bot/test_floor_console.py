"""Calling the floor and ruling on it, typed in the console (as a director at the bar would)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from storage.db import create_schema, make_engine
from tests.storage._league import snapshot


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'floor.db'}"
    create_schema(make_engine(url))
    return url


def run(url: str, *lines: str, actor: str = "Bea") -> tuple[int, str, str]:
    engine = make_engine(url)
    context = ConsoleContext(settings=Settings(_env_file=None), engine=engine, actor=actor)
    out, err = io.StringIO(), io.StringIO()
    code = Console(context).run(io.StringIO("\n".join(lines) + "\n"), out, err, interactive=False)
    engine.dispose()
    return code, out.getvalue(), err.getvalue()


def test_a_seated_player_s_call_names_his_table_and_seat_and_suggests_rules(db):
    code, out, err = run(
        db,
        "/td location add Pub 33",
        "/td season add 2026 Fall",
        "/tournament open Pub 33",
        "/tournament register Bea",
        "/tournament register Cy",
        "/floor someone tossed in an oversized chip",
    )
    assert (code, err) == (0, "")
    call = out[out.index("Floor call #1") :]
    assert "Bea at table 1, seat" in call
    assert "> someone tossed in an oversized chip" in call
    assert "Rules that may apply\n2.G.d.6" in call  # /rule's best match, cited


def test_calls_are_numbered_and_a_table_given_overrides_the_seat(db):
    code, out, err = run(db, "/floor string bet", "/floor misdeal table: 3")
    assert (code, err) == (0, "")
    assert "Floor call #1 sent to the directors" in out
    assert "Floor call #2 sent to the directors\n\nBea at table 3 calls the floor" in out


def test_a_ruling_cites_the_league_s_book_and_is_listed(db):
    code, out, err = run(
        db,
        "/floor oversized chip",
        "/td ruling call: 1 decision: It stands as a call, no raise said rule: 2.g.D.6",
        "/rulings chip",
        actor="Dana",
    )
    assert (code, err) == (0, "")
    assert "Ruling on floor call #1\n\nIt stands as a call, no raise said" in out
    assert "-- btown-poker-league 2.G.d.6" in out  # the citation, as the book numbers it
    assert "#1 It stands as a call, no raise said · 2.G.d.6 (btown-poker-league) · by Dana" in out


def test_a_ruling_citing_a_section_the_book_lacks_is_one_line_and_writes_nothing(db):
    run(db, "/floor oversized chip")
    before = snapshot(make_engine(db))

    code, out, err = run(db, "/td ruling call: 1 decision: Call rule: 9.Z.z")

    assert code == 0
    assert out == ""
    assert err == "BTown Poker League has no rule '9.Z.z'; check its number with /rule.\n"
    assert snapshot(make_engine(db)) == before


def test_a_ruling_on_a_call_that_does_not_exist_is_refused(db):
    code, out, err = run(db, "/floor misdeal", "/td ruling call: 5 decision: Redeal")
    assert code == 0
    assert "Ruling on" not in out
    assert err == "there is no floor call #5\n"


def test_a_second_ruling_amends_the_first(db):
    code, out, err = run(
        db,
        "/floor exposed card",
        "/td ruling call: 1 decision: Misdeal",
        "/td ruling call: 1 decision: Play on, the card is burned",
        "/rulings",
    )
    assert (code, err) == (0, "")
    assert "Amended ruling on floor call #1" in out
    listed = out[out.index("League rulings") :]
    assert "#1 (amended) Play on, the card is burned" in listed
    assert "Misdeal" not in listed


def test_rule_shows_how_many_league_rulings_cite_it_with_the_latest(db):
    code, out, err = run(
        db,
        "/floor oversized chip",
        "/td ruling call: 1 decision: A call rule: 2.G.d.6",
        "/floor oversized chip again",
        "/td ruling call: 2 decision: A call again rule: 2.G.d.6",
        "/rule 2.G.d.6",
    )
    assert (code, err) == (0, "")
    answer = out[out.index("BTown Poker League 2.G.d.6") :]
    assert "League rulings: 2 rulings cite this\nLatest: #2 A call again (by Bea" in answer


def test_rulings_without_any_says_how_to_make_one(db):
    code, out, err = run(db, "/rulings")
    assert (code, err) == (0, "")
    assert "No rulings yet: a director answers a floor call with /td ruling." in out


def test_a_rule_picked_from_autocomplete_names_the_book_and_another_book_is_refused(db):
    code, out, err = run(
        db,
        "/floor oversized chip",
        "/td ruling call: 1 decision: A call rule: btown-poker-league 2.G.d.6",
        "/td ruling call: 1 decision: A call rule: poker-pub 1",
    )
    assert code == 0
    assert "-- btown-poker-league 2.G.d.6" in out
    assert err == (
        "Rulings cite this league's book, BTown Poker League; poker-pub is another league's.\n"
    )


def test_rulings_shows_the_newest_ten_and_says_older_ones_exist(db):
    lines = []
    for number in range(1, 12):
        lines += [f"/floor call {number}", f"/td ruling call: {number} decision: ruling {number}"]
    code, out, err = run(db, *lines, "/rulings")
    assert (code, err) == (0, "")
    listed = out[out.rindex("League rulings") :]
    assert "#11 ruling 11" in listed
    assert "#2 ruling 2" in listed
    assert "#1 ruling 1" not in listed
    assert "Older rulings are not shown: search them with /rulings and a few words" in listed

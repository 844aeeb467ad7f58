"""Issue 11 through the console's /td (the same definitions as Discord and the CLI)."""

from __future__ import annotations

import io
import re

import pytest

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from storage.db import create_schema, make_engine
from tests.storage._league import snapshot


@pytest.fixture
def engine(tmp_path):
    eng = make_engine(f"sqlite:///{tmp_path / 'league.db'}")
    create_schema(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def console(engine) -> Console:
    return Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))


def _run(console: Console, *lines: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO("\n".join(lines) + "\n"), out, err, interactive=False)
    return code, out.getvalue(), err.getvalue()


RESULT = (
    "/td result finish: 1 Alice, 2 Bob, 3 Carol location: Brewpub season: 2026 Fall "
    "date: 2026-11-20"
)


def _refused(console: Console, engine, line: str) -> str:
    """The line is refused with one line, and no table changes."""
    before = snapshot(engine)
    _code, out, err = _run(console, line)
    assert snapshot(engine) == before
    text = out + err
    assert text.strip(), "a refusal says why"
    return text


def test_3_1_c_remove_yes_takes_an_award_back_with_its_points(console: Console, engine):
    _run(
        console,
        RESULT,
        "/td receipt event: 1 player: Bob amount: 100 ref: R-7",
        "/td premium event: 1 player: Carol hand: quads",
        "/td premium event: 1 player: Carol hand: quads",
    )
    code, out, err = _run(console, "/td receipt event: 1 player: Bob ref: r-7 remove: yes")
    assert (code, err) == (0, "")
    assert "Points: Bob −2,000 BP" in out
    code, out, _ = _run(console, "/td premium event: 1 player: Carol hand: quads remove: yes")
    assert "Points: Carol −100 RP" in out
    _, out, _ = _run(console, "/standings")
    assert re.search(r"Carol\s+800\s+150\s+1", out)  # 700 RP + one quads (100), once
    assert "no receipt R-404" in _refused(
        console, engine, "/td receipt event: 1 player: Bob ref: R-404 remove: yes"
    )
    code, out, _ = _run(console, "/td bounty event: 1 player: Alice chips: 2")
    assert "Points: Alice +100 RP" in out
    code, out, _ = _run(console, "/td bounty event: 1 player: Alice remove: yes")
    assert "Points: Alice −100 RP" in out


def test_6_1_c_an_award_to_someone_who_was_not_there_is_refused(console: Console, engine):
    _run(console, RESULT)
    assert "Zed did not play this event" in _refused(
        console, engine, "/td second_chance event: 1 player: Zed"
    )


def test_5_3_b_suspended_player_needs_confirm_and_strikes_take_a_date(console: Console, engine):
    _run(console, RESULT)
    code, out, err = _run(
        console, "/td strike player: Carol level: 1 reason: abuse date: 2026-11-21"
    )
    assert (code, err) == (0, "")
    assert "Given: 2026-11-21" in out
    night = "/td result finish: 1 Carol, 2 Bob location: Brewpub season: 2026 Fall date: 2026-11-27"
    text = _refused(console, engine, night)
    assert "Carol is suspended (strike 1 on 2026-11-21): 3 of 3 events left (3.B)" in text
    code, out, err = _run(console, night + " confirm: yes")
    assert (code, err) == (0, "")


def test_2_4_a_td_season_add_makes_it_current(console: Console, engine):
    _run(console, RESULT)
    code, out, _ = _run(console, "/td season add 2027 Spring")
    assert "2027 Spring is now the current season" in out.replace("**", "")
    code, out, _ = _run(
        console, "/td result finish: 1 Alice, 2 Bob location: Brewpub date: 2026-11-27"
    )
    assert code == 0
    _, out, _ = _run(console, "/td season list", "/td season current")
    assert "2027 Spring (current)" in out
    _, out, _ = _run(console, "/standings")
    assert "Standings, 2027 Spring" in out


def test_4_1_c_td_correct_of_a_void_event_needs_unvoid(console: Console, engine):
    _run(console, RESULT, "/td void event: 1 reason: wrong night")
    line = "/td correct event: 1 finish: 1 Bob, 2 Alice, 3 Carol reason: swapped"
    assert "unvoid" in _refused(console, engine, line)
    code, out, err = _run(console, line + " unvoid: yes")
    assert (code, err) == (0, "")
    _, out, _ = _run(console, "/standings")
    assert re.search(r"1 Bob\s+1,200\s+250\s+1", out)


def test_7_1_c_a_preset_that_rescores_needs_confirm(console: Console, engine):
    _run(console, RESULT)
    text = _refused(console, engine, "/td settings preset: poker-pub")
    assert "re-scores 1 stored event of 2026 Fall (3 players' points change)" in text
    code, out, err = _run(console, "/td settings preset: poker-pub confirm: yes")
    assert (code, err) == (0, "")
    assert "Re-scored 1 stored event of 2026 Fall: 3 players' points changed." in out

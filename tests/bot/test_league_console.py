"""The console's /standings, /toc, /stack and /td (the person at the terminal directs)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from sqlmodel import Session

from bot.config import Settings
from bot.features import COMMANDS
from bot.surfaces.console import Console, ConsoleContext
from rulings import RulingsError
from storage.audit import list_audit
from storage.db import create_schema, make_engine
from storage.leagues import get_league


@pytest.fixture
def console(tmp_path) -> Iterator[Console]:
    engine = make_engine(f"sqlite:///{tmp_path / 'league.db'}")
    create_schema(engine)
    yield Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    engine.dispose()


def _run(console: Console, *lines: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO("\n".join(lines) + "\n"), out, err, interactive=False)
    return code, out.getvalue(), err.getvalue()


RESULT = (
    "/td result finish: 1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve location: Brewpub "
    "season: 2026 Fall date: 2026-11-20"
)


def test_league_commands_are_registered():
    names = {c.path[0] for c in COMMANDS}
    assert {"standings", "toc", "stack", "td"} <= names


def test_2_g_e_2_tie_recorded_in_the_console_shows_in_standings(console: Console):
    code, out, err = _run(console, RESULT, "/standings")
    assert (code, err) == (0, "")
    assert "Carol: 650 RP, 75 BP" in out
    assert "Dave: 650 RP, 75 BP" in out
    assert "```" not in out  # no markdown fences in a terminal
    assert "Standings, 2026 Fall" in out


def test_console_writes_are_audited_as_the_console_user(console: Console):
    _run(console, RESULT)

    def audit(*, session: Session) -> list[str]:
        league = get_league(session=session)
        return [e.actor for e in list_audit(session=session, league_id=league.id)]

    actors = console.ctx.db.run_sync(audit)
    assert actors
    assert all(a.startswith("console:") for a in actors)


def test_awards_void_and_strike_in_the_console(console: Console):
    code, out, err = _run(
        console,
        RESULT,
        "/td bounty event: 1 player: Alice chips: 2",
        "/td receipt event: 1 player: Eve amount: 12.50 ref: R-1",
        "/td strike player: Bob level: 1 reason: slow play",
        "/td void event: 1 reason: wrong night",
        "/td events",
    )
    assert (code, err) == (0, "")
    assert "Alice: 1,300 RP, 250 BP" in out
    assert "Eve: 500 RP, 240 BP" in out
    assert "Suspended for the next 3 events" in out
    assert "Event #1 voided" in out


def test_stack_in_the_console(console: Console):
    code, out, _ = _run(console, "/stack Larry late_big_blind: 600")
    assert code == 0
    assert "Starting stack for Larry: 16,800" in out


def test_console_mistakes_are_one_line_and_write_nothing(console: Console):
    code, _, err = _run(console, "/td result finish: 1 Alice, 2 Bob location: Brewpub")
    assert code == 0  # end of input: the mistake was answered on stderr
    assert "there is no season yet" in err
    code, out, err = _run(
        console, "/td result finish: 1 Alice, 3 Bob location: Brewpub season: 2026 Fall"
    )
    assert code == 0  # end of input: the mistake was answered on stderr
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "place 3 should be 2" in err
    with pytest.raises(RulingsError, match="no league yet"):
        console.handle("/standings")
    code, _, err = _run(console, "/td frobnicate")
    assert code == 0  # end of input: the mistake was answered on stderr
    assert "/td takes bounty, correct" in err

"""The console speaks the README's words: sub-command groups, name:value like Discord, and
every mistake refused in one line with nothing written (the issue's examples)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import MetaData, select
from sqlmodel import Session, SQLModel

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from storage.db import create_schema, make_engine


@pytest.fixture
def console(tmp_path) -> Iterator[Console]:
    engine = make_engine(f"sqlite:///{tmp_path / 'words.db'}")
    create_schema(engine)
    yield Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    engine.dispose()


def _run(console: Console, *lines: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO("\n".join(lines) + "\n"), out, err, interactive=False)
    return code, out.getvalue(), err.getvalue()


def _snapshot(console: Console) -> dict[str, list[Any]]:
    """Every row of every table: a refused line must leave all of them as they were."""
    metadata: MetaData = SQLModel.metadata

    def rows(*, session: Session) -> dict[str, list[Any]]:
        return {
            name: sorted(map(tuple, session.execute(select(table)).all()), key=repr)
            for name, table in metadata.tables.items()
        }

    return console.ctx.db.run_sync(rows)


def _seasons(console: Console) -> list[str]:
    from storage.league_models import Season

    def names(*, session: Session) -> list[str]:
        return [s.name for s in session.exec(select(Season)).scalars()]  # type: ignore[call-overload]

    return console.ctx.db.run_sync(names)


def test_td_season_add_and_list_are_sub_commands(console: Console):
    code, out, err = _run(
        console,
        "/td season add name:2026 Fall",
        "/td season list",
        "/td season add 2027 Spring",
        '/td season add name:"2028 Winter"',
    )
    assert (code, err) == (0, "")
    assert _seasons(console) == ["2026 Fall", "2027 Spring", "2028 Winter"]
    assert "• 2026 Fall" in out


def test_td_location_add_and_list(console: Console):
    code, out, err = _run(console, "/td location add name:Brewpub", "/td location list")
    assert (code, err) == (0, "")
    assert "• Brewpub" in out


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "/td result finish:1 Alice, 2 Bob location:Brewpub dte:2026-09-15",
            "/td result has no option 'dte'; /td result takes finish, location, season, date",
        ),
        (
            "/td result finish:1 Alice, 2 Bob location:Brewpub season: date:2026-10-21",
            "season: is empty",
        ),
        ("/td second_chance event:2 player:Tina confrm:yes", "has no option 'confrm'"),
        ("/stack brought:25", "brought: 25 is above the largest allowed, 20"),
        ("/td season list extra words", "'extra words' is not an option"),
        ("/td season", "/td season takes add, current, list"),
        ("/td bounty event:1 player:Al chips:lots", "chips: 'lots' is not a whole number"),
    ],
)
def test_a_mistake_is_one_line_naming_the_options_and_writes_nothing(
    console: Console, line: str, message: str
):
    _run(console, "/td season add 2026 Fall", "/td location add Brewpub")
    before = _snapshot(console)
    code, out, err = _run(console, line)
    assert code == 0  # end of input: the mistake was answered on stderr
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert message in err
    assert _snapshot(console) == before


def test_stack_takes_discords_option_names(console: Console):
    code, out, err = _run(console, "/stack Larry late_big_blind:600")
    assert (code, err) == (0, "")
    assert "− 1,200 late registration" in out
    assert "Starting stack for Larry: 16,800" in out


def test_hand_names_with_colons_stay_part_of_the_cards(console: Console):
    reply = console.handle("/hand alice: As Ks vs bob: Qh Qd board: 2c 7d 9h Jc 3s")
    assert reply is not None
    assert reply.title == "bob wins"


def test_result_date_words_use_the_league_timezone(console: Console):
    code, out, err = _run(
        console,
        "/td result finish:1 Alice, 2 Bob location:Brewpub season:2026 Fall date:today",
    )
    assert (code, err) == (0, "")
    today = console.ctx.context().today().isoformat()
    assert today in out


def test_td_result_file_takes_a_path(console: Console, tmp_path):
    night = tmp_path / "night.csv"
    night.write_text("position,player\n1,Carol\n2,Alice\n", encoding="utf-8")
    code, out, err = _run(
        console,
        f'/td result file:"{night}" location:Brewpub season:2026 Fall date:2026-11-20',
        "/td result file:/no/such/file.csv location:Brewpub",
    )
    assert code == 0  # end of input: the mistake was answered on stderr
    assert "Carol: 1,200 RP, 250 BP" in out
    assert err.strip().splitlines() == ["/no/such/file.csv: No such file or directory"]


def test_every_console_command_is_reached_by_its_words():
    from bot.features import COMMANDS
    from bot.surfaces.console import match

    for command in COMMANDS:
        if "console" in command.surfaces:
            assert match(COMMANDS, [*command.path, "extra"]) == (command, len(command.path))


def test_rule_with_a_section_number_reads_the_whole_section(console):
    code, out, err = _run(console, "/rule 2.D")
    assert code == 0, err
    assert "Combining Tables and Reseating Players" in out
    for rule in ("2.D.a", "2.D.b", "2.D.c", "2.D.d"):
        assert rule in out

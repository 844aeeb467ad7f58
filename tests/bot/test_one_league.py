"""One league whichever door: the command line and the console reach a Discord server's league."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from bot.surfaces.cli import main
from bot.surfaces.console import Console, ConsoleContext
from rulings import build_event, parse_finish_text
from storage.db import create_schema, make_engine, session_scope
from storage.event_changes import record_guild_events

GUILD = 4242


@pytest.fixture
def url(tmp_path: Path) -> str:
    """A database holding one league: a Discord server's, with one night recorded there."""
    url = f"sqlite:///{tmp_path / 'league.db'}"
    engine = make_engine(url)
    create_schema(engine)

    def build(rules, current):
        return [
            build_event(
                season="2026 Fall",
                location="Brewpub",
                date=dt.date(2026, 11, 20),
                kind="regular",
                finish=parse_finish_text("1 Alice, 2 Bob"),
                played=(),
                max_receipt_cents=rules.receipt_max_cents,
            )
        ]

    with session_scope(engine) as session:
        record_guild_events(
            session=session, guild_id=GUILD, build=build, actor="discord:1:td", allow_new=True
        )
    engine.dispose()
    return url


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_uses_the_only_league_a_discord_server_keeps(capsys, url: str):
    code, out, err = _cli(capsys, "standings", "--db", url, "--json")
    assert (code, err) == (0, "")
    assert [r["player"] for r in json.loads(out)] == ["Alice", "Bob"]
    code, out, _ = _cli(capsys, "league", "list", "--db", url)
    assert code == 0
    assert f"Discord server {GUILD} (--guild {GUILD})" in out


def test_guild_picks_the_league_and_an_unknown_one_has_none(capsys, url: str):
    code, out, _ = _cli(capsys, "season", "list", "--db", url, "--guild", str(GUILD))
    assert code == 0
    assert "• 2026 Fall" in out
    code, _, err = _cli(capsys, "standings", "--db", url, "--guild", "7")
    assert code == 2
    assert "no league yet" in err
    code, _, err = _cli(capsys, "standings", "--db", url, "--guild", "seven")
    assert code == 2
    assert "--guild seven: not a Discord server id" in err


def test_the_console_speaks_for_the_same_league(url: str):
    engine = make_engine(url)
    console = Console(
        ConsoleContext(settings=Settings(_env_file=None), engine=engine, guild_id=GUILD)
    )
    out, err = io.StringIO(), io.StringIO()
    code = console.run(io.StringIO("/standings\n"), out, err, interactive=False)
    engine.dispose()
    assert (code, err.getvalue()) == (0, "")
    assert "Alice" in out.getvalue()


def test_date_words_on_the_command_line(capsys, tmp_path: Path, url: str):
    csv_file = tmp_path / "night.csv"
    csv_file.write_text("position,player\n1,Carol\n2,Alice\n", encoding="utf-8")
    code, out, err = _cli(
        capsys,
        "event",
        "import",
        str(csv_file),
        "--season",
        "2026 Fall",
        "--location",
        "Brewpub",
        "--date",
        "yesterday",
        "--kind",
        "regular",
        "--allow-new",
        "--db",
        url,
        "--json",
    )
    assert (code, err) == (0, ""), err
    code, out, _ = _cli(capsys, "event", "list", "--db", url, "--json")
    dates = sorted(e["date"] for e in json.loads(out))
    today = dt.datetime.now(ZoneInfo(Settings().timezone)).date()  # the league's TIMEZONE
    assert dates == sorted(["2026-11-20", (today - dt.timedelta(days=1)).isoformat()])

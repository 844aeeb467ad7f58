"""``pokerfloor backup``/``restore`` on the command line, the schedule in two bot instances, and
``/admin backup`` telling the owner when the last backup ran, where, and how big it was."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.config import Settings
from bot.surfaces.cli import main
from bot.surfaces.console import Console, ConsoleContext
from bot.surfaces.discord.backup import BackupCog
from storage.backup_schedule import get_last_backup
from storage.db import make_engine, session_scope, upgrade_schema

EVENT = {
    "season": "2026 Fall",
    "location": "Brewpub",
    "date": "2026-11-20",
    "kind": "regular",
    "finish": [["Alice"], ["Bob"], ["Carol"]],
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_backup_and_restore_from_the_command_line(tmp_path: Path, capsys):
    league = f"sqlite:///{tmp_path / 'league.db'}"
    other = f"sqlite:///{tmp_path / 'other.db'}"
    (tmp_path / "e.json").write_text(json.dumps(EVENT), encoding="utf-8")
    assert run(capsys, "event", "import", str(tmp_path / "e.json"), "--db", league)[0] == 0
    file = str(tmp_path / "league.jsonl.gz")

    code, out, err = run(capsys, "backup", file, "--db", league)
    assert (code, err) == (0, "")
    assert "to " + file in out

    code, out, _ = run(capsys, "restore", file, "--db", other)
    assert code == 0
    assert "into sqlite:///" in out
    assert (
        run(capsys, "standings", "--json", "--db", other)[1]
        == (run(capsys, "standings", "--json", "--db", league)[1])
    )

    code, out, err = run(capsys, "restore", file, "--db", other)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "already holds league data" in err
    assert run(capsys, "restore", file, "--db", other, "--replace")[0] == 0


def test_restoring_a_missing_file_creates_no_database(tmp_path: Path, capsys):
    target = tmp_path / "never.db"
    code, _, err = run(
        capsys, "restore", str(tmp_path / "nope.jsonl.gz"), "--db", f"sqlite:///{target}"
    )
    assert code == 2
    assert "cannot read the backup" in err
    assert not target.exists()


def test_backing_up_a_database_that_is_not_there_is_refused(tmp_path: Path, capsys):
    code, _, err = run(
        capsys, "backup", str(tmp_path / "b.gz"), "--db", f"sqlite:///{tmp_path / 'x.db'}"
    )
    assert code == 2
    assert "there is no database" in err


async def test_of_two_instances_one_takes_the_scheduled_backup_and_admin_backup_tells(tmp_path):
    url = f"sqlite:///{tmp_path / 'league.db'}"
    engine = make_engine(url)
    upgrade_schema(engine)
    folder = tmp_path / "backups"
    settings = Settings(_env_file=None, database_url=url, backup_dir=folder, backup_every="1h")
    bots = [SimpleNamespace(settings=settings, engine=engine) for _ in range(2)]
    cogs = [BackupCog(bot, tick_seconds=0.05) for bot in bots]
    for cog in cogs:
        await cog.cog_load()
    for _ in range(400):
        await asyncio.sleep(0.05)
        with session_scope(engine) as session:
            last = get_last_backup(session=session)
        if last is not None and last.ok_at is not None:
            break
    await asyncio.sleep(0.3)  # both keep ticking: neither takes a second backup within the hour
    for cog in cogs:
        await cog.cog_unload()
    files = list(folder.iterdir())
    assert len(files) == 1
    assert last is not None
    assert last.instance in {cog.instance_id for cog in cogs}

    console = Console(ConsoleContext(settings=settings, engine=engine))
    reply = console.handle("/admin backup")
    assert reply is not None
    text = reply.to_plain()
    assert "Last backup" in text
    assert str(files[0]) in text
    assert "kB" in text
    assert "every 1 h" in text
    engine.dispose()


def test_admin_backup_before_any_backup_says_so(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'c.db'}")
    upgrade_schema(engine)
    console = Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    reply = console.handle("/admin backup")
    assert reply is not None
    assert "none yet" in reply.to_plain()
    assert "off on this instance (set BACKUP_DIR)" in reply.to_plain()
    engine.dispose()

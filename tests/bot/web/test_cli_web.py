"""``pokerfloor web``'s refusals: one line, exit 2, and no file created."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.surfaces.cli import main
from storage.db import create_schema, make_engine


def test_a_missing_database_file_is_refused_not_created(tmp_path: Path, capsys):
    path = tmp_path / "nothing.db"
    assert main(["web", "--db", f"sqlite:///{path}"]) == 2
    assert "there is no database at" in capsys.readouterr().err
    assert not path.exists()


def test_a_database_without_a_league_is_refused(tmp_path: Path, capsys):
    path = tmp_path / "empty.db"
    path.touch()
    assert main(["web", "--db", f"sqlite:///{path}", "--port", "8"]) == 2
    assert "has no league yet" in capsys.readouterr().err


def test_a_bad_port_is_refused(tmp_path: Path, capsys):
    url = f"sqlite:///{tmp_path / 'league.db'}"
    engine = make_engine(url)
    create_schema(engine)
    engine.dispose()
    assert main(["web", "--db", url, "--port", "70000"]) == 2
    assert "use a port from 1 to 65535" in capsys.readouterr().err


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
async def test_pokerfloor_web_serves_until_interrupted(tmp_path: Path, stop: str):
    """Ctrl+C and SIGTERM (systemd, ``docker stop``) both end the pages cleanly: exit 0."""
    import asyncio
    import signal
    import socket
    import sys

    import aiohttp

    from tests.bot.web._data import build_league

    url = build_league(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "web", "--host", "127.0.0.1", "--port", str(port),
        "--db", url, stderr=asyncio.subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        async with asyncio.timeout(60):
            while b"league pages on" not in await proc.stderr.readline():
                pass
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/") as r:
            assert r.status == 200
            assert "<h1>Standings, 2026 Fall</h1>" in await r.text()
    finally:
        proc.send_signal(getattr(signal, stop))
        code = await asyncio.wait_for(proc.wait(), 20)
    assert code == 0
    assert proc.stderr is not None
    assert b"Traceback" not in await proc.stderr.read()
    names = await asyncio.to_thread(lambda: sorted(p.name for p in tmp_path.iterdir()))
    assert [n for n in names if not n.startswith("league.db-")] == ["events.json", "league.db"]


def test_a_host_that_is_not_an_address_is_one_line_and_exit_2(tmp_path: Path, capsys):
    from tests.bot.web._data import build_league

    url = build_league(tmp_path)
    capsys.readouterr()
    assert main(["web", "--db", url, "--host", "999.1.1.1", "--port", "8080"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("pokerfloor: cannot listen on 999.1.1.1:8080: --host is not an address")


@pytest.mark.parametrize("guild", ["18446744073709551621", "-5", "abc", "0"])
def test_a_guild_id_beyond_64_bits_is_refused(tmp_path: Path, capsys, guild):
    url = f"sqlite:///{tmp_path / 'league.db'}"
    engine = make_engine(url)
    create_schema(engine)
    engine.dispose()
    assert main(["web", "--db", url, f"--guild={guild}"]) == 2
    assert capsys.readouterr().err == (
        f"pokerfloor web: --guild {guild}: not a Discord server id "
        "(a number from 1 to 9223372036854775807)\n"
    )

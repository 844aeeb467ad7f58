"""Every command example in README.md and docs/*.md runs, in order, and prints what it says.

The convention (stated at the top of docs/development.md): a ```console block is one console
session, a ```sh block runs line by line in bash with ``pokerfloor`` being ``python -m bot``;
``#> TEXT`` under a command is something it prints, ``#> exit N`` its exit code; other blocks
are not run. Each file gets a fresh SQLite database in a fresh folder.
"""

from __future__ import annotations

import io
import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from storage.db import create_schema, make_engine

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
RUN = {"console", "sh"}


@dataclass
class Step:
    """One command (a console block is one step: the whole session) and what it must print."""

    command: str
    expected: list[str] = field(default_factory=list)
    exit_code: int = 0


@dataclass
class Block:
    kind: str
    line: int
    steps: list[Step]


def blocks(text: str) -> list[Block]:
    """The page's blocks that run, in order."""
    found: list[Block] = []
    kind: str | None = None
    start = 0
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if kind is None:
            if fence:
                kind, start, body = fence.group(1), number, []
            continue
        if line.strip() == "```":
            if kind in RUN:
                found.append(Block(kind, start, _steps(kind, body)))
            kind = None
            continue
        body.append(line)
    assert kind is None, f"a code block opened at line {start} is never closed"
    return found


def _steps(kind: str, body: list[str]) -> list[Step]:
    steps: list[Step] = [Step("")] if kind == "console" else []
    for line in body:
        if line.startswith("#>"):
            claim = line[2:].strip()
            assert steps, f"{line!r} follows no command"
            if re.fullmatch(r"exit \d+", claim):
                steps[-1].exit_code = int(claim.split()[1])
            else:
                steps[-1].expected.append(claim)
        elif kind == "console":
            steps[0].command += line + "\n"
        elif line.strip() and not line.lstrip().startswith("#"):
            steps.append(Step(line))
    return steps


def _console(url: str, lines: str) -> tuple[int, str, str]:
    engine = make_engine(url)
    try:
        console = Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
        out, err = io.StringIO(), io.StringIO()
        code = console.run(io.StringIO(lines), out, err, interactive=False)
    finally:
        engine.dispose()
    return code, out.getvalue(), err.getvalue()


def _shell(folder: Path) -> dict[str, str]:
    """An environment where ``pokerfloor`` is this checkout's ``python -m bot``."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "pokerfloor"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m bot "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "RULEBOOK_DIR"}}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
        DATABASE_URL=f"sqlite:///{folder / 'league.db'}",
    )
    return env


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_example_runs_as_written(page: Path, tmp_path: Path) -> None:
    env = _shell(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    url = env["DATABASE_URL"]
    create_schema(make_engine(url))
    for block in blocks(page.read_text(encoding="utf-8")):
        where = f"{page.name}:{block.line}"
        for step in block.steps:
            if block.kind == "console":
                code, out, err = _console(url, step.command)
            else:
                done = subprocess.run(
                    ["bash", "-c", "set -o pipefail; " + step.command],
                    cwd=work,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                )
                code, out, err = done.returncode, done.stdout, done.stderr
            said = f"{where}: {step.command.strip()}\n--- stdout\n{out}\n--- stderr\n{err}"
            assert code == step.exit_code, said
            assert "Traceback" not in out + err, said
            shown_up_to = 0  # claims on stdout appear in the order written
            for claim in step.expected:
                at = out.find(claim, shown_up_to)
                if at >= 0:
                    shown_up_to = at + len(claim)
                    continue
                assert claim in err, f"{claim!r} not printed (in this order)\n{said}"
            warned = [line for line in err.splitlines() if line.strip()]
            unannounced = [e for e in warned if not any(c in e for c in step.expected)]
            assert not unannounced, f"stderr the text does not show: {unannounced}\n{said}"


def test_the_convention_reads_claims_and_exit_codes() -> None:
    text = "```sh\npokerfloor x\n#> hello\n#> exit 2\n```\n```text\nmake run\n```\n"
    (block,) = blocks(text)
    assert block.kind == "sh"
    assert block.steps == [Step("pokerfloor x", ["hello"], 2)]


def test_the_readme_stays_short_and_starts_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) <= 12_500
    first = re.search(r"```\w*\n(.*?)```", text, re.S)
    assert first is not None
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands[:2] == ["make run", "make test"]

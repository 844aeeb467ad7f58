"""The one command model: every definition exists on every surface under the same names."""

from __future__ import annotations

import argparse
import datetime as dt
import re
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands as ext

from bot.command.model import Command
from bot.command.options import bind, parse_line
from bot.errors import BadOption
from bot.features import COMMANDS, GROUPS
from bot.surfaces.cli import build_parser
from bot.surfaces.discord.build import install
from bot.surfaces.discord.forms import TYPED, field_layout, label_of

TODAY = dt.date(2026, 11, 21)


class _Bot(ext.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.none())
        self.slash: Any = None


@pytest.fixture(scope="module")
def tree() -> dict[str, app_commands.Command[Any, ..., Any]]:
    bot = _Bot()
    install(bot)  # type: ignore[arg-type]
    found: dict[str, app_commands.Command[Any, ..., Any]] = {}

    def walk(items: list[Any]) -> None:
        for item in items:
            if isinstance(item, app_commands.Group):
                walk(item.commands)
            else:
                found[item.qualified_name] = item

    walk(bot.tree.get_commands())
    return found


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _cli(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in path:
        parser = _subparsers(parser)[word]
    return parser


def test_definitions_are_unique_and_within_discords_limits():
    paths = [c.path for c in COMMANDS]
    assert len(paths) == len(set(paths))
    for command in COMMANDS:
        assert len(command.description) <= 100, command.name
        assert all(o.name == o.name.lower() for o in command.options)
        assert all(len(o.description) <= 100 for o in command.options), command.name
        names = [o.name for o in command.options]
        assert len(names) == len(set(names)), command.name
    for group in GROUPS:
        assert len(group.description) <= 100


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if "discord" in c.surfaces], ids=lambda c: c.name
)
def test_every_command_is_on_discord_with_its_options(command: Command, tree: dict[str, Any]):
    app = tree[command.name]
    assert app.description == command.description
    assert [p.name for p in app.parameters] == sorted(
        [o.name for o in command.options_on("discord")],
        key=lambda n: (
            not command.is_required(command.option(n), "discord"),
            [o.name for o in command.options].index(n),
        ),
    )
    for param in app.parameters:
        opt = command.option(param.name)
        assert param.required == command.is_required(opt, "discord")
        if opt.required and not param.required:  # on Discord a form asks for it instead
            assert command.form is not None
            assert command.form.when_missing == opt.name
        if opt.choices:
            assert [c.value for c in param.choices] == list(opt.choices)
        if opt.kind == "int" and opt.max is not None:
            assert param.max_value == opt.max


FORMS = [c for c in COMMANDS if c.form is not None]


@pytest.mark.parametrize("command", FORMS, ids=lambda c: c.name)
def test_every_form_field_is_one_of_the_slash_options(command: Command, tree: dict[str, Any]):
    """A form fills the command's own options: same names, kinds, limits as the slash command."""
    form = command.form
    assert form is not None
    params = {p.name: p for p in tree[command.name].parameters}
    assert form.when_missing in form.fields
    assert not params[form.when_missing].required  # on Discord the form supplies it
    layout = field_layout(command)
    assert 1 <= len(layout) <= 5  # Discord's most fields in a modal
    assert len(form.title) <= 45
    filled = [o.name for cid, opts in layout for o in opts if not cid.endswith(TYPED)]
    assert sorted(filled) == sorted(form.fields)
    for name in form.fields:
        opt = command.option(name)
        assert name in params, name  # the same option exists on the slash command
        assert "discord" in opt.surfaces
        assert len(label_of(opt)) <= 45
    for picker in form.pickers:
        assert picker.option in form.fields
        assert picker.many or command.option(picker.option).kind == "text"
        if picker.typed is not None:  # a text field beside the list, for a value it lacks
            assert not picker.many
            assert command.option(picker.option).kind == "text"
            assert len(picker.typed) <= 45
            ids = [cid for cid, _ in layout]
            assert ids[ids.index(picker.option) + 1] == picker.option + TYPED
    # A form's values go through the same bind as the slash command's: text is checked.
    strings = {n: "x" for n in form.fields if command.option(n).kind == "text"}
    if any(command.option(n).kind == "int" for n in form.fields):
        name = next(n for n in form.fields if command.option(n).kind == "int")
        with pytest.raises(BadOption, match=name):
            bind(command, {**strings, name: "lots"}, surface="discord", today=TODAY)


@pytest.mark.parametrize("command", FORMS, ids=lambda c: c.name)
def test_a_form_option_stays_required_in_the_console_and_on_the_command_line(command: Command):
    assert command.form is not None
    opt = command.option(command.form.when_missing)
    assert opt.required
    others = {
        o.name: "1" if o.kind == "int" else "x"
        for o in command.options
        if o.required and o is not opt
    }
    for surface in ("console", "cli"):
        with pytest.raises(BadOption, match=f"{opt.name}: is required"):
            bind(command, others, surface=surface, today=TODAY)
    assert bind(command, others, surface="discord", today=TODAY)[opt.name] is None


def test_context_menus_fill_an_option_of_their_command(tree: dict[str, Any]):
    menus = {m.name: (c, m) for c in COMMANDS for m in c.menus}
    assert set(menus) >= {"Find rule", "Player card"}
    for name, (command, menu) in menus.items():
        assert 1 <= len(name) <= 32
        assert command.option(menu.option).kind == ("member" if menu.target == "user" else "text")
        assert menu.option in {p.name for p in tree[command.name].parameters}


def test_only_hand_and_rule_are_user_installable():
    assert {c.name for c in COMMANDS if c.user_install} == {"hand", "rule"}
    assert not any(c.user_install and c.guild_only for c in COMMANDS)


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if "console" in c.surfaces], ids=lambda c: c.name
)
def test_every_option_parses_in_the_console(command: Command):
    for opt in command.options_on("console"):
        assert parse_line(command, f"{opt.name}:x") == {opt.name: "x"}
    if any(o.raw for o in command.options):
        return  # free text such as "alice: As Ks" may hold words with colons
    with pytest.raises(BadOption, match="takes"):
        parse_line(command, "nosuchoption:1")


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if "cli" in c.surfaces], ids=lambda c: c.name
)
def test_every_command_is_on_the_command_line_with_its_options(command: Command):
    parser = _cli(command.cli_path)
    flags = {s for a in parser._actions for s in a.option_strings}
    for opt in command.options_on("cli"):
        assert opt.flag in flags, (command.name, opt.name)


def test_an_option_out_of_range_is_refused_the_same_everywhere():
    from bot.features import find

    stack = find(("stack",))
    for surface in ("discord", "console", "cli"):
        with pytest.raises(BadOption, match="brought: 25 is above the largest allowed, 20"):
            bind(
                stack,
                {"brought": 25 if surface == "discord" else "25"},
                surface=surface,
                today=TODAY,
            )


ROOT = Path(__file__).resolve().parents[2]
COMMANDS_PAGE = ROOT / "docs" / "commands.md"


def test_the_docs_command_table_is_written_from_the_definitions():
    from bot.command.docs import PAGE, section

    assert ROOT / PAGE == COMMANDS_PAGE
    assert section(COMMANDS) in COMMANDS_PAGE.read_text(encoding="utf-8"), (
        "docs/commands.md's command table is out of date: run python -m bot.command.docs"
    )


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    subs = _subparsers(parser)
    if not subs:
        return [path]
    return [leaf for name, sub in subs.items() for leaf in _leaves(sub, (*path, name))]


def test_the_docs_name_every_command_line_command():
    text = COMMANDS_PAGE.read_text(encoding="utf-8")
    defined = {c.cli_path for c in COMMANDS if "cli" in c.surfaces}
    for leaf in _leaves(build_parser()):
        if leaf in defined:
            continue  # in the generated table, with the same words
        group, *action = leaf
        rows = [line for line in text.splitlines() if f"`pokerfloor {group}" in line]
        assert rows, f"docs/commands.md names no pokerfloor {group}"
        if action:
            words = {w for row in rows for w in re.split(r"[\s`|\\,]+", row)}
            assert action[0] in words, f"docs/commands.md names no pokerfloor {' '.join(leaf)}"


def test_a_receipt_photo_must_be_an_image_on_every_surface():
    from bot.command.model import Upload
    from bot.features import find

    receipt = find(("td", "receipt"))
    given = {"event": "1", "player": "Ann", "amount": "5"}
    for surface in ("console", "cli"):
        kept = bind(
            receipt, {**given, "photo": "https://x.test/r/1.JPG?s=2"}, surface=surface, today=TODAY
        )
        assert kept["photo"] == "https://x.test/r/1.JPG?s=2"
        with pytest.raises(BadOption, match=r"photo: notes.txt is not an image"):
            bind(
                receipt,
                {**given, "photo": "https://x.test/notes.txt"},
                surface=surface,
                today=TODAY,
            )
    upload = Upload("scan.bin", b"", url="https://cdn.test/scan.bin", content_type="image/png")
    assert (
        bind(receipt, {**given, "event": 1, "photo": upload}, surface="discord", today=TODAY)[
            "photo"
        ]
        == "https://cdn.test/scan.bin"
    )  # Discord's content type decides, not the name

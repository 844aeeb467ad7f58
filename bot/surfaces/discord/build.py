"""The app command tree built from the definitions (``bot.features.COMMANDS``).

``install(bot)`` walks the definitions and adds an app command for each (groups and sub-groups
from their words, option types, ranges, choices, descriptions, autocomplete, context menus,
where each may be installed and used); every callback hands its values to
``SlashRunner.run``. This module is the extension the bot loads (``setup``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from bot.command.model import Command, Menu, Opt, Who
from bot.errors import BadOption
from bot.features import COMMANDS, group_description

if TYPE_CHECKING:
    from bot.surfaces.discord import LeagueBot

from bot.surfaces.discord.buttons import ActionButton
from bot.surfaces.discord.choices import choices_for
from bot.surfaces.discord.slash import SlashRunner

CHANNEL_TYPES = [discord.ChannelType.text, discord.ChannelType.news, discord.ChannelType.voice]


class ChannelId(app_commands.Transformer):
    """A channel option (channels with a text chat), read as its id without the guild cache."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        """A channel option."""
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        """Text, announcement and voice channels (voice channels have a text chat)."""
        return CHANNEL_TYPES

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> int:
        """The channel's id."""
        if not hasattr(value, "id") or getattr(value, "type", None) not in CHANNEL_TYPES:
            raise BadOption("Pick a channel with a text chat.")
        return int(value.id)


def _annotation(opt: Opt) -> Any:
    """The Python annotation discord.py turns into the option's Discord type."""
    if opt.kind == "text" or opt.kind == "date":
        if opt.choices:
            return Literal[opt.choices]
        return str
    if opt.kind == "int":
        if opt.min is None and opt.max is None:
            return int
        return app_commands.Range[int, _int(opt.min), _int(opt.max)]
    if opt.kind == "number":
        if opt.min is None and opt.max is None:
            return float
        return app_commands.Range[float, opt.min, opt.max]
    if opt.kind == "yes":
        return bool
    if opt.kind == "file":
        return discord.Attachment
    if opt.kind == "channel":
        return app_commands.Transform[int, ChannelId]
    if opt.kind == "role":
        return discord.Role
    return discord.User


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def _callback(runner: SlashRunner, command: Command) -> Callable[..., Any]:
    async def callback(interaction: discord.Interaction, **values: Any) -> None:
        await runner.run(interaction, command, values)

    params = [
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        )
    ]
    options = sorted(
        command.options_on("discord"), key=lambda o: not command.is_required(o, "discord")
    )
    for opt in options:
        required = command.is_required(opt, "discord")
        params.append(
            inspect.Parameter(
                opt.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=_annotation(opt),
                default=inspect.Parameter.empty if required else None,
            )
        )
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    descriptions = {o.name: o.description[:100] for o in options}
    if descriptions:
        app_commands.describe(**descriptions)(callback)
    return callback


# Where a command may be installed and used (Discord's integration_types and contexts).
GUILD_INSTALL = app_commands.AppInstallationType(guild=True, user=False)
USER_INSTALL = app_commands.AppInstallationType(guild=True, user=True)
SERVER_ONLY = app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False)
SERVER_AND_DM = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=False)
ANYWHERE = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True)


def _reach(
    commands: Sequence[Command],
) -> tuple[app_commands.AppInstallationType, app_commands.AppCommandContext]:
    """Where the top-level command or group over ``commands`` may be installed and used.

    User-installable commands (``/rule``, ``/hand``) everywhere; a server-only group or
    command (every league command) in its server only; the rest in the server and the bot's DMs.
    """
    if all(c.user_install for c in commands):
        return USER_INSTALL, ANYWHERE
    if all(c.guild_only or c.who is not Who.EVERYONE for c in commands):
        return GUILD_INSTALL, SERVER_ONLY
    return GUILD_INSTALL, SERVER_AND_DM


def _menu_callback(runner: SlashRunner, command: Command, menu: Menu) -> Callable[..., Any]:
    opt = command.option(menu.option)
    if menu.target == "message":

        async def on_message(interaction: discord.Interaction, message: discord.Message) -> None:
            text = " ".join(message.content.split())
            limit = opt.max_length or 100
            if len(text) > limit:  # the start of a long message, cut at a word
                text = text[:limit].rsplit(" ", 1)[0] or text[:limit]
            await runner.run(interaction, command, {opt.name: text or None}, private=True)

        return on_message

    async def on_user(
        interaction: discord.Interaction, user: discord.Member | discord.User
    ) -> None:
        await runner.run(interaction, command, {opt.name: user.id}, private=True)

    return on_user


def _complete(runner: SlashRunner, source: str) -> Callable[..., Any]:
    async def complete(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await choices_for(runner.bot, interaction, source, current)

    return complete


def _hidden(commands: Sequence[Command], path: tuple[str, ...]) -> bool:
    """Whether every command under ``path`` is for directors (the group is hidden)."""
    under = [c for c in commands if c.path[: len(path)] == path]
    return bool(under) and all(c.who is not Who.EVERYONE for c in under)


def install(bot: LeagueBot, commands: Sequence[Command] = COMMANDS) -> SlashRunner:
    """Add every definition's app command to ``bot.tree`` and route ``pf:`` buttons.

    Groups are made from the commands' words; a group that exists already (a cog's) is added
    to. Returns the runner (also ``bot.slash``).
    """
    runner = SlashRunner(bot)
    bot.slash = runner
    tree = bot.tree
    groups: dict[tuple[str, ...], app_commands.Group] = {}

    def group(path: tuple[str, ...]) -> app_commands.Group:
        if path in groups:
            return groups[path]
        parent = group(path[:-1]) if len(path) > 1 else None
        existing: Any = (
            tree.get_command(path[0]) if parent is None else parent.get_command(path[-1])
        )
        if isinstance(existing, app_commands.Group):
            groups[path] = existing
            return existing
        under = [c for c in commands if c.path[: len(path)] == path and "discord" in c.surfaces]
        top = parent is None
        installs, contexts = _reach(under)
        made = app_commands.Group(
            name=path[-1],
            description=group_description(path)[:100],
            guild_only=top and all(c.guild_only or c.who is not Who.EVERYONE for c in under),
            default_permissions=(
                discord.Permissions(manage_guild=True) if top and _hidden(commands, path) else None
            ),
            allowed_installs=installs if top else None,
            allowed_contexts=contexts if top else None,
        )
        if parent is None:
            tree.add_command(made)
        else:
            parent.add_command(made)
        groups[path] = made
        return made

    for command in commands:
        if "discord" not in command.surfaces:
            continue
        callback = _callback(runner, command)
        if command.guild_only and len(command.path) == 1:
            app_commands.guild_only()(callback)
        parent = group(command.path[:-1]) if len(command.path) > 1 else None
        app_command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name=command.path[-1],
            description=command.description[:100],
            callback=callback,
        )
        if len(command.path) == 1:
            app_command.allowed_installs, app_command.allowed_contexts = _reach([command])
            if command.who is not Who.EVERYONE:
                app_command.default_permissions = discord.Permissions(manage_guild=True)
        for opt in command.options_on("discord"):
            if opt.complete is not None:
                app_command.autocomplete(opt.name)(_complete(runner, opt.complete))
        if parent is None:
            tree.add_command(app_command)
        else:
            parent.add_command(app_command)
        for menu in command.menus:
            installs, contexts = _reach([command])
            tree.add_command(
                app_commands.ContextMenu(
                    name=menu.name,
                    callback=_menu_callback(runner, command, menu),
                    allowed_installs=installs,
                    allowed_contexts=contexts,
                )
            )
    bot.add_dynamic_items(ActionButton)
    bot.add_listener(runner.on_interaction, "on_interaction")
    return runner


__all__ = ["install"]


async def setup(bot: LeagueBot) -> None:
    """Install the app commands and the button router (``LeagueBot.setup_hook`` loads this)."""
    install(bot)

"""The Discord side of the one command model: app commands and buttons built from definitions.

``install(bot)`` walks ``bot.features.COMMANDS`` and adds an app command for each (groups and
sub-groups from their words, option types, ranges, choices, descriptions, autocomplete); every
callback goes through ``SlashRunner.run``: check who may run it, check the options
(``bot.command.options.bind``, the same checks as the console and the command line), run the
synchronous handler in a worker thread (deferring when it takes a while), send the ``Reply``
(embed, buttons, files), then carry out its ``Effect``s. Buttons whose ``custom_id`` starts
with ``pf:`` are routed to the ``Action`` they name. Every error takes ``bot.errors.describe``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import inspect
import io
import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo

import discord
from discord import app_commands

from bot.command.model import Action, Command, Context, Heavy, Menu, Opt, Upload, Who
from bot.command.options import MAX_FILE_BYTES, check_accepted
from bot.command.run import run_action, run_command
from bot.errors import REFUSAL, BadOption, NotDirectorError, describe
from bot.features import ACTIONS, COMMANDS, group_description
from bot.reply import Effect, Reply, error_reply, escape
from bot.surfaces.discord import forms, render

if TYPE_CHECKING:
    from bot.surfaces.discord import LeagueBot

log = logging.getLogger(__name__)

DEFER_AFTER_S = 0.8
DOWNLOAD_TIMEOUT_S = 15.0
CHANNEL_TYPES = [discord.ChannelType.text, discord.ChannelType.news, discord.ChannelType.voice]
POSTS = frozenset({"announce", "night_thread", "floor_call", "floor_ruling"})
"""Effects that post a message: carried out after the reply is sent."""


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


# -- who may run it ---------------------------------------------------------------------------


def _can_manage(interaction: discord.Interaction) -> bool:
    perms = interaction.permissions
    return bool(interaction.guild_id is not None and (perms.manage_guild or perms.administrator))


def member_role_ids(member: Any) -> frozenset[int]:
    """The role ids of a server member, from the interaction's payload (no guild cache)."""
    roles = getattr(member, "_roles", None)
    return frozenset(int(r) for r in roles) if roles is not None else frozenset()


# -- the runner -------------------------------------------------------------------------------


class SlashRunner:
    """Runs definitions' handlers for Discord interactions (commands and buttons)."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot

    # context ---------------------------------------------------------------------------------

    def context(self, interaction: discord.Interaction, *, is_director: bool) -> Context:
        """The handler's context for ``interaction`` (its league, actor, channel, services)."""
        bot = self.bot
        loop = asyncio.get_running_loop()
        guild_id = interaction.guild_id
        user = interaction.user

        def rule_index() -> Any:
            index = asyncio.run_coroutine_threadsafe(bot.rules_for(guild_id), loop).result()
            if index is None:
                raise BadOption("The rulebooks are still loading; try again in a moment.")
            return index

        def compute(fn: Callable[..., Reply], /, *args: Any) -> Heavy:
            return Heavy(fn, args)  # computed by ``handle`` once the handler's thread is free

        return Context(
            surface="discord",
            settings=bot.settings,
            db=bot.db,
            guild_id=guild_id,
            actor=f"discord:{user.id}:{user.name}"[:100],
            user_id=user.id,
            channel_id=interaction.channel_id,
            is_director=is_director,
            is_manager=_can_manage(interaction),
            rule_index=rule_index,
            compute=compute,
            clock=bot.clock_door,
            extras={
                "bot": bot,
                "run": lambda coro: asyncio.run_coroutine_threadsafe(coro, loop).result(),
                "display_name": user.display_name,
            },
        )

    async def allowed(
        self, interaction: discord.Interaction, who: Who, *, guild_only: bool
    ) -> bool:
        """Whether the caller may run it; refuses (raises) when not.

        Returns:
            Whether the caller is a director (for ``Context.is_director``).

        Raises:
            BadOption: a server-only command used in a direct message.
            NotDirectorError: a director command (or button) used by someone else.
        """
        if (guild_only or who is not Who.EVERYONE) and interaction.guild_id is None:
            raise BadOption("That command works only inside a league's server.")
        if who is Who.OWNER:
            if not await self.bot.is_owner(interaction.user):
                raise NotDirectorError("Only the bot's owner can use that command.")
            return True
        if _can_manage(interaction):
            return True
        if who is Who.MANAGER:
            raise NotDirectorError("Only members with Manage Server can use that command.")
        if who is Who.DIRECTOR:
            if await self.is_director(interaction):
                return True
            log.info(
                "refused a director command to user %s in guild %s",
                interaction.user.id,
                interaction.guild_id,
            )
            raise NotDirectorError(REFUSAL)
        return False

    async def is_director(self, interaction: discord.Interaction) -> bool:
        """The league's director role (read from the database) or Manage Server."""
        if _can_manage(interaction):
            return True
        if interaction.guild_id is None:
            return False
        from storage.guild_settings import get_guild_settings

        settings = await self.bot.db.run(get_guild_settings, guild_id=interaction.guild_id)
        role = settings.director_role_id
        return role is not None and role in member_role_ids(interaction.user)

    # commands --------------------------------------------------------------------------------

    async def run(
        self,
        interaction: discord.Interaction,
        command: Command,
        values: dict[str, Any],
        *,
        private: bool = False,
        from_form: bool = False,
    ) -> None:
        """Answer one slash command, form or context menu: check, bind, run the handler, reply.

        Args:
            interaction: the slash command, the form's submission or the context menu.
            command: its definition.
            values: the options given, by name (None: not given).
            private: answer privately whatever the command's reply (context menus).
            from_form: the values come from the command's form (``forms.read_submission``).
        """
        try:
            director = await self.allowed(interaction, command.who, guild_only=command.guild_only)
            form = command.form
            if form is not None and not from_form and values.get(form.when_missing) is None:
                await self.open_form(interaction, command, values)
                return
            if form is not None and from_form:
                for name in form.fields:
                    if command.option(name).required and values.get(name) is None:
                        raise BadOption(f"{name}: is required; {forms.how_to_give(form, name)}.")
            ctx = self.context(interaction, is_director=director)
            given: dict[str, Any] = {}
            for name, value in values.items():
                if value is None:
                    continue
                if isinstance(value, discord.Attachment):
                    value = await self._attachment(interaction, command, name, value)
                elif isinstance(value, discord.Role | discord.abc.User):
                    value = value.id
                given[name] = value
            private = private or command.private
            reply = await self._call(interaction, lambda: run_command(command, ctx, given), private)
            if private and not reply.private:  # a context menu's answer is private
                reply = _private(reply)
            await self.carry_out(interaction, reply, announce=False)  # e.g. the new home book
            await self.send(interaction, reply)
            await self.carry_out(interaction, reply, announce=True)
        except Exception as exc:  # the one error path: describe() says what the user sees
            await self.fail(interaction, exc, f"/{command.name}", values)

    # forms -----------------------------------------------------------------------------------

    async def open_form(
        self, interaction: discord.Interaction, command: Command, given: dict[str, Any]
    ) -> None:
        """Answer with the command's form (the options given fill its fields in beforehand)."""
        form = command.form
        assert form is not None
        for name, value in given.items():
            if value is not None and name not in form.fields:  # the form would drop it
                raise BadOption(
                    f"{name}: give {form.when_missing} too, or leave {name} out to use the form."
                )
        picks: dict[str, list[str]] = {}
        for picker in form.pickers:
            names = await self.pick_list(interaction, picker.source)
            if not names and picker.typed is None:  # nothing to pick, nowhere to type
                raise BadOption(
                    f"There is nobody to pick for {picker.option} yet; give it: "
                    f"/{command.name} {picker.option}:NAME"
                )
            picks[picker.option] = names
        modal = forms.build_modal(command, picks, {k: v for k, v in given.items() if v is not None})
        await interaction.response.send_modal(modal)

    async def pick_list(self, interaction: discord.Interaction, source: str) -> list[str]:
        """The names a form's picker offers.

        ``rsvp``: tonight's RSVPs, then the league's players likeliest tonight, nobody already
        signed in (``signin_choices``); ``seated``: the players at the tables.
        """
        if source == "seated":
            from bot.features.night.tonight import seated_choices

            seated: list[str] = await self.bot.db.run(
                seated_choices, channel_id=interaction.channel_id or 0
            )
            return seated
        if source == "rsvp":
            from bot.features.night.tonight import signin_choices

            likely: list[str] = await self.bot.db.run(
                signin_choices,
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id or 0,
                today=dt.datetime.now(ZoneInfo(self.bot.settings.timezone)).date(),
                limit=forms.PICK_LIMIT * forms.MAX_FIELDS,
            )
            return likely
        return [c.value for c in await choices_for(self.bot, interaction, source, "")]

    async def submit(self, interaction: discord.Interaction) -> None:
        """Run the command a submitted ``pf:form:`` form names (other modals are left alone)."""
        data: Any = interaction.data or {}
        command = forms.command_of_form(str(data.get("custom_id") or ""), COMMANDS)
        if command is None:
            return
        state = interaction._state

        def attachment(payload: Any) -> discord.Attachment:
            return discord.Attachment(data=payload, state=state)

        try:
            values = forms.read_submission(command, data, attachment)
        except Exception as exc:  # a malformed submission takes the one error path too
            await self.fail(interaction, exc, f"form /{command.name}")
            return
        await self.run(interaction, command, values, from_form=True)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Route a submitted form by its ``custom_id`` (persistent: nothing kept in memory)."""
        if interaction.type is discord.InteractionType.modal_submit:
            await self.submit(interaction)

    async def _attachment(
        self, interaction: discord.Interaction, command: Command, name: str, file: Any
    ) -> Upload:
        """A ``file`` option's attachment, downloaded (a ``link`` option keeps only its URL)."""
        if command.option(name).kind == "link":
            return Upload(
                filename=file.filename, data=b"", url=file.url, content_type=file.content_type
            )
        check_accepted(command.option(name), file.filename, file.content_type)
        if file.size > MAX_FILE_BYTES:  # refused before downloading anything
            raise BadOption(
                f"{file.filename} is {file.size:,} bytes; files are at most {MAX_FILE_BYTES:,}."
            )
        await self._defer(interaction, private=command.private)
        return await download(file)

    async def _defer(self, interaction: discord.Interaction, *, private: bool) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer(thinking=True, ephemeral=private)

    async def handle(
        self, interaction: discord.Interaction, fn: Callable[[], Reply | Heavy]
    ) -> Reply:
        """Run a handler ``fn`` on the handler threads, then the heavy work it left, if any.

        A ``Heavy`` answer (``Context.compute``) is counted against the user's cooldown ("try
        again in N s") and waits for the user's turn at a worker process here, on the event
        loop: the handler's thread is free again before the job queues.
        """
        bot = self.bot
        result = await bot.in_handler_thread(fn)
        if isinstance(result, Heavy):
            user_id = interaction.user.id
            bot.heavy_cooldown.check(user_id)  # a user mistake: nothing queued
            reply: Reply = await bot.compute(result.fn, *result.args, user_id=user_id)
            return reply
        return result

    async def _call(
        self, interaction: discord.Interaction, fn: Callable[[], Reply | Heavy], private: bool
    ) -> Reply:
        """Answer with ``handle(fn)``; defer if it is not done after ``DEFER_AFTER_S``."""
        task = asyncio.ensure_future(self.handle(interaction, fn))
        done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER_S)
        if not done:
            await self._defer(interaction, private=private)
        return await task

    async def send(self, interaction: discord.Interaction, reply: Reply) -> None:
        """Send ``reply``: the response, or the follow-up once the interaction was deferred."""
        rendered = render.render(reply)
        kwargs: dict[str, Any] = {
            "embed": rendered.embed,
            "ephemeral": rendered.ephemeral,
            "allowed_mentions": render.NO_MENTIONS,
        }
        view = buttons_view(reply)
        if view is not None:
            kwargs["view"] = view
        if reply.files:
            kwargs["files"] = [discord.File(io.BytesIO(f.data), f.filename) for f in reply.files]
        if interaction.response.is_done():
            await interaction.followup.send(**kwargs)
        else:
            await interaction.response.send_message(**kwargs)

    async def carry_out(
        self, interaction: discord.Interaction, reply: Reply, *, announce: bool | None = None
    ) -> None:
        """Do what the reply asks of Discord (post to the results channel, rebuild an index).

        ``announce`` picks the posts (True: after the reply is sent), the others (False) or all
        (None).
        """
        for effect in reply.effects:
            if announce is not None and (effect.kind in POSTS) != announce:
                continue
            try:
                await self._effect(interaction, effect)
            except Exception:
                log.exception("effect %s of a reply failed", effect.kind)

    async def _effect(self, interaction: discord.Interaction, effect: Effect) -> None:
        if effect.kind == "announce" and interaction.guild_id is not None:
            await self.announce(interaction, effect.value)
        elif effect.kind == "rule_home" and interaction.guild_id is not None:
            await self.bot.set_rule_home(interaction.guild_id, effect.value)
        elif effect.kind == "night_event" and interaction.guild_id is not None:
            nights = self.bot.get_cog("NightCog")
            try:
                if nights is not None:
                    await nights.apply(interaction.guild_id, effect.value)  # type: ignore[attr-defined]
            except discord.HTTPException as exc:
                log.warning("night event for guild %s: %s", interaction.guild_id, exc)
                await interaction.followup.send(
                    "Saved, but Discord refused the scheduled event; give me the Create Events "
                    "permission, then schedule the night again.",
                    ephemeral=True,
                    allowed_mentions=render.NO_MENTIONS,
                )
        elif effect.kind == "night_thread" and interaction.guild_id is not None:
            nights = self.bot.get_cog("NightCog")
            if nights is not None and interaction.channel_id is not None:
                await nights.post_in_thread(  # type: ignore[attr-defined]
                    interaction.guild_id, interaction.channel_id, *effect.value
                )
        elif effect.kind in ("floor_call", "floor_ruling") and interaction.guild_id is not None:
            from bot.features.floor import discord as floor

            await floor.carry_out(self.bot, interaction, effect)
        else:
            log.warning("a reply asked for an effect Discord does not know: %s", effect.kind)

    async def announce(self, interaction: discord.Interaction, public: Reply) -> None:
        """Post ``public`` to the league's results channel, if it has one (never pings)."""
        from storage.guild_settings import get_guild_settings

        settings = await self.bot.db.run(get_guild_settings, guild_id=interaction.guild_id)
        channel_id = settings.results_channel_id
        if channel_id is None:
            return
        try:
            channel = self.bot.get_partial_messageable(channel_id, guild_id=interaction.guild_id)
            embed = render.render(public).embed
            view = buttons_view(public)  # a link request's Approve/Refuse for the directors
            if view is None:
                await channel.send(embed=embed, allowed_mentions=render.NO_MENTIONS)
            else:
                await channel.send(embed=embed, view=view, allowed_mentions=render.NO_MENTIONS)
        except discord.HTTPException as exc:  # recorded; the user is told the fix
            from bot.surfaces.discord.failures import results_post_failed

            await results_post_failed(self.bot, interaction, channel_id, exc)

    async def fail(
        self,
        interaction: discord.Interaction,
        exc: BaseException,
        what: str,
        values: dict[str, Any] | None = None,
    ) -> None:
        """Answer a failed command or button privately; log bugs with their context."""
        text, is_bug = describe(exc)
        if is_bug:
            log.error(
                "%s failed for user %s in guild %s with options %s",
                what,
                interaction.user.id,
                interaction.guild_id,
                {k: _shown(v) for k, v in (values or {}).items()},
                exc_info=exc,
            )
        else:
            log.debug("%s rejected: %s", what, exc)
        try:
            # The message may echo what the user typed; on Discord it must not render.
            await self.send(interaction, error_reply(escape(text)))
        except discord.HTTPException:
            log.warning("could not send the error reply for interaction %s", interaction.id)

    # buttons ---------------------------------------------------------------------------------

    async def press(self, interaction: discord.Interaction, name: str, args: Sequence[str]) -> None:
        """Run the ``Action`` a pressed ``pf:<name>:...`` button names."""
        try:
            action = _action(name)
            director = await self.allowed(interaction, action.who, guild_only=False)
            ctx = self.context(interaction, is_director=director)
            reply = await self._press_call(
                interaction, action, lambda: run_action(action, ctx, tuple(args))
            )
            if action.edit:
                await self.edit(interaction, reply)
            else:
                await self.send(interaction, reply)
            await self.carry_out(interaction, reply)
        except Exception as exc:  # buttons take the same error path as commands
            await self.fail(interaction, exc, f"button {name}")

    async def _press_call(
        self, interaction: discord.Interaction, action: Action, fn: Callable[[], Reply | Heavy]
    ) -> Reply:
        task = asyncio.ensure_future(self.handle(interaction, fn))
        done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER_S)
        if not done and not interaction.response.is_done():
            if action.edit:
                await interaction.response.defer()
            else:
                await interaction.response.defer(thinking=True, ephemeral=True)
        return await task

    async def edit(self, interaction: discord.Interaction, reply: Reply) -> None:
        """Show ``reply`` in place of the message the button is on."""
        embed = render.render(reply).embed
        view = buttons_view(reply)
        if interaction.response.is_done():
            await interaction.edit_original_response(embed=embed, view=view)
        else:
            await interaction.response.edit_message(
                embed=embed, view=view, allowed_mentions=render.NO_MENTIONS
            )


def _action(name: str) -> Action:
    for action in ACTIONS:
        if action.name == name:
            return action
    raise BadOption("That button no longer works; ask again.")


def _private(reply: Reply) -> Reply:
    from dataclasses import replace

    return replace(reply, private=True)


def _shown(value: Any) -> Any:
    if isinstance(value, discord.Attachment):
        return value.filename
    if isinstance(value, discord.abc.Snowflake):
        return value.id
    return value


async def download(file: discord.Attachment) -> Upload:
    """Fetch an attachment (from its URL) within a time limit.

    Raises:
        BadOption: the download failed or took too long.
    """
    try:
        async with asyncio.timeout(DOWNLOAD_TIMEOUT_S):
            data = await file.read()
    except (TimeoutError, discord.HTTPException) as exc:
        log.info("download of %s failed: %r", file.url, exc)
        raise BadOption(f"I could not download {file.filename}; please attach it again.") from None
    return Upload(filename=file.filename, data=data)


_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def buttons_view(reply: Reply) -> discord.ui.View | None:
    """The reply's buttons as a persistent view (None without buttons)."""
    if not reply.buttons:
        return None
    view = discord.ui.View(timeout=None)
    for b in reply.buttons:
        view.add_item(ActionButton(b.custom_id, b.label, _STYLES.get(b.style), b.disabled))
    return view


class ActionButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"(?:pf:[a-z_]+|clock:(?:pause|resume|plus1):[0-9]+)(?::[^ ]*)?",
):
    """Any ``pf:`` button; pressing it runs its ``Action`` (works across restarts).

    A clock status message posted before its buttons were actions (``clock:pause:12``) is the
    ``clock`` action too, so a message still showing one works after an upgrade.
    """

    def __init__(
        self,
        custom_id: str,
        label: str = "?",
        style: discord.ButtonStyle | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style or discord.ButtonStyle.secondary,
                custom_id=custom_id,
                disabled=disabled,
            )
        )
        self.custom_id = custom_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ActionButton:
        """Rebuild the button from a pressed ``custom_id``."""
        return cls(match.group(0))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Run the action (``pf:<name>:<arg>:...``)."""
        name, *args = self.custom_id.removeprefix("pf:").split(":")
        runner: SlashRunner = interaction.client.slash
        await runner.press(interaction, name, args)


# -- building the tree ------------------------------------------------------------------------


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


async def choices_for(
    bot: LeagueBot, interaction: discord.Interaction, source: str, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete choices from ``source`` (rule, book, structure, season, location, player)."""
    if source == "structure":
        from rulings import preset_names

        wanted = current.strip().lower()
        return choice_list([(n, n) for n in preset_names() if wanted in n.lower()])
    if source in ("rule", "book"):
        index = await bot.rules_for(interaction.guild_id)
        if index is None:
            return []
        if source == "rule":
            if not current.strip():
                return []
            return choice_list(index.autocomplete(current[:100], limit=render.CHOICES_LIMIT))
        wanted = current.strip().lower()
        books = [n for n in index.book_names if wanted in n.lower()]
        return choice_list([(index.books[n].title + f" ({n})", n) for n in books])
    if source == "rsvp":
        from bot.features.night.tonight import rsvp_first_choices

        firsts: list[str] = await bot.db.run(
            rsvp_first_choices,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id or 0,
            typed=current[:100],
            today=dt.datetime.now(ZoneInfo(bot.settings.timezone)).date(),
        )
        return choice_list([(n, n) for n in firsts])
    from bot.features.league.reads import choices

    names: list[str] = await bot.db.run(
        choices, guild_id=interaction.guild_id, what=source, typed=current[:100]
    )
    return choice_list([(n, n) for n in names])


def choice_list(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    """Autocomplete choices within Discord's limits: 25 at most, 100 characters each."""
    seen: set[str] = set()
    out: list[app_commands.Choice[str]] = []
    for label, value in pairs:
        value = render.choice_label(value)
        if value in seen:
            continue
        seen.add(value)
        out.append(app_commands.Choice(name=render.choice_label(label), value=value))
        if len(out) == render.CHOICES_LIMIT:
            break
    return out


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


__all__ = ["ActionButton", "SlashRunner", "buttons_view", "choices_for", "install"]


async def setup(bot: LeagueBot) -> None:
    """Install the app commands and the button router (``LeagueBot.setup_hook`` loads this)."""
    install(bot)

"""The Discord runner of the one command model: commands, forms, menus and buttons.

``SlashRunner.run`` answers a slash command, a submitted form or a context menu: check who may
run it (the league's director role is read here, asynchronously), build the ``Context``, run
the command through the one runner (``bot.command.run``) on a handler thread (deferring when it
takes a while; heavy work it leaves waits on the event loop), send the ``Reply`` (embed,
buttons, files), then carry out its ``Effect``s. ``press`` does the same for a ``pf:`` button.
Every error takes ``bot.errors.describe``. The app command tree is built by
``bot.surfaces.discord.build``; the buttons are ``bot.surfaces.discord.buttons``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import discord

from bot.command.model import Action, Command, Context, Heavy, Upload, Who
from bot.command.options import MAX_FILE_BYTES, check_accepted
from bot.command.run import run_action, run_command
from bot.errors import REFUSAL, BadOption, NotDirectorError, describe
from bot.fair_queue import FairQueue
from bot.features import ACTIONS, COMMANDS
from bot.reply import Effect, Reply, error_reply, escape
from bot.surfaces.discord import forms, render
from bot.surfaces.discord.buttons import buttons_view
from bot.surfaces.discord.choices import choices_for
from bot.surfaces.discord.deferrals import Deferrals

if TYPE_CHECKING:
    from bot.surfaces.discord import LeagueBot

log = logging.getLogger(__name__)

DEFER_AFTER_S = 0.8
HANDLERS_PER_USER = 16
"""How many of one user's handlers run at once (a quarter of the threads): the others wait
their turn (``handle``), so one user's burst of handlers stuck on the database cannot hold
every thread."""
DOWNLOAD_TIMEOUT_S = 15.0
POSTS = frozenset({"announce", "night_thread", "floor_call", "floor_ruling"})
"""Effects that post a message: carried out after the reply is sent."""
_PLAIN = (str, int, float)
"""Option values given as they are (``bool`` is an ``int``)."""
_HAS_ID = (discord.Role, discord.Member, discord.user.BaseUser)
"""Role and user options, given by id: concrete classes, as ``discord.abc.User`` is a runtime
protocol whose ``isinstance`` cost ~0.2 ms of the event loop's time per option value."""


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
        from bot.surfaces.discord import HANDLER_THREADS

        self.bot = bot
        # Handlers take the handler threads in turns between users (bot.fair_queue).
        self.handlers = FairQueue(HANDLER_THREADS, per_user=HANDLERS_PER_USER)
        # Each interaction deferred once; a queued heavy command's a few at a time.
        self.deferrals = Deferrals()

    # context ---------------------------------------------------------------------------------

    def context(self, interaction: discord.Interaction, *, is_director: bool) -> Context:
        """The handler's context for ``interaction`` (its league, actor, channel, services)."""
        bot = self.bot
        loop = asyncio.get_running_loop()
        guild_id = interaction.guild_id
        user = interaction.user

        def rule_index() -> Any:
            # The default index is an attribute, read here: a trip to the event loop for it
            # waited behind whatever the loop had queued (a crowd's 200 interactions). Only a
            # server's own home book, whose index may still be building, is asked of the loop.
            if bot.rule_home(guild_id) is None:
                index = bot.rules
            else:
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
                if isinstance(value, _PLAIN):  # most options: nothing to convert
                    pass
                elif isinstance(value, discord.Attachment):
                    value = await self._attachment(interaction, command, name, value)
                elif isinstance(value, _HAS_ID):
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
            await self.deferrals.defer(interaction.id, _thinking(interaction, private))

    async def handle(
        self,
        interaction: discord.Interaction,
        fn: Callable[[], Reply | Heavy],
        defer: Callable[[], Awaitable[Any]] | None = None,
    ) -> Reply:
        """Run a handler ``fn`` on the handler threads, then the heavy work it left, if any.

        Handlers take the threads in turns between users (``handlers``, a ``FairQueue``): a
        user's one command starts before the second to fifth of users who sent five at once,
        and one user runs at most ``HANDLERS_PER_USER`` handlers at a time.
        A ``Heavy`` answer (``Context.compute``) is counted against the user's cooldown ("try
        again in N s") and waits for the user's turn at a worker process here, on the event
        loop: the handler's thread is free again before the job queues. A job that has to wait
        for a worker is deferred with ``defer`` at once, in the paced lane of ``deferrals``
        (the caller ``settle``s it before answering).
        """
        bot = self.bot
        user_id = interaction.user.id
        result = await self.handlers.run(user_id, lambda: bot.in_handler_thread(fn))
        if isinstance(result, Heavy):
            bot.heavy_cooldown.check(user_id)  # a user mistake: nothing queued
            if defer is not None and bot.compute_busy():
                self.deferrals.start(interaction.id, defer)
            reply: Reply = await bot.compute(result.fn, *result.args, user_id=user_id)
            return reply
        return result

    async def _call(
        self, interaction: discord.Interaction, fn: Callable[[], Reply | Heavy], private: bool
    ) -> Reply:
        """Answer with ``handle(fn)``; defer if it is not done after ``DEFER_AFTER_S``."""
        task = asyncio.ensure_future(self.handle(interaction, fn, _thinking(interaction, private)))
        done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER_S)
        if not done:
            await self._defer(interaction, private=private)
        return await self._answered(interaction, task)

    async def _answered(self, interaction: discord.Interaction, task: asyncio.Task[Reply]) -> Reply:
        """``task``'s reply once the interaction's deferral, if one was started, is settled."""
        try:
            reply = await task
        except Exception:
            with contextlib.suppress(Exception):  # the handler's error is the one to tell
                await self.deferrals.settle(interaction.id)
            raise
        await self.deferrals.settle(interaction.id)
        return reply

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
        def defer() -> Awaitable[Any]:
            if action.edit:
                return interaction.response.defer()
            return interaction.response.defer(thinking=True, ephemeral=True)

        task = asyncio.ensure_future(self.handle(interaction, fn, defer))
        done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER_S)
        if not done and not interaction.response.is_done():
            await self.deferrals.defer(interaction.id, defer)
        return await self._answered(interaction, task)

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


def _thinking(interaction: discord.Interaction, private: bool) -> Callable[[], Awaitable[Any]]:
    """Sends the interaction's deferral ("is thinking...", private or not) when called."""
    return lambda: interaction.response.defer(thinking=True, ephemeral=private)


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


__all__ = ["SlashRunner", "download", "member_role_ids"]

"""A fake Discord for end-to-end tests: gateway websocket + REST on 127.0.0.1.

The real discord.py client connects to it (``DISCORD_API_BASE`` / ``DISCORD_GATEWAY_URL``
point here); only Discord itself is replaced. The fake records every REST request, validates
what Discord validates (command names and descriptions, message and embed limits, autocomplete
choices), and enforces the interaction timeline: a first response after the deadline (3 s) is
answered ``404 / 10062 Unknown interaction``, a second one ``400 / 40060``.

Reuse (the clock's e2e test and load benchmark do)::

    fake = FakeDiscord()
    await fake.start()
    bot = LeagueBot(fake.settings(database_url=...), engine, guild_ready_timeout=0.01)
    await start_bot(fake, bot)                      # logs in, syncs, READY
    it = await fake.interact("rule", {"query": "oversized chip"})
    body = await it.response()                      # the callback body (type 4 / 5 / 8 ...)
    msg = await it.followup()                       # the first follow-up, after a defer
    posted = await fake.wait_message(channel_id)    # a plain channel message (announcements)
    fake.rate_limit("POST", "/interactions/", retry_after=0.05)  # next match gets a 429
    modal = (await it.response())["data"]           # a form (callback type 9), validated
    sub = await fake.submit_modal(modal, {"player": ["Ann"], "checks": ["early"]})
    menu = await fake.context_menu("Find rule", target_message={"content": "chip race"})
    await fake.drop_connection()                    # the bot RESUMEs; missed events replay
    await stop_bot(bot); await fake.stop()

Several bots at once (the multi-instance clock test runs bot processes): each may log in with
its own token ``fake-token-<name>``; every recorded request carries the token that made it
(``RecordedRequest.auth``), and ``dispatch(..., token=...)`` sends an event to that bot only.
A channel message sent with ``nonce`` and ``enforce_nonce`` whose nonce was seen in the last
``nonce_window_s`` is not created again (as Discord does): the first message is returned and
the request is marked ``deduplicated``.

Gateway facts the client depends on: TEXT frames only (no compression), HELLO then READY with
``resume_gateway_url``; REST bodies are ``Content-Type: application/json`` exactly; a 429
carries a ``Via`` header and ``retry_after``; unknown routes get 404 (5xx would be retried).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

log = logging.getLogger(__name__)

APP_ID = 900_000_000_000_000_001
BOT_ID = APP_ID
OWNER_ID = 900_000_000_000_000_002
GUILD_ID = 900_000_000_000_000_100
CHANNEL_ID = 900_000_000_000_000_200
PLAYER_ID = 900_000_000_000_000_300

ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
# What @everyone can do in a typical server (view, send, embed, read history, use commands).
EVERYONE_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 16) | (1 << 31)

EPHEMERAL = 1 << 6

_NAME = re.compile(r"^[-_\w]{1,32}$")

_ids = itertools.count(1_000_000_000_000_000_000)


def snowflake() -> int:
    """A fresh, unique id."""
    return next(_ids)


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py checks ``content-type == "application/json"`` exactly (no charset).
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(body=json.dumps(data).encode(), status=status, headers=all_headers)


def _error(status: int, code: int, message: str, errors: Any = None) -> web.Response:
    body: dict[str, Any] = {"message": message, "code": code}
    if errors is not None:
        body["errors"] = errors
    return _json(body, status)


class DiscordError(Exception):
    """A REST error the fake answers with (status, Discord error code, message)."""

    def __init__(self, status: int, code: int, message: str, errors: Any = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def response(self) -> web.Response:
        return _error(self.status, self.code, self.message, self.errors)


def _invalid(where: str, problem: str) -> DiscordError:
    return DiscordError(
        400, 50035, "Invalid Form Body", {where: {"_errors": [{"message": problem}]}}
    )


# -- validation, as Discord does it ---------------------------------------------------------


def validate_commands(payload: list[dict[str, Any]], *, is_global: bool) -> None:
    """Raise ``DiscordError`` 50035 where Discord would refuse a bulk command upsert."""
    if not isinstance(payload, list):
        raise _invalid("_root", "must be a list")
    chat = [c for c in payload if c.get("type", 1) == 1]
    if len(chat) > 100:
        raise _invalid("_root", f"{len(chat)} chat commands; at most 100")
    seen: set[tuple[int, str]] = set()
    for i, cmd in enumerate(payload):
        kind = cmd.get("type", 1)
        key = (kind, cmd.get("name", ""))
        if key in seen:
            raise _invalid(f"{i}.name", f"duplicate command name {key[1]!r}")
        seen.add(key)
        if kind == 1:
            _validate_chat_command(cmd, f"{i}", depth=0)
        elif not 1 <= len(cmd.get("name", "")) <= 32:
            raise _invalid(f"{i}.name", "context menu names are 1-32 characters")
        validate_reach(cmd, f"{i}")
    del is_global


def _validate_chat_command(cmd: dict[str, Any], where: str, *, depth: int) -> None:
    name = cmd.get("name", "")
    if not _NAME.match(name) or name != name.lower():
        raise _invalid(f"{where}.name", f"bad name {name!r}: 1-32 lowercase, digits, - or _")
    desc = cmd.get("description", "")
    if not 1 <= len(desc) <= 100:
        raise _invalid(f"{where}.description", f"description is {len(desc)} chars; 1-100")
    options = cmd.get("options") or []
    if len(options) > 25:
        raise _invalid(f"{where}.options", f"{len(options)} options; at most 25")
    names: set[str] = set()
    required_done = False
    for j, opt in enumerate(options):
        at = f"{where}.options.{j}"
        oname = opt.get("name", "")
        if oname in names:
            raise _invalid(f"{at}.name", f"duplicate option {oname!r}")
        names.add(oname)
        otype = opt.get("type")
        if otype in (1, 2):  # sub-command, sub-command group
            if depth >= (1 if otype == 2 else 2):
                raise _invalid(at, "sub-commands nested too deep")
            _validate_chat_command(opt, at, depth=depth + 1)
            continue
        if not _NAME.match(oname) or oname != oname.lower():
            raise _invalid(f"{at}.name", f"bad option name {oname!r}")
        odesc = opt.get("description", "")
        if not 1 <= len(odesc) <= 100:
            raise _invalid(f"{at}.description", f"description is {len(odesc)} chars; 1-100")
        if opt.get("required"):
            if required_done:
                raise _invalid(at, "required options must come before optional ones")
        else:
            required_done = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            raise _invalid(f"{at}.choices", "at most 25 choices")
        if choices and opt.get("autocomplete"):
            raise _invalid(at, "autocomplete and choices are exclusive")


def validate_message(body: dict[str, Any], *, is_edit: bool = False) -> None:
    """Raise ``DiscordError`` where Discord would refuse a message body."""
    content = body.get("content")
    if content is not None and len(content) > 2000:
        raise _invalid("content", f"content is {len(content)} chars; at most 2000")
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        raise _invalid("embeds", "at most 10 embeds")
    total = 0
    for i, em in enumerate(embeds):
        total += _validate_embed(em, f"embeds.{i}")
    if total > 6000:
        raise _invalid("embeds", f"embeds total {total} chars; at most 6000")
    has_files = bool(body.get("attachments")) or bool(body.get("_files"))
    if not is_edit and not content and not embeds and not has_files and not body.get("components"):
        raise DiscordError(400, 50006, "Cannot send an empty message")


def _validate_embed(em: dict[str, Any], where: str) -> int:
    limits = {"title": 256, "description": 4096}
    total = 0
    for key, limit in limits.items():
        text = em.get(key) or ""
        if len(text) > limit:
            raise _invalid(f"{where}.{key}", f"{key} is {len(text)} chars; at most {limit}")
        total += len(text)
    fields = em.get("fields") or []
    if len(fields) > 25:
        raise _invalid(f"{where}.fields", f"{len(fields)} fields; at most 25")
    for j, f in enumerate(fields):
        name, value = f.get("name") or "", f.get("value") or ""
        if not 1 <= len(name) <= 256:
            raise _invalid(f"{where}.fields.{j}.name", f"name is {len(name)} chars; 1-256")
        if not 1 <= len(value) <= 1024:
            raise _invalid(f"{where}.fields.{j}.value", f"value is {len(value)} chars; 1-1024")
        total += len(name) + len(value)
    footer = (em.get("footer") or {}).get("text") or ""
    if len(footer) > 2048:
        raise _invalid(f"{where}.footer.text", "at most 2048")
    author = (em.get("author") or {}).get("name") or ""
    if len(author) > 256:
        raise _invalid(f"{where}.author.name", "at most 256")
    return total + len(footer) + len(author)


MAX_SCHEDULED_EVENTS = 100
"""Discord's limit of active scheduled events per server."""


def validate_scheduled_event(body: dict[str, Any], *, recurrence_ok: bool = True) -> None:
    """What Discord checks of a new scheduled event (the fields pokerfloor sends)."""
    name = body.get("name") or ""
    if not 1 <= len(name) <= 100:
        raise _invalid("name", "Must be between 1 and 100 in length.")
    if body.get("privacy_level") != 2:
        raise _invalid("privacy_level", "Value must be one of {2}.")
    if body.get("entity_type") == 3:
        location = (body.get("entity_metadata") or {}).get("location") or ""
        if not 1 <= len(location) <= 100:
            raise _invalid("entity_metadata.location", "This field is required")
        if not body.get("scheduled_end_time"):
            raise _invalid("scheduled_end_time", "This field is required")
    start = dt.datetime.fromisoformat(body["scheduled_start_time"])
    end = body.get("scheduled_end_time")
    if end and dt.datetime.fromisoformat(end) <= start:
        raise _invalid("scheduled_end_time", "Must be after the start time.")
    rule = body.get("recurrence_rule")
    if rule is not None:
        if not recurrence_ok:
            raise _invalid("recurrence_rule", "Recurrence is not available.")
        if rule.get("frequency") != 2 or not set(rule.get("by_weekday") or []) <= set(range(7)):
            raise _invalid("recurrence_rule", "Invalid recurrence rule.")


def validate_choices(data: dict[str, Any]) -> None:
    """Raise ``DiscordError`` where Discord would refuse autocomplete choices."""
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise _invalid("data.choices", "required")
    if len(choices) > 25:
        raise _invalid("data.choices", f"{len(choices)} choices; at most 25")
    for i, c in enumerate(choices):
        name, value = c.get("name", ""), c.get("value")
        if not 1 <= len(name) <= 100:
            raise _invalid(f"data.choices.{i}.name", f"name is {len(name)} chars; 1-100")
        if isinstance(value, str) and len(value) > 100:
            raise _invalid(f"data.choices.{i}.value", f"value is {len(value)} chars; at most 100")


# -- modals, context menus, install flags (forms) --------------------------------------------

MODAL_FIELD_TYPES = {3, 4, 5, 6, 7, 8, 19, 21, 22, 23}
"""What a label (type 18) may hold: selects, a text input, a file upload, radio/checkboxes."""
INTEGRATION_TYPES = {0, 1}  # guild install, user install
CONTEXTS = {0, 1, 2}  # guild, bot DM, private channel


def validate_modal(data: dict[str, Any]) -> None:
    """Raise ``DiscordError`` where Discord would refuse a modal (callback type 9)."""
    title = data.get("title") or ""
    if not 1 <= len(title) <= 45:
        raise _invalid("data.title", f"title is {len(title)} chars; 1-45")
    custom_id = data.get("custom_id") or ""
    if not 1 <= len(custom_id) <= 100:
        raise _invalid("data.custom_id", f"custom_id is {len(custom_id)} chars; 1-100")
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        raise _invalid("data.components", f"{len(components)} components; 1-5")
    seen: set[str] = set()
    for i, comp in enumerate(components):
        at = f"data.components.{i}"
        kind = comp.get("type")
        if kind == 10:  # a text display
            continue
        if kind == 1:  # the older action row holding one text input
            children = comp.get("components") or []
            if len(children) != 1 or children[0].get("type") != 4:
                raise _invalid(at, "an action row in a modal holds exactly one text input")
            child = children[0]
        elif kind == 18:
            label = comp.get("label") or ""
            if not 1 <= len(label) <= 45:
                raise _invalid(f"{at}.label", f"label is {len(label)} chars; 1-45")
            if len(comp.get("description") or "") > 100:
                raise _invalid(f"{at}.description", "at most 100 chars")
            child = comp.get("component") or {}
            if child.get("type") not in MODAL_FIELD_TYPES:
                raise _invalid(f"{at}.component.type", f"{child.get('type')} is not a modal field")
            if child.get("type") == 4 and child.get("label"):
                raise _invalid(f"{at}.component.label", "a text input in a label has no label")
        else:
            raise _invalid(f"{at}.type", f"component type {kind} is not allowed in a modal")
        cid = child.get("custom_id") or ""
        if not 1 <= len(cid) <= 100 or cid in seen:
            raise _invalid(f"{at}.component.custom_id", f"bad or repeated custom_id {cid!r}")
        seen.add(cid)
        options = child.get("options")
        if child.get("type") == 3 and not 1 <= len(options or []) <= 25:
            raise _invalid(f"{at}.component.options", "a select has 1-25 options")
        if child.get("type") == 22 and not 1 <= len(options or []) <= 10:
            raise _invalid(f"{at}.component.options", "a checkbox group has 1-10 options")
        if options and (child.get("max_values") or 1) > len(options):
            raise _invalid(f"{at}.component.max_values", "more than it has options")
        if child.get("type") == 4 and len(child.get("value") or "") > 4000:
            raise _invalid(f"{at}.component.value", "at most 4000 chars")


def validate_reach(cmd: dict[str, Any], where: str) -> None:
    """Where a command may be installed and used: top-level only, known values, not empty."""
    for key, allowed in (("integration_types", INTEGRATION_TYPES), ("contexts", CONTEXTS)):
        value = cmd.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not value or not set(value) <= allowed:
            raise _invalid(f"{where}.{key}", f"{value!r}: a non-empty list of {sorted(allowed)}")
    is_menu = cmd.get("type", 1) in (2, 3)  # context menus: a name, no description, no options
    if is_menu and (cmd.get("description") or cmd.get("options")):
        raise _invalid(where, "a context menu has no description and no options")
    for j, opt in enumerate(cmd.get("options") or []):
        if "integration_types" in opt or "contexts" in opt:
            raise _invalid(f"{where}.options.{j}", "install flags belong to top-level commands")


# -- records ---------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One REST request the bot made, and what the fake answered."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    at: float
    status: int = 0
    auth: str = ""  # the bot token that made the request ("fake-token-a")
    deduplicated: bool = False  # a repeated nonce: Discord returned the first message


@dataclass
class Interaction:
    """One INTERACTION_CREATE the fake sent and what the bot did with it.

    Attributes:
        payload: the interaction as sent.
        sent_at: ``time.perf_counter()`` when the event went out on the gateway.
        callback: the first accepted callback body (``type`` 4, 5, 6, 7, 8 or 9).
        callback_at: when it arrived.
        callback_errors: refused callback attempts as ``(status, code)``.
        followups: accepted follow-up message bodies, in order.
        edits: accepted edits of the original response.
    """

    payload: dict[str, Any]
    sent_at: float
    callback: dict[str, Any] | None = None
    callback_at: float | None = None
    callback_errors: list[tuple[int, int]] = field(default_factory=list)
    followups: list[dict[str, Any]] = field(default_factory=list)
    followup_at: list[float] = field(default_factory=list)
    edits: list[dict[str, Any]] = field(default_factory=list)
    message_id: int = field(default_factory=snowflake)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def token(self) -> str:
        return str(self.payload["token"])

    @property
    def ack_seconds(self) -> float | None:
        """Seconds from the event sent to the first accepted callback."""
        return None if self.callback_at is None else self.callback_at - self.sent_at

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _until(self, ready: Callable[[], bool], wait_s: float) -> None:
        async with asyncio.timeout(wait_s):
            while not ready():
                await self._changed.wait()

    async def response(self, wait_s: float = 5.0) -> dict[str, Any]:
        """The first accepted callback body (waits for it)."""
        await self._until(lambda: self.callback is not None, wait_s)
        assert self.callback is not None
        return self.callback

    async def followup(self, index: int = 0, wait_s: float = 10.0) -> dict[str, Any]:
        """The ``index``-th follow-up message body (waits for it)."""
        await self._until(lambda: len(self.followups) > index, wait_s)
        return self.followups[index]

    async def refused(self, wait_s: float = 5.0) -> tuple[int, int]:
        """The first refused callback attempt as ``(status, code)`` (waits for it)."""
        await self._until(lambda: bool(self.callback_errors), wait_s)
        return self.callback_errors[0]

    async def settled(self, wait_s: float = 10.0) -> dict[str, Any]:
        """The message the user finally sees: the callback's, or the first follow-up/edit."""
        body = await self.response(wait_s)
        if body["type"] != 5:
            return dict(body.get("data") or {})
        await self._until(lambda: bool(self.followups or self.edits), wait_s)
        return self.followups[0] if self.followups else self.edits[0]


@dataclass
class _Session:
    """One bot's gateway session: its connection, sequence and frames kept for RESUME."""

    id: str
    ws: web.WebSocketResponse | None
    seq: int = 0
    sent: list[tuple[int, str]] = field(default_factory=list)
    dropped: bool = False
    token: str = "fake-token"
    shard: tuple[int, int] = (0, 1)  # (shard id, shard count) from IDENTIFY

    async def send(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        frame = json.dumps({"op": 0, "t": event, "s": self.seq, "d": data})
        self.sent.append((self.seq, frame))
        if len(self.sent) > 10_000:
            del self.sent[:5_000]
        if self.ws is not None and not self.ws.closed:
            await self.ws.send_str(frame)


# -- the server ------------------------------------------------------------------------------


class FakeDiscord:
    """Gateway + REST on 127.0.0.1 (see the module docstring for use).

    Attributes:
        requests: every REST request, in order.
        commands: synced commands per scope (``"global"`` or the guild id).
        deadline_s: how long after the event an interaction's first response is accepted.
        identifies, resumes: gateway handshakes seen.
        messages: channel messages posted, per channel id.
        guild_create: whether a bot that identifies gets the test server as Discord sends it
            to a bot in a server: unavailable in READY, then a ``GUILD_CREATE`` (the server,
            its @everyone role, the test channel, the bot's own member), so discord.py caches
            it as a real bot (with the default intents) does. On by default; without it,
            discord.py builds the server, channel and bot member for every interaction.
    """

    def __init__(
        self, *, deadline_s: float = 3.0, owner_id: int = OWNER_ID, guild_create: bool = True
    ) -> None:
        self.deadline_s = deadline_s
        self.guild_create = guild_create
        self.owner_id = owner_id
        self.requests: list[RecordedRequest] = []
        self.commands: dict[str, list[dict[str, Any]]] = {}
        self.interactions: dict[int, Interaction] = {}
        self.messages: dict[int, list[dict[str, Any]]] = {}
        self.identifies = 0
        self.resumes = 0
        self.ready = asyncio.Event()
        self.resumed = asyncio.Event()
        self._message_event = asyncio.Event()
        self._rate_limits: list[tuple[str, str, float, bool]] = []
        self._sessions: list[_Session] = []
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.hooks: list[Callable[[RecordedRequest], Awaitable[None] | None]] = []
        # Every bot started against this fake: stop() closes those a test left running (a
        # discord.py client whose gateway went away reconnects for ever, and its shard
        # swallows the cancel that ends a test's event loop: the run would hang there).
        self.bots: list[Any] = []
        self.files: dict[int, tuple[str, bytes]] = {}  # attachment id -> (content type, bytes)
        self.nonce_window_s = 300.0
        # Scheduled events: id -> the event as Discord stores it; id -> interested users.
        self.scheduled_events: dict[int, dict[str, Any]] = {}
        self.interested: dict[int, dict[int, str]] = {}
        self.refuse_recurrence = False
        # Roles the bot made (id -> role) and who was given them (role id -> member ids).
        self.roles: dict[int, dict[str, Any]] = {}
        self.role_members: dict[int, set[int]] = {}
        self.refuse_roles = False
        self.refuse_threads = False  # a thread started without a message: 403
        self._nonces: dict[str, tuple[float, dict[str, Any]]] = {}  # nonce -> (when, message)
        # Threads, made on a message or without one (thread id -> the thread as Discord
        # returns it); the channel of every message posted (message id -> channel id), to
        # check they exist.
        self.threads: dict[int, dict[str, Any]] = {}
        self.message_channels: dict[int, int] = {}
        # Channels refusing posts (channel id -> status, code, message) and DMs opened.
        self.refusing: dict[int, tuple[int, int, str]] = {}
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on an ephemeral port of 127.0.0.1."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_get("/attachments/{id}/{filename}", self._attachment_file)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        # A burst opens hundreds of connections at once (discord.py sets no connection limit);
        # the default backlog of 128 would drop SYNs and add 1 s retransmits.
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=4096)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        """Close the bots still running against it, then the gateway and the server."""
        for bot in self.bots:
            if not bot.is_closed():
                await stop_bot(bot)
        for session in list(self._sessions):
            if session.ws is not None and not session.ws.closed:
                with contextlib.suppress(Exception):
                    await session.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def settings(self, **overrides: Any) -> Any:
        """``bot.config.Settings`` pointing at this fake (token ``fake-token``)."""
        from bot.config import Settings

        values: dict[str, Any] = {
            "discord_token": "fake-token",
            "discord_api_base": self.api_base,
            "discord_gateway_url": self.gateway_url,
            "discord_guild_id": None,
        }
        values.update(overrides)
        return Settings(_env_file=None, **values)

    # -- test controls --------------------------------------------------------------------

    def rate_limit(
        self, method: str, path_part: str, *, retry_after: float = 0.05, is_global: bool = False
    ) -> None:
        """Answer the next ``method`` request whose path contains ``path_part`` with a 429."""
        self._rate_limits.append((method.upper(), path_part, retry_after, is_global))

    async def drop_connection(self, code: int = 4000) -> None:
        """Close the gateway connection as Discord does on a hiccup; the client RESUMEs.

        Events dispatched until then are buffered and replayed after the RESUME.
        """
        self.resumed.clear()
        session = self._current()
        if session is None or session.ws is None:
            return
        ws, session.ws = session.ws, None
        session.dropped = True
        await ws.close(code=code, message=b"fake hiccup")

    def requests_to(self, method: str, path_part: str) -> list[RecordedRequest]:
        """Recorded requests of ``method`` whose path contains ``path_part``."""
        return [r for r in self.requests if r.method == method and path_part in r.path]

    async def wait_message(self, channel_id: int, count: int = 1, wait_s: float = 10.0) -> Any:
        """The ``count``-th message posted to ``channel_id`` (waits for it)."""
        async with asyncio.timeout(wait_s):
            while len(self.messages.get(channel_id, [])) < count:
                self._message_event.clear()
                await self._message_event.wait()
        return self.messages[channel_id][count - 1]

    async def wait_thread(self, name: str = "", wait_s: float = 10.0) -> tuple[int, dict[str, Any]]:
        """The first thread whose name starts with ``name`` (waits for it)."""

        def found() -> tuple[int, dict[str, Any]] | None:
            return next(
                ((i, t) for i, t in self.threads.items() if t["name"].startswith(name)), None
            )

        async with asyncio.timeout(wait_s):
            while (thread := found()) is None:
                self._message_event.clear()
                await self._message_event.wait()
        return thread

    def add_attachment(
        self, filename: str, content: bytes, content_type: str = "application/json"
    ) -> dict[str, Any]:
        """Store a file as Discord's CDN would; returns its attachment payload (for ``resolved``).

        The bot downloads it from ``url`` with its HTTP session (``Attachment.read()``).
        """
        att_id = snowflake()
        self.files[att_id] = (content_type, content)
        url = f"http://127.0.0.1:{self.port}/attachments/{att_id}/{filename}"
        return {
            "id": str(att_id),
            "filename": filename,
            "size": len(content),
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
        }

    async def _attachment_file(self, request: web.Request) -> web.StreamResponse:
        found = self.files.get(int(request.match_info["id"]))
        if found is None:
            return web.Response(status=404)
        return web.Response(body=found[1], headers={"Content-Type": found[0]})

    # -- gateway --------------------------------------------------------------------------

    def _current(self, token: str | None = None) -> _Session | None:
        sessions = [s for s in self._sessions if token is None or s.token == token]
        return sessions[-1] if sessions else None

    def connected(self, token: str | None = None) -> int:
        """How many bot sessions (with ``token``, when given) are connected now."""
        return sum(
            1
            for s in self._sessions
            if (token is None or s.token == token) and s.ws is not None and not s.ws.closed
        )

    async def dispatch(self, event: str, data: dict[str, Any], *, token: str | None = None) -> None:
        """Send a DISPATCH (op 0) to the newest connected bot (with ``token``, when given).

        Several bots may be connected (a restart test starts a second one); events go to the
        one that identified last, and back to the earlier one when it leaves. Frames are kept
        for replay when the connection is down or drops.
        """
        session = self._current(token)
        guild_id = data.get("guild_id") if isinstance(data, dict) else None
        if session is not None and guild_id is not None and session.shard[1] > 1:
            # A sharded bot: the guild's events go to its shard, (guild_id >> 22) % count.
            wanted = (int(guild_id) >> 22) % session.shard[1]
            session = next(
                (
                    s
                    for s in reversed(self._sessions)
                    if s.token == session.token and s.shard[0] == wanted
                ),
                session,
            )
        if session is None:
            raise RuntimeError("no bot is connected to the fake gateway")
        await session.send(event, data)

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, compress=False, max_msg_size=0)
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41_250}}))
        session: _Session | None = None
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            op, data = payload.get("op"), payload.get("d")
            if op == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif op == 2:
                session = await self._identify(ws, data)
            elif op == 6:
                session = await self._resume(ws, data)
        if session is not None and session.ws is ws and session in self._sessions:
            # The bot closed its connection itself (shut down): forget its session.
            self._sessions.remove(session)
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> _Session | None:
        token = str(data.get("token") or "")
        if token != "fake-token" and not token.startswith("fake-token-"):
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        self.identifies += 1
        session = _Session(id=f"session-{snowflake()}", ws=ws, token=token)
        shard = data.get("shard")
        if shard:
            session.shard = (int(shard[0]), int(shard[1]))
        self._sessions.append(session)
        ready = {
            "v": 10,
            "user": self._bot_user(),
            "guilds": [],
            "session_id": session.id,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(APP_ID), "flags": 0},
        }
        if shard:
            ready["shard"] = list(session.shard)
        ours = (GUILD_ID >> 22) % session.shard[1] == session.shard[0]
        if self.guild_create and ours:
            ready["guilds"] = [{"id": str(GUILD_ID), "unavailable": True}]
        await session.send("READY", ready)
        if self.guild_create and ours:
            await session.send("GUILD_CREATE", self._guild())
        self.ready.set()
        return session

    def _guild(self) -> dict[str, Any]:
        """The test server as a ``GUILD_CREATE`` gives it to a bot without privileged intents."""
        guild_id = str(GUILD_ID)
        return {
            "id": guild_id,
            "name": "Poker League",
            "icon": None,
            "owner_id": str(self.owner_id),
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [
                {
                    "id": guild_id,  # @everyone has the server's id
                    "name": "@everyone",
                    "color": 0,
                    "hoist": False,
                    "position": 0,
                    "permissions": str(EVERYONE_PERMISSIONS),
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "joined_at": _now_iso(),
            "large": False,
            "unavailable": False,
            "member_count": 2,
            "members": [
                {
                    "user": self._bot_user(),
                    "roles": [],
                    "joined_at": _now_iso(),
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                }
            ],
            "channels": [
                {
                    "id": str(CHANNEL_ID),
                    "type": 0,
                    "name": "poker-night",
                    "position": 0,
                    "permission_overwrites": [],
                    "nsfw": False,
                    "parent_id": None,
                    "rate_limit_per_user": 0,
                }
            ],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    async def _resume(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> _Session | None:
        session = next((s for s in self._sessions if s.id == data.get("session_id")), None)
        if session is None:
            await ws.send_str(json.dumps({"op": 9, "d": False}))
            return None
        self.resumes += 1
        session.ws, session.dropped = ws, False
        last = int(data.get("seq") or 0)
        for seq, frame in list(session.sent):
            if seq > last:
                await ws.send_str(frame)
        await session.send("RESUMED", {})
        self.resumed.set()
        return session

    # -- interactions ---------------------------------------------------------------------

    async def interact(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        sub: list[str] | None = None,
        user_id: int = PLAYER_ID,
        permissions: int = EVERYONE_PERMISSIONS,
        roles: list[int] | None = None,
        guild_id: int | None = GUILD_ID,
        focused: str | None = None,
        username: str = "player",
        option_types: dict[str, int] | None = None,
        resolved: dict[str, Any] | None = None,
        interaction_id: int | None = None,
    ) -> Interaction:
        """Send a slash command (or, with ``focused``, an autocomplete) INTERACTION_CREATE.

        Args:
            name: the top-level command name.
            options: option name -> value (strings, ints, ...), in order.
            sub: sub-command group and/or sub-command names (``["health"]``).
            user_id, permissions, roles, username: the member invoking it.
            guild_id: the server; None sends it as a DM.
            focused: the option being typed (an autocomplete interaction, type 4).
            option_types: option name -> Discord option type, where the value's Python type
                does not say it (8 role, 7 channel, 11 attachment: the value is the id).
            resolved: Discord's ``data.resolved`` (``{"attachments": {id: payload}}`` ...).
            interaction_id: the interaction's id, chosen by the test (to aim a ``rate_limit`` at
                this interaction's callback alone, whatever other tests still have in flight).
        """
        types = option_types or {}
        opts = [
            {"name": k, "type": types.get(k) or _option_type(v), "value": v}
            | ({"focused": True} if k == focused else {})
            for k, v in (options or {}).items()
        ]
        for group in reversed(sub or []):
            opts = [{"name": group, "type": 1, "options": opts}]
        if sub and len(sub) == 2:
            opts[0]["type"] = 2
            opts[0]["options"][0]["type"] = 1
        data: dict[str, Any] = {"id": str(snowflake()), "name": name, "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_base(
            2 if focused is None else 4,
            data,
            user_id=user_id,
            permissions=permissions,
            roles=roles or [],
            guild_id=guild_id,
            username=username,
        )
        if interaction_id is not None:
            payload["id"] = str(interaction_id)
        return await self._send_interaction(payload)

    async def press(
        self,
        message_id: int,
        custom_id: str,
        *,
        components: list[dict[str, Any]] | None = None,
        **member: Any,
    ) -> Interaction:
        """Send a button press (component interaction, type 3) on a message the bot sent.

        Pass the message's ``components`` (as the bot sent them) for buttons that discord.py
        rebuilds from the message (``DynamicItem``), as Discord includes them.
        """
        data = {"custom_id": custom_id, "component_type": 2}
        payload = self._interaction_base(3, data, **{"user_id": PLAYER_ID, **member})
        body = {"content": "", "components": components or []}
        payload["message"] = self._message(body, CHANNEL_ID, message_id=message_id)
        return await self._send_interaction(payload)

    # -- forms and context menus ----------------------------------------------------------

    async def submit_modal(
        self,
        modal: dict[str, Any],
        answers: dict[str, Any],
        *,
        user_id: int = PLAYER_ID,
        resolved: dict[str, Any] | None = None,
        **member: Any,
    ) -> Interaction:
        """Submit a modal the bot answered with (its callback ``data``), as Discord does.

        Args:
            modal: the modal as the bot sent it (``(await it.response())["data"]``).
            answers: field custom id -> what the user entered: text (text input), a list of
                values (selects, checkbox group, file upload: attachment ids), a bool
                (checkbox). A field not answered is sent as the bot filled it in (its
                ``value``, its options marked ``default``), else empty.
            resolved: Discord's ``data.resolved`` (uploaded attachments, picked users).
            member: ``permissions``, ``roles``, ``guild_id``, ``username`` of the member.

        Raises:
            ValueError: an answer for a field the modal does not have, a value a select or
                checkbox group does not offer, or a required field left empty (Discord's
                client would not send it).
        """
        fields: dict[str, dict[str, Any]] = {}
        order: list[tuple[int, dict[str, Any]]] = []
        for comp in modal.get("components") or []:
            child = comp.get("component") if comp.get("type") == 18 else None
            if comp.get("type") == 1:
                child = (comp.get("components") or [{}])[0]
            if child is not None:
                fields[child["custom_id"]] = child
                order.append((int(comp.get("type") or 18), child))
        unknown = set(answers) - set(fields)
        if unknown:
            raise ValueError(f"the modal has no field {sorted(unknown)}")
        components = []
        for kind, child in order:
            cid, ctype = child["custom_id"], child["type"]
            # A field left alone is sent as the bot filled it in (value, defaults).
            answer = answers.get(cid)
            item: dict[str, Any] = {"type": ctype, "custom_id": cid, "id": snowflake() % 1000}
            if ctype == 4:
                if answer is None:
                    answer = child.get("value") or ""
                item["value"] = str(answer)
                empty = not item["value"]
            elif ctype == 23:
                item["value"] = bool(child.get("default")) if answer is None else bool(answer)
                empty = False
            else:
                if answer is None:
                    answer = [o["value"] for o in child.get("options") or [] if o.get("default")]
                values = [str(v) for v in answer]
                offered = [o["value"] for o in child.get("options") or []]
                if offered and not set(values) <= set(offered):
                    raise ValueError(f"{cid}: {values} not among {offered}")
                if len(values) > int(child.get("max_values") or 1):
                    raise ValueError(f"{cid}: more than {child.get('max_values') or 1} values")
                item["values"] = values
                empty = not values
            if empty and child.get("required", True):
                raise ValueError(f"{cid} is required")
            components.append(
                {"type": 18, "id": snowflake() % 1000, "component": item}
                if kind == 18
                else {"type": 1, "components": [item]}
            )
        data: dict[str, Any] = {"custom_id": modal["custom_id"], "components": components}
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_base(5, data, user_id=user_id, **member)
        return await self._send_interaction(payload)

    async def context_menu(
        self,
        name: str,
        *,
        target_user: dict[str, Any] | None = None,
        target_message: dict[str, Any] | None = None,
        user_id: int = PLAYER_ID,
        **member: Any,
    ) -> Interaction:
        """Send a context-menu command (type 2 interaction; USER 2 or MESSAGE 3).

        Args:
            name: the menu's name (``Find rule``).
            target_user: a user ``{"id", "username"}`` clicked (resolved as user and member).
            target_message: a message ``{"content", ...}`` clicked (resolved as a message).
            member: ``permissions``, ``roles``, ``guild_id``, ``username`` of the invoker.
        """
        guild_id = member.get("guild_id", GUILD_ID)
        data: dict[str, Any] = {"id": str(snowflake()), "name": name}
        if target_user is not None:
            uid = str(target_user["id"])
            user = {
                "id": uid,
                "username": target_user.get("username", "member"),
                "discriminator": "0",
                "global_name": target_user.get("username", "member"),
                "avatar": None,
            }
            resolved: dict[str, Any] = {"users": {uid: user}}
            if guild_id is not None:
                resolved["members"] = {
                    uid: {
                        "roles": [],
                        "joined_at": _now_iso(),
                        "deaf": False,
                        "mute": False,
                        "flags": 0,
                        "permissions": str(EVERYONE_PERMISSIONS),
                    }
                }
            data |= {"type": 2, "target_id": uid, "resolved": resolved}
        elif target_message is not None:
            message = self._message(target_message, CHANNEL_ID)
            author = target_message.get("author") or {
                "id": str(PLAYER_ID),
                "username": "player",
                "discriminator": "0",
                "avatar": None,
            }
            message["author"] = author
            data |= {
                "type": 3,
                "target_id": message["id"],
                "resolved": {"messages": {message["id"]: message}},
            }
        else:
            raise ValueError("a context menu needs a target user or message")
        payload = self._interaction_base(2, data, user_id=user_id, **member)
        return await self._send_interaction(payload)

    async def _send_interaction(
        self, payload: dict[str, Any], *, token: str | None = None
    ) -> Interaction:
        it = Interaction(payload=payload, sent_at=time.perf_counter())
        self.interactions[it.id] = it
        await self.dispatch("INTERACTION_CREATE", payload, token=token)
        return it

    def _interaction_base(
        self,
        kind: int,
        data: dict[str, Any],
        *,
        user_id: int,
        permissions: int = EVERYONE_PERMISSIONS,
        roles: list[int] | None = None,
        guild_id: int | None = GUILD_ID,
        username: str = "player",
    ) -> dict[str, Any]:
        user = {
            "id": str(user_id),
            "username": username,
            "discriminator": "0",
            "global_name": username,
            "avatar": None,
        }
        payload: dict[str, Any] = {
            "id": str(snowflake()),
            "application_id": str(APP_ID),
            "type": kind,
            "data": data,
            "token": f"tok-{snowflake()}",
            "version": 1,
            "locale": "en-US",
            "attachment_size_limit": 8 * 1024 * 1024,
            "app_permissions": str(EVERYONE_PERMISSIONS),
            "entitlements": [],
            "authorizing_integration_owners": {},
            "context": 0 if guild_id else 2,
        }
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
            payload["guild_id"] = str(guild_id)
            payload["guild_locale"] = "en-US"
            payload["guild"] = {"id": str(guild_id), "locale": "en-US", "features": []}
            payload["channel_id"] = str(CHANNEL_ID)
            payload["channel"] = {
                "id": str(CHANNEL_ID),
                "type": 0,
                "guild_id": str(guild_id),
                "name": "poker-night",
                "position": 0,
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
                "rate_limit_per_user": 0,
            }
            payload["member"] = {
                "user": user,
                "roles": [str(r) for r in roles or []],
                "joined_at": _now_iso(),
                "deaf": False,
                "mute": False,
                "flags": 0,
                "permissions": str(permissions),
            }
        else:
            payload["channel_id"] = str(user_id)
            payload["channel"] = {"id": str(user_id), "type": 1, "recipients": [user]}
            payload["user"] = user
        return payload

    # -- REST -----------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body = await _read_body(request)
        rec = RecordedRequest(request.method, path, dict(request.query), body, time.perf_counter())
        rec.auth = request.headers.get("Authorization", "").removeprefix("Bot ")
        self.requests.append(rec)
        try:
            limited = self._take_rate_limit(request.method, path)
            if limited is not None:
                rec.status = 429
                return limited
            response = await self._route(request.method, path, body, rec)
        except DiscordError as exc:
            response = exc.response()
        rec.status = response.status
        for hook in self.hooks:
            result = hook(rec)
            if result is not None:
                await result
        return response

    def _take_rate_limit(self, method: str, path: str) -> web.Response | None:
        for i, (m, part, retry_after, is_global) in enumerate(self._rate_limits):
            if m == method and part in path:
                del self._rate_limits[i]
                headers = {
                    "Via": "1.1 google",
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset-After": str(retry_after),
                    "X-RateLimit-Bucket": "fake-bucket",
                    "Retry-After": str(retry_after),
                }
                if is_global:
                    headers["X-RateLimit-Global"] = "true"
                body = {
                    "message": "You are being rate limited.",
                    "retry_after": retry_after,
                    "global": is_global,
                }
                return _json(body, 429, headers)
        return None

    async def _route(
        self, method: str, path: str, body: Any, rec: RecordedRequest
    ) -> web.StreamResponse:
        parts = path.strip("/").split("/")
        if method == "GET" and path == "/users/@me":
            return _json(self._bot_user())
        if method == "GET" and path == "/oauth2/applications/@me":
            return _json(self._application())
        if method == "GET" and path in ("/gateway", "/gateway/bot"):
            return _json(
                {
                    "url": self.gateway_url,
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 999,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            )
        if parts[0] == "applications" and parts[-1] == "commands":
            scope = "global" if len(parts) == 3 else parts[3]
            if method == "PUT":
                validate_commands(body, is_global=scope == "global")
                stored = [
                    {
                        "description": "",  # Discord's answer has one (empty: context menus)
                        **c,
                        "id": str(snowflake()),
                        "application_id": str(APP_ID),
                        "version": str(snowflake()),
                        **({} if scope == "global" else {"guild_id": scope}),
                    }
                    for c in body
                ]
                self.commands[scope] = stored
                return _json(stored)
            if method == "GET":
                return _json(self.commands.get(scope, []))
        if parts[0] == "interactions" and parts[-1] == "callback" and method == "POST":
            return self._callback(int(parts[1]), parts[2], body)
        if parts[0] == "webhooks" and len(parts) >= 3:
            return self._webhook(method, parts, body, rec)
        if parts[0] == "guilds" and len(parts) >= 3 and parts[2] in ("roles", "members"):
            return self._role(method, parts, body)
        if parts[0] == "guilds" and len(parts) >= 3 and parts[2] == "scheduled-events":
            return self._scheduled_event(method, parts, body)
        if parts[0] == "channels" and (len(parts) == 2 or parts[2] == "threads"):
            return self._thread(method, parts, body)
        if parts[0] == "channels" and len(parts) == 5 and parts[2:5:2] == ["messages", "threads"]:
            return self._thread_from_message(method, int(parts[1]), int(parts[3]), body)
        if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages":
            self._refuse_post(method, int(parts[1]))
            return self._channel_message(method, int(parts[1]), parts, body, rec)
        if method == "POST" and parts == ["users", "@me", "channels"]:
            return self._open_dm(body)
        raise DiscordError(404, 0, "404: Not Found")

    def _scheduled_event(self, method: str, parts: list[str], body: Any) -> web.Response:
        guild_id = int(parts[1])
        if method == "POST" and len(parts) == 3:
            validate_scheduled_event(body, recurrence_ok=not self.refuse_recurrence)
            active = sum(
                1 for e in self.scheduled_events.values() if e["guild_id"] == str(guild_id)
            )
            if active >= MAX_SCHEDULED_EVENTS:
                raise DiscordError(400, 30038, "Maximum number of guild events reached (100)")
            event = {
                **body,
                "id": str(snowflake()),
                "guild_id": str(guild_id),
                "status": 1,
                "creator_id": str(BOT_ID),
                "user_count": 0,
            }
            self.scheduled_events[int(event["id"])] = event
            self.interested[int(event["id"])] = {}
            return _json(event)
        event_id = int(parts[3])
        if event_id not in self.scheduled_events:
            raise DiscordError(404, 10070, "Unknown Guild Scheduled Event")
        if method == "DELETE" and len(parts) == 4:
            del self.scheduled_events[event_id]
            return web.Response(status=204)
        if method == "GET" and len(parts) == 5 and parts[4] == "users":
            users = sorted(self.interested[event_id].items())
            return _json(
                [
                    {
                        "guild_scheduled_event_id": str(event_id),
                        "user": {"id": str(uid), "username": name, "discriminator": "0"},
                    }
                    for uid, name in users
                ]
            )
        raise DiscordError(405, 0, "405: Method Not Allowed")

    def _thread(self, method: str, parts: list[str], body: Any) -> web.Response:
        """A thread started without a message (``POST /channels/{id}/threads``), or deleted."""
        channel_id = int(parts[1])
        if method == "POST" and len(parts) == 3:
            if self.refuse_threads:
                raise DiscordError(403, 50013, "Missing Permissions")
            name = body.get("name", "")
            if not 1 <= len(name) <= 100:
                raise _invalid("name", "must be between 1 and 100 characters")
            if body.get("type") not in (10, 11, 12):
                raise _invalid("type", "must be a thread type")
            thread = {
                "id": str(snowflake()),
                "type": body["type"],
                "name": name,
                "parent_id": str(channel_id),
                "guild_id": str(GUILD_ID),
                "owner_id": str(BOT_ID),
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": body.get("auto_archive_duration", 1440),
                    "archive_timestamp": _now_iso(),
                    "locked": False,
                },
            }
            self.threads[int(thread["id"])] = thread
            self._message_event.set()
            return _json(thread)
        if method == "DELETE" and len(parts) == 2:
            if self.threads.pop(channel_id, None) is None:
                raise DiscordError(404, 10003, "Unknown Channel")
            return _json({"id": str(channel_id)})
        raise DiscordError(405, 0, "405: Method Not Allowed")

    def _role(self, method: str, parts: list[str], body: Any) -> web.Response:
        if self.refuse_roles:
            raise DiscordError(403, 50013, "Missing Permissions")
        if parts[2] == "roles" and method == "POST" and len(parts) == 3:
            role = {"id": str(snowflake()), "name": body.get("name", "new role"), **body}
            self.roles[int(role["id"])] = role
            self.role_members[int(role["id"])] = set()
            return _json(role)
        if parts[2] == "roles" and method == "DELETE" and len(parts) == 4:
            if self.roles.pop(int(parts[3]), None) is None:
                raise DiscordError(404, 10011, "Unknown Role")
            self.role_members.pop(int(parts[3]), None)
            return web.Response(status=204)
        if parts[2] == "members" and method == "PUT" and len(parts) == 6 and parts[4] == "roles":
            if int(parts[5]) not in self.roles:
                raise DiscordError(404, 10011, "Unknown Role")
            self.role_members[int(parts[5])].add(int(parts[3]))
            return web.Response(status=204)
        raise DiscordError(405, 0, "405: Method Not Allowed")

    async def press_interested(
        self, event_id: int, user_id: int, name: str, *, going: bool = True, quiet: bool = False
    ) -> None:
        """A member presses (or takes back) Interested; ``quiet``: no bot hears it (down)."""
        users = self.interested[event_id]
        if going:
            users[user_id] = name
        else:
            users.pop(user_id, None)
        self.scheduled_events[event_id]["user_count"] = len(users)
        if not quiet:
            kind = "ADD" if going else "REMOVE"
            await self.dispatch(
                f"GUILD_SCHEDULED_EVENT_USER_{kind}",
                {
                    "guild_scheduled_event_id": str(event_id),
                    "user_id": str(user_id),
                    "guild_id": self.scheduled_events[event_id]["guild_id"],
                },
            )

    def _callback(self, interaction_id: int, token: str, body: dict[str, Any]) -> web.Response:
        it = self.interactions.get(interaction_id)
        if it is None or it.token != token:
            raise DiscordError(404, 10062, "Unknown interaction")
        now = time.perf_counter()
        try:
            if now - it.sent_at > self.deadline_s:
                raise DiscordError(404, 10062, "Unknown interaction")
            if it.callback is not None:
                raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
            kind = body.get("type")
            data = body.get("data") or {}
            if kind in (4, 7):
                validate_message(data)
            elif kind == 8:
                validate_choices(data)
            elif kind == 9:
                validate_modal(data)
            elif kind not in (5, 6):
                raise _invalid("type", f"unsupported callback type {kind}")
        except DiscordError as exc:
            it.callback_errors.append((exc.status, exc.code))
            it._notify()
            raise
        it.callback, it.callback_at = body, now
        it._notify()
        flags = int(data.get("flags") or 0)
        result: dict[str, Any] = {
            "interaction": {
                "id": str(it.id),
                "type": it.payload["type"],
                "response_message_id": str(it.message_id),
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(flags & EPHEMERAL),
            },
            "resource": {"type": kind},
        }
        if kind in (4, 7):
            result["resource"]["message"] = self._message(data, CHANNEL_ID, it.message_id)
        return _json(result)

    def _webhook(
        self, method: str, parts: list[str], body: Any, rec: RecordedRequest
    ) -> web.Response:
        token = parts[2]
        it = next((i for i in self.interactions.values() if i.token == token), None)
        if it is None or it.callback is None:
            raise DiscordError(404, 10015, "Unknown Webhook")
        if method == "POST" and len(parts) == 3:
            validate_message(body)
            it.followups.append(body)
            it.followup_at.append(time.perf_counter())
            it._notify()
            return _json(self._message(body, CHANNEL_ID))
        if len(parts) == 5 and parts[3] == "messages":
            message_id = it.message_id if parts[4] == "@original" else int(parts[4])
            if method == "PATCH":
                validate_message(body, is_edit=True)
                it.edits.append(body)
                it._notify()
                return _json(self._message(body, CHANNEL_ID, message_id))
            if method == "GET":
                return _json(self._message(it.callback.get("data") or {}, CHANNEL_ID, message_id))
            if method == "DELETE":
                return web.Response(status=204)
        raise DiscordError(404, 0, "404: Not Found")

    def _channel_message(
        self, method: str, channel_id: int, parts: list[str], body: Any, rec: RecordedRequest
    ) -> web.Response:
        if method == "POST" and len(parts) == 3:
            validate_message(body)
            nonce = body.get("nonce") if body.get("enforce_nonce") else None
            if nonce is not None:
                seen = self._nonces.get(str(nonce))
                if seen is not None and rec.at - seen[0] <= self.nonce_window_s:
                    rec.deduplicated = True
                    return _json(seen[1])
            self.messages.setdefault(channel_id, []).append(body)
            self._message_event.set()
            message = self._message(body, channel_id)
            self.message_channels[int(message["id"])] = channel_id
            if nonce is not None:
                message["nonce"] = str(nonce)
                self._nonces[str(nonce)] = (rec.at, message)
            return _json(message)
        if method == "PATCH" and len(parts) == 4:
            validate_message(body, is_edit=True)
            self.messages.setdefault(channel_id, []).append(body)
            self._message_event.set()
            return _json(self._message(body, channel_id, int(parts[3])))
        raise DiscordError(404, 0, "404: Not Found")

    # -- threads --------------------------------------------------------------------------

    def _thread_from_message(
        self, method: str, channel_id: int, message_id: int, body: Any
    ) -> web.Response:
        """``POST /channels/{channel}/messages/{message}/threads``: one thread per message.

        Messages posted in the thread are ``messages[thread id]``, like any channel's.
        """
        if method != "POST":
            raise DiscordError(405, 0, "405: Method Not Allowed")
        if self.message_channels.get(message_id) != channel_id:
            raise DiscordError(404, 10008, "Unknown Message")
        name = body.get("name") if isinstance(body, dict) else None
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            raise _invalid("name", "must be 1 to 100 characters")
        archive = body.get("auto_archive_duration", 4320)
        if archive not in (60, 1440, 4320, 10080):
            raise _invalid("auto_archive_duration", f"{archive} is not a valid duration")
        if message_id in self.threads:
            raise DiscordError(400, 160004, "A thread has already been created for this message")
        thread = {
            "id": str(message_id),  # Discord gives a message's thread the message's id
            "type": 11,
            "parent_id": str(channel_id),
            "name": name,
            "owner_id": str(BOT_ID),
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": archive,
                "archive_timestamp": _now_iso(),
                "locked": False,
            },
        }
        self.threads[message_id] = thread
        return _json(thread)

    # -- refused posts and direct messages ------------------------------------------------

    def refuse_posts(
        self, channel_id: int, status: int = 403, code: int = 50013, message: str = ""
    ) -> None:
        """Make ``channel_id`` refuse the bot's posts and edits as Discord does.

        403/50013 Missing Permissions (the default), 403/50001 Missing Access, 404/10003
        Unknown Channel (a deleted channel). ``allow_posts`` lifts it.
        """
        text = message or {50001: "Missing Access", 50013: "Missing Permissions"}.get(
            code, "Unknown Channel"
        )
        self.refusing[channel_id] = (status, code, text)

    def allow_posts(self, channel_id: int) -> None:
        """Let ``channel_id`` take posts again."""
        self.refusing.pop(channel_id, None)

    def _refuse_post(self, method: str, channel_id: int) -> None:
        refusal = self.refusing.get(channel_id)
        if refusal is not None and method in ("POST", "PATCH"):
            raise DiscordError(*refusal)

    def _open_dm(self, body: Any) -> web.Response:
        """``POST /users/@me/channels``: the DM channel with a user (one per user)."""
        user_id = int(body["recipient_id"])
        channel_id = self.dm_channels.setdefault(user_id, snowflake())
        user = {"id": str(user_id), "username": "user", "discriminator": "0", "avatar": None}
        return _json(
            {"id": str(channel_id), "type": 1, "last_message_id": None, "recipients": [user]}
        )

    # -- payload builders -----------------------------------------------------------------

    def _bot_user(self) -> dict[str, Any]:
        return {
            "id": str(BOT_ID),
            "username": "pokerfloor",
            "discriminator": "0",
            "global_name": "pokerfloor",
            "avatar": None,
            "bot": True,
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
        }

    def _application(self) -> dict[str, Any]:
        return {
            "id": str(APP_ID),
            "name": "pokerfloor",
            "description": "fake",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": {
                "id": str(self.owner_id),
                "username": "owner",
                "discriminator": "0",
                "avatar": None,
            },
            "verify_key": "00",
            "flags": 0,
            "team": None,
        }

    def _message(
        self, body: dict[str, Any], channel_id: int, message_id: int | None = None
    ) -> dict[str, Any]:
        return {
            "id": str(message_id or snowflake()),
            "channel_id": str(channel_id),
            "type": 0,
            "content": body.get("content") or "",
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "attachments": [],
            "author": self._bot_user(),
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "flags": int(body.get("flags") or 0),
        }


def _option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    return 3


async def _read_body(request: web.Request) -> Any:
    if not request.can_read_body:
        return None
    if request.content_type == "multipart/form-data":
        body: dict[str, Any] = {}
        files: list[str] = []
        reader = await request.multipart()
        async for part in reader:
            if part.name == "payload_json":  # type: ignore[union-attr]
                body.update(json.loads(await part.text()))  # type: ignore[union-attr]
            else:
                files.append(part.filename or "")  # type: ignore[union-attr]
                await part.read()  # type: ignore[union-attr]
        body["_files"] = files
        return body
    raw = await request.read()
    return json.loads(raw) if raw else None


# -- starting a bot against the fake --------------------------------------------------------


async def start_bot(fake: FakeDiscord, bot: Any, wait_s: float = 60.0) -> asyncio.Task[None]:
    """Log ``bot`` in against ``fake`` and wait until it is READY; returns its task."""
    fake.ready.clear()
    fake.bots.append(bot)
    task = asyncio.create_task(bot.start("fake-token"), name="fake-bot")
    async with asyncio.timeout(wait_s):
        waiter = asyncio.ensure_future(bot.wait_until_ready())
        done, _ = await asyncio.wait({waiter, task}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            waiter.cancel()
            task.result()  # raises what broke the start-up
            raise RuntimeError("the bot stopped during start-up")
    bot._fake_task = task
    return task


async def stop_bot(bot: Any) -> None:
    """Close ``bot`` and wait for its task."""
    await bot.close()
    task: asyncio.Task[None] | None = getattr(bot, "_fake_task", None)
    if task is not None:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(task, 5)

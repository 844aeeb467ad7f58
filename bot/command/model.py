"""The one definition of every command: its words, its options, who may run it, its handler.

Discord's app commands, the console's ``name:value`` parser and help, and the command line's
sub-commands are all generated from these definitions (``bot.features.COMMANDS``); a parity
test walks them. A command is written once::

    STACK = Command(
        path=("stack",),
        description="Work out a starting stack (2.C, 1.E.d)",
        handler="bot.features.league.handlers:stack",
        options=(
            Opt("player", "Whose stack", positional=True),
            Opt("brought", "New players he brought", kind="int", min=0, max=20, default=0),
            Opt("late_big_blind", "Big blind when he arrived late", kind="int", min=1),
        ),
    )

A handler is a plain function ``handler(ctx: Context, **options) -> Reply``, named as
``"module:function"`` and imported on first use (a command imports only what it runs). It is
synchronous: on Discord it runs in a worker thread after the interaction is deferred, in the
console and on the command line on the calling thread, so it may use storage directly through
``ctx.transaction()``. Options arrive parsed and checked (type, range, choices, length); a
handler raises a ``rulings.RulingsError`` (or a subclass) for any other user mistake, and writes
nothing when it raises. Side effects that belong to a surface (posting to the results channel,
rescheduling a clock, buttons) are described on the ``Reply`` and carried out by the adapter.
"""

from __future__ import annotations

import datetime as dt
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from sqlmodel import Session

    import rulings
    import rulings.rulebook
    from bot.config import Settings
    from bot.database import Database
    from bot.reply import Reply
    from storage.leagues import LeagueInfo

OptionKind = Literal[
    "text",  # free text (names, queries); ``max_length`` bounds it
    "int",  # a whole number; ``min``/``max`` bound it
    "number",  # a decimal number (clock minutes); ``min``/``max`` bound it
    "yes",  # yes/no (Discord boolean; console and CLI ``yes``/``no``; a CLI flag)
    "date",  # YYYY-MM-DD or a date word (``today``, ``yesterday``) in the league's TIMEZONE
    "file",  # Discord: an attachment; console and CLI: a path; the handler gets ``Upload``
    "link",  # Discord: an attachment, kept as its URL; console and CLI: a URL (text)
    "channel",  # a Discord channel (console: an id)
    "role",  # a Discord role (console: an id)
    "member",  # a Discord member (console: an id)
]

CONSOLE_CHANNEL = 0
"""The channel of a surface without channels (the console and the command line share one)."""

Surface = Literal["discord", "console", "cli"]
ALL_SURFACES: frozenset[Surface] = frozenset({"discord", "console", "cli"})
CLI_ONLY: frozenset[Surface] = frozenset({"cli"})
"""For options only a terminal script needs (``--json``, ``--limit``)."""


class Who(StrEnum):
    """Who may run a command (checked at run time on every surface that has users)."""

    EVERYONE = "everyone"
    DIRECTOR = "director"  # the league's director role, or Manage Server
    MANAGER = "manager"  # Manage Server (league settings)
    OWNER = "owner"  # the bot's owner (admin commands)


@dataclass(frozen=True)
class Opt:
    """One option of a command.

    Attributes:
        name: snake_case, the same on every surface (``late_big_blind``; CLI ``--late-big-blind``
            is generated from it, and ``--late_big_blind`` is accepted too).
        description: one line (Discord: at most 100 characters).
        kind: how the value is read and checked (see ``OptionKind``).
        required: whether it must be given.
        default: the value when it is not given (None: the handler gets None).
        min: the smallest value allowed (numbers) or length (text, when set).
        max: the largest value allowed (numbers).
        max_length: the longest text allowed.
        choices: the only values allowed (text), in display order.
        complete: an autocomplete source (``player``, ``rsvp`` (tonight's RSVPs first), ``season``,
            ``location``, ``book``,
            ``rule``, ``event``), offered on Discord and in console help.
        positional: console and CLI take it without ``name:`` (the first positional option of a
            console line is what precedes the first ``name:``; on the CLI it is an argument).
        raw: free text that may itself hold ``word:`` (``/hand alice: As Ks``): in the console,
            a ``word:`` that is not one of the command's options stays part of this value
            instead of being refused as an unknown option.
        lines: keep line breaks (a pasted finish list); other text has its spaces collapsed.
        repeat: several values (CLI: the flag repeated; elsewhere comma-separated); the
            handler gets a tuple.
        surfaces: where the option exists (most: everywhere; ``json`` only on the CLI).
        accept: for ``file`` and ``link`` options, the only kind of file taken: ``image``
            (a Discord attachment whose content type is ``image/*``, or a picture's file name
            extension; a console or CLI link must end in one). None takes any file.
    """

    name: str
    description: str
    kind: OptionKind = "text"
    required: bool = False
    default: Any = None
    min: float | None = None
    max: float | None = None
    max_length: int | None = None
    choices: tuple[str, ...] = ()
    complete: str | None = None
    positional: bool = False
    raw: bool = False
    lines: bool = False
    repeat: bool = False
    surfaces: frozenset[Surface] = ALL_SURFACES
    accept: Literal["image"] | None = None

    @property
    def flag(self) -> str:
        """Its command-line flag: ``--late-big-blind``."""
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Group:
    """A command group (``/td``, ``/td season``): its description and who sees it.

    Attributes:
        path: the group's words: ``("td",)``, ``("td", "season")``.
        description: at most 100 characters.
        who: on Discord, a group whose commands are all for directors is hidden from other
            members by default permissions (each command still checks at run time).
    """

    path: tuple[str, ...]
    description: str
    who: Who = Who.EVERYONE


@dataclass(frozen=True)
class Picker:
    """A form field picked from a list instead of typed (a Discord string select).

    A list shows 25 names at most: a longer one continues in further lists (``Player 26-50``)
    in the fields the form leaves free, and is cut there.

    Attributes:
        option: the option it fills.
        source: where the list comes from, as for ``Opt.complete`` (``rsvp``: tonight's RSVP'd
            players, then the league's players likeliest tonight (events played this season,
            latest night), nobody already signed in; ``seated``: the players seated at the open
            tournament in this channel).
        many: several may be picked; a text option gets them comma-separated (``Dan, Eve``).
        typed: the label of a text field beside the list for a value it does not offer (a
            walk-in, a new player, a name past the lists' end), e.g. ``Or type a name``; its
            custom id is ``<option>.typed``. Exactly one of a picked and a typed value is
            given: both, or (for a required option) neither, is one line and nothing runs.
            Only for a text option picked once (not ``many``). The typed value is checked as
            the option typed with the command is (``bind``, then the handler).
    """

    option: str
    source: str
    many: bool = False
    typed: str | None = None


@dataclass(frozen=True)
class Form:
    """On Discord, a form (modal) that fills the command's options when one is not given.

    ``/tournament register`` with no ``player`` opens the form; submitting it runs the same
    command through the same runner (who may run it, ``bind``'s checks, the handler, the
    reply). The fields are built from the options: a ``yes`` option is a checkbox (several are
    one group of checkboxes), a number or text a text input (checked by ``bind`` on submit), a
    ``file`` or ``link`` option a file upload, a ``member`` option a member picker, and an
    option named in ``pickers`` a list to pick from (with a text field to type a value the
    list lacks, when its picker has ``typed``). The console and the command line take the
    options as typed; there the ``when_missing`` option stays required.

    Attributes:
        title: the form's title (Discord: at most 45 characters).
        when_missing: the option whose absence on Discord opens the form (not required there).
        fields: the options it asks for, in order (at most five fields once the ``yes`` options
            are grouped and a picker's ``typed`` field counted); options given with the command
            fill them in beforehand.
        pickers: fields picked from a list.
    """

    title: str
    when_missing: str
    fields: tuple[str, ...]
    pickers: tuple[Picker, ...] = ()

    def picker(self, option: str) -> Picker | None:
        """The picker of ``option``, if it has one."""
        return next((p for p in self.pickers if p.option == option), None)


@dataclass(frozen=True)
class Menu:
    """A Discord context menu ("Apps" on a message or a member) that runs the command.

    What was clicked fills one option: a message's text, or a member (his id). The answer is
    always private.

    Attributes:
        name: as shown in the menu (``Find rule``; at most 32 characters).
        target: ``message`` or ``user``.
        option: the option it fills (``query``; ``member``).
    """

    name: str
    target: Literal["message", "user"]
    option: str


@dataclass(frozen=True)
class Command:
    """One command, defined once for every surface.

    Attributes:
        path: the words after the slash: ``("rule",)``, ``("td", "season", "add")``.
        description: what it does, imperative, at most 100 characters (Discord's limit).
        handler: ``"module:function"``; the function is ``handler(ctx, **options) -> Reply``.
        options: in the order Discord shows them (required ones first).
        who: who may run it.
        writes: it changes league records: audited with the actor and, on Discord, posted to
            the results channel (no pings).
        private: the answer is shown only to the caller (ephemeral on Discord).
        surfaces: where it exists (most commands: all three).
        cli: its words on the command line when they differ from ``path``; None keeps
            ``path`` (``/td season add`` is ``pokerfloor td season add``).
        guild_only: on Discord, only inside a server (league commands).
        aliases: older command-line spellings (``("strike", "add")``): each still runs this
            command and prints one deprecation line on stderr naming the new words.
        league: it works on a league (the command line opens the database and resolves
            ``--guild``); False for ``rule``, ``help``, ``invite``, ``web`` and the like.
        process: a command-line process (``console``, ``run``, ``web``): its handler runs to
            the end and returns the exit status instead of a ``Reply`` (it prints its own).
        whole_database: it works on the whole database, every league at once (``backup``,
            ``restore``): the command line gives it ``--db`` and no league to pick.
        form: on Discord, the form that opens when its ``when_missing`` option is not given.
        menus: Discord context menus that run it with an option filled from a message or member.
        user_install: on Discord, members may also install it on their own account and use it
            in direct messages and in other servers (``/rule``, ``/hand``: the bundled books,
            no league). Other commands are installed with the server only; server-only
            (``guild_only``) commands work only inside it.
    """

    path: tuple[str, ...]
    description: str
    handler: str
    options: tuple[Opt, ...] = ()
    who: Who = Who.EVERYONE
    writes: bool = False
    private: bool = False
    surfaces: frozenset[Surface] = ALL_SURFACES
    cli: tuple[str, ...] | None = None
    guild_only: bool = False
    aliases: tuple[tuple[str, ...], ...] = ()
    league: bool = True
    process: bool = False
    whole_database: bool = False
    form: Form | None = None
    menus: tuple[Menu, ...] = ()
    user_install: bool = False

    @property
    def name(self) -> str:
        """The command as typed: ``td season add``."""
        return " ".join(self.path)

    @property
    def cli_path(self) -> tuple[str, ...]:
        """Its words on the command line."""
        return self.cli if self.cli is not None else self.path

    def options_on(self, surface: Surface) -> tuple[Opt, ...]:
        """The options it has on ``surface``."""
        return tuple(o for o in self.options if surface in o.surfaces)

    def is_required(self, opt: Opt, surface: Surface) -> bool:
        """Whether ``opt`` must be given on ``surface`` (on Discord a form may supply it)."""
        if surface == "discord" and self.form is not None and opt.name == self.form.when_missing:
            return False
        return opt.required

    def option(self, name: str) -> Opt:
        """The option called ``name``.

        Raises:
            KeyError: the command has no such option.
        """
        for opt in self.options:
            if opt.name == name:
                return opt
        raise KeyError(name)

    def resolve(self) -> Callable[..., Reply]:
        """Import and return the handler (first use only pays the import)."""
        module_name, _, attr = self.handler.partition(":")
        fn: Callable[..., Reply] = getattr(importlib.import_module(module_name), attr)
        return fn


@dataclass(frozen=True)
class Action:
    """A button or select's handler, routed by the first part of its ``custom_id``.

    ``Reply.buttons`` carry ``custom_id`` values such as ``pf:me_link:approve:42``; the part
    after ``pf:`` up to the next ``:`` names the action, the rest are its string arguments.
    Errors take the one error path, exactly as for commands.

    Attributes:
        name: the routing key (``me_link``, ``page``, ``clock``).
        handler: ``"module:function"``; ``handler(ctx, *args: str) -> Reply``.
        who: who may press it.
        edit: the reply replaces the message the button is on (page buttons); otherwise it
            is sent as a new answer (private when the reply says so).
    """

    name: str
    handler: str
    who: Who = Who.EVERYONE
    edit: bool = False

    def resolve(self) -> Callable[..., Reply]:
        """Import and return the handler."""
        module_name, _, attr = self.handler.partition(":")
        fn: Callable[..., Reply] = getattr(importlib.import_module(module_name), attr)
        return fn


@dataclass(frozen=True)
class Upload:
    """A file given to a ``file`` option: an attachment on Discord, a path elsewhere."""

    filename: str
    data: bytes
    url: str | None = None
    content_type: str | None = None


@dataclass(frozen=True)
class Heavy:
    """A reply still to be computed: ``fn(*args)``, CPU-heavy work (a pre-flop equity).

    On Discord, ``Context.compute`` returns one and the handler returns it as is: the runner,
    back on the event loop, counts it against the user's heavy-command cooldown, waits for the
    user's turn at a worker process (``bot.fair_queue``) and sends ``fn(*args)`` as the reply.
    So no handler thread waits in the queue, and a crowd of heavy commands never keeps a light
    one from a thread. ``fn`` and its arguments must pickle (a module-level function or a
    ``functools.partial`` of one, plain values).

    Attributes:
        fn: returns the ``Reply``.
        args: its positional arguments.
    """

    fn: Callable[..., Reply]
    args: tuple[Any, ...] = ()


def _call(fn: Callable[..., Any], /, *args: Any) -> Any:
    return fn(*args)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass
class Context:
    """What a handler may use, whichever surface called it.

    Attributes:
        surface: ``discord``, ``console`` or ``cli``.
        settings: the configuration (``TIMEZONE``, ``RULEBOOK_DIR``, ...).
        db: the database (``db.run_sync(fn, **kw)`` runs a storage function in one transaction).
        guild_id: the league's Discord server; None for the console's own league when the
            database holds no other (``--guild ID`` picks one).
        actor: who is acting, for the audit log (``discord:<id>:<name>``, ``console``, ``cli``).
        user_id: the Discord user, when there is one.
        channel_id: the Discord channel the command came from (the console has a fixed one).
        is_director: whether the caller may run director commands.
        is_manager: whether the caller may change the league's settings (Manage Server).
        now: the clock (injected in tests); handlers never call ``datetime.now`` themselves.
        rule_index: the rulebook index with the league's home book first (loaded on demand).
        compute: the reply ``fn(*args)``, CPU-heavy (pre-flop equity): the console and the
            command line compute it on the calling thread; on Discord it is a ``Heavy`` that
            the runner computes in a worker process without holding the handler's thread. So
            a handler returns what ``compute`` returns, as is, as its last step. ``fn`` and its
            arguments must pickle.
        clock: the tournament clock of this surface (``ClockService``, seen
            from the handler's thread); None where there is none.
    """

    surface: Surface
    settings: Settings
    db: Database
    guild_id: int | None = None
    actor: str = "console"
    user_id: int | None = None
    channel_id: int | None = None
    is_director: bool = True
    is_manager: bool = True
    now: Callable[[], dt.datetime] = _utcnow
    rule_index: Callable[[], rulings.rulebook.RuleIndex] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    compute: Callable[..., Any] = _call
    clock: Any = None

    @property
    def display_name(self) -> str:
        """Who is acting, as posts name him: his display name on Discord, else ``actor``."""
        return str(self.extras.get("display_name") or self.actor)

    @property
    def channel(self) -> int:
        """The channel the command runs in; ``CONSOLE_CHANNEL`` where there are none."""
        return self.channel_id if self.channel_id is not None else CONSOLE_CHANNEL

    def league(self, session: Session) -> LeagueInfo:
        """The league this command speaks for, made (``btown`` rules) on its first write.

        A server's league on Discord (``guild_id``); the database's own league on the console
        and the command line when no ``--guild`` picks a server's.
        """
        from storage.leagues import ensure_league

        return ensure_league(
            session=session, guild_id=self.guild_id, actor=self.actor, now=self.now()
        )

    def existing_league(self, session: Session) -> LeagueInfo:
        """The league this command reads (a server's, else the database's own); never made.

        Raises:
            NotFound: no league yet (the message says how one starts).
        """
        from storage.leagues import league_for

        return league_for(session=session, guild_id=self.guild_id)

    def league_if_any(self, session: Session) -> LeagueInfo | None:
        """The league this command speaks for, or None before its first write (for reads)."""
        from storage.errors import NotFound
        from storage.leagues import get_league

        try:
            return get_league(session=session, guild_id=self.guild_id)
        except NotFound:
            return None

    def today(self) -> dt.date:
        """Today in the league's time zone (``TIMEZONE``)."""
        import zoneinfo

        try:
            zone: dt.tzinfo = zoneinfo.ZoneInfo(self.settings.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            zone = dt.UTC
        return self.now().astimezone(zone).date()

    def rules(self) -> rulings.rulebook.RuleIndex:
        """The rulebook index for this league (its home book first).

        Raises:
            RulingsError: ``RULEBOOK_DIR`` cannot be read.
        """
        if self.rule_index is None:
            import rulings
            import rulings.rulebook

            index = rulings.rulebook.load_rulebooks(self.settings.rulebook_dir)
            self.rule_index = lambda: index
        return self.rule_index()

    def league_rules(self) -> rulings.LeagueRules:
        """The rules of this league: the default preset's before it has one (nothing written).

        A database that does not exist yet is not created (``db.is_empty()``, when the surface
        can tell without opening it). A surface that has not opened its database yet may read
        the league rows without opening it (``db.read_leagues()``: ``storage.light`` on a
        SQLite file, no SQLAlchemy); where it cannot (None), one light statement reads the
        league's row (``storage.league_rules.read_league_rules``, on every call: never stale),
        else storage's full path (its retries and errors).
        """
        import rulings

        is_empty = getattr(self.db, "is_empty", None)
        if is_empty is not None and is_empty():
            return rulings.load_league_rules()
        read_leagues = getattr(self.db, "read_leagues", None)
        leagues = read_leagues() if read_leagues is not None else None
        if leagues is not None:
            from storage.light import league_rules_in

            return league_rules_in(leagues, self.guild_id)
        from storage.league_rules import read_league_rules

        light = read_league_rules(self.db.engine, self.guild_id)  # read fresh, light
        if light is not None:
            return light
        from bot.features.league.reads import league_rules_for

        rules: rulings.LeagueRules = self.db.run_sync(league_rules_for, guild_id=self.guild_id)
        return rules

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One database transaction: everything in it commits, or nothing does.

        A database still locked or unreachable after its busy timeout rolls the transaction back
        and raises ``DatabaseBusyError`` ("The database is busy, try again in a moment."), the
        same user error ``Database.run`` raises after its retries, never the apology.
        """
        from bot.database import is_transient
        from storage.db import session_scope
        from storage.errors import DatabaseBusyError

        try:
            with session_scope(self.db.engine) as session:
                yield session
        except Exception as exc:
            if is_transient(exc):
                raise DatabaseBusyError() from exc
            raise

"""/tournament: tonight's tournament, from sign-in to the stored results.

Directors run it; ``seats`` and ``status`` are for everyone. The rules are in
``rulings.tournament``; the night lives in the database (``storage.tournaments``), so a
restart or another instance carries on; the handlers are in
``bot.features.tournament.handlers`` (sign-in and play), ``.views`` (seats, status) and
``.finish`` (chop, finish, show).
"""

from __future__ import annotations

from bot.command.model import CLI_ONLY, Action, Command, Form, Group, Opt, Picker, Who

_HANDLERS = "bot.features.tournament.handlers"
_VIEWS = "bot.features.tournament.views"
_FINISH = "bot.features.tournament.finish"

GROUPS = (
    Group(("tournament",), "Tonight's tournament: sign-in, seats, busts, balancing, results"),
)


def _t(
    name: str,
    description: str,
    *options: Opt,
    who: Who = Who.DIRECTOR,
    private: bool = False,
    writes: bool = False,
    form: Form | None = None,
    module: str = _HANDLERS,
) -> Command:
    return Command(
        path=("tournament", name),
        description=description,
        handler=f"{module}:{name}",
        options=options,
        who=who,
        private=private,
        writes=writes,
        guild_only=True,
        form=form,
    )


TOURNAMENT: tuple[Command, ...] = (
    _t(
        "open",
        "Open tonight's tournament in this channel",
        Opt("location", "The host location", required=True, positional=True, complete="location"),
        Opt("season", "The season (default: the current one)", complete="season"),
        Opt(
            "tables",
            "Tables in the room (default: as many as the sign-ins need)",
            "int",
            min=1,
            max=100,
        ),
        Opt("seats", "Seats per table", "int", min=2, max=10, default=8),
    ),
    _t(
        "register",
        "Sign a player in: a random seat, his starting stack (2.C.b, 1.E.d)",
        Opt(
            "player",
            "Who signs in",
            required=True,
            positional=True,
            complete="rsvp",
            max_length=100,
        ),
        Opt("early", "Signed in 15 minutes early (2.C.b.1.A)", "yes", default=False),
        Opt("on_time", "Seated on time (2.C.b.1.B)", "yes", default=False),
        Opt("birthday", "His birthday event (2.C.b.1.C)", "yes", default=False),
        Opt("new_player", "His first night in the league (2.C.b.2)", "yes", default=False),
        Opt("brought", "New players he brought tonight (2.C.b.3)", "int", min=0, max=20, default=0),
        Opt("big_blind", "Late: the big blind now, when no clock runs here (1.E.d)", "int", min=1),
        Opt(
            "confirm",
            "A new name that resembles a known player's is a new player",
            "yes",
            default=False,
        ),
        # On Discord, no player opens a form: one tap per box on a phone; a walk-in or a
        # player past the lists is typed in the form itself (a look-alike name: tick Confirm).
        form=Form(
            title="Sign a player in",
            when_missing="player",
            fields=("player", "early", "on_time", "birthday", "new_player", "confirm", "brought"),
            pickers=(Picker("player", "rsvp", typed="Or type a name"),),
        ),
    ),
    _t(
        "checkin",
        "Sign in a player who RSVP'd to tonight's league night (same stacks as register)",
        Opt(
            "player",
            "Who checks in (RSVP'd tonight)",
            required=True,
            positional=True,
            complete="rsvp",
            max_length=100,
        ),
        Opt("early", "Signed in 15 minutes early (2.C.b.1.A)", "yes", default=False),
        Opt("on_time", "Seated on time (2.C.b.1.B)", "yes", default=False),
        Opt("birthday", "His birthday event (2.C.b.1.C)", "yes", default=False),
        Opt("brought", "New players he brought tonight (2.C.b.3)", "int", min=0, max=20, default=0),
        Opt("big_blind", "Late: the big blind now, when no clock runs here (1.E.d)", "int", min=1),
    ),
    _t("start", "Begin play: sign-ins from now on are late (1.E.d)"),
    _t(
        "bust",
        "Record a bust, or several on one hand (2.G.e.2)",
        Opt(
            "players",
            "Who busted: 'Dan' or 'Dan, Eve'",
            required=True,
            positional=True,
            max_length=1000,
        ),
        Opt(
            "chips", "Chips at the start of the hand, one per player: '5000, 9000'", max_length=1000
        ),
        form=Form(
            title="Bust",
            when_missing="players",
            fields=("players", "chips"),
            pickers=(Picker("players", "seated", many=True),),
        ),
    ),
    _t("balance", "Balance the tables and post the moves (2.D)"),
    _t(
        "button",
        "Say where the dealer button is at a table (players then move in position)",
        Opt("table", "The table", "int", required=True, min=1, max=100, positional=True),
        Opt("seat", "The button's seat", "int", required=True, min=1, max=10),
    ),
    _t(
        "move",
        "Move a player yourself (recorded)",
        Opt(
            "player", "Who moves", required=True, positional=True, complete="player", max_length=100
        ),
        Opt("table", "To which table", "int", required=True, min=1, max=100),
        Opt("seat", "To which seat (default: a random empty one)", "int", min=1, max=10),
    ),
    _t("undo", "Take back the last sign-in, bust, move or balance"),
    _t(
        "seats",
        "Show the seating chart",
        Opt("table", "Only this table", "int", min=1, max=100, positional=True),
        who=Who.EVERYONE,
        module=_VIEWS,
    ),
    _t(
        "status",
        "Players left, average stack, late registration and the clock",
        who=Who.EVERYONE,
        module=_VIEWS,
    ),
    _t(
        "chop",
        "Heads-up chop offered by the chip leader: he takes 1st (2.F.b)",
        Opt("leader", "The chip leader", required=True, positional=True, max_length=100),
        writes=True,
        module=_FINISH,
    ),
    _t(
        "finish",
        "End the night and store its results (2.F.a at the time limit)",
        Opt(
            "chips",
            "At the time limit, every player's chips: 'Ann 120000, Bob 80000'",
            max_length=2000,
        ),
        writes=True,
        module=_FINISH,
    ),
    Command(
        path=("tournament", "show"),
        description="Print the open (or last) tournament",
        handler=f"{_FINISH}:show",
        options=(Opt("json", "Print it as JSON", "yes", default=False, surfaces=CLI_ONLY),),
        who=Who.EVERYONE,
        surfaces=frozenset({"console", "cli"}),
    ),
)

_REPORTS = "bot.features.tournament.reports"

OUT = Command(
    path=("out",),
    description="Report your own bust in tonight's tournament (a director confirms it)",
    handler=f"{_REPORTS}:out",
    guild_only=True,
    private=True,
    surfaces=frozenset({"discord"}),  # about the Discord member who reports
)

COMMANDS = (*TOURNAMENT, OUT)

ACTIONS = (
    Action("tclock", f"{_HANDLERS}:start_clock", who=Who.DIRECTOR),
    Action("out", f"{_REPORTS}:out_button"),
    Action("bust_report", f"{_REPORTS}:report_decision", who=Who.DIRECTOR, edit=True),
)
"""The button under ``/tournament start``'s reply that starts the channel's clock; a player's
"I'm out" under his sign-in; a director's Confirm and Reject under a reported bust."""

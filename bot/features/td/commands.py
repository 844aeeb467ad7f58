"""/td: the tournament director's commands (results, awards, corrections, seasons, settings).

Directors only (the league's director role, or Manage Server); on Discord the group is hidden
from other members by default permissions and checked again at run time. Every write answers
with what changed and the points it produced and is posted to the results channel.
"""

from __future__ import annotations

from bot.command.model import Command, Form, Group, Opt, Picker, Who

GROUPS = (
    Group(("td",), "Tournament director tools", who=Who.DIRECTOR),
    Group(("td", "season"), "Seasons of the league", who=Who.DIRECTOR),
    Group(("td", "location"), "Host locations of the league", who=Who.DIRECTOR),
)

CONFIRM = "Create new player names even when they resemble existing ones"
CONFIRM_RESULT = "Record it anyway: new names that resemble known ones, suspended players (3.B)"
REMOVE = "Take this award back instead of adding it (the reply says the points removed)"
NEW_PLAYERS = "Names confirmed as new players (comma-separated)"
EVENT_MAX = 2**62
FINISH_CHARS = 4000
REASON_CHARS = 500


def _td(
    path: tuple[str, ...],
    description: str,
    handler: str,
    *options: Opt,
    writes: bool = True,
    private: bool = False,
    aliases: tuple[tuple[str, ...], ...] = (),
    form: Form | None = None,
) -> Command:
    return Command(
        path=("td", *path),
        description=description,
        handler=f"bot.features.td.handlers:{handler}",
        options=options,
        who=Who.DIRECTOR,
        writes=writes,
        private=private,
        guild_only=True,
        aliases=aliases,
        form=form,
    )


def _event(description: str = "The event's number (see /td events)") -> Opt:
    return Opt("event", description, kind="int", required=True, min=1, max=EVENT_MAX)


def _award_event() -> Opt:
    return Opt(
        "event",
        "The event's number (default: tonight's tournament in this channel, stored at its finish)",
        kind="int",
        min=1,
        max=EVENT_MAX,
    )


def _player(description: str) -> Opt:
    return Opt("player", description, required=True, complete="player", positional=True)


def _confirm(description: str = CONFIRM) -> Opt:
    return Opt("confirm", description, kind="yes", default=False)


SEASON = Opt("season", "The season (default: the current one)", complete="season")

COMMANDS = (
    _td(
        ("result",),
        "Record an event's finish order (typed, or an attached JSON/CSV file)",
        "result",
        Opt(
            "finish",
            "Finish order, e.g. '1 Alice, 2 Bob, 3 Carol=Dave' (= is a tie)",
            max_length=FINISH_CHARS,
            lines=True,
            positional=True,
        ),
        Opt("location", "Where it was played", complete="location"),
        SEASON,
        Opt("date", "The day, YYYY-MM-DD, today or yesterday (default: today)", kind="date"),
        Opt(
            "kind",
            "Regular night, second chance or TOC",
            choices=("regular", "second_chance", "toc"),
            default="regular",
        ),
        Opt("played", "Others who played out of the points (comma-separated)", max_length=4000),
        Opt(
            "file",
            "A results file instead: JSON import format, or CSV 'position,player'",
            kind="file",
        ),
        Opt("new_players", NEW_PLAYERS, max_length=4000),
        _confirm(CONFIRM_RESULT),
    ),
    _td(
        ("correct",),
        "Correct an event's finish order; the old version stays in the audit log",
        "correct",
        _event(),
        Opt(
            "finish",
            "The right finish order, e.g. '1 Bob, 2 Alice, 3 Carol'",
            required=True,
            max_length=FINISH_CHARS,
            lines=True,
        ),
        Opt(
            "reason",
            "Why it is corrected (kept in the audit log)",
            required=True,
            max_length=REASON_CHARS,
        ),
        Opt("played", "Replace the players out of the points (comma-separated)", max_length=4000),
        Opt("new_players", NEW_PLAYERS, max_length=4000),
        _confirm(CONFIRM_RESULT),
        Opt("unvoid", "Correct a void event and make it count again", kind="yes", default=False),
    ),
    _td(
        ("void",),
        "Void an event: it stays on record but no longer counts",
        "void",
        _event("The event's number"),
        Opt("reason", "Why it no longer counts", required=True, max_length=REASON_CHARS),
    ),
    _td(
        ("events",),
        "List a season's events with their numbers",
        "events",
        Opt("season", SEASON.description, complete="season", positional=True),
        writes=False,
        private=True,
    ),
    _td(
        ("bounty",),
        "Record a player's bounty chips for an event (50 RP each at BTown); remove takes them back",
        "bounty",
        _player("Who turned the chips in"),
        _award_event(),
        Opt(
            "chips",
            "Bounty chips (replaces the number recorded; 0 removes)",
            kind="int",
            min=0,
            max=100,
        ),
        Opt("remove", REMOVE, kind="yes", default=False),
        _confirm(),
    ),
    _td(
        ("premium",),
        "Record a premium hand won at showdown after the river, or take one back (remove)",
        "premium",
        _player("Who won the hand at showdown"),
        Opt(
            "hand",
            "The premium hand",
            required=True,
            choices=("quads", "straight_flush", "royal_flush"),
        ),
        _award_event(),
        Opt("remove", REMOVE, kind="yes", default=False),
        _confirm(),
    ),
    _td(
        ("second_chance",),
        "Record a second-chance win, or take one back (remove)",
        "second_chance",
        _player("Who won the second-chance game"),
        _award_event(),
        Opt("remove", REMOVE, kind="yes", default=False),
        _confirm(),
    ),
    _td(
        ("receipt",),
        "Record a food and drink receipt for bonus points, or take one back by its ref (remove)",
        "receipt",
        _event("The event's number"),
        _player("Who turned the receipt in"),
        Opt("amount", "The amount in dollars, e.g. 12.50 (to remove: or the ref)", max_length=20),
        Opt("ref", "The receipt's number (counted once per location, any case)", max_length=100),
        Opt("photo", "A photo of the receipt (an image)", kind="link", accept="image"),
        Opt(
            "remove",
            "Take this receipt back (by its ref, or by player and amount)",
            kind="yes",
            default=False,
        ),
        _confirm(),
        # On Discord, /td receipt event:N with no player opens a form with a photo upload.
        form=Form(
            title="Receipt",
            when_missing="player",
            fields=("event", "player", "amount", "ref", "photo"),
            pickers=(Picker("player", "rsvp"),),
        ),
    ),
    _td(
        ("strike",),
        "Give a player a strike (suspension; strike 3 forfeits the season), today or on a date",
        "strike",
        _player("Who gets the strike"),
        Opt("level", "Strike level (3.B): 1, 2 or 3", kind="int", required=True, min=1, max=9),
        Opt("reason", "Why (shown in the confirmation)", required=True, max_length=REASON_CHARS),
        SEASON,
        Opt(
            "date",
            "The day it was given: YYYY-MM-DD, today, yesterday (default: today)",
            kind="date",
        ),
        aliases=(("strike", "add"),),
    ),
    _td(
        ("season", "add"),
        "Start a new season; it becomes the current season",
        "season_add",
        Opt("name", "The season's name, e.g. '2026 Fall'", required=True, positional=True),
        aliases=(("season", "add"),),
    ),
    _td(
        ("season", "list"),
        "List the league's seasons",
        "season_list",
        writes=False,
        private=True,
        aliases=(("season", "list"),),
    ),
    _td(
        ("season", "current"),
        "Show the current season, or make another season current",
        "season_current",
        Opt("name", "The season to make current", positional=True, complete="season"),
        aliases=(("season", "current"),),
    ),
    _td(
        ("location", "add"),
        "Add a host location",
        "location_add",
        Opt("name", "The location's name", required=True, positional=True),
        _confirm("Add it even if it resembles an existing one"),
    ),
    _td(
        ("location", "list"),
        "List the league's host locations",
        "location_list",
        writes=False,
        private=True,
    ),
    _td(
        ("settings",),
        "Show or change the league's settings (director role, results channel, ...)",
        "settings",
        Opt("director_role", "Members with this role may use /td", kind="role"),
        Opt("results_channel", "Where results and changes are posted", kind="channel"),
        Opt("clock_ping_role", "The role the tournament clock pings", kind="role"),
        Opt("preset", "The league's rules preset", choices=("btown", "poker-pub")),
        Opt("rulebook", "The league's own rulebook: /rule answers from it first", complete="book"),
        Opt(
            "live_page", "Show the public live pages of the clock and tables", choices=("on", "off")
        ),
        Opt("clock_tts", "Read level announcements aloud (text-to-speech)", choices=("on", "off")),
        Opt(
            "self_checkin",
            "Players may check themselves in (/checkin), a director approving",
            choices=("on", "off"),
        ),
        Opt(
            "night_thread",
            "Post the night's bust-outs and results in a thread of its own",
            choices=("on", "off"),
        ),
        Opt(
            "self_report",
            "Players may report their own bust (/out), a director confirming",
            choices=("on", "off"),
        ),
        Opt(
            "clear",
            "Clear one setting",
            choices=("director_role", "results_channel", "clock_ping_role", "rulebook"),
        ),
        Opt(
            "confirm",
            "Apply a preset change that re-scores the current season's stored events",
            kind="yes",
            default=False,
        ),
        private=True,
    ),
)

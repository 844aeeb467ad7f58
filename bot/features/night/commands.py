"""League nights before the first hand: the weekly schedule, RSVPs, who is coming, no-shows.

``/td night schedule`` stores a weekly night at a host location (on Discord it also becomes a
scheduled event in the server's Events tab); a member who presses "Interested" there, or
types ``/rsvp``, is on that night's list; ``/night`` shows who is coming;
``/tournament checkin`` signs an RSVP'd player in with one tap; after ``/tournament finish``
the directors get the no-shows. The rules are ``rulings.league.nights``; the records
``storage.nights``.
"""

from __future__ import annotations

from bot.command.model import Action, Command, Group, Opt, Who

_HANDLERS = "bot.features.night.handlers"

GROUPS = (Group(("td", "night"), "The league's weekly nights", who=Who.DIRECTOR),)

_LOCATION = Opt(
    "location", "The host location", required=True, positional=True, complete="location"
)
_NIGHT = Opt("night", "The night's date (default: the next league night)", kind="date")


def _td_night(
    name: str, description: str, *options: Opt, writes: bool = True, handler: str | None = None
) -> Command:
    return Command(
        path=("td", "night", name),
        description=description,
        handler=f"{_HANDLERS}:{handler or name}",
        options=options,
        who=Who.DIRECTOR,
        writes=writes,
        guild_only=True,
    )


COMMANDS = (
    _td_night(
        "schedule",
        "Schedule the league's weekly night at a host location (a Discord event with RSVP)",
        _LOCATION,
        Opt("weekday", "The day of the week, e.g. thursday", required=True),
        Opt(
            "time",
            "The start time, HH:MM on a 24-hour clock (the league's time zone)",
            required=True,
        ),
        Opt(
            "every",
            "Weeks between two nights (default: every week)",
            kind="int",
            min=1,
            max=8,
            default=1,
        ),
        Opt("ends", "The last date of the series (default: no end)", kind="date"),
        Opt(
            "remind",
            "Hours before each night the RSVP'd players are reminded (0: no reminder)",
            kind="number",
            min=0,
            max=48,
            default=2,
        ),
    ),
    _td_night(
        "list",
        "List the league's weekly nights and the next dates",
        writes=False,
        handler="list_series",
    ),
    _td_night(
        "cancel",
        "Cancel one night (give its date) or the whole series at a location",
        _LOCATION,
        Opt("date", "The night to call off (default: the whole series)", kind="date"),
    ),
    _td_night(
        "noshows",
        "Count the players who said they were coming and never signed in",
        Opt("season", "The season (default: every season)", complete="season"),
        writes=False,
    ),
    Command(
        path=("rsvp",),
        description="Say you are coming to a league night (or cancel: /rsvp cancel)",
        handler=f"{_HANDLERS}:rsvp",
        guild_only=True,
        options=(
            Opt(
                "action",
                "going (default) or cancel",
                choices=("going", "cancel"),
                default="going",
                positional=True,
            ),
            _NIGHT,
            Opt(
                "location",
                "The host location, when several nights fall on that date",
                complete="location",
            ),
            Opt("player", "Directors: the player to add (default: you)", complete="player"),
        ),
    ),
    Command(
        path=("night",),
        description="Show who is coming to a league night",
        handler=f"{_HANDLERS}:night",
        guild_only=True,
        options=(
            Opt(
                "date",
                "The night's date (default: the next league night)",
                kind="date",
                positional=True,
            ),
            Opt(
                "location",
                "The host location, when several nights fall on that date",
                complete="location",
            ),
        ),
    ),
    Command(
        path=("checkin",),
        description="Check yourself in to tonight's tournament (a director approves)",
        handler=f"{_HANDLERS}:self_checkin",
        guild_only=True,
        private=True,
        surfaces=frozenset({"discord"}),  # about the Discord member who asks
    ),
)

ACTIONS = (Action("checkin", f"{_HANDLERS}:checkin_decision", who=Who.DIRECTOR, edit=True),)

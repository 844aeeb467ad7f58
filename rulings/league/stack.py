"""Starting stacks: the base stack, every extra-chip rule and the late player's penalty.

BTown (2.C.a-b, 1.E.d-e): 18,000 chips; +2,000 for signing in 15 minutes early, +2,000 for
being seated on time, +5,000 on a birthday event, those three together capped at 9,000;
+4,000 on a new player's first night and +8,000 for bringing a new player, both on top of
the cap. A late player gets no extra chips except for bringing a new player, and starts
with twice the big blind of the level he sits down in removed. A reserve player who signed
in before the start is not late: give ``late_big_blind=None``.

>>> from rulings.league.rules import load_league_rules
>>> starting_stack(Arrival(late_big_blind=600), load_league_rules()).total
16800
"""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass

from rulings.clock import BlindLevel, Break, load_structure
from rulings.errors import StackError
from rulings.league.rules import LeagueRules

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Arrival:
    """What a player did when signing in, as the director records it.

    Attributes:
        early_signin: Signed in 15 minutes before the stated start (2.C.b.1.A).
        on_time: Seated before the announcements (2.C.b.1.B).
        birthday: Chose this event as the birthday event (2.C.b.1.C).
        new_player: First night in the league (2.C.b.2).
        new_players_brought: New players this player brought tonight (2.C.b.3).
        late_big_blind: For a late player, the big blind of the level they sit down in;
            None if not late (reserve players who signed in before the start are not late).
        events_played: Nights the league has stored for this player: a returning player
            gets no new-player chips, whatever ``new_player`` says (2.C.b.2).
    """

    early_signin: bool = False
    on_time: bool = False
    birthday: bool = False
    new_player: bool = False
    new_players_brought: int = 0
    late_big_blind: int | None = None
    events_played: int = 0


@dataclass(frozen=True)
class StartingStack:
    """A computed starting stack with its parts, for display.

    Attributes:
        base: The league's starting stack.
        extras: (reason, chips) for each extra awarded, after the cap.
        late_reduction: Chips removed for arriving late.
        total: What the player starts with.
        not_awarded: Extras asked for but not given (e.g. to a late player), with why.
    """

    base: int
    extras: tuple[tuple[str, int], ...]
    late_reduction: int
    total: int
    not_awarded: tuple[str, ...] = ()


def in_birthday_window(
    event_date: datetime.date, birthday: datetime.date, rules: LeagueRules
) -> bool:
    """Whether an event is close enough to a birthday to be the birthday event (2.C.b.1.C).

    The birthday counts in the event's year and its neighbours, so a birthday on 3 January
    covers an event on 25 December. A 29 February birthday falls on 28 February in other
    years.

    Args:
        event_date: The event's day.
        birthday: The player's date of birth (only month and day matter).
        rules: Supplies ``birthday_window_days``.

    Returns:
        True if the event is within the window, either side.

    >>> from rulings.league.rules import load_league_rules
    >>> rules = load_league_rules()
    >>> in_birthday_window(datetime.date(2026, 12, 25), datetime.date(1990, 1, 3), rules)
    True
    """
    for year in (event_date.year - 1, event_date.year, event_date.year + 1):
        day = birthday.day
        if birthday.month == 2 and day == 29 and not _is_leap(year):
            day = 28
        anniversary = datetime.date(year, birthday.month, day)
        if abs((event_date - anniversary).days) <= rules.birthday_window_days:
            return True
    return False


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def late_reduction(big_blind: int, rules: LeagueRules) -> int:
    """Chips removed from a late player's stack (1.E.d).

    Args:
        big_blind: The big blind of the level the late player sits down in.
        rules: Supplies the multiple and the registration cutoff.

    Returns:
        The chips removed (twice the big blind at BTown).

    Raises:
        StackError: A big blind <= 0, or one after late registration closed.

    >>> from rulings.league.rules import load_league_rules
    >>> late_reduction(600, load_league_rules())
    1200
    """
    if type(big_blind) is not int or big_blind <= 0:
        raise StackError(f"the big blind must be a whole number above 0, not {big_blind!r}")
    if rules.late_max_big_blind and big_blind > rules.late_max_big_blind:
        raise StackError(
            f"late registration is closed at a big blind of {big_blind:,} "
            f"(the last level open to late players is {rules.late_max_big_blind:,})"
        )
    return rules.late_penalty_big_blinds * big_blind


def late_big_blinds(rules: LeagueRules) -> tuple[int, ...]:
    """The big blinds a late player may sit down at (1.E.d).

    The league structure's levels up to the end of late registration; a sign-in during that
    break takes the level after it.

    >>> from rulings.league.rules import load_league_rules
    >>> late_big_blinds(load_league_rules())
    (200, 400, 600, 800, 1000, 2000)
    """
    structure = load_structure(rules.blind_structure)
    steps = structure.steps
    last = structure.late_registration_step
    if last is None:
        last = len(steps) - 1
    elif isinstance(steps[last], Break) and last + 1 < len(steps):
        last += 1
    levels = (s.big_blind for s in steps[: last + 1] if isinstance(s, BlindLevel))
    return tuple(dict.fromkeys(levels))


def check_late_big_blind(big_blind: int, rules: LeagueRules) -> None:
    """Refuse a late big blind that is not one of the league structure's (``late_big_blinds``).

    Raises:
        StackError: naming the valid values.
    """
    valid = late_big_blinds(rules)
    if big_blind not in valid:
        shown = ", ".join(f"{b:,}" for b in valid)
        raise StackError(
            f"big_blind: {big_blind:,} is not a big blind of the {rules.blind_structure} "
            f"structure open to late players; give one of {shown}"
        )


def starting_stack(arrival: Arrival, rules: LeagueRules) -> StartingStack:
    """Compute a player's starting stack.

    Args:
        arrival: How and when the player signed in.
        rules: The league's stack numbers.

    Returns:
        The stack with its parts.

    Raises:
        StackError: A negative count of new players, a big blind past the late-registration
            cutoff, or a penalty eating the stack. A late player's extras (early, on time,
            birthday, new player) are not given and ``not_awarded`` says why (1.E.d).
    """
    late = arrival.late_big_blind is not None
    if arrival.new_players_brought < 0:
        raise StackError("the number of new players brought cannot be negative")
    extras: list[tuple[str, int]] = []
    refused: list[str] = []
    late_rule, cap_rule = _section(rules, "late_registration"), _section(rules, "extra_chips")
    combined = [
        ("signed in early", arrival.early_signin, rules.early_signin_chips),
        ("seated on time", arrival.on_time, rules.on_time_chips),
        ("birthday event", arrival.birthday, rules.birthday_chips),
    ]
    room = rules.combined_extra_cap
    for label, earned, chips in combined:
        if not earned or not chips:
            continue
        if late:
            refused.append(f"{label}: late players get no extra chips{late_rule}")
            continue
        given = min(chips, room)
        room -= given
        if given:
            extras.append((label, given))
        if given < chips:
            refused.append(
                f"{label}: {chips - given:,} over the {rules.combined_extra_cap:,} cap{cap_rule}"
            )
    if arrival.new_player and rules.new_player_chips:
        if arrival.events_played > 0:
            nights = "night" if arrival.events_played == 1 else "nights"
            refused.append(
                f"new player: {arrival.events_played} {nights} already stored; the chips are "
                f"for the first night only{_section(rules, 'starting_stack')}"
            )
        elif late:
            refused.append(f"new player: late players get no extra chips{late_rule}")
        else:
            extras.append(("new player", rules.new_player_chips))
    counted = min(arrival.new_players_brought, rules.referral_max_players)
    if counted and rules.referral_chips:
        players = "player" if counted == 1 else "players"
        extras.append((f"brought {counted} new {players}", counted * rules.referral_chips))
    if rules.referral_chips and arrival.new_players_brought > counted:
        refused.append(
            f"brought {arrival.new_players_brought} new players: only "
            f"{rules.referral_max_players} count per night"
        )
    big_blind = arrival.late_big_blind
    reduction = late_reduction(big_blind, rules) if big_blind is not None else 0
    gross = rules.starting_stack + sum(c for _, c in extras)
    if reduction >= gross:
        raise StackError(
            f"removing {reduction:,} chips would leave nothing of a {gross:,} stack; "
            "late registration should have closed"
        )
    return StartingStack(
        rules.starting_stack, tuple(extras), reduction, gross - reduction, tuple(refused)
    )


def _section(rules: LeagueRules, topic: str) -> str:
    """`` (2.C.b.1)``: the home book's section on ``topic``, or nothing when it has none."""
    section = rules.citations.get(topic)
    return f" ({section})" if section else ""

"""The three-strikes suspension system (BTown 3.B).

Strike 1 suspends for 3 events, strike 2 for 9; strike 3 suspends for the rest of the season
and its TOC and forfeits the season's points and prizes. The committee may skip straight to
strike 2 or 3 (3.B.b). A strike stays on the record for the rest of its season and the whole
next full season, then expires (3.B.e). Seasons are named by the league and given here in
the order they were played.

>>> from rulings.league.rules import load_league_rules
>>> rules = load_league_rules()
>>> suspension_events(1, rules), suspension_events(3, rules)
(3, None)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rulings.errors import StrikeError
from rulings.league.names import name_key
from rulings.league.rules import LeagueRules

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Strike:
    """A strike as storage records it.

    Attributes:
        player: Who received it.
        season: The season in which it was issued.
        level: 1, 2 or 3 (up to ``strike_forfeit_level``).
        reason: Why (shown to the player).
    """

    player: str
    season: str
    level: int
    reason: str = ""


@dataclass(frozen=True)
class Suspension:
    """A suspension's state after some events.

    Attributes:
        player: Who is suspended.
        level: The strike level that caused it.
        events_total: Events suspended, or None for the rest of the season and the TOC.
        events_remaining: Events still to sit out (None for the rest of the season).
        forfeits_season: True at the forfeit level: season points and TOC are lost.
    """

    player: str
    level: int
    events_total: int | None
    events_remaining: int | None
    forfeits_season: bool

    @property
    def is_active(self) -> bool:
        """Whether the player may not play yet."""
        return self.events_remaining is None or self.events_remaining > 0


def check_level(level: int, rules: LeagueRules) -> int:
    """Check a strike level.

    Args:
        level: The level as given.
        rules: Supplies the forfeit (highest) level.

    Returns:
        The level.

    Raises:
        StrikeError: Not a level from 1 to the forfeit level.
    """
    if type(level) is not int or not 1 <= level <= rules.strike_forfeit_level:
        raise StrikeError(f"strike level must be 1 to {rules.strike_forfeit_level}, not {level!r}")
    return level


def suspension_events(level: int, rules: LeagueRules) -> int | None:
    """Events suspended at a strike level (3.B.d).

    Args:
        level: The strike level.
        rules: Supplies the table.

    Returns:
        The number of events, or None for the rest of the season including the TOC.

    Raises:
        StrikeError: An unknown level.
    """
    check_level(level, rules)
    if level == rules.strike_forfeit_level:
        return None
    return rules.strike_suspension_events[level - 1]


def _season_index(season: str, seasons: Sequence[str]) -> int:
    keys = [name_key(s) for s in seasons]
    try:
        return keys.index(name_key(season))
    except ValueError:
        raise StrikeError(f"unknown season {season!r}") from None


def is_strike_active(
    strike: Strike, current_season: str, seasons: Sequence[str], rules: LeagueRules
) -> bool:
    """Whether a strike is still on the record in ``current_season`` (3.B.e).

    Args:
        strike: The strike.
        current_season: The season being asked about.
        seasons: Every season name, oldest first.
        rules: Supplies ``strike_expiry_full_seasons``.

    Returns:
        True from the strike's season through the following full season(s).

    Raises:
        StrikeError: A season not in ``seasons``.

    >>> from rulings.league.rules import load_league_rules
    >>> s = Strike("Moe", "2026 Spring", 1)
    >>> order = ["2026 Spring", "2026 Fall", "2027 Spring"]
    >>> [is_strike_active(s, x, order, load_league_rules()) for x in order]
    [True, True, False]
    """
    issued = _season_index(strike.season, seasons)
    now = _season_index(current_season, seasons)
    return issued <= now <= issued + rules.strike_expiry_full_seasons


def active_strikes(
    strikes: Iterable[Strike],
    player: str,
    current_season: str,
    seasons: Sequence[str],
    rules: LeagueRules,
) -> list[Strike]:
    """A player's strikes still on the record.

    Args:
        strikes: Strikes of any players (e.g. the committee's removals already left out).
        player: The player, compared case-insensitively.
        current_season: The season being asked about.
        seasons: Every season name, oldest first.
        rules: The league's rules.

    Returns:
        The player's active strikes, oldest season first.

    Raises:
        StrikeError: A season not in ``seasons``.
    """
    key = name_key(player)
    mine = [
        s
        for s in strikes
        if name_key(s.player) == key and is_strike_active(s, current_season, seasons, rules)
    ]
    return sorted(mine, key=lambda s: (_season_index(s.season, seasons), s.level))


def next_strike_level(
    active: Iterable[Strike], rules: LeagueRules, *, skip_to: int | None = None
) -> int:
    """The level of a new strike: one above the highest active, or higher if skipped to.

    Args:
        active: The player's active strikes.
        rules: Supplies the forfeit level (the cap).
        skip_to: A level the committee skips to (3.B.b), if any.

    Returns:
        The new strike's level.

    Raises:
        StrikeError: ``skip_to`` is not a valid level.

    >>> from rulings.league.rules import load_league_rules
    >>> next_strike_level([Strike("Moe", "2026 Fall", 1)], load_league_rules())
    2
    """
    highest = max((s.level for s in active), default=0)
    level = min(highest + 1, rules.strike_forfeit_level)
    if skip_to is not None:
        level = max(level, check_level(skip_to, rules))
    return level


def suspension(strike: Strike, events_since: int, rules: LeagueRules) -> Suspension:
    """A strike's suspension after ``events_since`` league events have been held.

    Args:
        strike: The strike.
        events_since: League events held since the strike (the ones the player sat out).
        rules: The league's rules.

    Returns:
        The suspension's state.

    Raises:
        StrikeError: A bad level or a negative count.
    """
    if events_since < 0:
        raise StrikeError("events since the strike cannot be negative")
    total = suspension_events(strike.level, rules)
    remaining = None if total is None else max(0, total - events_since)
    return Suspension(
        strike.player, strike.level, total, remaining, strike.level == rules.strike_forfeit_level
    )


def forfeits_season(
    strikes: Iterable[Strike], player: str, season: str, rules: LeagueRules
) -> bool:
    """Whether a player forfeited a season's points and TOC (strike 3 in that season).

    Args:
        strikes: Recorded strikes.
        player: The player, compared case-insensitively.
        season: The season.
        rules: Supplies the forfeit level.

    Returns:
        True if a forfeit-level strike was issued to the player in that season.
    """
    key, season_key = name_key(player), name_key(season)
    return any(
        name_key(s.player) == key
        and name_key(s.season) == season_key
        and s.level >= rules.strike_forfeit_level
        for s in strikes
    )

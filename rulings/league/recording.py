"""What may be recorded for a night: one person once, awards to players of the event, suspensions.

Storage applies these rules in the same transaction as the write, after it has looked up which
names are already known (a name or an alias of a stored player):

- ``canonical_record`` rewrites every name to the player it names, so ``Ali`` (an alias of
  ``Alice``) is ``Alice`` everywhere in the record; one person listed twice under two spellings
  is refused naming both (1: an alias resolves to its player everywhere).
- ``check_awards`` refuses an award to someone who did not play the event: a bounty, premium
  hand, second-chance win or receipt names a player of the finish order or of ``played`` (6).
- ``suspension_for_event`` says whether a strike (3.B) keeps a player out of an event on a given
  night: strikes 1 and 2 count down per league event recorded after the strike's date; the
  forfeit level keeps him out for the rest of the strike's season.

>>> from rulings.league.events import build_event
>>> night = build_event(season="2026 Fall", location="Brewpub", date="2026-11-20",
...     kind="regular", finish=[["Alice"], ["Bob"]], bounties={"Ali": 1})
>>> canonical_record(night, {"ali": "Alice"}).bounties["Alice"]
1
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from rulings.errors import EventFormatError
from rulings.league.events import EventRecord, PremiumHand, Receipt
from rulings.league.names import name_key, similar_name
from rulings.league.rules import LeagueRules
from rulings.league.strikes import Strike, Suspension, suspension

log = logging.getLogger(__name__)


_key = name_key

_CLOSE_NAME = 70.0
"""A name this close (rapidfuzz ratio) to a player of the event is offered as the one meant."""


def canonical_record(record: EventRecord, known: Mapping[str, str]) -> EventRecord:
    """Return ``record`` with every name replaced by the name of the player it names.

    Args:
        record: A checked record (``parse_event``/``build_event``).
        known: Name key (case-folded, blanks collapsed) of every name in the record that
            belongs to a stored player (his display name or an alias) -> that player's display
            name. Names not in ``known`` are new players and keep their spelling.

    Returns:
        The record in players' names; unchanged when nothing is renamed.

    Raises:
        EventFormatError: one player appears twice in the finish order and ``played`` (or
            twice in ``bounties``) under different spellings; the message names both.
    """

    def name(raw: str) -> str:
        return known.get(_key(raw), raw)

    seen: dict[str, str] = {}  # player key -> spelling first seen

    def once(raw: str, where: str, bucket: dict[str, str]) -> str:
        canonical = name(raw)
        key = _key(canonical)
        if key in bucket and _key(bucket[key]) != _key(raw):
            raise EventFormatError(
                f"{where}: '{bucket[key]}' and '{raw}' are the same player ({canonical}); "
                "list them once"
            )
        bucket.setdefault(key, raw)
        return canonical

    finish = tuple(
        tuple(once(n, f"finish place of {n}", seen) for n in group) for group in record.finish
    )
    played = tuple(once(n, "played", seen) for n in record.played)
    bounty_seen: dict[str, str] = {}
    bounties = {once(n, "bounties", bounty_seen): c for n, c in record.bounties.items()}
    out = dataclasses.replace(
        record,
        finish=finish,
        played=played,
        bounties=MappingProxyType(bounties),
        premium_hands=tuple(PremiumHand(name(h.player), h.hand) for h in record.premium_hands),
        second_chance_winners=tuple(name(n) for n in record.second_chance_winners),
        receipts=tuple(
            Receipt(name(r.player), r.amount_cents, r.ref, r.image_url) for r in record.receipts
        ),
    )
    return record if out == record else out


def check_awards(record: EventRecord) -> EventRecord:
    """Refuse an award to a player who is neither in the finish order nor in ``played``.

    An award does not make a player a participant: a bounty for someone who was not there
    would count an event played for him (and change the tie-break order), and a misspelt
    name would create a new player.

    Args:
        record: The record, in players' names (``canonical_record``).

    Returns:
        ``record``.

    Raises:
        EventFormatError: naming the award and the player.

    >>> from rulings.league.events import build_event
    >>> check_awards(build_event(season="S", location="L", date="2026-11-20", kind="regular",
    ...     finish=[["Alice"]], played=["Zed"], second_chance_winners=["Zed"])).played
    ('Zed',)
    """
    everyone = [n for group in record.finish for n in group] + list(record.played)
    players = {_key(n): n for n in everyone}
    awards: list[tuple[str, Iterable[str]]] = [
        ("bounties", record.bounties.keys()),
        ("premium_hands", (h.player for h in record.premium_hands)),
        ("second_chance_winners", record.second_chance_winners),
        ("receipts", (r.player for r in record.receipts)),
    ]
    for what, names in awards:
        for n in names:
            if _key(n) not in players:
                close = similar_name(_key(n), players, _CLOSE_NAME)
                hint = f"did you mean '{close}'? If not, " if close else ""
                raise EventFormatError(
                    f"{what}: {n} did not play this event; {hint}add {n} to played first"
                )
    return record


def suspension_for_event(
    strike: Strike,
    *,
    strike_date: dt.date,
    event_date: dt.date,
    event_season: str,
    events_since: int,
    rules: LeagueRules,
) -> Suspension | None:
    """The suspension that keeps a player out of an event, if any (3.B.a, 3.B.d).

    Args:
        strike: The strike.
        strike_date: The day it was given.
        event_date: The night being recorded.
        event_season: That night's season.
        events_since: League events recorded after ``strike_date`` and before ``event_date``
            (the ones he sat out, or should have).
        rules: The league's rules.

    Returns:
        The active suspension (``events_remaining`` left, None for the rest of the season), or
        None when the strike does not keep him out of this event.

    >>> from rulings.league.rules import load_league_rules
    >>> s = Strike("Eve", "2026 Fall", 1)
    >>> day = dt.date(2026, 11, 1)
    >>> suspension_for_event(s, strike_date=day, event_date=dt.date(2026, 11, 8),
    ...     event_season="2026 Fall", events_since=1, rules=load_league_rules()).events_remaining
    2
    """
    if event_date <= strike_date:
        return None
    state = suspension(strike, events_since, rules)
    if state.forfeits_season:
        return state if _key(event_season) == _key(strike.season) else None
    return state if state.is_active else None


def describe_suspension(state: Suspension, strike_date: dt.date) -> str:
    """Say what a suspension means for the night being recorded.

    >>> from rulings.league.strikes import Suspension
    >>> describe_suspension(Suspension("Eve", 1, 3, 2, False), dt.date(2026, 11, 1))
    'Eve is suspended (strike 1 on 2026-11-01): 2 of 3 events left (3.B)'
    """
    since = f"strike {state.level} on {strike_date.isoformat()}"
    if state.events_remaining is None:
        return f"{state.player} is suspended ({since}) for the rest of the season and its TOC (3.B)"
    left = state.events_remaining
    return (
        f"{state.player} is suspended ({since}): {left} of {state.events_total} "
        f"event{'s' if state.events_total != 1 else ''} left (3.B)"
    )

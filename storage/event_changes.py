"""Director changes to one stored event: awards added after the night, corrections, imports.

The bot's director commands work on one event at a time (a bounty turned in late, a receipt,
a corrected finish). Each change rebuilds the event's record in the import format, checks it
with ``rulings.parse_event`` and stores it with ``storage.events.import_events(correct=True)``,
so points are recomputed by the engine, the audit log keeps the event before and after, and a
bad change writes nothing. A void event is never changed (it would silently count again).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from rulings import EventRecord, LeagueRules, Receipt, name_key, parse_event
from storage.audit import add_audit_entry
from storage.errors import StorageError
from storage.events import ImportOutcome, get_event, import_events
from storage.guild_settings import ensure_guild_league
from storage.leagues import get_league_rules
from storage.seasons import get_season

log = logging.getLogger(__name__)

RecordBuilder = Callable[[LeagueRules, str | None], Sequence[EventRecord]]
"""Builds the events to import from the league's rules and the current season's name."""


@dataclass(frozen=True)
class EventEdit:
    """One director change to a stored event (only the given parts change).

    Attributes:
        finish: A new finish order (tie groups, 1st first).
        played: A new list of players out of the points (None keeps it).
        bounty: ``(player, chips)``: sets that player's bounty chips (0 removes them).
        premium_hand: ``(player, hand)``: adds a premium hand won at showdown.
        second_chance_winner: Adds one second-chance win.
        receipt: Adds a receipt.
    """

    finish: tuple[tuple[str, ...], ...] | None = None
    played: tuple[str, ...] | None = None
    bounty: tuple[str, int] | None = None
    premium_hand: tuple[str, str] | None = None
    second_chance_winner: str | None = None
    receipt: Receipt | None = None

    def describe(self) -> str:
        """Say in a few words what this edit changes."""
        parts: list[str] = []
        if self.finish is not None:
            parts.append("finish order replaced")
        if self.played is not None:
            parts.append("players out of the points replaced")
        if self.bounty is not None:
            parts.append(f"bounty chips of {self.bounty[0]} set to {self.bounty[1]}")
        if self.premium_hand is not None:
            parts.append(f"premium hand ({self.premium_hand[1]}) for {self.premium_hand[0]}")
        if self.second_chance_winner is not None:
            parts.append(f"second-chance win for {self.second_chance_winner}")
        if self.receipt is not None:
            r = self.receipt
            ref = f" ref {r.ref}" if r.ref else ""
            parts.append(f"receipt ${r.amount_cents // 100}.{r.amount_cents % 100:02d}{ref}")
            parts[-1] += f" for {r.player}"
        return "; ".join(parts) or "nothing"


def _receipt_json(r: Receipt) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "player": r.player,
        "amount": f"{r.amount_cents // 100}.{r.amount_cents % 100:02d}",
    }
    if r.ref:
        entry["ref"] = r.ref
    if r.image_url:
        entry["image_url"] = r.image_url
    return entry


def apply_edit(record: dict[str, Any], edit: EventEdit) -> dict[str, Any]:
    """Return a copy of ``record`` (the JSON import format) with ``edit`` applied."""
    out = dict(record)
    if edit.finish is not None:
        out["finish"] = [list(group) for group in edit.finish]
    if edit.played is not None:
        out["played"] = list(edit.played)
    if edit.bounty is not None:
        player, chips = edit.bounty
        bounties = {
            n: c
            for n, c in dict(out.get("bounties") or {}).items()
            if name_key(n) != name_key(player)
        }
        if chips:
            bounties[player] = chips
        out["bounties"] = bounties
    if edit.premium_hand is not None:
        player, hand = edit.premium_hand
        out["premium_hands"] = [*out.get("premium_hands", []), {"player": player, "hand": hand}]
    if edit.second_chance_winner is not None:
        out["second_chance_winners"] = [
            *out.get("second_chance_winners", []),
            edit.second_chance_winner,
        ]
    if edit.receipt is not None:
        out["receipts"] = [*out.get("receipts", []), _receipt_json(edit.receipt)]
    # A name now in the finish order must not also stay in "played".
    finishers = {name_key(n) for group in out["finish"] for n in group}
    if out.get("played"):
        out["played"] = [n for n in out["played"] if name_key(n) not in finishers]
    return out


def amend_event(
    *,
    session: Session,
    league_id: int,
    event_id: int,
    edit: EventEdit,
    actor: str,
    reason: str | None = None,
    allow_new: bool | Collection[str] = False,
    now: dt.datetime | None = None,
) -> ImportOutcome:
    """Change one stored event and recompute its points, all or nothing.

    Args:
        session: The unit of work (flushed, never committed).
        league_id: The league.
        event_id: The event's number.
        edit: What changes.
        actor: Who changes it, for the audit log.
        reason: Why (kept in the audit log; required for a corrected finish order).
        allow_new: Confirms new player names that resemble known ones (True for all).
        now: The time of the change (UTC).

    Returns:
        The outcome: ``corrected``, or ``unchanged`` when the edit changes nothing.

    Raises:
        NotFound: no such event.
        StorageError: the event is void, or a correction has no reason.
        EventFormatError: the changed event breaks the format (a name twice, a gap...).
        DuplicatePlayerError: a new name resembles a known player's.
        DuplicateReceiptError: the receipt reference was already counted at the location.
    """
    detail = get_event(session=session, league_id=league_id, event_id=event_id)
    if detail.event.status == "void":
        raise StorageError(f"event #{event_id} is void ({detail.event.void_reason}); not changed")
    why = " ".join((reason or "").split())
    if edit.finish is not None and not why:
        raise StorageError("correcting a finish order needs a reason")
    rules = get_league_rules(session=session, league_id=league_id)
    record = parse_event(
        apply_edit(dict(detail.record), edit), max_receipt_cents=rules.receipt_max_cents
    )
    (outcome,) = import_events(
        [record],
        session=session,
        league_id=league_id,
        actor=actor,
        now=now,
        allow_new=allow_new,
        correct=True,
    )
    if outcome.status != "unchanged":
        add_audit_entry(
            session=session,
            league_id=league_id,
            actor=actor,
            action="event.amend",
            target=f"event:{event_id}",
            after={"change": edit.describe(), "reason": why or None},
            now=now,
        )
    return outcome


def record_guild_events(
    *,
    session: Session,
    guild_id: int | None,
    build: RecordBuilder,
    actor: str,
    allow_new: bool | Collection[str] = False,
    now: dt.datetime | None = None,
) -> list[ImportOutcome]:
    """Import events into a server's league (created on its first write), all or nothing.

    Args:
        session: The unit of work.
        guild_id: The Discord server; None is the console's ``default`` league.
        build: Makes the records from the league's rules and the current season's name
            (None before any season exists).
        actor: Who records them, for the audit log.
        allow_new: Confirms new names that resemble known ones (True for all).
        now: The time of the import (UTC).

    Returns:
        One outcome per event (``imported``, ``unchanged`` or, never here, ``corrected``).
    """
    from storage.leagues import ensure_league

    if guild_id is None:
        league = ensure_league(session=session, actor=actor, now=now)
    else:
        league = ensure_guild_league(session=session, guild_id=guild_id, actor=actor, now=now)
    rules = get_league_rules(session=session, league_id=league.id)
    try:
        current: str | None = get_season(session=session, league_id=league.id).name
    except StorageError:
        current = None
    records = build(rules, current)
    return import_events(
        records, session=session, league_id=league.id, actor=actor, now=now, allow_new=allow_new
    )


def event_record(*, session: Session, league_id: int, event_id: int) -> dict[str, Any]:
    """Return a stored event in the JSON import format (what ``amend_event`` starts from)."""
    return dict(get_event(session=session, league_id=league_id, event_id=event_id).record)


__all__ = [
    "EventEdit",
    "RecordBuilder",
    "amend_event",
    "apply_edit",
    "event_record",
    "record_guild_events",
]

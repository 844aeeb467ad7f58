"""Director changes to one stored event: awards added after the night, corrections, imports.

The bot's director commands work on one event at a time (a bounty turned in late, a receipt,
a corrected finish). Each change rebuilds the event's record in the import format, checks it
with ``rulings.parse_event`` and stores it with ``storage.event_import.correct_events``
(``revive_event`` for a void one), so points are recomputed by the engine, the audit log keeps
the event before and after, and a bad change writes nothing. A void event is never changed (it
would silently count again).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session, col, select

from rulings import (
    SIMILAR_NAME_SCORE,
    EventRecord,
    LeagueRules,
    Receipt,
    check_id,
    name_key,
    parse_event,
    parse_premium_hand,
    similar_name,
)
from storage.audit import add_audit_entry
from storage.errors import StorageError, UnconfirmedNameError
from storage.event_import import correct_events, import_events, revive_event
from storage.events import ImportOutcome, get_event
from storage.guild_settings import ensure_guild_league
from storage.league_models import Event, Location, Season
from storage.leagues import ensure_league, get_league_rules
from storage.players import PlayerDirectory
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
        remove: Takes the award back instead of adding it: the player's bounty, one premium
            hand of that player and kind, one second-chance win of that player, or the receipt
            with ``receipt.ref`` (by its reference, any case; without a reference, the
            player's receipt of that amount).
    """

    finish: tuple[tuple[str, ...], ...] | None = None
    played: tuple[str, ...] | None = None
    bounty: tuple[str, int] | None = None
    premium_hand: tuple[str, str] | None = None
    second_chance_winner: str | None = None
    receipt: Receipt | None = None
    remove: bool = False

    def describe(self) -> str:
        """Say in a few words what this edit changes."""
        parts: list[str] = []
        if self.finish is not None:
            parts.append("finish order replaced")
        if self.played is not None:
            parts.append("players out of the points replaced")
        if self.bounty is not None:
            if self.remove or not self.bounty[1]:
                parts.append(f"bounty of {self.bounty[0]} removed")
            else:
                parts.append(f"bounty chips of {self.bounty[0]} set to {self.bounty[1]}")
        verb = "removed" if self.remove else ""
        if self.premium_hand is not None:
            what = f"premium hand ({self.premium_hand[1]}) for {self.premium_hand[0]}"
            parts.append(f"{what} {verb}".strip())
        if self.second_chance_winner is not None:
            parts.append(f"second-chance win for {self.second_chance_winner} {verb}".strip())
        if self.receipt is not None:
            r = self.receipt
            ref = f" ref {r.ref}" if r.ref else ""
            amount = (
                f" ${r.amount_cents // 100}.{r.amount_cents % 100:02d}" if r.amount_cents else ""
            )
            parts.append(f"receipt{amount}{ref} for {r.player} {verb}".strip())
        return "; ".join(parts) or "nothing"

    def players(self) -> tuple[str, ...]:
        """The player names this edit's awards name."""
        names = [
            self.bounty[0] if self.bounty else None,
            self.premium_hand[0] if self.premium_hand else None,
            self.second_chance_winner,
            self.receipt.player if self.receipt else None,
        ]
        return tuple(n for n in names if n)

    def renamed(self, known: Mapping[str, str]) -> EventEdit:
        """The same edit with award names replaced by their players' names (aliases)."""

        def name(raw: str) -> str:
            return known.get(name_key(raw), raw)

        return replace(
            self,
            bounty=(name(self.bounty[0]), self.bounty[1]) if self.bounty else None,
            premium_hand=(
                (name(self.premium_hand[0]), self.premium_hand[1]) if self.premium_hand else None
            ),
            second_chance_winner=(
                name(self.second_chance_winner) if self.second_chance_winner else None
            ),
            receipt=replace(self.receipt, player=name(self.receipt.player))
            if self.receipt
            else None,
        )


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


def _without_one(items: list[Any], match: Callable[[Any], bool], what: str) -> list[Any]:
    for i, item in enumerate(items):
        if match(item):
            return items[:i] + items[i + 1 :]
    raise StorageError(f"there is no {what} to remove")


def _remove(out: dict[str, Any], edit: EventEdit, event_label: str) -> None:
    k = name_key
    if edit.bounty is not None:
        player = edit.bounty[0]
        bounties = dict(out.get("bounties") or {})
        kept = {n: c for n, c in bounties.items() if k(n) != k(player)}
        if len(kept) == len(bounties):
            raise StorageError(f"{player} has no bounty at {event_label} to remove")
        out["bounties"] = kept
    if edit.premium_hand is not None:
        player, hand = edit.premium_hand
        hand_key = parse_premium_hand(hand)
        out["premium_hands"] = _without_one(
            list(out.get("premium_hands") or []),
            lambda h: k(h["player"]) == k(player) and parse_premium_hand(h["hand"]) == hand_key,
            f"premium hand ({hand_key}) of {player} at {event_label}",
        )
    if edit.second_chance_winner is not None:
        player = edit.second_chance_winner
        out["second_chance_winners"] = _without_one(
            list(out.get("second_chance_winners") or []),
            lambda n: k(n) == k(player),
            f"second-chance win of {player} at {event_label}",
        )
    if edit.receipt is not None:
        r = edit.receipt
        if r.ref:
            ref = r.ref.strip().lower()
            match: Callable[[Any], bool] = lambda e: str(e.get("ref") or "").lower() == ref  # noqa: E731
            what = f"receipt {r.ref.strip()} at {event_label}"
        else:
            amount = f"{r.amount_cents // 100}.{r.amount_cents % 100:02d}"
            match = lambda e: k(e["player"]) == k(r.player) and e["amount"] == amount  # noqa: E731
            what = f"receipt of ${amount} for {r.player} at {event_label}"
        out["receipts"] = _without_one(list(out.get("receipts") or []), match, what)


def apply_edit(
    record: dict[str, Any], edit: EventEdit, event_label: str = "this event"
) -> dict[str, Any]:
    """Return a copy of ``record`` (the JSON import format) with ``edit`` applied.

    Raises:
        StorageError: ``edit.remove`` of an award the event does not hold.
    """
    out = dict(record)
    if edit.finish is not None:
        out["finish"] = [list(group) for group in edit.finish]
    if edit.played is not None:
        out["played"] = list(edit.played)
    if edit.remove:
        _remove(out, edit, event_label)
        return out
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


def _check_night_free(session: Session, league_id: int, event_id: int) -> None:
    """Refuse to un-void an event whose night was entered again (one active event a night)."""
    void = session.get(Event, event_id)
    assert void is not None
    again = session.exec(
        select(Event.id).where(
            Event.league_id == league_id,
            Event.season_id == void.season_id,
            Event.location_id == void.location_id,
            Event.date == void.date,
            Event.kind == void.kind,
            col(Event.status) == "active",
        )
    ).first()
    if again is not None:
        raise StorageError(
            f"event #{event_id}'s night was entered again as #{again}; correct #{again}, "
            f"or void it before un-voiding #{event_id}"
        )


def amend_event(
    *,
    session: Session,
    league_id: int,
    event_id: int,
    edit: EventEdit,
    actor: str,
    reason: str | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
    unvoid: bool = False,
    now: dt.datetime | None = None,
) -> ImportOutcome:
    """Change one stored event and recompute its points, all or nothing.

    Args:
        session: The unit of work (flushed, never committed).
        league_id: The league.
        event_id: The event's number.
        edit: What changes (``edit.remove`` takes an award back).
        actor: Who changes it, for the audit log.
        reason: Why (kept in the audit log; required for a corrected finish order).
        allow_new: Confirms new player names that resemble known ones (True for all).
        allow_suspended: Confirms players under suspension added by the change (3.B).
        unvoid: A void event is changed and counts again; without it a void event is refused.
        now: The time of the change (UTC).

    Returns:
        The outcome: ``corrected`` (with the points each player gained or lost in
        ``changes``), or ``unchanged`` when the edit changes nothing.

    Raises:
        NotFound: no such event.
        StorageError: the event is void (and ``unvoid`` is off), a correction has no reason,
            or an award to remove is not there.
        EventFormatError: the changed event breaks the format (a name twice, an award to
            someone who did not play...).
        DuplicatePlayerError: a new name resembles a known player's.
        DuplicateReceiptError: the receipt reference was already counted at the location.
        SuspendedPlayerError: the change adds a suspended player and is not confirmed.
    """
    check_id(event_id)
    detail = get_event(session=session, league_id=league_id, event_id=event_id)
    if detail.event.status == "void" and not unvoid:
        raise StorageError(
            f"event #{event_id} is void ({detail.event.void_reason}); not changed "
            "(un-void it explicitly: unvoid:yes, or --unvoid)"
        )
    if detail.event.status == "void":
        _check_night_free(session, league_id, event_id)
    why = " ".join((reason or "").split())
    if edit.finish is not None and not why:
        raise StorageError("correcting a finish order needs a reason")
    rules = get_league_rules(session=session, league_id=league_id)
    directory = PlayerDirectory(session, league_id)
    edit = edit.renamed(directory.known_names(edit.players()))
    label = f"event #{event_id}"
    record = parse_event(
        apply_edit(dict(detail.record), edit, label), max_receipt_cents=rules.receipt_max_cents
    )
    if detail.event.status == "void":
        outcome = revive_event(
            record,
            event_id=event_id,
            session=session,
            league_id=league_id,
            actor=actor,
            now=now,
            allow_new=allow_new,
            allow_suspended=allow_suspended,
        )
    else:
        (outcome,) = correct_events(
            [record],
            session=session,
            league_id=league_id,
            actor=actor,
            now=now,
            allow_new=allow_new,
            allow_suspended=allow_suspended,
        )
    if outcome.status != "unchanged":
        add_audit_entry(
            session=session,
            league_id=league_id,
            actor=actor,
            action="event.amend",
            target=f"event:{event_id}",
            after={
                "change": edit.describe(),
                "reason": why or None,
                "points": {n: list(d) for n, d in outcome.changes.items()},
            },
            now=now,
        )
    return outcome


def _check_new_places(
    session: Session,
    league_id: int,
    records: Sequence[EventRecord],
    allow_new: bool | Collection[str],
) -> None:
    """Refuse a season or location the league never had unless confirmed (like a new player).

    A typed result naming ``Mars Base`` is far more often a slip than a new bar; the league's
    first season and first location need no confirmation (there is nothing to mistype).

    Raises:
        UnconfirmedNameError: an unconfirmed new season or location.
    """
    if allow_new is True:
        return
    confirmed = set() if allow_new is False else {name_key(n) for n in allow_new}
    for what, table in (("season", Season), ("location", Location)):
        known = dict(
            session.exec(
                select(table.name_key, table.name).where(table.league_id == league_id)
            ).all()
        )
        if not known:
            continue
        for record in records:
            name = record.season if what == "season" else record.location
            key = name_key(name)
            if key in known or key in confirmed or similar_name(key, known, SIMILAR_NAME_SCORE):
                continue  # a look-alike is refused by the import, naming the existing one
            raise UnconfirmedNameError(what, name, sorted(known.values()))


def record_guild_events(
    *,
    session: Session,
    guild_id: int | None,
    build: RecordBuilder,
    actor: str,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
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
        allow_suspended: Records players under suspension anyway (3.B; True for all).
        now: The time of the import (UTC).

    Returns:
        One outcome per event (``imported``, ``unchanged`` or, never here, ``corrected``).
    """
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
    _check_new_places(session, league.id, records, allow_new)
    return import_events(
        records,
        session=session,
        league_id=league.id,
        actor=actor,
        now=now,
        allow_new=allow_new,
        allow_suspended=allow_suspended,
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

"""Event records as directors type or import them, checked before anything is scored.

An event's ``finish`` runs from 1st place down; a group of several names is a tie covering
as many positions as it has names (2.G.e.2). ``finish`` may list only the points finishers:
``played`` lists everyone else who took a seat, and a player named only in an award
(bounty, premium hand, second-chance win, receipt) also counts as having played.

Names are stripped of surrounding blanks and compared case-insensitively; the first
spelling seen is kept.

>>> parse_finish_text("1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve")
(('Alice',), ('Bob',), ('Carol', 'Dave'), ('Eve',))
"""

from __future__ import annotations

import csv
import datetime
import io
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any, TypeVar

from rulings.errors import EventFormatError
from rulings.league.names import MAX_NAME_LENGTH, check_name, name_key

log = logging.getLogger(__name__)

_T = TypeVar("_T")

EVENT_KINDS = ("regular", "second_chance", "toc")
"""Event kinds: a regular-season night, a stand-alone second-chance game, the TOC."""

MAX_RECEIPT_CENTS = 100_000
"""A single receipt above $1,000.00 is taken for a typo."""

MAX_BOUNTY_CHIPS = 100
"""More bounty chips than this for one player in one night is taken for a typo."""

_AMOUNT = re.compile(r"\$?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?)")
"""Dollars as typed: ``12``, ``12.5``, ``$12.50``, ``1,000.00`` (no exponents, no signs)."""

_HAND_ALIASES = {
    "royal_flush": "royal_flush",
    "royal": "royal_flush",
    "rf": "royal_flush",
    "straight_flush": "straight_flush",
    "sf": "straight_flush",
    "quads": "quads",
    "any_quads": "quads",
    "four_of_a_kind": "quads",
    "4_of_a_kind": "quads",
}

_FIELDS = frozenset(
    {
        "season",
        "location",
        "date",
        "kind",
        "finish",
        "played",
        "bounties",
        "premium_hands",
        "second_chance_winners",
        "receipts",
    }
)


@dataclass(frozen=True)
class Receipt:
    """A food and drink receipt turned in for bonus points (1.C.b).

    Attributes:
        player: Who turned it in.
        amount_cents: The amount in cents (``1250`` is $12.50).
        ref: The receipt's reference number, if any (one receipt counts once per location).
        image_url: A link to a photo of the receipt, if any.
    """

    player: str
    amount_cents: int
    ref: str | None = None
    image_url: str | None = None


@dataclass(frozen=True)
class PremiumHand:
    """A premium hand won at showdown (1.C.a.2).

    Attributes:
        player: Who won with it.
        hand: ``royal_flush``, ``straight_flush`` or ``quads``.
    """

    player: str
    hand: str


def _empty_bounties() -> Mapping[str, int]:
    return MappingProxyType({})


@dataclass(frozen=True)
class EventRecord:
    """One event's results, checked.

    Attributes:
        season: The season's name.
        location: The host location's name.
        date: The day it was played.
        kind: ``regular``, ``second_chance`` or ``toc``.
        finish: 1st place first; a group of several names is a tie.
        played: Others who took a seat (0 points, one event played).
        bounties: Player -> bounty chips turned in.
        premium_hands: Premium hands won at showdown.
        second_chance_winners: One entry per second-chance game won (a name may repeat).
        receipts: Receipts turned in.
    """

    season: str
    location: str
    date: datetime.date
    kind: str
    finish: tuple[tuple[str, ...], ...]
    played: tuple[str, ...] = ()
    bounties: Mapping[str, int] = field(default_factory=_empty_bounties, hash=False)
    premium_hands: tuple[PremiumHand, ...] = ()
    second_chance_winners: tuple[str, ...] = ()
    receipts: tuple[Receipt, ...] = ()

    def participants(self) -> tuple[str, ...]:
        """List everyone who played: finish order first, then ``played``, then award names.

        Returns:
            Each name once, in the spelling first seen.
        """
        seen: dict[str, str] = {}
        names: list[str] = [n for group in self.finish for n in group]
        names += self.played
        names += self.bounties.keys()
        names += (h.player for h in self.premium_hands)
        names += self.second_chance_winners
        names += (r.player for r in self.receipts)
        for name in names:
            seen.setdefault(name_key(name), name)
        return tuple(seen.values())

    def finish_positions(self) -> dict[str, int]:
        """Map each finisher to the best position of their group (a tie at 3rd -> 3).

        Returns:
            Name -> 1-based position.
        """
        out: dict[str, int] = {}
        position = 1
        for group in self.finish:
            for name in group:
                out[name] = position
            position += len(group)
        return out


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EventFormatError(f"{where}: a player name is missing")
    name = " ".join(value.split())
    if len(name) > MAX_NAME_LENGTH:
        raise EventFormatError(
            f"{where}: the name {name[:20]!r}... is longer than {MAX_NAME_LENGTH} characters"
        )
    return check_name(name, where)  # the one cleaning every door applies (names.py)


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise EventFormatError(f"{key}: missing or empty")
    return value.strip()


def parse_date(value: Any, where: str = "date") -> datetime.date:
    """Read an ISO date (``2026-11-20``).

    Args:
        value: A ``datetime.date`` or ISO text.
        where: The field named in an error.

    Returns:
        The date.

    Raises:
        EventFormatError: Not a real calendar date in ``YYYY-MM-DD`` form.
    """
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise EventFormatError(f"{where}: {value!r} is not a date like 2026-11-20")


def parse_kind(value: Any) -> str:
    """Normalise an event kind (``"Second chance"`` -> ``"second_chance"``).

    Args:
        value: The kind as typed.

    Returns:
        One of ``EVENT_KINDS``.

    Raises:
        EventFormatError: An unknown kind.
    """
    key = re.sub(r"[\s-]+", "_", value.strip().lower()) if isinstance(value, str) else ""
    if key not in EVENT_KINDS:
        raise EventFormatError(f"kind: {value!r} is not one of {', '.join(EVENT_KINDS)}")
    return key


def parse_premium_hand(value: Any, where: str = "premium hand") -> str:
    """Normalise a premium hand name (``"Four of a kind"`` -> ``"quads"``).

    Args:
        value: The hand as typed.
        where: The row named in an error.

    Returns:
        ``royal_flush``, ``straight_flush`` or ``quads``.

    Raises:
        EventFormatError: Not a premium hand.
    """
    key = re.sub(r"[\s-]+", "_", value.strip().lower()) if isinstance(value, str) else ""
    if key not in _HAND_ALIASES:
        raise EventFormatError(
            f"{where}: {value!r} is not a premium hand (royal_flush, straight_flush, quads)"
        )
    return _HAND_ALIASES[key]


def parse_amount_cents(
    value: Any, where: str = "receipt", *, max_cents: int = MAX_RECEIPT_CENTS
) -> int:
    """Read a dollar amount (``"12.50"``, ``12.5``, ``"$12"``) as cents.

    Args:
        value: Text or a number of dollars.
        where: The row named in an error.
        max_cents: The largest believable amount.

    Returns:
        The amount in cents.

    Raises:
        EventFormatError: Not an amount, negative, fractions of a cent, or above ``max_cents``.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise EventFormatError(f"{where}: amount {value!r} is not a dollar amount like 12.50")
    text = value.strip() if isinstance(value, str) else str(value)
    match = _AMOUNT.fullmatch(text)
    if match is None:
        if re.fullmatch(r"\$?\d[\d,]*\.\d{3,}", text):
            raise EventFormatError(f"{where}: amount {value!r} has fractions of a cent")
        if text.startswith("-"):
            raise EventFormatError(f"{where}: amount {value!r} is negative")
        raise EventFormatError(
            f"{where}: amount {value!r} is not a dollar amount like 12.50 "
            "(dollars, at most two decimals)"
        )
    try:
        dollars = Decimal(match.group(1).replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits only digits
        raise EventFormatError(
            f"{where}: amount {value!r} is not a dollar amount like 12.50"
        ) from None
    cents = dollars * 100
    if cents == 0:
        raise EventFormatError(f"{where}: amount {value!r} is zero; a receipt is worth something")
    if cents > max_cents:
        raise EventFormatError(
            f"{where}: amount {value!r} is above ${max_cents // 100:,} for one receipt; "
            "check for a typo"
        )
    return int(cents)


def _check_unique(names: Iterable[tuple[str, str]]) -> None:
    seen: dict[str, str] = {}
    for name, where in names:
        key = name_key(name)
        if key in seen:
            raise EventFormatError(f"{where}: {name} is listed twice (also at {seen[key]})")
        seen[key] = where


def _canonical(names: dict[str, str], name: str) -> str:
    return names.setdefault(name_key(name), name)


def build_event(
    *,
    season: str,
    location: str,
    date: Any,
    kind: str,
    finish: Sequence[Sequence[str]],
    played: Sequence[str] = (),
    bounties: Mapping[str, int] | None = None,
    premium_hands: Sequence[PremiumHand] = (),
    second_chance_winners: Sequence[str] = (),
    receipts: Sequence[Receipt] = (),
    max_receipt_cents: int = MAX_RECEIPT_CENTS,
) -> EventRecord:
    """Check and normalise an event given as Python values.

    Args:
        season: The season's name.
        location: The host location's name.
        date: A date or ISO text.
        kind: An event kind (``regular``, ``second_chance``, ``toc``).
        finish: Groups of names, 1st place first.
        played: Others who took a seat.
        bounties: Player -> bounty chips.
        premium_hands: Premium hands won.
        second_chance_winners: One name per second-chance game won.
        receipts: Receipts turned in.
        max_receipt_cents: The largest believable receipt.

    Returns:
        The checked record; award names use the spelling of the finish or ``played`` list.

    Raises:
        EventFormatError: The first problem found, naming its field and row.
    """
    season = check_name(season, "season")
    location = check_name(location, "location")
    when = parse_date(date)
    kind_key = parse_kind(kind)
    canonical: dict[str, str] = {}
    groups: list[tuple[str, ...]] = []
    listed: list[tuple[str, str]] = []
    position = 1
    if isinstance(finish, str) or not isinstance(finish, Sequence):
        raise EventFormatError("finish: must be a list of places, 1st first")
    for i, group in enumerate(finish):
        where = f"finish place {position} (entry {i + 1})"
        entries = [group] if isinstance(group, str) else group
        if not isinstance(entries, Sequence) or not entries:
            raise EventFormatError(f"{where}: empty; every place needs at least one name")
        names = tuple(_canonical(canonical, _name(n, where)) for n in entries)
        listed += [(n, where) for n in names]
        groups.append(names)
        position += len(names)
    if isinstance(played, str) or not isinstance(played, Sequence):
        raise EventFormatError("played: must be a list of names")
    played_names = []
    for i, raw in enumerate(played):
        where = f"played entry {i + 1}"
        name = _canonical(canonical, _name(raw, where))
        listed.append((name, where))
        played_names.append(name)
    _check_unique(listed)

    bounty_map: dict[str, int] = {}
    if bounties is None:
        bounties = {}
    if not isinstance(bounties, Mapping):
        raise EventFormatError("bounties: must map player names to bounty chips")
    bounty_seen: list[tuple[str, str]] = []
    for raw, chips in bounties.items():
        where = f"bounties[{raw!r}]"
        name = _canonical(canonical, _name(raw, where))
        bounty_seen.append((name, where))
        if type(chips) is not int or chips < 0:
            raise EventFormatError(f"{where}: chips must be a whole number >= 0, not {chips!r}")
        if chips > MAX_BOUNTY_CHIPS:
            raise EventFormatError(
                f"{where}: {chips} bounty chips is more than {MAX_BOUNTY_CHIPS}; check for a typo"
            )
        bounty_map[name] = chips
    _check_unique(bounty_seen)

    hands: list[PremiumHand] = []
    for i, entry in enumerate(premium_hands):
        where = f"premium_hands entry {i + 1}"
        if not isinstance(entry, PremiumHand):
            raise EventFormatError(f"{where}: must give a player and a hand")
        name = _canonical(canonical, _name(entry.player, where))
        hands.append(PremiumHand(name, parse_premium_hand(entry.hand, where)))

    if isinstance(second_chance_winners, str) or not isinstance(second_chance_winners, Sequence):
        raise EventFormatError("second_chance_winners: must be a list of names")
    winners = tuple(
        _canonical(canonical, _name(n, f"second_chance_winners entry {i + 1}"))
        for i, n in enumerate(second_chance_winners)
    )

    checked_receipts: list[Receipt] = []
    refs: dict[str, int] = {}
    for i, r in enumerate(receipts):
        where = f"receipts entry {i + 1}"
        if not isinstance(r, Receipt):
            raise EventFormatError(f"{where}: must give a player and an amount")
        name = _canonical(canonical, _name(r.player, where))
        if type(r.amount_cents) is not int:
            raise EventFormatError(f"{where}: amount must be whole cents")
        if r.amount_cents < 0:
            raise EventFormatError(f"{where}: amount is negative")
        if r.amount_cents == 0:
            raise EventFormatError(f"{where}: amount is zero; a receipt is worth something")
        if r.amount_cents > max_receipt_cents:
            raise EventFormatError(
                f"{where}: amount ${r.amount_cents / 100:,.2f} is above "
                f"${max_receipt_cents // 100:,} for one receipt; check for a typo"
            )
        ref = r.ref.strip() if isinstance(r.ref, str) and r.ref.strip() else None
        if ref is not None:
            if ref.casefold() in refs:
                raise EventFormatError(
                    f"{where}: receipt {ref} is already listed at entry {refs[ref.casefold()]}"
                )
            refs[ref.casefold()] = i + 1
        url = r.image_url.strip() if isinstance(r.image_url, str) and r.image_url.strip() else None
        checked_receipts.append(Receipt(name, r.amount_cents, ref, url))

    if not groups:
        raise EventFormatError("finish: no players; list at least the winner")
    return EventRecord(
        season=" ".join(season.split()),
        location=" ".join(location.split()),
        date=when,
        kind=kind_key,
        finish=tuple(groups),
        played=tuple(played_names),
        bounties=MappingProxyType(bounty_map),
        premium_hands=tuple(hands),
        second_chance_winners=winners,
        receipts=tuple(checked_receipts),
    )


def parse_event(
    data: Mapping[str, Any], *, max_receipt_cents: int = MAX_RECEIPT_CENTS
) -> EventRecord:
    """Read one event in the JSON import format.

    The format: ``{"season": "2026 Fall", "location": "Brewpub", "date": "2026-11-20",
    "kind": "regular", "finish": [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]],
    "played": ["Gus"], "bounties": {"Alice": 2}, "premium_hands": [{"player": "Bob",
    "hand": "quads"}], "second_chance_winners": ["Frank"], "receipts": [{"player": "Alice",
    "amount": "12.50", "ref": "R-1001", "image_url": "https://..."}]}``. Only ``season``,
    ``location``, ``date``, ``kind`` and ``finish`` are required; a finish entry may be a
    single name instead of a one-name list.

    Args:
        data: The decoded JSON object.
        max_receipt_cents: The largest believable receipt.

    Returns:
        The checked record.

    Raises:
        EventFormatError: The first problem found, naming its field and row.
    """
    if not isinstance(data, Mapping):
        raise EventFormatError("an event must be a JSON object")
    unknown = sorted(str(k) for k in data if k not in _FIELDS)
    if unknown:
        raise EventFormatError(f"unknown field {unknown[0]!r}")
    for key in ("season", "location", "date", "kind", "finish"):
        if key not in data:
            raise EventFormatError(f"{key}: missing")
    hands: list[PremiumHand] = []
    raw_hands = data.get("premium_hands") or []
    if not isinstance(raw_hands, list):
        raise EventFormatError("premium_hands: must be a list")
    for i, entry in enumerate(raw_hands):
        where = f"premium_hands entry {i + 1}"
        if not isinstance(entry, Mapping) or set(entry) - {"player", "hand"}:
            raise EventFormatError(f"{where}: must be {{'player': ..., 'hand': ...}}")
        hands.append(PremiumHand(_name(entry.get("player"), where), entry.get("hand", "")))
    receipts: list[Receipt] = []
    raw_receipts = data.get("receipts") or []
    if not isinstance(raw_receipts, list):
        raise EventFormatError("receipts: must be a list")
    for i, entry in enumerate(raw_receipts):
        where = f"receipts entry {i + 1}"
        if not isinstance(entry, Mapping) or set(entry) - {"player", "amount", "ref", "image_url"}:
            raise EventFormatError(
                f"{where}: must be {{'player': ..., 'amount': ..., 'ref': ..., 'image_url': ...}}"
            )
        if "amount" not in entry:
            raise EventFormatError(f"{where}: amount is missing")
        for key in ("ref", "image_url"):
            if entry.get(key) is not None and not isinstance(entry.get(key), str):
                raise EventFormatError(f"{where}: {key} must be text")
        receipts.append(
            Receipt(
                _name(entry.get("player"), where),
                parse_amount_cents(entry["amount"], where, max_cents=max_receipt_cents),
                entry.get("ref"),
                entry.get("image_url"),
            )
        )
    return build_event(
        season=_text(data, "season"),
        location=_text(data, "location"),
        date=data["date"],
        kind=data["kind"],
        finish=data["finish"],
        played=data.get("played") or (),
        bounties=data.get("bounties") or {},
        premium_hands=hands,
        second_chance_winners=data.get("second_chance_winners") or (),
        receipts=receipts,
        max_receipt_cents=max_receipt_cents,
    )


def _group_positions(rows: Sequence[tuple[int, str, str]]) -> tuple[tuple[str, ...], ...]:
    """Turn (position, name, row label) rows into tie groups, checking for gaps."""
    groups: list[list[str]] = []
    starts: list[int] = []
    for position, name, where in sorted(rows, key=lambda r: r[0]):
        if groups and position == starts[-1]:
            groups[-1].append(name)
            continue
        expected = starts[-1] + len(groups[-1]) if groups else 1
        if position != expected:
            if groups and len(groups[-1]) > 1:
                tied = " and ".join(groups[-1])
                hint = (
                    f" ({tied} tied for place {starts[-1]} cover places "
                    f"{starts[-1]}-{expected - 1})"
                )
            else:
                hint = ""
            raise EventFormatError(f"{where}: place {position} should be {expected}{hint}")
        groups.append([name])
        starts.append(position)
    names = [(n, f"place {starts[i]}") for i, g in enumerate(groups) for n in g]
    _check_unique(names)
    return tuple(tuple(g) for g in groups)


def _position(text: str, where: str) -> int:
    cleaned = re.sub(r"(?i)(st|nd|rd|th|\.)$", "", text.strip())
    if not cleaned.isdigit() or int(cleaned) < 1:
        raise EventFormatError(f"{where}: {text.strip()!r} is not a place like 1 or 3rd")
    return int(cleaned)


def parse_finish_text(text: str) -> tuple[tuple[str, ...], ...]:
    """Read a typed finish list: ``"1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve"``.

    Entries are separated by commas or new lines; ``=`` joins tied players, and repeating a
    place (``3 Carol, 3 Dave``) ties them too. A tie covers as many places as it has players,
    so the next place after two players tied for 3rd is 5th.

    Args:
        text: The finish list.

    Returns:
        Tie groups, 1st place first.

    Raises:
        EventFormatError: A malformed entry, a gap in the places or a name twice.
    """
    if not isinstance(text, str):
        raise EventFormatError("finish: must be text like '1 Alice, 2 Bob'")
    rows: list[tuple[int, str, str]] = []
    entries = [e for e in re.split(r"[,\n;]", text) if e.strip()]
    if not entries:
        raise EventFormatError("finish: empty; give places like '1 Alice, 2 Bob'")
    for i, entry in enumerate(entries):
        where = f"finish entry {i + 1} ({entry.strip()!r})"
        match = re.fullmatch(r"\s*(\S+?)[.:)]?\s+(.+?)\s*", entry)
        if match is None:
            raise EventFormatError(f"{where}: expected a place then a name, like '2 Bob'")
        position = _position(match.group(1), where)
        for raw in match.group(2).split("="):
            rows.append((position, _name(raw, where), where))
    return _group_positions(rows)


def iter_finish_csv(lines: Iterable[str]) -> Iterator[tuple[int, int, str]]:
    """Read the rows of a ``position,player`` CSV one at a time, each checked on its own.

    Only what one row shows is checked here (the header, the row's form, its place and its
    name); the places' order, gaps and names listed twice are the reader's to check
    (``parse_finish_csv`` holds the rows, ``scan_finish_csv`` streams them).

    Args:
        lines: The CSV's lines (an open text file, or ``io.StringIO``).

    Yields:
        (line number, place, cleaned name) for each row under the header; blank lines skipped.

    Raises:
        EventFormatError: A wrong header or a malformed row, by its line; no rows.
    """
    reader = csv.reader(lines)
    header: list[str] | None = None
    any_rows = False
    for line_no, row in enumerate(reader, start=1):
        if header is not None and len(row) == 2:
            # The common row (digits, a printable ASCII name) read without the general path's
            # cleaning, which would leave it as it is: the same place and name either way.
            cell, value = row
            if cell.isdecimal() and value.isascii() and value.isprintable():
                position, name = int(cell), " ".join(value.split())
                if position >= 1 and name and len(name) <= MAX_NAME_LENGTH:
                    any_rows = True
                    yield line_no, position, name
                    continue
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = [c.strip().lower() for c in row]
            if header[:2] != ["position", "player"] or any(header[2:]):
                raise EventFormatError(
                    f"finish CSV line {line_no}: the header must be 'position,player'"
                )
            continue
        where = f"finish CSV line {line_no}"
        if len(row) < 2 or any(c.strip() for c in row[2:]):
            raise EventFormatError(f"{where}: expected 'position,player'")
        any_rows = True
        yield line_no, _position(row[0], where), _name(row[1], where)
    if header is None or not any_rows:
        raise EventFormatError("finish CSV: no rows under the header 'position,player'")


def _csv_lines(text: str | Iterable[str]) -> Iterable[str]:
    if isinstance(text, str):
        return io.StringIO(text.lstrip("\ufeff"))
    if isinstance(text, Iterable) and not isinstance(text, bytes | bytearray):
        return text
    raise EventFormatError("finish CSV: must be text")


def parse_finish_csv(text: str | Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Read a finish list as CSV with the header ``position,player``.

    A repeated position is a tie. Blank lines are ignored.

    Args:
        text: The CSV text, or its lines (an open text file: read a row at a time, never
            whole).

    Returns:
        Tie groups, 1st place first.

    Raises:
        EventFormatError: A wrong header, a malformed row, a gap in the places or a name twice.
    """
    rows = [
        (position, name, f"finish CSV line {line_no}")
        for line_no, position, name in iter_finish_csv(_csv_lines(text))
    ]
    return _group_positions(rows)


_SEEN_BITS = 1 << 24
"""Bits of the map of names seen while scanning (2 MB): a name whose bit is set already may
be listed twice, and is looked for again in a second reading of the rows."""


def scan_finish_csv(
    open_lines: Callable[[], Iterable[str]],
    each: Callable[[int, int, str], None] | None = None,
) -> int | None:
    """Check a ``position,player`` CSV as ``parse_finish_csv`` does, holding none of its names.

    For a file whose places never go down (a finish list as written, 1st first): the same
    checks, in the same order, with the same errors, as ``parse_finish_csv``. Memory holds one
    tie group, a 2 MB bit map of the names' hashes, and the hashes that met a set bit (a name
    listed twice, or one of about 1% of names in a file of 200,000): only those names are
    looked for again, in a second reading of the rows.

    Args:
        open_lines: Opens the CSV's lines afresh (called once, twice when a bit repeats).
        each: Given each row of the first reading, in order (line, place, name), as it is
            checked: a caller that needs the rows once more reads them here, not again.

    Returns:
        The number of rows, or None when a place comes after a higher one (the rows are not
        in order: ``parse_finish_csv`` sorts them, and nothing was checked past that row).

    Raises:
        EventFormatError: As ``parse_finish_csv``.
    """
    seen = bytearray(_SEEN_BITS // 8)
    suspects: set[int] = set()
    gap: EventFormatError | None = None
    start, group = 0, [""]  # the current tie group's place and names
    count = 0
    for line_no, position, name in iter_finish_csv(open_lines()):
        count += 1
        if position < start:
            return None
        if each is not None:
            each(line_no, position, name)
        bit = hash(name_key(name)) % _SEEN_BITS
        if seen[bit >> 3] & (1 << (bit & 7)):
            suspects.add(bit)
        else:
            seen[bit >> 3] |= 1 << (bit & 7)
        if position == start:
            group.append(name)
            continue
        expected = start + len(group) if start else 1
        if position != expected and gap is None:
            hint = ""
            if start and len(group) > 1:
                tied = " and ".join(group)
                hint = f" ({tied} tied for place {start} cover places {start}-{expected - 1})"
            gap = EventFormatError(
                f"finish CSV line {line_no}: place {position} should be {expected}{hint}"
            )
        start, group = position, [name]
    if gap is not None:
        raise gap
    del seen
    if suspects:
        first: dict[str, int] = {}
        for _, position, name in iter_finish_csv(open_lines()):
            key = name_key(name)
            if hash(key) % _SEEN_BITS not in suspects:
                continue
            if key in first:
                raise EventFormatError(
                    f"place {position}: {name} is listed twice (also at place {first[key]})"
                )
            first[key] = position
    return count


def finish_groups(rows: Iterable[tuple[int, int, _T]]) -> Iterator[tuple[_T, ...]]:
    """Group rows in place order (as ``iter_finish_csv`` yields them) into tie groups.

    For rows ``scan_finish_csv`` has checked: only a change of place starts a new group.
    """
    group: list[_T] = []
    start = 0
    for _, position, name in rows:
        if position != start and group:
            yield tuple(group)
            group = []
        start = position
        group.append(name)
    if group:
        yield tuple(group)

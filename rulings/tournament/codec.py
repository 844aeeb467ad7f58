"""The night's values as JSON-ready data (what storage keeps) and back, losslessly.

>>> from rulings.tournament.chart import SeatMove, Seat
>>> entry = PlayerMoved(SeatMove("Dan", Seat(3, 2), Seat(1, 6)))
>>> entry_from_data(entry_to_data(entry)) == entry
True
"""

from __future__ import annotations

import hashlib
import json
import logging
from types import MappingProxyType
from typing import Any

from rulings.errors import TournamentError
from rulings.tournament.chart import (
    AwardNoted,
    BustedOut,
    ButtonSet,
    Chart,
    Entrant,
    Entry,
    NightFinished,
    PlayerMoved,
    PlayStarted,
    Room,
    Seat,
    SeatMove,
    SignedIn,
    TablesBalanced,
)

log = logging.getLogger(__name__)


def _seat(seat: Seat | None) -> list[int] | None:
    return None if seat is None else [seat.table, seat.seat]


def _unseat(data: Any) -> Seat | None:
    return None if data is None else Seat(int(data[0]), int(data[1]))


def _move(move: SeatMove) -> dict[str, Any]:
    return {"player": move.player, "from": _seat(move.from_seat), "to": _seat(move.to_seat)}


def _unmove(data: Any) -> SeatMove:
    to = _unseat(data["to"])
    assert to is not None
    return SeatMove(data["player"], _unseat(data["from"]), to)


def _player(player: Entrant) -> dict[str, Any]:
    return {
        "name": player.name,
        "stack": player.stack,
        "late": player.late,
        "chips_off": player.chips_off,
    }


def _unplayer(data: Any) -> Entrant:
    return Entrant(
        data["name"], int(data["stack"]), bool(data["late"]), int(data.get("chips_off", 0))
    )


def room_to_data(setup: Room) -> dict[str, Any]:
    """The room as JSON-ready data."""
    return {
        "location": setup.location,
        "season": setup.season,
        "seats_per_table": setup.seats_per_table,
        "tables": setup.tables,
    }


def room_from_data(data: Any) -> Room:
    """The room from ``room_to_data``'s data."""
    return Room(data["location"], data["season"], data["seats_per_table"], data["tables"])


def entry_to_data(entry: Entry) -> dict[str, Any]:
    """One log entry as JSON-ready data (``kind`` names it)."""
    if isinstance(entry, SignedIn):
        return {"kind": "register", "player": _player(entry.player), "seat": _seat(entry.seat)}
    if isinstance(entry, PlayStarted):
        return {"kind": "start"}
    if isinstance(entry, BustedOut):
        return {
            "kind": "bust",
            "players": [[k, p] for k, p in entry.players],
            "seated": [_move(m) for m in entry.seated],
            "restacked": [list(r) for r in entry.restacked],
        }
    if isinstance(entry, TablesBalanced):
        return {
            "kind": "balance",
            "moves": [_move(m) for m in entry.moves],
            "broken": list(entry.broken),
            "redraw": list(entry.redraw),
            "random_tables": list(entry.random_tables),
            "drawn_tables": list(entry.drawn_tables),
            "small_blind": list(entry.small_blind),
        }
    if isinstance(entry, PlayerMoved):
        return {"kind": "move", "move": _move(entry.move)}
    if isinstance(entry, ButtonSet):
        return {"kind": "button", "seat": _seat(entry.seat)}
    if isinstance(entry, AwardNoted):
        return {
            "kind": "award",
            "award": entry.award,
            "player": entry.player,
            "chips": entry.chips,
            "hand": entry.hand,
            "remove": entry.remove,
        }
    return {"kind": "finish", "finish": [list(g) for g in entry.finish], "how": entry.how}


def entry_from_data(data: Any) -> Entry:
    """One log entry from ``entry_to_data``'s data.

    Raises:
        TournamentError: an unknown kind.
    """
    kind = data.get("kind")
    if kind == "register":
        return SignedIn(_unplayer(data["player"]), _unseat(data["seat"]))
    if kind == "start":
        return PlayStarted()
    if kind == "bust":
        return BustedOut(
            tuple((str(k), int(p)) for k, p in data["players"]),
            tuple(_unmove(m) for m in data["seated"]),
            tuple((str(k), int(n), int(off)) for k, n, off in data.get("restacked", ())),
        )
    if kind == "balance":
        return TablesBalanced(
            tuple(_unmove(m) for m in data["moves"]),
            tuple(data["broken"]),
            tuple(data["redraw"]),
            tuple(data["random_tables"]),
            tuple(data.get("drawn_tables", ())),  # logs stored before these were kept
            tuple(data.get("small_blind", ())),
        )
    if kind == "move":
        return PlayerMoved(_unmove(data["move"]))
    if kind == "button":
        seat = _unseat(data["seat"])
        assert seat is not None
        return ButtonSet(seat)
    if kind == "award":
        return AwardNoted(
            data["award"], str(data["player"]), int(data["chips"]), str(data["hand"]),
            bool(data["remove"]),
        )  # fmt: skip
    if kind == "finish":
        return NightFinished(tuple(tuple(g) for g in data["finish"]), data["how"])
    raise TournamentError(f"unknown log entry {kind!r}")


def chart_to_data(chart: Chart) -> dict[str, Any]:
    """The seating chart as JSON-ready data (a snapshot; the log stays the truth)."""
    return {
        "status": chart.status,
        "players": {k: [p.name, p.stack, p.late, p.chips_off] for k, p in chart.players.items()},
        "seated": {k: _seat(s) for k, s in chart.seated.items()},
        "reserve": list(chart.reserve),
        "busted": [list(g) for g in chart.busted],
        "tables": list(chart.tables),
        "buttons": {str(t): s for t, s in chart.buttons.items()},
        "finish": [list(g) for g in chart.finish],
        "bounties": dict(chart.bounties),
        "premium_hands": [list(h) for h in chart.premium_hands],
        "second_chance": list(chart.second_chance),
    }


def chart_from_data(data: Any) -> Chart:
    """The seating chart from ``chart_to_data``'s data."""
    players = {k: Entrant(*row) for k, row in data["players"].items()}
    seated = {k: Seat(t, s) for k, (t, s) in data["seated"].items()}
    return Chart(
        status=data["status"],
        players=MappingProxyType(players),
        seated=MappingProxyType(seated),
        reserve=tuple(data["reserve"]),
        busted=tuple(tuple(g) for g in data["busted"]),
        tables=tuple(int(t) for t in data["tables"]),
        buttons=MappingProxyType({int(t): int(s) for t, s in data["buttons"].items()}),
        finish=tuple(tuple(g) for g in data["finish"]),
        # Snapshots written before awards were noted during the night have none.
        bounties=MappingProxyType({k: int(c) for k, c in data.get("bounties", {}).items()}),
        premium_hands=tuple((str(k), str(h)) for k, h in data.get("premium_hands", ())),
        second_chance=tuple(data.get("second_chance", ())),
    )


SNAPSHOT_FORMAT = 2
"""The format of a stored snapshot (``snapshot_to_data``): raise it whenever the chart's data
or what a log replays to changes, so the snapshots stored before are rebuilt from their logs.
Format 1 (no ``format`` key) was the chart's data alone."""


def _check(chart_data: dict[str, Any], seq: int) -> str:
    text = json.dumps(
        [SNAPSHOT_FORMAT, seq, chart_data],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def snapshot_to_data(chart: Chart, seq: int) -> dict[str, Any]:
    """The chart a night's log leads to after ``seq`` writes, as the sealed data storage keeps.

    The chart's data (``chart_to_data``) plus ``format``, ``seq`` and ``check`` (a digest of
    the three), so a snapshot that is not the one written for that version is told apart.
    """
    data = chart_to_data(chart)
    return {**data, "format": SNAPSHOT_FORMAT, "seq": seq, "check": _check(data, seq)}


def snapshot_from_data(data: Any, seq: int) -> tuple[Chart | None, str]:
    """The chart of a stored snapshot, if it is sound for the night's version ``seq``.

    Returns:
        ``(chart, "")``, or ``(None, why)`` when the snapshot cannot stand for the night
        (the log must be replayed): ``"unreadable"``, ``"format N"`` (written by another
        version of the code), ``"version N"`` (taken at another point of the log) or
        ``"check"`` (changed since it was written).
    """
    if not isinstance(data, dict):
        return None, "unreadable"
    if data.get("format") != SNAPSHOT_FORMAT:
        return None, _older(data)
    if data.get("seq") != seq:
        return None, f"version {data.get('seq')}"
    chart_data = {k: v for k, v in data.items() if k not in ("format", "seq", "check")}
    if data.get("check") != _check(chart_data, seq):
        return None, "check"
    try:
        return chart_from_data(chart_data), ""
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None, "unreadable"


def _older(data: dict[str, Any]) -> str:
    """Why a snapshot of another format cannot stand: its format, or unreadable."""
    if "format" in data:
        return f"format {data['format']}"
    try:  # format 1 was the chart's data alone
        chart_from_data(data)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return "unreadable"
    return "format 1"

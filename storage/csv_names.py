"""The names a streamed CSV night lists: the league's players among them, and its digest.

``storage.csv_import`` reads a file's rows once to check them (``rulings.scan_finish_csv``);
``FileNames`` takes them as they come, a chunk at a time, and keeps only the league's players
the file names (bounded by the league, not the file) and the night's content hash so far.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Collection

from sqlalchemy import bindparam
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from rulings import EventFormatError, EventRecord, name_key
from storage.events import content_hash_text
from storage.import_plan import WRITE_ROWS
from storage.league_models import Player, PlayerAlias

log = logging.getLogger(__name__)


# Statements with the names as one expanding parameter: ``in_(names)`` would bind them into
# each statement, and SQLAlchemy then keeps about 100 bytes a name a statement (measured).
NAMED = (
    sa_select(col(Player.name_key), col(Player.id), col(Player.display_name))
    .where(col(Player.league_id) == bindparam("league"))
    .where(col(Player.name_key).in_(bindparam("keys", expanding=True)))
)
_ALIASED = (
    sa_select(col(PlayerAlias.alias_key), col(PlayerAlias.player_id), col(Player.display_name))
    .join(Player, col(Player.id) == col(PlayerAlias.player_id))
    .where(col(PlayerAlias.league_id) == bindparam("league"))
    .where(col(PlayerAlias.alias_key).in_(bindparam("keys", expanding=True)))
)


def _known_players(
    session: Session, league_id: int, keys: Collection[str]
) -> dict[str, tuple[int, str]]:
    """Name key -> (player id, display name) for the keys that name a player or an alias."""
    found: dict[str, tuple[int, str]] = {}
    given = {"league": league_id, "keys": list(keys)}
    for key, pid, display in session.execute(NAMED, given):
        found[key] = (int(pid or 0), display)
    for key, pid, display in session.execute(_ALIASED, given):  # after names, as a directory
        found[key] = (int(pid or 0), display)
    return found


def _hash_ends(head: EventRecord) -> tuple[str, str]:
    """The text ``content_hash`` digests, before and after the finish groups' keys."""
    blob = content_hash_text(head)
    marker = '"finish":[]'
    at = blob.index(marker) + len(marker) - 1
    return blob[:at], blob[at:]


def _keys_json(keys: list[str]) -> str:
    keys.sort()
    return json.dumps(keys, separators=(",", ":"))


class FileNames:
    """The file's rows as the scan reads them: the league's names they list, and the digest.

    Rows come a chunk at a time (``WRITE_ROWS``): each chunk's names are looked up at once.
    One player listed under two names is ``import_events``'s error, said only once the rows
    and the night pass their own checks: the first one found waits in ``problem``.
    """

    def __init__(self, session: Session, league_id: int, head: EventRecord | None) -> None:
        self.session, self.league_id = session, league_id
        self.known: dict[str, tuple[int, str]] = {}  # the league's names the file lists
        self.listed: dict[str, str] = {}  # a known player's key -> the name the file gave first
        self.problem: EventFormatError | None = None
        before, self.after = _hash_ends(head) if head is not None else ("", "")
        self.digest = hashlib.sha256(before.encode())
        self.chunk: list[tuple[int, str]] = []
        self.group: list[str] = []  # the keys of the tie group being read, for the digest
        self.place = 0
        self.sep = ""

    def add(self, _line: int, place: int, name: str) -> None:
        """Take one row (as ``scan_finish_csv`` gives it)."""
        self.chunk.append((place, name))
        if len(self.chunk) >= WRITE_ROWS:
            self._read_chunk()

    def finish(self) -> tuple[dict[str, tuple[int, str]], dict[str, str], str]:
        """The league's names listed (key -> id, display), the first listing of each, digest."""
        self._read_chunk()
        self.digest.update(f"{self.sep}{_keys_json(self.group)}{self.after}".encode())
        return self.known, self.listed, self.digest.hexdigest()

    def _read_chunk(self) -> None:
        chunk, self.chunk = self.chunk, []
        known, listed = self.known, self.listed
        known.update(_known_players(self.session, self.league_id, {name_key(n) for _, n in chunk}))
        for row_place, raw in chunk:
            key = name_key(raw)
            player = known.get(key)
            if player is not None:
                key = name_key(player[1])
                first = listed.setdefault(key, raw)
                if self.problem is None and name_key(first) != name_key(raw):
                    self.problem = EventFormatError(
                        f"finish place of {raw}: '{first}' and '{raw}' are the "
                        f"same player ({player[1]}); list them once"
                    )
            if row_place != self.place and self.group:
                self.digest.update(f"{self.sep}{_keys_json(self.group)}".encode())
                self.sep, self.group = ",", []
            self.place = row_place
            self.group.append(key)


__all__ = ["NAMED", "FileNames"]

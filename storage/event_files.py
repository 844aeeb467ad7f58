"""Import files: the JSON import format read as a stream, stored in batches, all or nothing.

A file larger than ``rulings.league.MAX_IMPORT_BYTES`` (20 MB) is refused before it is read.
A list of events is decoded one event at a time from a buffer of about a megabyte and stored
``BATCH_EVENTS`` at a time in the caller's transaction, so memory stays a small multiple of one
batch whatever the file's size, and a bad event anywhere still leaves the database as it was
(the caller's transaction is rolled back). Numbers are read as decimals, so an amount written as
``1e3`` is refused like the text ``"1e3"``.
"""

from __future__ import annotations

import codecs
import datetime as dt
import json
import logging
import os
import stat
from collections.abc import Callable, Collection, Iterator
from decimal import Decimal
from typing import IO, Any

from sqlmodel import Session

from rulings import (
    EventFormatError,
    EventRecord,
    ImportFileError,
    LeagueRules,
    build_event,
    check_import_size,
    name_key,
    parse_event,
    parse_finish_csv,
)
from storage.errors import EventConflictError, NotFound
from storage.event_import import StoreEvents, import_events
from storage.events import (
    ImportOutcome,
    content_hash,
    with_season,
)
from storage.leagues import get_league_rules
from storage.seasons import get_season

log = logging.getLogger(__name__)

BATCH_EVENTS = 200
"""Events stored per batch of a streamed import."""

_CHUNK_CHARS = 1 << 20
_DECODER = json.JSONDecoder(parse_float=Decimal)
_SPACE = " \t\r\n"


class _Stream:
    """Characters of a text file, read a chunk at a time, with the line of the buffer's start."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.decode = codecs.getincrementaldecoder("utf-8-sig")()
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # line number of buf[0]
        self.col = 1  # column of buf[0]

    def more(self) -> bool:
        if self.eof:
            return False
        data = self.handle.read(_CHUNK_CHARS)
        try:
            text = self.decode.decode(data, final=not data)
        except UnicodeDecodeError:
            raise EventFormatError("the file is not UTF-8 text") from None
        if not data:
            self.eof = True
        if self.pos > _CHUNK_CHARS:  # drop what was read already
            gone = self.buf[: self.pos]
            lines = gone.count("\n")
            self.col = (len(gone) - gone.rfind("\n")) if lines else self.col + len(gone)
            self.line += lines
            self.buf, self.pos = self.buf[self.pos :], 0
        self.buf += text
        return bool(text) or not self.eof

    def peek(self) -> str:
        """The next character that is not a blank ('' at the end of the file)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _SPACE:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def value(self) -> Any:
        """Decode the JSON value at the next non-blank character, reading more as needed."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.more():
                    continue
                raise self._error(exc.msg, exc.pos) from None
            except RecursionError:
                raise _too_deep() from None
            self.pos = end
            return value

    def _error(self, msg: str, pos: int) -> EventFormatError:
        before = self.buf[:pos]
        lines = before.count("\n")
        col = (len(before) - before.rfind("\n")) if lines else self.col + len(before)
        return EventFormatError(f"not valid JSON (line {self.line + lines}, column {col}): {msg}")

    def expect(self, what: str) -> EventFormatError:
        return self._error(f"expecting {what}", self.pos)


def _too_deep() -> ImportFileError:
    return ImportFileError("not valid JSON for an import: nested deeper than any event is")


def decode_event_json(text: str, name: str = "the file") -> Any:
    """Decode a whole JSON import file already in memory (an attachment), numbers as decimals.

    Raises:
        ImportFileError: not valid JSON (with its line and column), or nested too deeply.
    """
    try:
        return json.loads(text, parse_float=Decimal)  # "1e3" is no amount
    except json.JSONDecodeError as exc:
        raise ImportFileError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    except RecursionError:
        raise _too_deep() from None


def check_import_path(path: str | os.PathLike[str]) -> int:
    """Check that ``path`` is a regular file no larger than an import may be, before reading.

    A device (``/dev/zero``), a pipe or a folder would be read without end or fail part way.

    Returns:
        The file's size in bytes.

    Raises:
        ImportFileError: not a regular file.
        EventFormatError: larger than ``rulings.MAX_IMPORT_BYTES``.
        OSError: it does not exist or cannot be read (the caller names the file).
    """
    name = os.path.basename(os.fspath(path)) or os.fspath(path)
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ImportFileError(f"{name} is not a regular file; import a .json or .csv file")
    return check_import_size(info.st_size, name)


def current_season_name(*, session: Session, league_id: int) -> str | None:
    """The league's current season, where results without a season go (None before any)."""
    try:
        return get_season(session=session, league_id=league_id).name
    except NotFound:
        return None


def iter_event_file(
    handle: IO[bytes], *, rules: LeagueRules, season: str | None = None
) -> Iterator[EventRecord]:
    """Read the JSON import format (one event object, or a list of them) one event at a time.

    An event without a season goes to ``season`` (the league's current one).

    Raises:
        EventFormatError: malformed JSON (with its line and column) or a malformed event
            (by its number in the list).
    """
    stream = _Stream(handle)
    first = stream.peek()
    if first == "{":
        yield parse_event(
            with_season(stream.value(), season), max_receipt_cents=rules.receipt_max_cents
        )
        if stream.peek():
            raise stream.expect("the end of the file after the event")
        return
    if first != "[":
        raise stream.expect("a JSON object (one event) or a list of them")
    stream.pos += 1
    number = 0
    while True:
        nxt = stream.peek()
        if nxt == "]" and number == 0:
            raise EventFormatError("the file holds no events")
        if nxt == "]":
            stream.pos += 1
            break
        if number:
            if nxt != ",":
                raise stream.expect("',' or ']'")
            stream.pos += 1
        number += 1
        item = stream.value()
        try:
            yield parse_event(with_season(item, season), max_receipt_cents=rules.receipt_max_cents)
        except EventFormatError as exc:
            raise EventFormatError(f"event {number}: {exc}") from None
    if stream.peek():
        raise stream.expect("the end of the file after the list")


def import_event_file(
    path: str | os.PathLike[str],
    *,
    session: Session,
    league_id: int,
    actor: str,
    now: dt.datetime | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
    store: StoreEvents = import_events,
    sink: Callable[[ImportOutcome], None] | None = None,
) -> list[ImportOutcome]:
    """Import a JSON file of events, streamed and stored in batches, all or nothing.

    Args:
        path: The file (``.json``).
        session: The caller's unit of work: a refused event anywhere rolls back every batch.
        league_id: The league.
        actor: Who imports, for the audit log.
        now: The time of the import (UTC).
        allow_new: As for ``import_events``.
        allow_suspended: As for ``import_events``.
        store: How each batch is stored: ``import_events`` (new nights),
            ``correct_events`` or ``revive_events``.
        sink: Receives each outcome as its batch is stored, in the file's order, instead of
            the list keeping them all (a large file's outcomes would outweigh the file). The
            caller reports them once its transaction has committed.

    Returns:
        One outcome per event, in the file's order (empty when ``sink`` takes them).

    Raises:
        ImportFileError: not a regular file, or nested too deeply.
        EventFormatError: the file is larger than 20 MB (refused before it is read), or
            malformed.
        EventConflictError: the file lists one night twice, differently.
        StorageError: anything ``import_events`` refuses.
    """
    check_import_path(path)
    rules = get_league_rules(session=session, league_id=league_id)
    season = current_season_name(session=session, league_id=league_id)
    outcomes: list[ImportOutcome] = []
    seen: dict[tuple[str, str, dt.date, str], str] = {}
    batch: list[EventRecord] = []

    def flush() -> None:
        if not batch:
            return
        stored = store(
            batch,
            session=session,
            league_id=league_id,
            actor=actor,
            now=now,
            allow_new=allow_new,
            allow_suspended=allow_suspended,
        )
        if sink is None:
            outcomes.extend(stored)
        else:
            for outcome in stored:
                sink(outcome)
        batch.clear()
        session.expunge_all()  # the batch's rows are written; keep memory flat

    with open(path, "rb") as handle:
        for record in iter_event_file(handle, rules=rules, season=season):
            identity = (
                name_key(record.season),
                name_key(record.location),
                record.date,
                record.kind,
            )
            digest = content_hash(record)
            if seen.setdefault(identity, digest) != digest:
                where = f"{record.date.isoformat()} {record.location} ({record.kind})"
                raise EventConflictError(f"the file lists the event {where} twice, differently")
            batch.append(record)
            if len(batch) >= BATCH_EVENTS:
                flush()
        flush()
    log.info("streamed import of %s done", os.fspath(path))
    return outcomes


def read_csv_event(
    path: str | os.PathLike[str],
    *,
    session: Session,
    league_id: int,
    location: str,
    day: dt.date,
    season: str | None = None,
    kind: str = "regular",
) -> EventRecord:
    """Read a ``position,player`` CSV finish list into one event, a row at a time.

    The file is checked (a regular file within the size limit) and read as a stream: never
    held whole in memory beside the names it holds.

    Args:
        path: The file (``.csv``).
        session: The unit of work (reads the league's rules and current season).
        league_id: The league.
        location: Where the night was played.
        day: Its date.
        season: Its season; the league's current season when None.
        kind: Its kind (``regular`` unless said).

    Raises:
        ImportFileError: not a regular file.
        EventFormatError: larger than the limit, not UTF-8, a malformed row, no season yet.
    """
    check_import_path(path)
    rules = get_league_rules(session=session, league_id=league_id)
    chosen = season or current_season_name(session=session, league_id=league_id)
    if chosen is None:
        raise EventFormatError("season: missing, and the league has no season yet")
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            finish = parse_finish_csv(handle)
    except UnicodeDecodeError:
        raise EventFormatError("the file is not UTF-8 text") from None
    return build_event(
        season=chosen,
        location=location,
        date=day,
        kind=kind,
        finish=finish,
        max_receipt_cents=rules.receipt_max_cents,
    )

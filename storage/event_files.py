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
from collections.abc import Callable, Collection, Iterator
from decimal import Decimal
from typing import IO, Any

from sqlmodel import Session

from rulings import (
    EventFormatError,
    EventRecord,
    LeagueRules,
    check_import_size,
    name_key,
    parse_event,
)
from storage.errors import EventConflictError
from storage.event_import import StoreEvents, import_events
from storage.events import ImportOutcome, content_hash
from storage.leagues import get_league_rules

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
            self.pos = end
            return value

    def _error(self, msg: str, pos: int) -> EventFormatError:
        before = self.buf[:pos]
        lines = before.count("\n")
        col = (len(before) - before.rfind("\n")) if lines else self.col + len(before)
        return EventFormatError(f"not valid JSON (line {self.line + lines}, column {col}): {msg}")

    def expect(self, what: str) -> EventFormatError:
        return self._error(f"expecting {what}", self.pos)


def iter_event_file(handle: IO[bytes], *, rules: LeagueRules) -> Iterator[EventRecord]:
    """Read the JSON import format (one event object, or a list of them) one event at a time.

    Raises:
        EventFormatError: malformed JSON (with its line and column) or a malformed event
            (by its number in the list).
    """
    stream = _Stream(handle)
    first = stream.peek()
    if first == "{":
        yield parse_event(stream.value(), max_receipt_cents=rules.receipt_max_cents)
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
            yield parse_event(item, max_receipt_cents=rules.receipt_max_cents)
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
        EventFormatError: the file is larger than 20 MB (refused before it is read), or
            malformed.
        EventConflictError: the file lists one night twice, differently.
        StorageError: anything ``import_events`` refuses.
    """
    check_import_size(os.path.getsize(path), os.path.basename(path))
    rules = get_league_rules(session=session, league_id=league_id)
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
        for record in iter_event_file(handle, rules=rules):
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

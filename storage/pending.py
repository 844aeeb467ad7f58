"""A request a player makes and a director answers: a check-in, a self-reported bust.

A request is one row, unique per tournament and player: a second one is refused
(``AlreadyExists``), so there is one pending request whichever bot process took it. An answer
takes the row under a lock, exactly once: a second answer (another press of the button, another
director, another instance) finds nothing (``NotFound``) and its transaction writes nothing.
"""

from __future__ import annotations

import logging
from typing import TypeVar

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel

from storage.errors import AlreadyExists, NotFound

log = logging.getLogger(__name__)

Row = TypeVar("Row", bound=SQLModel)


def add_once(*, session: Session, row: Row, refusal: str) -> Row:
    """Store a new request (its id is set).

    Raises:
        AlreadyExists: ``refusal``: the same request is pending already (nothing written).
    """
    session.add(row)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError as exc:
        raise AlreadyExists(refusal) from exc
    return row


def peek(*, session: Session, model: type[Row], row_id: int, gone: str) -> Row:
    """A request still pending.

    Raises:
        NotFound: ``gone``: it was answered already.
    """
    row = session.get(model, row_id)
    if row is None:
        raise NotFound(gone)
    return row


def take_once(*, session: Session, model: type[Row], row_id: int, gone: str) -> Row:
    """Remove a request as it is answered (locked until the transaction ends); the row it was.

    Raises:
        NotFound: ``gone``: it was answered already.
    """
    row = session.get(model, row_id, with_for_update=True)
    if row is None:
        raise NotFound(gone)
    session.delete(row)
    session.flush()
    return row

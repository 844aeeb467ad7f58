"""Links between Discord members and players: ``/me link``, ``/td link``, ``/td unlink``.

A member is linked to at most one player per league and a player to at most one member (the
``player_link`` table's unique constraints enforce both); a second link is refused with the
name it would clash with, and nothing is written. Every link and unlink is audited.
``player.discord_id`` is kept equal to the link for the readers that predate it.

A member's request to be linked stays open (``link_request``) until a director approves or
refuses it, or until it is older than the caller's ``open_for``; while it is open a second
request from him is refused (``open_link_request``), whichever bot process handles it.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from storage.audit import add_audit_entry, utc_now
from storage.errors import AlreadyExists, NotFound, StorageError
from storage.league_models import Player
from storage.link_models import LinkRequest, PlayerLink
from storage.players import PlayerInfo, get_player

log = logging.getLogger(__name__)


def _player(
    session: Session, league_id: int, name: str | None, player_id: int | None
) -> PlayerInfo:
    if player_id is not None:
        row = session.get(Player, player_id)
        if row is None or row.league_id != league_id:
            raise NotFound("that player no longer exists (merged or removed)")
        return get_player(session=session, league_id=league_id, name=row.display_name)
    if name is None:
        raise StorageError("name a player")
    return get_player(session=session, league_id=league_id, name=name)


def _mirror(session: Session, player_id: int, discord_id: int | None) -> None:
    row = session.get(Player, player_id)
    if row is not None:
        row.discord_id = discord_id
        session.add(row)


def linked_player(*, session: Session, league_id: int, discord_id: int) -> PlayerInfo | None:
    """Return the player a member is linked to in a league, or None."""
    link = session.exec(
        select(PlayerLink).where(
            PlayerLink.league_id == league_id, PlayerLink.discord_id == discord_id
        )
    ).first()
    if link is None:
        return None
    row = session.get(Player, link.player_id)
    if row is None:
        return None
    return get_player(session=session, league_id=league_id, name=row.display_name)


def member_of(*, session: Session, league_id: int, player_id: int) -> int | None:
    """Return the Discord member linked to a player, or None."""
    link = session.exec(select(PlayerLink).where(PlayerLink.player_id == player_id)).first()
    return link.discord_id if link is not None and link.league_id == league_id else None


def link_player(
    *,
    session: Session,
    league_id: int,
    discord_id: int,
    actor: str,
    name: str | None = None,
    player_id: int | None = None,
    now: dt.datetime | None = None,
) -> PlayerInfo:
    """Link a member to a player (by name, alias, or id from an approval button).

    Linking the same pair again changes nothing.

    Raises:
        NotFound: no such player.
        AlreadyExists: the member is linked to another player, or the player to another member.
    """
    player = _player(session, league_id, name, player_id)
    mine = session.exec(
        select(PlayerLink).where(
            PlayerLink.league_id == league_id, PlayerLink.discord_id == discord_id
        )
    ).first()
    if mine is not None:
        if mine.player_id == player.id:
            return player
        other = session.get(Player, mine.player_id)
        other_name = other.display_name if other is not None else "another player"
        raise AlreadyExists(
            f"that member is linked to '{other_name}' already; a director unlinks first "
            "(/td unlink)"
        )
    taken = session.exec(select(PlayerLink).where(PlayerLink.player_id == player.id)).first()
    if taken is not None:
        raise AlreadyExists(
            f"'{player.name}' is linked to another member already; a director unlinks first "
            "(/td unlink)"
        )
    at = utc_now(now)
    session.add(
        PlayerLink(
            league_id=league_id,
            player_id=player.id,
            discord_id=discord_id,
            linked_by=actor[:100],
            linked_at=at,
        )
    )
    _mirror(session, player.id, discord_id)
    # However he was linked (an approved request or /td link), his open request is answered.
    close_link_request(session=session, league_id=league_id, discord_id=discord_id)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="player.link",
        target=f"player:{player.name}",
        before={"discord_id": player.discord_id},
        after={"discord_id": discord_id},
        now=at,
    )
    return get_player(session=session, league_id=league_id, name=player.name)


def unlink_player(
    *,
    session: Session,
    league_id: int,
    actor: str,
    name: str | None = None,
    discord_id: int | None = None,
    now: dt.datetime | None = None,
) -> PlayerInfo:
    """Remove the link of a player (by name) or of a member.

    Raises:
        StorageError: neither a player nor a member given.
        NotFound: no such player, or no link to remove.
    """
    if name is None and discord_id is None:
        raise StorageError("name the player or the member to unlink")
    if name is not None:
        player = get_player(session=session, league_id=league_id, name=name)
        link = session.exec(select(PlayerLink).where(PlayerLink.player_id == player.id)).first()
        if discord_id is not None and link is not None and link.discord_id != discord_id:
            raise StorageError(f"'{player.name}' is linked to another member, not that one")
    else:
        link = session.exec(
            select(PlayerLink).where(
                PlayerLink.league_id == league_id, PlayerLink.discord_id == discord_id
            )
        ).first()
        if link is None:
            raise NotFound("that member is not linked to a player")
        player = _player(session, league_id, None, link.player_id)
    if link is None:
        raise NotFound(f"'{player.name}' is not linked to a member")
    session.execute(delete(PlayerLink).where(PlayerLink.id == link.id))  # type: ignore[arg-type]
    _mirror(session, player.id, None)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="player.unlink",
        target=f"player:{player.name}",
        before={"discord_id": link.discord_id},
        after={"discord_id": None},
        now=now,
    )
    return get_player(session=session, league_id=league_id, name=player.name)


@dataclass(frozen=True)
class OpenLinkRequest:
    """A member's request to be linked that no director has answered yet.

    Attributes:
        player: the player he asked to be linked to (display name).
        asked_at: when he asked (UTC).
    """

    player: str
    asked_at: dt.datetime


def open_link_request(
    *,
    session: Session,
    league_id: int,
    discord_id: int,
    player_id: int,
    now: dt.datetime,
    open_for: dt.timedelta,
) -> OpenLinkRequest | None:
    """Record a member's request to be linked, unless an earlier one is still open.

    A request is open until a director answers it (``close_link_request``) or until it is
    ``open_for`` old; an older one is replaced. Two processes recording the same member's
    request at once cannot both succeed (one row per member per league; the insert skips a
    row another transaction wrote first, and that row is then the open one).

    Returns:
        None when the request was recorded; the earlier open request when it was not
        (nothing written).
    """
    at = utc_now(now).astimezone(dt.UTC)  # stored as UTC: SQLite compares the text
    session.execute(
        delete(LinkRequest).where(
            col(LinkRequest.league_id) == league_id,
            col(LinkRequest.discord_id) == discord_id,
            col(LinkRequest.asked_at) <= at - open_for,
        )
    )
    table: Any = LinkRequest.__table__  # type: ignore[attr-defined]
    dialect = session.get_bind().dialect.name
    insert_fn: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = (
        insert_fn(table)
        .values(league_id=league_id, discord_id=discord_id, player_id=player_id, asked_at=at)
        .on_conflict_do_nothing(index_elements=["league_id", "discord_id"])
        .returning(table.c.id)
    )
    if session.execute(statement).first() is not None:
        return None
    earlier = session.exec(
        select(LinkRequest).where(
            LinkRequest.league_id == league_id, LinkRequest.discord_id == discord_id
        )
    ).one()
    row = session.get(Player, earlier.player_id)
    asked_at = earlier.asked_at
    if asked_at.tzinfo is None:  # SQLite hands back naive UTC
        asked_at = asked_at.replace(tzinfo=dt.UTC)
    return OpenLinkRequest(row.display_name if row is not None else "a player", asked_at)


def close_link_request(
    *, session: Session, league_id: int, discord_id: int, player_id: int | None = None
) -> int:
    """Forget a member's open request (a director answered it): he may ask again.

    Args:
        session: the unit of work.
        league_id: the league.
        discord_id: the member who asked.
        player_id: only a request for this player (a refusal answers that request alone);
            None: whichever request he has open (he is linked now).

    Returns:
        How many requests were closed (0 or 1).
    """
    statement = delete(LinkRequest).where(
        col(LinkRequest.league_id) == league_id, col(LinkRequest.discord_id) == discord_id
    )
    if player_id is not None:
        statement = statement.where(col(LinkRequest.player_id) == player_id)
    return int(session.execute(statement).rowcount or 0)  # type: ignore[attr-defined]

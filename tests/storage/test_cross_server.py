"""A server's reads and writes find only its own league's night, clock and check-ins."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from rulings import Room
from storage.clocks import add_clock, find_running_clock
from storage.errors import NotFound
from storage.guild_settings import ensure_guild_league
from storage.nights import tournament_channel
from storage.tournaments import (
    check_channel_guild,
    find_open_tournament,
    get_open_tournament,
    open_tournament,
)
from tests.storage._league import NOW

A, B = 2**60 + 1, 2**60 + 2  # two Discord servers
CHANNEL = 2**62 + 9  # a channel of A's


def _night(session: Session) -> int:
    league = ensure_guild_league(session=session, guild_id=A, actor="td:ann", now=NOW)
    ensure_guild_league(session=session, guild_id=B, actor="td:bob", now=NOW)
    record = open_tournament(
        session=session, league_id=league.id, channel_id=CHANNEL, room=Room("Pub"), actor="x"
    )
    return record.id


def test_another_servers_night_is_not_found(session: Session):
    tournament_id = _night(session)
    assert get_open_tournament(session=session, channel_id=CHANNEL, guild_id=A).id == tournament_id
    assert get_open_tournament(session=session, channel_id=CHANNEL).id == tournament_id
    with pytest.raises(NotFound, match="no tournament is open"):
        get_open_tournament(session=session, channel_id=CHANNEL, guild_id=B, for_update=True)
    assert find_open_tournament(session=session, channel_id=CHANNEL, guild_id=B) is None
    assert tournament_channel(session=session, tournament_id=tournament_id, guild_id=A) == CHANNEL
    with pytest.raises(NotFound):
        tournament_channel(session=session, tournament_id=tournament_id, guild_id=B)
    check_channel_guild(session=session, channel_id=CHANNEL, guild_id=A)
    check_channel_guild(session=session, channel_id=CHANNEL + 1, guild_id=B)  # no night there
    with pytest.raises(NotFound, match="not one of this server's"):
        check_channel_guild(session=session, channel_id=CHANNEL, guild_id=B)


def test_another_servers_clock_is_not_found(session: Session):
    add_clock(
        session=session,
        guild_id=A,
        channel_id=CHANNEL,
        structure="btown",
        started_at=NOW,
        created_by=7,
    )
    assert find_running_clock(session=session, channel_id=CHANNEL, guild_id=A) is not None
    assert find_running_clock(session=session, channel_id=CHANNEL, guild_id=B) is None

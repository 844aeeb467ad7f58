"""Read-only queries behind the live pages (``/live``): a channel's clock and night.

Nothing here writes. A channel's night is its running clock (``storage.clocks``) and its open
tournament (``storage.tournaments``), read straight from the database, so the page shows the
same thing whichever bot instance runs the clock, and keeps showing it when that instance dies.
``live_stamp`` is the cheap read every poll makes (the clock's actions and the night's version);
``live_night`` adds the chart and the last entries of the log, for a page that changed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from rulings import ClockState, entry_from_data
from storage.clock_models import Clock
from storage.clocks import get_clocks, utc
from storage.errors import NotFound
from storage.guild_settings_models import GuildSetting
from storage.league_models import League
from storage.leagues import LeagueInfo
from storage.tournament_models import Tournament, TournamentEntryRow
from storage.tournaments import LoggedEntry, TournamentRecord, find_open_tournament

log = logging.getLogger(__name__)

RECENT_ENTRIES = 8
"""How many of the night's last entries (moves, bust-outs, sign-ins) a page shows."""


@dataclass(frozen=True)
class LiveStamp:
    """What a channel's live page is built from, read on every poll.

    Attributes:
        channel_id: the channel.
        clock_id: its running clock, None without one.
        clock_version: how many director actions that clock has (0 without one): its state
            (``live_clock``) changes only with it.
        tournament_id: its open tournament, None without one.
        tournament_seq: that night's version (0 without one).
    """

    channel_id: int
    clock_id: int | None
    clock_version: int
    tournament_id: int | None
    tournament_seq: int


@dataclass(frozen=True)
class LiveNight:
    """A channel's night as the live page shows it.

    Attributes:
        stamp: the versions.
        clock: the running clock's state, None without one.
        tournament: the open tournament (chart and room), None without one.
        recent: the night's last live entries, newest first (undone ones left out).
    """

    stamp: LiveStamp
    clock: ClockState | None
    tournament: TournamentRecord | None
    recent: tuple[LoggedEntry, ...]


@dataclass(frozen=True)
class LiveChannel:
    """One line of ``/live``: a channel with a running clock or an open tournament.

    Attributes:
        channel_id: the channel.
        clock: its running clock's state, if any.
        location: the open tournament's location, if any.
        players_left: players still in (seated or waiting), with a tournament.
        average_stack: chips per seated player, with a tournament.
    """

    channel_id: int
    clock: ClockState | None
    location: str | None
    players_left: int | None
    average_stack: int | None


def _clock_guild(league: LeagueInfo) -> int:
    """A league's clocks are stored with its server's id; the command line's own use 0."""
    return league.guild_id or 0


def is_live_page_shown(*, session: Session, league_id: int) -> bool:
    """Whether the league shows its live pages (``/td settings live_page``; on by default)."""
    shown = session.execute(
        sa_select(col(GuildSetting.live_page)).where(col(GuildSetting.league_id) == league_id)
    ).scalar_one_or_none()
    return shown is None or bool(shown)


def is_live_page_shown_for_guild(*, session: Session, guild_id: int) -> bool:
    """``is_live_page_shown`` for the league of a clock's server (0: the command line's own)."""
    league = col(League.guild_id) == guild_id if guild_id else col(League.guild_id).is_(None)
    shown = session.execute(
        sa_select(col(GuildSetting.live_page))
        .join(League, col(League.id) == col(GuildSetting.league_id))
        .where(league)
        .limit(1)
    ).scalar_one_or_none()
    return shown is None or bool(shown)


def clocks_read_aloud(*, session: Session, channel_ids: Sequence[int]) -> dict[int, bool]:
    """Per channel, whether the league of its running clock set ``/td settings clock_tts on``.

    One statement for every channel asked (200 clocks starting together ask together); a
    channel with no running clock reads as not read aloud.
    """
    rows = session.execute(
        sa_select(col(Clock.channel_id), col(GuildSetting.clock_tts))
        .join(League, col(League.guild_id) == col(Clock.guild_id))
        .join(GuildSetting, col(GuildSetting.league_id) == col(League.id))
        .where(col(Clock.channel_id).in_(list(channel_ids)), col(Clock.ended_at).is_(None))
    ).all()
    spoken = dict.fromkeys(channel_ids, False)
    for channel_id, tts in rows:
        spoken[channel_id] = spoken[channel_id] or bool(tts)
    return spoken


def live_stamp(*, session: Session, league: LeagueInfo, channel_id: int) -> LiveStamp:
    """A channel's running clock and open tournament versions (the poll's one cheap read).

    A channel where the league ran a clock or a night before, but runs nothing now, reads as
    an empty stamp (the TV keeps its address from one night to the next).

    Raises:
        NotFound: the league never used that channel.
    """
    clock = session.execute(
        sa_select(col(Clock.id), col(Clock.version)).where(
            col(Clock.channel_id) == channel_id,
            col(Clock.ended_at).is_(None),
            col(Clock.guild_id) == _clock_guild(league),
        )
    ).first()
    night = session.execute(
        sa_select(col(Tournament.id), col(Tournament.seq)).where(
            col(Tournament.channel_id) == channel_id,
            col(Tournament.finished_at).is_(None),
            col(Tournament.league_id) == league.id,
        )
    ).first()
    if clock is None and night is None and not _ever_used(session, league, channel_id):
        raise NotFound("there is no live page for that channel")
    return LiveStamp(
        channel_id=channel_id,
        clock_id=None if clock is None else int(clock[0]),
        clock_version=0 if clock is None else int(clock[1] or 0),
        tournament_id=None if night is None else int(night[0]),
        tournament_seq=0 if night is None else int(night[1]),
    )


def _ever_used(session: Session, league: LeagueInfo, channel_id: int) -> bool:
    clock = session.execute(
        sa_select(col(Clock.id))
        .where(col(Clock.channel_id) == channel_id, col(Clock.guild_id) == _clock_guild(league))
        .limit(1)
    ).first()
    if clock is not None:
        return True
    night = session.execute(
        sa_select(col(Tournament.id))
        .where(col(Tournament.channel_id) == channel_id, col(Tournament.league_id) == league.id)
        .limit(1)
    ).first()
    return night is not None


def live_clock(*, session: Session, clock_id: int) -> ClockState:
    """A clock's state: its start and actions (the same for one ``clock_version``).

    Raises:
        NotFound: no such clock.
    """
    found = get_clocks(session=session, clock_ids=[clock_id])
    if not found:
        raise NotFound(f"There is no clock {clock_id}.")
    return found[0].state


def live_night(
    *,
    session: Session,
    stamp: LiveStamp,
    clock: ClockState | None = None,
    recent: int = RECENT_ENTRIES,
) -> LiveNight:
    """The night behind ``stamp``: its chart, room and last ``recent`` live entries.

    ``clock`` is the running clock's state when the caller has it (read here otherwise).
    """
    if clock is None and stamp.clock_id is not None:
        clock = live_clock(session=session, clock_id=stamp.clock_id)
    tournament = None
    entries: tuple[LoggedEntry, ...] = ()
    if stamp.tournament_id is not None:
        tournament = find_open_tournament(session=session, channel_id=stamp.channel_id)
        if tournament is not None and tournament.id == stamp.tournament_id:
            live = [e for e in _last_entries(session, tournament.id, recent * 2) if not e.undone_at]
            entries = tuple(live[:recent])
        else:
            tournament = None
    return LiveNight(stamp=stamp, clock=clock, tournament=tournament, recent=entries)


def _last_entries(session: Session, tournament_id: int, limit: int) -> list[LoggedEntry]:
    """The last ``limit`` entries of a night's log, newest first (one query)."""
    rows = session.execute(
        sa_select(TournamentEntryRow)
        .where(col(TournamentEntryRow.tournament_id) == tournament_id)
        .order_by(col(TournamentEntryRow.seq).desc())
        .limit(limit)
    ).scalars()
    return [
        LoggedEntry(
            r.seq,
            entry_from_data(r.data),
            r.actor,
            utc(r.at),
            utc(r.undone_at) if r.undone_at else None,
        )
        for r in rows
    ]


def list_live_channels(*, session: Session, league: LeagueInfo) -> list[LiveChannel]:
    """The league's channels with a running clock or an open tournament, by channel id."""
    clocks = {
        int(channel): int(clock_id)
        for clock_id, channel in session.execute(
            sa_select(col(Clock.id), col(Clock.channel_id)).where(
                col(Clock.ended_at).is_(None), col(Clock.guild_id) == _clock_guild(league)
            )
        )
    }
    states = {
        r.channel_id: r.state for r in get_clocks(session=session, clock_ids=list(clocks.values()))
    }
    nights = {
        int(channel): int(tournament_id)
        for tournament_id, channel in session.execute(
            sa_select(col(Tournament.id), col(Tournament.channel_id)).where(
                col(Tournament.finished_at).is_(None), col(Tournament.league_id) == league.id
            )
        )
    }
    out = []
    for channel in sorted(set(clocks) | set(nights)):
        record = (
            find_open_tournament(session=session, channel_id=channel) if channel in nights else None
        )
        chart = record.night.chart if record else None
        out.append(
            LiveChannel(
                channel_id=channel,
                clock=states.get(channel),
                location=record.night.setup.location if record else None,
                players_left=chart.remaining if chart else None,
                average_stack=chart.average_stack if chart else None,
            )
        )
    return out

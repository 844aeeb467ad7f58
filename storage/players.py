"""Players: names matched with rapidfuzz, aliases, merging and strikes.

Linking a player to a Discord member is ``storage.player_links``.

A name is found by its case-folded key among display names and aliases. A name that is not
known but is close to one that is ("Jon Smith" when "John Smith" exists) is refused with
``DuplicatePlayerError`` naming the suggestion, unless the caller confirms it is a new person
(``allow_new``) or records it as an alias.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, func, text, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from rulings import (
    SIMILAR_NAME_SCORE,
    SUGGEST_SCORE,
    check_date,
    check_level,
    check_name,
    name_key,
    similar_name,
)
from storage.audit import add_audit_entries, add_audit_entry, utc_now
from storage.db import insert_rows
from storage.errors import AlreadyExists, DuplicatePlayerError, MergeError, NotFound, StorageError
from storage.league_models import (
    Bounty,
    Player,
    PlayerAlias,
    PremiumHandAward,
    ReceiptAward,
    Result,
    Season,
    SecondChanceWin,
    Strike,
)
from storage.league_names import league_names
from storage.leagues import get_league_rules
from storage.link_models import LinkRequest, PlayerLink

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlayerInfo:
    """A player with the other names they are known by."""

    id: int
    name: str
    discord_id: int | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class StrikeInfo:
    """A strike on a player's record (3.B)."""

    id: int
    player: str
    season: str
    level: int
    reason: str
    at: dt.datetime
    date: dt.date | None = None  # the day it was given; suspensions count the events after it


class PlayerDirectory:
    """Every name of one league in memory, to resolve many names with few queries.

    Storage-internal: an import builds one, resolves all of its names, then drops it.
    """

    def __init__(self, session: Session, league_id: int, rows: Iterable[Any] | None = None) -> None:
        """Read the league's names, or take them from ``rows`` read by ``league_names``.

        Rows of another kind than a player's or an alias's (``others``) are skipped.
        """
        self.session = session
        self.league_id = league_id
        self.ids: dict[str, int] = {}  # name key (display name or alias) -> player id
        self.display: dict[str, str] = {}  # name key -> the player's display name
        if rows is None:
            rows = session.execute(league_names(league_id))
        names: dict[int, str] = {}
        aliases: list[tuple[int, str]] = []
        for pid, key, display, what in rows:
            if what == "player":
                names[pid] = display
                self.ids[key] = pid
                self.display[key] = display
            elif what == "alias":
                aliases.append((pid, key))
        for pid, key in aliases:  # an alias takes its player's display name
            self.ids[key] = pid
            self.display[key] = names[pid]

    def find(self, name: str) -> int | None:
        """Return the id of the player known by ``name``, if any."""
        return self.ids.get(name_key(name))

    def known_names(self, names: Iterable[str]) -> dict[str, str]:
        """Map each of ``names`` that is known (a name or an alias) to its player's name.

        Returns:
            Name key -> the player's display name, for the known names only.
        """
        out: dict[str, str] = {}
        for name in names:
            key = name_key(name)
            if key in self.ids:
                out[key] = self.display[key]
        return out

    def resolve(
        self,
        names: Iterable[str],
        *,
        allow_new: bool | Collection[str] = False,
        actor: str = "system",
        now: dt.datetime | None = None,
    ) -> dict[str, int]:
        """Map each name to a player id, creating the players that are new.

        Args:
            names: Names as typed (case and spacing do not matter).
            allow_new: True to accept every new name even when it resembles a known one, or
                the names confirmed as new people.
            actor: Who is writing, for the audit log.
            now: The time of the write (UTC).

        Returns:
            Name key -> player id, for every name.

        Raises:
            DuplicatePlayerError: a new name resembles a known one (nothing is written).
        """
        confirmed = set() if isinstance(allow_new, bool) else {name_key(n) for n in allow_new}
        fresh: dict[str, str] = {}
        for raw in names:
            if name_key(raw) in self.ids:  # known: valid already (a bad name has no known key)
                continue
            display = check_name(raw, "player name")
            key = name_key(display)
            if key in fresh:
                continue
            if allow_new is not True and key not in confirmed:
                hint = similar_name(key, self.display, SIMILAR_NAME_SCORE) or similar_name(
                    key, fresh, SIMILAR_NAME_SCORE
                )
                if hint is not None:
                    raise DuplicatePlayerError(display, hint)
            fresh[key] = display
        if fresh:
            self.session.flush()
            made = self._add_players(fresh, actor, utc_now(now))
            for key, pid in made:
                self.ids[key] = int(pid or 0)
                self.display[key] = fresh[key]
        return {name_key(n): self.ids[name_key(n)] for n in names}

    def _add_players(self, fresh: dict[str, str], actor: str, at: dt.datetime) -> Iterable[Any]:
        """Add the players ``fresh`` (name key -> display name) and audit each; their ids.

        On PostgreSQL one statement: an ``INSERT ... RETURNING`` from JSON arrays, and the audit
        rows inserted from what it returns (``_ADD_PLAYERS``). On SQLite one INSERT, a read of
        the new ids (no RETURNING: SQLite would then insert row by row to keep the ids in
        order) and one audit INSERT. Either way three statements at most, whatever their number.

        Returns:
            ``(name key, id)`` of each new player.
        """
        dialect = self.session.get_bind().dialect
        if dialect.name == "postgresql":
            dumps = getattr(dialect, "_json_serializer", None) or json.dumps
            # each list as one JSON text: psycopg dumps a text[] in Python, escaping each
            # element (a quote in every ``after``); json.dumps is one call in C
            return self.session.execute(
                _ADD_PLAYERS,
                {
                    "league_id": self.league_id,
                    "names": json.dumps(list(fresh.values())),
                    "keys": json.dumps(list(fresh)),
                    "afters": json.dumps([dumps({"name": d}) for d in fresh.values()]),
                    "actor": actor,
                    "at": at,
                },
            ).all()
        insert_rows(
            self.session,
            Player,
            [
                {"league_id": self.league_id, "display_name": display, "name_key": key}
                for key, display in fresh.items()
            ],
        )
        made = self.session.execute(
            _IDS_BY_KEY, {"league": self.league_id, "keys": list(fresh)}
        ).all()
        add_audit_entries(
            session=self.session,
            league_id=self.league_id,
            actor=actor,
            entries=[
                ("player.add", f"player:{display}", None, {"name": display})
                for display in fresh.values()
            ],
            now=at,
        )
        return made


# The names as one expanding parameter, as ``storage.csv_import`` reads them: ``in_(names)``
# would bind them into each statement, which SQLAlchemy's statement cache then keeps.
_IDS_BY_KEY = (
    sa_select(col(Player.name_key), col(Player.id))
    .where(col(Player.league_id) == bindparam("league"))
    .where(col(Player.name_key).in_(bindparam("keys", expanding=True)))
)

_ADD_PLAYERS = text(
    """
    WITH given AS (
        SELECT name, key, after, i
        FROM ROWS FROM (
            json_array_elements_text(CAST(:names AS json)),
            json_array_elements_text(CAST(:keys AS json)),
            json_array_elements_text(CAST(:afters AS json))
        ) WITH ORDINALITY AS n(name, key, after, i)
    ), made AS (
        INSERT INTO player (league_id, display_name, name_key)
        SELECT :league_id, name, key FROM given ORDER BY i
        RETURNING id, name_key
    ), audited AS (
        INSERT INTO audit_log (league_id, actor, at, action, target, before, after)
        SELECT :league_id, :actor, :at, 'player.add', 'player:' || given.name, NULL,
            CAST(given.after AS json)
        FROM made JOIN given ON given.key = made.name_key
        ORDER BY made.id
    )
    SELECT name_key, id FROM made
    """
)
"""New players and their audit rows as ``add_audit_entries`` writes them (PostgreSQL).

The ids follow the names' order (the rows are inserted in it), and so do the audit rows; each
audit row's ``after`` is the JSON text the client serialised, as ``insert_rows`` sends it.
"""


def _player_row(session: Session, league_id: int, name: str) -> Player:
    directory = PlayerDirectory(session, league_id)
    pid = directory.find(name)
    if pid is None:
        hint = similar_name(name_key(name), directory.display, SUGGEST_SCORE)
        extra = f"; did you mean '{hint}'?" if hint else ""
        raise NotFound(f"there is no player '{name.strip()}'{extra}")
    row = session.get(Player, pid)
    assert row is not None
    return row


def _info(session: Session, player: Player) -> PlayerInfo:
    aliases = session.exec(
        select(PlayerAlias.alias)
        .where(PlayerAlias.player_id == player.id)
        .order_by(col(PlayerAlias.alias_key))
    )
    return PlayerInfo(
        id=player.id or 0,
        name=player.display_name,
        discord_id=player.discord_id,
        aliases=tuple(aliases),
    )


def get_player(*, session: Session, league_id: int, name: str) -> PlayerInfo:
    """Return the player known by ``name`` (display name or alias, any case).

    Raises:
        NotFound: nobody by that name; the message suggests the closest one.
    """
    return _info(session, _player_row(session, league_id, name))


def get_player_by_discord(*, session: Session, league_id: int, discord_id: int) -> PlayerInfo:
    """Return the player linked to a Discord user.

    Raises:
        NotFound: no player is linked to that user.
    """
    row = session.exec(
        select(Player).where(Player.league_id == league_id, Player.discord_id == discord_id)
    ).first()
    if row is None:
        raise NotFound("you are not linked to a player yet; ask a director to link you")
    return _info(session, row)


def list_players(*, session: Session, league_id: int) -> list[PlayerInfo]:
    """Return every player of the league by name, with aliases."""
    aliases: dict[int, list[str]] = {}
    for pid, alias in session.exec(
        select(PlayerAlias.player_id, PlayerAlias.alias)
        .where(PlayerAlias.league_id == league_id)
        .order_by(col(PlayerAlias.alias_key))
    ):
        aliases.setdefault(pid, []).append(alias)
    rows = session.exec(
        select(Player).where(Player.league_id == league_id).order_by(col(Player.name_key))
    )
    return [
        PlayerInfo(
            id=p.id or 0,
            name=p.display_name,
            discord_id=p.discord_id,
            aliases=tuple(aliases.get(p.id or 0, ())),
        )
        for p in rows
    ]


def add_player(
    *,
    session: Session,
    league_id: int,
    name: str,
    allow_new: bool = False,
    actor: str,
    now: dt.datetime | None = None,
) -> PlayerInfo:
    """Add a player.

    Raises:
        AlreadyExists: the name (or an alias) is taken.
        DuplicatePlayerError: the name resembles an existing player's and ``allow_new`` is off.
    """
    directory = PlayerDirectory(session, league_id)
    if directory.find(name) is not None:
        raise AlreadyExists(f"the player '{directory.display[name_key(name)]}' exists already")
    pid = directory.resolve([name], allow_new=allow_new, actor=actor, now=now)[name_key(name)]
    row = session.get(Player, pid)
    assert row is not None
    return _info(session, row)


def add_alias(
    *,
    session: Session,
    league_id: int,
    name: str,
    alias: str,
    actor: str,
    now: dt.datetime | None = None,
) -> PlayerInfo:
    """Let ``alias`` name the player ``name`` from now on (imports then resolve it).

    Raises:
        NotFound: no player ``name``.
        AlreadyExists: ``alias`` already names a player.
    """
    row = _player_row(session, league_id, name)
    cleaned = check_name(alias, "alias")
    key = name_key(cleaned)
    directory = PlayerDirectory(session, league_id)
    if key in directory.ids:
        raise AlreadyExists(f"'{cleaned}' already names the player '{directory.display[key]}'")
    session.add(
        PlayerAlias(league_id=league_id, player_id=row.id or 0, alias=cleaned, alias_key=key)
    )
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="player.alias",
        target=f"player:{row.display_name}",
        after={"alias": cleaned},
        now=now,
    )
    return _info(session, row)


def merge_players(
    *,
    session: Session,
    league_id: int,
    keep: str,
    merge: str,
    actor: str,
    now: dt.datetime | None = None,
) -> PlayerInfo:
    """Merge the duplicate ``merge`` into ``keep``: results, awards, strikes and names move over.

    The merged name becomes an alias of ``keep``, so later imports resolve it.

    Raises:
        NotFound: either player is unknown.
        MergeError: the same player twice, or both played the same event.
    """
    kept = _player_row(session, league_id, keep)
    gone = _player_row(session, league_id, merge)
    if kept.id == gone.id:
        raise MergeError(f"'{keep}' and '{merge}' are the same player already")
    shared = session.exec(
        select(Result.event_id)
        .where(col(Result.player_id).in_([kept.id, gone.id]))
        .group_by(col(Result.event_id))
        .having(func.count() > 1)
    ).first()
    if shared is not None:
        raise MergeError(
            f"'{kept.display_name}' and '{gone.display_name}' both played event {shared}; "
            "they are different people"
        )
    if None not in (kept.discord_id, gone.discord_id) and kept.discord_id != gone.discord_id:
        raise MergeError(
            f"'{kept.display_name}' and '{gone.display_name}' are linked to different Discord users"
        )
    before = {
        "keep": {"id": kept.id, "name": kept.display_name},
        "merge": {"id": gone.id, "name": gone.display_name, "discord_id": gone.discord_id},
    }
    for table in (
        Result,
        Bounty,
        PremiumHandAward,
        SecondChanceWin,
        ReceiptAward,
        Strike,
        PlayerAlias,
        PlayerLink,
        LinkRequest,
    ):
        session.execute(
            update(table).where(col(table.player_id) == gone.id).values(player_id=kept.id)
        )
    if kept.discord_id is None:
        kept.discord_id = gone.discord_id
    gone_name, gone_key = gone.display_name, gone.name_key
    session.execute(delete(Player).where(col(Player.id) == gone.id))
    session.expunge(gone)
    session.add(
        PlayerAlias(
            league_id=league_id, player_id=kept.id or 0, alias=gone_name, alias_key=gone_key
        )
    )
    session.add(kept)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="player.merge",
        target=f"player:{kept.display_name}",
        before=before,
        after={"id": kept.id, "name": kept.display_name, "alias": gone_name},
        now=now,
    )
    return _info(session, kept)


def add_strike(
    *,
    session: Session,
    league_id: int,
    name: str,
    season_id: int,
    level: int,
    reason: str,
    actor: str,
    day: dt.date | None = None,
    now: dt.datetime | None = None,
) -> StrikeInfo:
    """Record a strike (3.B); the engine decides what it means (``rulings.league.strikes``).

    Args:
        session: The unit of work.
        league_id: The league.
        name: The player (a name or an alias).
        season_id: The season it is given in.
        level: 1 to the league's forfeit level.
        reason: Why (required).
        actor: Who records it, for the audit log.
        day: The day it was given (the caller's today in the league's time zone; default the
            UTC day of ``now``); the suspension counts the events recorded after it.
        now: The time of the write (UTC).

    Raises:
        NotFound: no player ``name``.
        StrikeError: a level outside 1 to the league's forfeit level.
        EventFormatError: a day before 2000 or more than a year ahead.
        StorageError: an empty reason.
    """
    row = _player_row(session, league_id, name)
    check_level(level, get_league_rules(session=session, league_id=league_id))
    text = " ".join(reason.split())
    if not text:
        raise StorageError("a strike needs a reason")
    at = utc_now(now)
    given = check_date(day or at.date(), today=at.date(), what="strike date")
    strike = Strike(
        league_id=league_id,
        player_id=row.id or 0,
        season_id=season_id,
        level=level,
        reason=text[:500],
        at=at,
        date=given,
    )
    session.add(strike)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="strike.add",
        target=f"player:{row.display_name}",
        after={
            "season_id": season_id,
            "level": level,
            "reason": text,
            "date": given.isoformat(),
        },
        now=at,
    )
    return list_strikes(session=session, league_id=league_id, name=row.display_name)[-1]


def list_strikes(*, session: Session, league_id: int, name: str | None = None) -> list[StrikeInfo]:
    """Return strikes (of one player, or everyone's), oldest first."""
    query = (
        select(Strike, Player.display_name, Season.name)
        .join(Player, col(Player.id) == Strike.player_id)
        .join(Season, col(Season.id) == Strike.season_id)
        .where(Strike.league_id == league_id)
        .order_by(col(Strike.at), col(Strike.id))
    )
    if name is not None:
        query = query.where(Strike.player_id == _player_row(session, league_id, name).id)
    return [
        StrikeInfo(
            id=s.id or 0,
            player=player,
            season=season,
            level=s.level,
            reason=s.reason,
            at=s.at if s.at.tzinfo else s.at.replace(tzinfo=dt.UTC),
            date=s.date or s.at.date(),
        )
        for s, player, season in session.exec(query)
    ]

"""A league's rules: read light on every request, and changed with a re-score.

``read_league_rules`` answers what rules are in force for a server's league (``/hand``'s
premium points and citations), asked by every such command: one light statement reads the
league's row each time (never a cached answer: a director's change, made in this process or
another sharing the database, is in force on the very next request); only the parse of a
given preset and overrides is kept.

A change of the rules re-scores the current season's stored events in the same write. A
change that moves anyone's points needs a confirmation (``UnconfirmedRescoreError`` says how
many events and players); ``preview_rules_change`` shows it without writing anything.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from rulings import MAX_ID, LeagueRules, load_league_rules
from storage.audit import add_audit_entry
from storage.errors import NotFound, UnconfirmedRescoreError
from storage.league_models import League
from storage.light import DEFAULT_LEAGUE
from storage.rescore import Rescore, apply_rescore, plan_rescore
from storage.seasons import get_season

log = logging.getLogger(__name__)

_PLACEHOLDERS = {"qmark": "?", "format": "%s", "pyformat": "%s"}
_PARSED_MAX = 256
_parsed: dict[tuple[str | None, str], LeagueRules] = {}
"""Rules by (preset, overrides as canonical JSON): the stored rules parsed once, not the rules
of any league (each request reads its league's row)."""


def read_league_rules(engine: Engine, guild_id: int | None) -> LeagueRules | None:
    """The rules in force for a server's league (guild None: the database's own league).

    One statement on a pooled driver connection (no session, no ORM: ~13 us of CPU on SQLite
    against ~600-900 us through ``bot.features.league.reads.league_rules_for``), run on every
    call, so it is never stale; the default preset's rules when there is no such league yet,
    as the full path answers. Rules parsed before for the same preset and overrides are reused
    (``LeagueRules`` is frozen).

    Returns:
        The rules; None when only the full path can answer (a driver whose parameter style is
        not known here, a database busy or unreachable, a row that is not what storage writes):
        the caller reads through storage, with its retries and its errors.

    Raises:
        LeagueConfigError: the stored preset or overrides are not valid rules (as on the full
            path).
    """
    if guild_id is not None and not 0 <= guild_id <= MAX_ID:
        return _rules(None, "", None)  # beyond what the database stores: no league
    mark = _PLACEHOLDERS.get(engine.dialect.paramstyle)
    if mark is None:
        return None
    column, value = ("name", DEFAULT_LEAGUE) if guild_id is None else ("guild_id", guild_id)
    statement = f"SELECT preset, overrides FROM league WHERE {column} = {mark}"
    driver_error: type[Exception] = engine.dialect.loaded_dbapi.Error
    try:
        connection = engine.raw_connection()
        try:
            cursor = connection.cursor()
            cursor.execute(statement, (value,))
            rows = cursor.fetchall()
            cursor.close()
        finally:
            connection.close()  # back to the pool (rolled back there)
    except driver_error as exc:  # the full path retries, or says what is wrong
        log.debug("light read of the league rules refused (%s); taking the full path", exc)
        return None
    if not rows:
        return _rules(None, "", None)
    preset, overrides = rows[0]
    if not isinstance(preset, str):
        return None
    if isinstance(overrides, str | bytes):  # SQLite: the JSON text as stored
        try:
            loaded = json.loads(overrides)
        except ValueError:
            return None
    else:  # PostgreSQL's driver decodes JSON itself
        loaded = overrides
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        return None
    return _rules(preset, json.dumps(loaded, sort_keys=True, default=str), loaded)


def _rules(preset: str | None, key: str, overrides: dict[str, Any] | None) -> LeagueRules:
    """``preset`` with ``overrides`` (``key``: them as canonical JSON); None: the default's."""
    rules = _parsed.get((preset, key))
    if rules is None:
        rules = load_league_rules() if preset is None else load_league_rules(preset, overrides)
        if len(_parsed) >= _PARSED_MAX:
            _parsed.clear()
        _parsed[(preset, key)] = rules
    return rules


@dataclass(frozen=True)
class RulesChange:
    """A change of a league's rules and what it re-scored.

    Attributes:
        rules: The rules now in force.
        season: The season re-scored (the current one), or None before any season.
        events: Stored events of that season whose points changed.
        players: Players whose points changed.
    """

    rules: LeagueRules
    season: str | None = None
    events: int = 0
    players: int = 0


def _plan(session: Session, league_id: int, rules: LeagueRules) -> Rescore | None:
    try:
        season = get_season(session=session, league_id=league_id)
    except NotFound:
        return None
    return plan_rescore(
        session=session, league_id=league_id, season_id=season.id, season=season.name, rules=rules
    )


def preview_rules_change(
    *, session: Session, league_id: int, preset: str | None = None
) -> RulesChange:
    """What switching the league to ``preset`` would re-score, without writing anything.

    Raises:
        LeagueConfigError: an unknown preset.
    """
    league = session.get(League, league_id)
    if league is None:
        raise NotFound(f"there is no league {league_id}")
    rules = load_league_rules(preset or league.preset, dict(league.overrides or {}))
    rescore = _plan(session, league_id, rules)
    if rescore is None:
        return RulesChange(rules)
    return RulesChange(rules, rescore.season, len(rescore.events), rescore.players)


def update_league_rules(
    *,
    session: Session,
    league_id: int,
    preset: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    actor: str,
    confirm: bool = False,
    now: dt.datetime | None = None,
) -> RulesChange:
    """Change the league's preset and/or replace its overrides; the new rules are validated first.

    The stored events of the current season are re-scored under the new rules in the same
    transaction, so its standings never mix two rule sets (earlier seasons keep the rules of
    their day). When that changes anyone's points the change needs ``confirm``.

    Raises:
        LeagueConfigError: an unknown preset or a bad override (nothing is changed).
        UnconfirmedRescoreError: the change re-scores stored events and ``confirm`` is off
            (nothing is changed; the message says how many events and players).
    """
    league = session.get(League, league_id)
    if league is None:
        raise NotFound(f"there is no league {league_id}")
    new_preset = preset or league.preset
    new_overrides = dict(overrides) if overrides is not None else dict(league.overrides or {})
    rules = load_league_rules(new_preset, new_overrides)
    rescore = _plan(session, league_id, rules)
    if rescore is not None and rescore.events and not confirm:
        n, p = len(rescore.events), rescore.players
        whose = "1 player's" if p == 1 else f"{p} players'"
        raise UnconfirmedRescoreError(
            f"this change re-scores {n} stored event{'s' if n != 1 else ''} of "
            f"{rescore.season} ({whose} points change); confirm to apply it",
            season=rescore.season,
            events=n,
            players=p,
        )
    before = {"preset": league.preset, "overrides": dict(league.overrides or {})}
    league.preset = new_preset
    league.overrides = new_overrides
    session.add(league)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="league.rules",
        target=f"league:{league.name}",
        before=before,
        after={"preset": new_preset, "overrides": new_overrides},
        now=now,
    )
    if rescore is None or not rescore.events:
        return RulesChange(rules, rescore.season if rescore else None)
    apply_rescore(session=session, rescore=rescore)
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="league.rescore",
        target=f"season:{rescore.season}",
        after={
            "season": rescore.season,
            "events": list(rescore.events),
            "players": rescore.players,
        },
        now=now,
    )
    return RulesChange(rules, rescore.season, len(rescore.events), rescore.players)

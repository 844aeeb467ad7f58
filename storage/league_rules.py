"""A league's rules changed: the current season's stored events re-scored in the same write.

A change that moves anyone's points needs a confirmation (``UnconfirmedRescoreError`` says how
many events and players); ``preview_rules_change`` shows it without writing anything.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from rulings import LeagueRules, load_league_rules
from storage.audit import add_audit_entry
from storage.errors import NotFound, UnconfirmedRescoreError
from storage.league_models import League
from storage.rescore import Rescore, apply_rescore, plan_rescore
from storage.seasons import get_season

log = logging.getLogger(__name__)


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

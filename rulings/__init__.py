"""pokerfloor's pure domain engine: the only surface ``bot`` and ``storage`` import.

Each topic adds its re-exports below (one import block per module) and its names to
``__all__``, which stays sorted.
"""

from rulings.errors import (
    EventFormatError,
    LeagueConfigError,
    RulingsError,
    StackError,
    StrikeError,
)
from rulings.events import (
    EventRecord,
    PremiumHand,
    Receipt,
    build_event,
    parse_amount_cents,
    parse_event,
    parse_finish_csv,
    parse_finish_text,
)
from rulings.league import LeagueRules, league_presets, load_league_rules, rules_from_mapping
from rulings.points import (
    Points,
    PointsBreakdown,
    bounty_points,
    event_points,
    finish_points,
    premium_hand_points,
    receipt_points,
    second_chance_points,
)
from rulings.stack import Arrival, StartingStack, late_reduction, starting_stack
from rulings.standings import RankedRow, StandingRow, rank_standings
from rulings.strikes import (
    Strike,
    Suspension,
    active_strikes,
    forfeits_season,
    is_strike_active,
    next_strike_level,
    suspension,
    suspension_events,
)
from rulings.toc import TocStatus, bp_extra_chips, toc_table

__all__ = [
    "Arrival",
    "EventFormatError",
    "EventRecord",
    "LeagueConfigError",
    "LeagueRules",
    "Points",
    "PointsBreakdown",
    "PremiumHand",
    "RankedRow",
    "Receipt",
    "RulingsError",
    "StackError",
    "StandingRow",
    "StartingStack",
    "Strike",
    "StrikeError",
    "Suspension",
    "TocStatus",
    "active_strikes",
    "bounty_points",
    "bp_extra_chips",
    "build_event",
    "event_points",
    "finish_points",
    "forfeits_season",
    "is_strike_active",
    "late_reduction",
    "league_presets",
    "load_league_rules",
    "next_strike_level",
    "parse_amount_cents",
    "parse_event",
    "parse_finish_csv",
    "parse_finish_text",
    "premium_hand_points",
    "rank_standings",
    "receipt_points",
    "rules_from_mapping",
    "second_chance_points",
    "starting_stack",
    "suspension",
    "suspension_events",
    "toc_table",
]

"""A league's rules (a preset plus overrides): events, points, standings, TOC, strikes, stacks.

Also premium-hand points, from the facts a showdown reports.
"""

from typing import TYPE_CHECKING

from rulings._lazy import lazy_exports

if TYPE_CHECKING:
    from rulings.league.bounds import (
        FIRST_DATE,
        MAX_ID,
        MAX_IMPORT_BYTES,
        MAX_NAME_LENGTH,
        check_date,
        check_id,
        check_import_size,
        check_name,
    )
    from rulings.league.citations import rule_citation
    from rulings.league.events import (
        EventRecord,
        PremiumHand,
        Receipt,
        build_event,
        parse_amount_cents,
        parse_date,
        parse_event,
        parse_finish_csv,
        parse_finish_text,
        parse_premium_hand,
    )
    from rulings.league.names import name_key
    from rulings.league.points import (
        Points,
        PointsBreakdown,
        bounty_points,
        event_points,
        finish_points,
        premium_hand_points,
        receipt_points,
        second_chance_points,
    )
    from rulings.league.premium import PremiumNote, premium_note, premium_notes
    from rulings.league.recording import (
        canonical_record,
        check_awards,
        describe_suspension,
        suspension_for_event,
    )
    from rulings.league.rules import (
        CITATION_TOPICS,
        LeagueRules,
        league_presets,
        load_league_rules,
        rules_from_mapping,
    )
    from rulings.league.stack import (
        Arrival,
        StartingStack,
        check_late_big_blind,
        in_birthday_window,
        late_big_blinds,
        late_reduction,
        starting_stack,
    )
    from rulings.league.standings import (
        TIE_BREAK_ORDER,
        RankBy,
        RankedRow,
        StandingRow,
        champion,
        rank_standings,
    )
    from rulings.league.strikes import (
        Strike,
        Suspension,
        active_strikes,
        check_level,
        forfeits_season,
        is_strike_active,
        next_strike_level,
        suspension,
        suspension_events,
    )
    from rulings.league.toc import TocStatus, bp_extra_chips, toc_table


__all__ = [
    "CITATION_TOPICS",
    "FIRST_DATE",
    "MAX_ID",
    "MAX_IMPORT_BYTES",
    "MAX_NAME_LENGTH",
    "TIE_BREAK_ORDER",
    "Arrival",
    "EventRecord",
    "LeagueRules",
    "Points",
    "PointsBreakdown",
    "PremiumHand",
    "PremiumNote",
    "RankBy",
    "RankedRow",
    "Receipt",
    "StandingRow",
    "StartingStack",
    "Strike",
    "Suspension",
    "TocStatus",
    "active_strikes",
    "bounty_points",
    "bp_extra_chips",
    "build_event",
    "canonical_record",
    "champion",
    "check_awards",
    "check_date",
    "check_id",
    "check_import_size",
    "check_late_big_blind",
    "check_level",
    "check_name",
    "describe_suspension",
    "event_points",
    "finish_points",
    "forfeits_season",
    "in_birthday_window",
    "is_strike_active",
    "late_big_blinds",
    "late_reduction",
    "league_presets",
    "load_league_rules",
    "name_key",
    "next_strike_level",
    "parse_amount_cents",
    "parse_date",
    "parse_event",
    "parse_finish_csv",
    "parse_finish_text",
    "parse_premium_hand",
    "premium_hand_points",
    "premium_note",
    "premium_notes",
    "rank_standings",
    "receipt_points",
    "rule_citation",
    "rules_from_mapping",
    "second_chance_points",
    "starting_stack",
    "suspension",
    "suspension_events",
    "suspension_for_event",
    "toc_table",
]

__getattr__ = lazy_exports(__name__, __file__)

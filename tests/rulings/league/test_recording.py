"""Issue 11's domain rules: one person once, awards to players of the event, suspensions, bounds."""

import datetime as dt
from typing import Any

import pytest

from rulings import (
    EventFormatError,
    EventRecord,
    Receipt,
    StandingRow,
    build_event,
    load_league_rules,
)
from rulings.league.bounds import (
    MAX_ID,
    check_date,
    check_id,
    check_import_size,
    latest_date,
)
from rulings.league.events import parse_amount_cents, parse_event
from rulings.league.names import check_name
from rulings.league.recording import (
    canonical_record,
    check_awards,
    describe_suspension,
    suspension_for_event,
)
from rulings.league.strikes import Strike
from rulings.league.toc import toc_table

RULES = load_league_rules()
TODAY = dt.date(2026, 11, 21)


def night(**kw: Any) -> EventRecord:
    kw.setdefault("finish", [["Alice"], ["Bob"]])
    return build_event(
        season="2026 Fall", location="Brewpub", date="2026-11-20", kind="regular", **kw
    )


# -- 1: an alias resolves to its player everywhere (1.C: points go to a player) -------------


def test_1_c_alias_in_an_award_is_the_player_of_the_finish():
    record = canonical_record(night(bounties={"Ali": 1}), {"ali": "Alice", "alice": "Alice"})
    assert dict(record.bounties) == {"Alice": 1}
    assert record.participants() == ("Alice", "Bob")


@pytest.mark.parametrize(
    "kw",
    [
        {"finish": [["Alice"], ["Ali"]]},
        {"finish": [["Alice"], ["Bob"]], "played": ["ali"]},
    ],
)
def test_1_c_one_person_listed_twice_names_both_spellings(kw):
    with pytest.raises(EventFormatError, match=r"'Alice' and '(Ali|ali)' are the same player"):
        canonical_record(night(**kw), {"ali": "Alice", "alice": "Alice"})


def test_1_c_bounties_for_two_spellings_of_one_player_are_refused():
    record = night(bounties={"Alice": 1, "Ali": 2})
    with pytest.raises(EventFormatError, match="bounties: 'Alice' and 'Ali' are the same player"):
        canonical_record(record, {"ali": "Alice", "alice": "Alice"})


def test_1_c_a_record_with_only_new_names_is_unchanged():
    record = night()
    assert canonical_record(record, {}) is record


# -- 6: awards only to players of the event (1.C; the tie-break counts events played) -------


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"bounties": {"Zed": 1}}, "bounties"),
        ({"second_chance_winners": ["Zed"]}, "second_chance_winners"),
        ({"receipts": [Receipt("Zed", 500)]}, "receipts"),
    ],
)
def test_6_1_c_award_to_someone_who_did_not_play_is_refused(kw, field):
    with pytest.raises(EventFormatError, match=f"{field}: Zed did not play this event"):
        check_awards(night(**kw))


def test_6_1_c_played_adds_the_award_winner_explicitly():
    record = night(played=["Zed"], second_chance_winners=["zed"])
    assert check_awards(record) is record


def test_6_1_c_b_zero_receipt_is_refused():
    with pytest.raises(EventFormatError, match="zero"):
        parse_amount_cents("0.00")
    with pytest.raises(EventFormatError, match="zero"):
        night(receipts=[Receipt("Alice", 0)])


# -- 5: suspensions count down per event recorded (3.B.d) and strike 3 forfeits (3.B.a) ----


STRUCK = dt.date(2026, 11, 1)


@pytest.mark.parametrize(("since", "left"), [(0, 3), (2, 1), (3, None), (7, None)])
def test_5_3_b_d_strike_one_counts_down_three_events(since, left):
    state = suspension_for_event(
        Strike("Eve", "2026 Fall", 1),
        strike_date=STRUCK,
        event_date=dt.date(2026, 12, 1),
        event_season="2026 Fall",
        events_since=since,
        rules=RULES,
    )
    assert (state.events_remaining if state else None) == left


def test_5_3_b_a_strike_three_lasts_the_season_not_the_next():
    strike = Strike("Eve", "2026 Fall", 3)
    args: dict[str, Any] = {
        "strike_date": STRUCK,
        "event_date": dt.date(2027, 1, 5),
        "events_since": 40,
    }
    assert suspension_for_event(strike, event_season="2026 Fall", rules=RULES, **args)
    assert suspension_for_event(strike, event_season="2027 Spring", rules=RULES, **args) is None


def test_5_3_b_a_a_night_before_the_strike_is_not_suspended():
    strike = Strike("Eve", "2026 Fall", 2)
    for day in (STRUCK, STRUCK - dt.timedelta(days=3)):
        assert (
            suspension_for_event(
                strike,
                strike_date=STRUCK,
                event_date=day,
                event_season="2026 Fall",
                events_since=0,
                rules=RULES,
            )
            is None
        )


def test_5_3_b_the_refusal_says_the_events_left():
    state = suspension_for_event(
        Strike("Eve", "2026 Fall", 2),
        strike_date=STRUCK,
        event_date=dt.date(2026, 12, 1),
        event_season="2026 Fall",
        events_since=4,
        rules=RULES,
    )
    assert state is not None
    assert describe_suspension(state, STRUCK) == (
        "Eve is suspended (strike 2 on 2026-11-01): 5 of 9 events left (3.B)"
    )


def test_5_4_b_strike_three_is_forfeited_not_merely_short():
    rows = [StandingRow("Shemp", 0, 0, 12), StandingRow("Moe", 1500, 1500, 12)]
    table = {s.player: s for s in toc_table(rows, RULES, suspended=["Shemp"])}
    assert table["Shemp"].status == "forfeited"
    assert table["Moe"].status == "qualified"


# -- 8: input bounds, the same on every path (1.C.b amounts) -------------------------------


@pytest.mark.parametrize("value", ["9223372036854775808", 2**63, 0, -1, "abc", "1.5", True, "١٢"])
def test_8_ids_beyond_64_bits_are_refused(value):
    with pytest.raises(EventFormatError, match="is not an event number"):
        check_id(value)


def test_8_ids_within_64_bits_are_read():
    assert check_id(str(MAX_ID)) == MAX_ID
    assert check_id("#12") == 12


def test_8_names_are_at_most_100_characters_on_the_import_path():
    for field in ("season", "location"):
        data = {
            "season": "2026 Fall",
            "location": "Brewpub",
            "date": "2026-11-20",
            "kind": "regular",
            "finish": [["Alice"]],
            field: "S" * 5000,
        }
        with pytest.raises(EventFormatError, match=f"{field}: .* longer than 100 characters"):
            parse_event(data)
    assert check_name("x" * 100) == "x" * 100


@pytest.mark.parametrize("day", [dt.date(1999, 12, 31), dt.date(2027, 11, 22)])
def test_8_dates_outside_2000_to_a_year_ahead_are_refused(day):
    with pytest.raises(EventFormatError, match="outside 2000-01-01 to 2027-11-21"):
        check_date(day, today=TODAY)


def test_8_dates_at_the_bounds_are_accepted():
    assert check_date(dt.date(2000, 1, 1), today=TODAY)
    assert check_date(latest_date(TODAY), today=TODAY) == dt.date(2027, 11, 21)


@pytest.mark.parametrize("amount", ["1e3", "1E3", "12.345", "+5", "1,00"])
def test_8_1_c_b_amounts_are_dollars_with_two_decimals(amount):
    with pytest.raises(EventFormatError, match="amount"):
        parse_amount_cents(amount)


def test_8_import_files_are_at_most_20_mb():
    assert check_import_size(20_000_000) == 20_000_000
    with pytest.raises(EventFormatError, match="at most 20,000,000"):
        check_import_size(20_000_001, "big.json")

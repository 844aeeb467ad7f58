import datetime
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulings import (
    EventFormatError,
    PremiumHand,
    Receipt,
    build_event,
    parse_amount_cents,
    parse_event,
    parse_finish_csv,
    parse_finish_text,
)

ISSUE_EXAMPLE = json.loads(
    """{"season": "2026 Fall", "location": "Brewpub", "date": "2026-11-20", "kind": "regular",
    "finish": [["Alice"], ["Bob"], ["Carol", "Dave"], ["Eve"]], "bounties": {"Alice": 2},
    "premium_hands": [{"player": "Bob", "hand": "quads"}], "second_chance_winners": ["Frank"],
    "receipts": [{"player": "Alice", "amount": "12.50", "ref": "R-1001"}]}"""
)


def event(**changes: Any) -> dict[str, Any]:
    data = dict(ISSUE_EXAMPLE)
    data.update(changes)
    return data


def test_parse_event_reads_the_documented_example():
    record = parse_event(ISSUE_EXAMPLE)
    assert record.season == "2026 Fall"
    assert record.location == "Brewpub"
    assert record.date == datetime.date(2026, 11, 20)
    assert record.kind == "regular"
    assert record.finish == (("Alice",), ("Bob",), ("Carol", "Dave"), ("Eve",))
    assert dict(record.bounties) == {"Alice": 2}
    assert record.premium_hands == (PremiumHand("Bob", "quads"),)
    assert record.second_chance_winners == ("Frank",)
    assert record.receipts == (Receipt("Alice", 1250, "R-1001"),)


def test_participants_put_finish_order_first_then_played_then_award_only_names():
    record = parse_event(event(played=["Gus"]))
    assert record.participants() == ("Alice", "Bob", "Carol", "Dave", "Eve", "Gus", "Frank")


def test_finish_positions_give_a_tie_its_best_place():
    positions = parse_event(ISSUE_EXAMPLE).finish_positions()
    assert positions == {"Alice": 1, "Bob": 2, "Carol": 3, "Dave": 3, "Eve": 5}


def test_names_are_stripped_and_awards_take_the_finish_spelling():
    record = parse_event(
        event(
            finish=["  Alice  Smith ", ["Bob"]],
            bounties={"alice smith": 1},
            receipts=[{"player": "BOB", "amount": 3}],
            premium_hands=[],
            second_chance_winners=[],
        )
    )
    assert record.finish == (("Alice Smith",), ("Bob",))
    assert dict(record.bounties) == {"Alice Smith": 1}
    assert record.receipts[0].player == "Bob"


def test_a_name_twice_in_one_event_is_refused_case_insensitively():
    with pytest.raises(EventFormatError, match=r"finish place 3 .*: Alice is listed twice"):
        parse_event(event(finish=[["Alice"], ["Bob"], ["alice"]]))


def test_a_finisher_also_in_played_is_refused():
    with pytest.raises(EventFormatError, match="played entry 1: Bob is listed twice"):
        parse_event(event(played=["Bob"]))


def test_unknown_kind_is_refused():
    with pytest.raises(EventFormatError, match="kind: 'weekly' is not one of"):
        parse_event(event(kind="weekly"))


@pytest.mark.parametrize("kind", ["Second Chance", "second-chance", "SECOND_CHANCE"])
def test_kind_spellings_normalise(kind):
    assert parse_event(event(kind=kind)).kind == "second_chance"


@pytest.mark.parametrize("date", ["2026-02-30", "20/11/2026", "2026-11-20T10:00", 20261120, ""])
def test_bad_date_is_refused(date):
    with pytest.raises(EventFormatError, match=r"date: .* is not a date like 2026-11-20"):
        parse_event(event(date=date))


@pytest.mark.parametrize("amount", ["-5", -0.01])
def test_negative_receipt_is_refused(amount):
    receipts = [{"player": "Alice", "amount": amount}]
    with pytest.raises(EventFormatError, match=r"receipts entry 1: amount .* is negative"):
        parse_event(event(receipts=receipts))


def test_absurd_receipt_is_refused():
    receipts = [{"player": "Alice", "amount": "5"}, {"player": "Bob", "amount": "1250.00"}]
    with pytest.raises(EventFormatError, match=r"receipts entry 2: .* above \$1,000"):
        parse_event(event(receipts=receipts))


def test_a_receipt_reference_counts_once_per_event():
    receipts = [
        {"player": "Alice", "amount": 5, "ref": "R-1"},
        {"player": "Bob", "amount": 6, "ref": "r-1"},
    ]
    with pytest.raises(EventFormatError, match="receipts entry 2: receipt r-1 is already listed"):
        parse_event(event(receipts=receipts))


@pytest.mark.parametrize(
    ("amount", "cents"),
    [("12.50", 1250), (12.5, 1250), (12, 1200), ("$1,000.00", 100000), ("0.99", 99)],
)
def test_amounts_are_read_as_cents(amount, cents):
    assert parse_amount_cents(amount) == cents


@pytest.mark.parametrize(
    "amount", ["12.345", "abc", "nan", True, None, "1000.01", "1e3", "0", "0.00", 1e3 * 1e20]
)
def test_bad_amounts_are_refused(amount):
    with pytest.raises(EventFormatError, match="receipt: amount"):
        parse_amount_cents(amount)


@pytest.mark.parametrize("hand", ["full house", "", 5])
def test_bad_premium_hand_is_refused(hand):
    with pytest.raises(EventFormatError, match=r"premium_hands entry 1: .* is not a premium hand"):
        parse_event(event(premium_hands=[{"player": "Bob", "hand": hand}]))


@pytest.mark.parametrize(
    ("hand", "key"),
    [("Royal Flush", "royal_flush"), ("straight-flush", "straight_flush"),
     ("Four of a kind", "quads"), ("any quads", "quads")],
)  # fmt: skip
def test_premium_hand_spellings_normalise(hand, key):
    record = parse_event(event(premium_hands=[{"player": "Bob", "hand": hand}]))
    assert record.premium_hands[0].hand == key


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"premium_hands": [{"player": "", "hand": "quads"}]}, "premium_hands entry 1: a player"),
        ({"premium_hands": [{"hand": "quads"}]}, "premium_hands entry 1: a player name is missing"),
        ({"receipts": [{"amount": "3"}]}, "receipts entry 1: a player name is missing"),
        ({"second_chance_winners": ["Frank", " "]}, "second_chance_winners entry 2: a player"),
        ({"bounties": {"": 1}}, r"bounties\[''\]: a player name is missing"),
    ],
)
def test_an_award_naming_nobody_is_refused(changes, message):
    with pytest.raises(EventFormatError, match=message):
        parse_event(event(**changes))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"bounties": {"Alice": -1}}, "chips must be a whole number >= 0"),
        ({"bounties": {"Alice": 1.5}}, "chips must be a whole number >= 0"),
        ({"bounties": {"Alice": 500}}, "500 bounty chips is more than 100"),
        ({"bounties": {"Alice": 1, "ALICE": 2}}, "ALICE.*Alice is listed twice"),
        ({"bounties": ["Alice"]}, "bounties: must map"),
    ],
)
def test_bad_bounties_are_refused(changes, message):
    with pytest.raises(EventFormatError, match=message):
        parse_event(event(**changes))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"finish": [["Alice"], []]}, "finish place 2 .*: empty"),
        ({"finish": "Alice, Bob"}, "finish: must be a list"),
        ({"finish": [["Alice"], [None]]}, "finish place 2 .*: a player name is missing"),
        ({"season": " "}, "season: missing or empty"),
        ({"location": 5}, "location: missing or empty"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"receipts": [{"player": "A", "amount": 1, "tip": 2}]}, "receipts entry 1: must be"),
        ({"receipts": [{"player": "A"}]}, "receipts entry 1: amount is missing"),
        ({"played": "Gus"}, "played: must be a list"),
    ],
)
def test_malformed_events_are_refused(changes, message):
    with pytest.raises(EventFormatError, match=message):
        parse_event(event(**changes))


@pytest.mark.parametrize("missing", ["season", "location", "date", "kind", "finish"])
def test_required_fields(missing):
    data = dict(ISSUE_EXAMPLE)
    del data[missing]
    with pytest.raises(EventFormatError, match=f"{missing}: missing"):
        parse_event(data)


def test_an_event_must_be_an_object():
    with pytest.raises(EventFormatError, match="JSON object"):
        parse_event([1, 2])  # type: ignore[arg-type]


def test_build_event_from_python_values():
    record = build_event(
        season="S", location="L", date=datetime.date(2026, 1, 2), kind="toc", finish=[["A"]]
    )
    assert record.kind == "toc"
    assert record.participants() == ("A",)


def test_parse_finish_text_with_ties_by_equals_and_by_repeated_place():
    assert parse_finish_text("1 Alice, 2 Bob, 3 Carol=Dave, 5 Eve") == (
        ("Alice",), ("Bob",), ("Carol", "Dave"), ("Eve",),
    )  # fmt: skip
    assert parse_finish_text("1st Alice\n2. Bob\n3 Carol\n3 Dave\n5th Eve") == (
        ("Alice",), ("Bob",), ("Carol", "Dave"), ("Eve",),
    )  # fmt: skip


def test_parse_finish_text_accepts_any_order_of_entries():
    assert parse_finish_text("2 Bob, 1 Alice") == (("Alice",), ("Bob",))


def test_parse_finish_text_position_gap_is_refused():
    with pytest.raises(EventFormatError, match=r"finish entry 2 .*: place 3 should be 2"):
        parse_finish_text("1 Alice, 3 Bob")


def test_parse_finish_text_place_after_a_tie_must_skip_the_covered_place():
    with pytest.raises(EventFormatError, match=r"place 4 should be 5 .*Carol and Dave tied"):
        parse_finish_text("1 Alice, 2 Bob, 3 Carol=Dave, 4 Eve")


def test_parse_finish_text_must_start_at_first():
    with pytest.raises(EventFormatError, match="place 2 should be 1"):
        parse_finish_text("2 Bob")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "finish: empty"),
        ("Alice", "expected a place then a name"),
        ("x Alice", "'x' is not a place"),
        ("0 Alice", "'0' is not a place"),
        ("1 Alice, 2 alice", "alice is listed twice"),
        ("1 Alice=", "a player name is missing"),
    ],
)
def test_parse_finish_text_errors(text, message):
    with pytest.raises(EventFormatError, match=message):
        parse_finish_text(text)


def test_parse_finish_csv_reads_ties_as_repeated_positions():
    text = "\ufeffposition,player\n1,Alice\n2,Bob\n\n3,Carol\n3,Dave\n5,Eve\n"
    assert parse_finish_csv(text) == (("Alice",), ("Bob",), ("Carol", "Dave"), ("Eve",))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("player,position\n1,Alice\n", "line 1: the header must be 'position,player'"),
        ("position,player\n1,Alice\n3,Bob\n", "line 3: place 3 should be 2"),
        ("position,player\n1,Alice\n2\n", "line 3: expected 'position,player'"),
        ("position,player\n1,Alice\nfirst,Bob\n", "line 3: 'first' is not a place"),
        ("position,player\n", "no rows"),
        ("position,player\n1,Alice\n2,ALICE\n", "ALICE is listed twice"),
    ],
)
def test_parse_finish_csv_errors_name_the_line(text, message):
    with pytest.raises(EventFormatError, match=message):
        parse_finish_csv(text)


def test_an_event_needs_at_least_a_winner():
    with pytest.raises(EventFormatError, match="finish: no players"):
        parse_event(event(finish=[]))


tie_groups = st.lists(
    st.lists(st.sampled_from(["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]), min_size=1,
             max_size=3),
    min_size=1,
    max_size=6,
).filter(lambda gs: len({n for g in gs for n in g}) == sum(len(g) for g in gs))  # fmt: skip


@given(tie_groups)
def test_finish_text_and_csv_read_back_what_was_written(groups):
    lines, csv_rows, position = [], ["position,player"], 1
    for group in groups:
        lines.append(f"{position} {'='.join(group)}")
        csv_rows += [f"{position},{name}" for name in group]
        position += len(group)
    expected = tuple(tuple(g) for g in groups)
    assert parse_finish_text(", ".join(lines)) == expected
    assert parse_finish_csv("\n".join(csv_rows)) == expected

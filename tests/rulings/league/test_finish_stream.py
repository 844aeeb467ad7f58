"""A CSV night read and scored a row at a time gives what the whole-list readers give."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import random

import pytest

from rulings import (
    EventFormatError,
    EventRecord,
    event_points,
    finish_groups,
    finish_list_points,
    iter_finish_csv,
    parse_finish_csv,
    scan_finish_csv,
)
from rulings.league.rules import load_league_rules


def _random_finish(rng: random.Random) -> list[tuple[str, ...]]:
    names = [f"P{i}" for i in range(rng.randint(1, 40))]
    groups: list[tuple[str, ...]] = []
    i = 0
    while i < len(names):
        size = rng.choice([1, 1, 1, 2, 3])
        groups.append(tuple(names[i : i + size]))
        i += size
    return groups


@pytest.mark.parametrize("kind", ["regular", "second_chance", "toc"])
@pytest.mark.parametrize("vacant", [False, True])
def test_finish_list_points_scores_as_event_points_with_ties_and_the_owner(kind, vacant):
    rng = random.Random(f"{kind}{vacant}")
    for _ in range(200):
        finish = _random_finish(rng)
        owner = rng.choice([None, "P0", "P3", "p5", "nobody"])
        rules = dataclasses.replace(load_league_rules(), owner_positions_vacant=vacant)
        record = EventRecord("S", "L", dt.date(2026, 11, 20), kind, tuple(finish))
        whole = event_points(record, rules, owner=owner)
        place, expected = 1, []
        for group in finish:
            for name in group:
                expected.append((name, place, len(group), whole[name]))
            place += len(group)
        assert list(finish_list_points(iter(finish), rules, kind=kind, owner=owner)) == expected


def _csv(rows: list[tuple[int | str, str]]) -> str:
    return "position,player\n" + "".join(f"{p},{n}\n" for p, n in rows)


def _scan(text: str) -> int | None:
    return scan_finish_csv(lambda: io.StringIO(text))


def _outcome(call) -> object:
    try:
        return call()
    except EventFormatError as exc:
        return str(exc)


@pytest.mark.parametrize("bits", [1 << 24, 8], ids=["2MB-map", "8-bit-map"])
def test_scan_finish_csv_refuses_what_parse_finish_csv_refuses_with_the_same_line(
    monkeypatch, bits
):
    """With a map of 8 bits nearly every name is looked for again: a name twice is still
    told from one whose hash shares a bit."""
    from rulings.league import events

    monkeypatch.setattr(events, "_SEEN_BITS", bits)
    rng = random.Random(19)
    for _ in range(400):
        finish = _random_finish(rng)
        rows: list[tuple[int | str, str]] = []
        place = 1
        for group in finish:
            rows += [(place, n) for n in group]
            place += len(group)
        damage = rng.choice(["none", "gap", "twice", "bad place", "no name", "twice and gap"])
        if damage in ("gap", "twice and gap") and len(rows) > 1:
            i = rng.randrange(1, len(rows))
            rows = rows[:i] + [(int(p) + 1, n) for p, n in rows[i:]]
        if damage in ("twice", "twice and gap") and len(rows) > 1:
            i, j = sorted(rng.sample(range(len(rows)), 2))
            rows[j] = (rows[j][0], rows[i][1].upper())
        if damage == "bad place":
            i = rng.randrange(len(rows))
            rows[i] = ("x", rows[i][1])
        if damage == "no name":
            i = rng.randrange(len(rows))
            rows[i] = (rows[i][0], " ")
        text = _csv(rows)
        whole = _outcome(lambda text=text: parse_finish_csv(text))
        streamed = _outcome(lambda text=text: _scan(text))
        if isinstance(whole, str):
            assert streamed == whole, text
        else:
            assert streamed == len(rows)
            groups = tuple(finish_groups(iter_finish_csv(io.StringIO(text))))
            assert groups == whole


def test_scan_finish_csv_leaves_rows_out_of_place_order_to_the_whole_reader():
    assert _scan(_csv([(2, "Bea"), (1, "Ann")])) is None
    assert parse_finish_csv(_csv([(2, "Bea"), (1, "Ann")])) == (("Ann",), ("Bea",))
    with pytest.raises(EventFormatError, match="no rows"):
        _scan("position,player\n\n")
    with pytest.raises(EventFormatError, match="line 1: the header"):
        _scan("place,name\n1,Ann\n")

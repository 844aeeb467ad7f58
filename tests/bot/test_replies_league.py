from __future__ import annotations

import datetime as dt

from bot.features.league.wording import (
    event_summary_reply,
    stack_reply,
    standings_pages,
    standings_reply,
    toc_pages,
)
from rulings import (
    Arrival,
    StandingRow,
    TocStatus,
    load_league_rules,
    rank_standings,
    starting_stack,
)
from storage.events import EventSummary, ImportOutcome, PlayerPoints
from storage.standings import StandingsTable, TocTable


def _table(players: int) -> StandingsTable:
    rows = [StandingRow(f"Player number {i:04d}", 10 * i, i, 3) for i in range(players)]
    return StandingsTable("2026 Fall", None, "rp", tuple(rank_standings(rows)))


def test_long_standings_come_back_as_pages_within_discord_limits():
    pages = standings_pages(_table(400))
    assert len(pages) == 16
    assert all(len(p.text) <= 4096 and len(p.fields) <= 25 for p in pages)
    assert pages[0].footer is not None
    assert pages[0].footer.endswith("Page 1/16")
    assert "Player number 0399" in pages[0].text
    assert standings_reply(_table(400), page=99) == pages[-1]


def test_empty_standings_say_so():
    [page] = standings_pages(_table(0))
    assert page.text == "Nobody yet."


def test_toc_pages_show_status_and_shortfall():
    rows = (TocStatus("Shemp", "conversion", 0, 0, 0, "converts 250 RP"),)
    [page] = toc_pages(TocTable("2026 Fall", 1500, 1500, rows))
    assert "by conversion" in page.text
    assert page.footer == "Qualifying: 1,500 RP and 1,500 BP (4.B)"


def test_event_summary_lists_points_and_what_changed():
    event = EventSummary(
        1, "2026 Fall", "Brewpub", dt.date(2026, 11, 20), "regular", "active", None, 3
    )
    points = (
        PlayerPoints("Alice", 1, 1, 1300, 490, {"finish": (1200, 250), "bounty": (100, 0)}),
        PlayerPoints("Carol", 3, 2, 650, 75, {"finish": (650, 75)}),
        PlayerPoints("Zed", None, 1, 0, 0, {}),
    )
    reply = event_summary_reply(ImportOutcome("imported", event, points))
    assert reply.text.startswith("**Imported.**")
    value = reply.fields[0].value
    assert "Alice: 1,300 RP, 490 BP (finish 1,200/250, bounties 100/0)" in value
    assert "T3 Carol" in value
    assert reply.footer == "1 more played without points"


def test_event_summary_splits_long_lists_into_fields():
    event = EventSummary(2, "S", "L", dt.date(2026, 1, 1), "regular", "active", None, 120)
    points = tuple(
        PlayerPoints(f"P{i:03d} with a long name", i + 1, 1, 10, 10, {}) for i in range(120)
    )
    reply = event_summary_reply(ImportOutcome("unchanged", event, points))
    assert 1 < len(reply.fields) <= 25
    assert all(len(f.value) <= 1024 for f in reply.fields)


def test_stack_reply_shows_the_late_reduction():
    rules = load_league_rules()
    stack = starting_stack(Arrival(late_big_blind=600), rules)
    reply = stack_reply("Larry", stack, rules)
    assert f"{stack.total:,}" in reply.title
    assert "1,200 late registration" in reply.text
    assert reply.citation == (
        "btown-poker-league 2.C.a-b (starting stack), 1.E.d (late registration)"
    )


def test_stack_reply_in_a_poker_pub_league_cites_its_own_book():
    rules = load_league_rules("poker-pub")
    reply = stack_reply("Pat", starting_stack(Arrival(), rules), rules)
    assert reply.title == "Starting stack for Pat: 4,000"
    assert (
        reply.citation == "poker-pub Bar rules 3 (starting stack), Bar rules 5 (late registration)"
    )
    assert "btown" not in reply.to_text().lower()

"""Issue 11: league records a director can trust, on SQLite and PostgreSQL.

Each test is named after the issue's point and the rule it serves; every refused input is run in
its own transaction and the whole database is compared before and after (``refused``).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from rulings.errors import EventFormatError
from rulings.league import EventRecord, LeagueRules, Receipt, build_event, parse_event
from storage.audit import list_audit
from storage.db import session_scope
from storage.errors import (
    DuplicateReceiptError,
    NotFound,
    StorageError,
    SuspendedPlayerError,
    UnconfirmedRescoreError,
)
from storage.event_changes import EventEdit, RecordBuilder, amend_event, record_guild_events
from storage.event_files import import_event_file
from storage.event_import import correct_events, import_events, revive_events
from storage.events import ImportOutcome, get_event, list_events, void_event
from storage.league_rules import update_league_rules
from storage.leagues import LeagueInfo
from storage.players import add_alias, add_player, add_strike
from storage.seasons import add_season, get_season, set_current_season
from storage.standings import season_standings, season_toc
from tests.storage._league import NOW, event, load, make_league, refused


def _league(
    engine: Engine, *events: dict[str, Any], **kwargs: Any
) -> tuple[LeagueInfo, list[ImportOutcome]]:
    with session_scope(engine) as s:
        league = make_league(s)
        outcomes = load(s, league, *events, **kwargs) if events else []
    return league, outcomes


def _standings(
    engine: Engine, league: LeagueInfo, season: str | None = None
) -> dict[str, tuple[int, int, int]]:
    with session_scope(engine) as s:
        table = season_standings(session=s, league_id=league.id, season=season)
    return {r.row.player: (r.row.rp, r.row.bp, r.row.events) for r in table.rows}


def _records(*events: dict[str, Any]) -> list[EventRecord]:
    return [parse_event(e) for e in events]


# -- 1. an alias resolves to its player everywhere (1.C) -----------------------------------


def _with_alias(engine: Engine) -> LeagueInfo:
    league, _ = _league(engine)
    with session_scope(engine) as s:
        add_player(session=s, league_id=league.id, name="Alice", actor="t")
        add_alias(session=s, league_id=league.id, name="Alice", alias="Ali", actor="t")
    return league


def test_1_c_an_alias_in_an_award_scores_for_its_player(engine):
    league = _with_alias(engine)
    with session_scope(engine) as s:
        [outcome] = load(s, league, event([["Alice"], ["Bob"]], bounties={"Ali": 1}))
    assert {p.player: (p.rp, p.bp) for p in outcome.points} == {
        "Alice": (1200 + 50, 250),
        "Bob": (800, 200),
    }
    assert _standings(engine, league)["Alice"] == (1250, 250, 1)
    with session_scope(engine) as s:
        stored = get_event(session=s, league_id=league.id, event_id=outcome.event.id)
        assert stored.record["bounties"] == {"Alice": 1}  # stored in the player's name
        # /td bounty player:ali sets Alice's bounty (not a second one beside it)
        changed = amend_event(
            session=s,
            league_id=league.id,
            event_id=outcome.event.id,
            edit=EventEdit(bounty=("ali", 2)),
            actor="t",
        )
    assert changed.changes == {"Alice": (50, 0)}


@pytest.mark.parametrize(
    "night",
    [
        event([["Alice"], ["Ali"]]),
        event([["Alice"], ["Bob"]], played=["ali"]),
    ],
    ids=["finish", "played"],
)
def test_1_c_the_same_person_twice_names_both_spellings(engine, night):
    league = _with_alias(engine)
    refused(
        engine,
        lambda s: load(s, league, night),
        EventFormatError,
        r"'Alice' and '(Ali|ali)' are the same player \(Alice\)",
    )


def test_1_c_an_alias_is_the_same_night_on_import_again(engine):
    league = _with_alias(engine)
    with session_scope(engine) as s:
        load(s, league, event([["Alice"], ["Bob"]]))
    with session_scope(engine) as s:
        [again] = load(s, league, event([["Ali"], ["Bob"]]))
    assert again.status == "unchanged"


# -- 2. a new season becomes current (4.A: a season ends with its TOC) ---------------------


def _typed(season: str | None = None, day: str = "2027-01-05") -> RecordBuilder:
    def build(rules: LeagueRules, current: str | None) -> list[EventRecord]:
        return [
            build_event(
                season=season or current or "",
                location="Brewpub",
                date=day,
                kind="regular",
                finish=[["Alice"], ["Bob"]],
            )
        ]

    return build


def test_2_4_a_a_result_with_no_season_goes_to_the_new_current_season(engine):
    league, _ = _league(engine, event([["Alice"], ["Bob"]]))
    with session_scope(engine) as s:
        added = add_season(session=s, league_id=league.id, name="2027 Spring", actor="t")
    assert added.is_current
    with session_scope(engine) as s:
        [outcome] = record_guild_events(
            session=s, guild_id=None, build=_typed(), actor="t", now=NOW
        )
    assert outcome.event.season == "2027 Spring"
    with session_scope(engine) as s:
        assert season_standings(session=s, league_id=league.id).season == "2027 Spring"
        assert season_toc(session=s, league_id=league.id).season == "2027 Spring"
        set_current_season(session=s, league_id=league.id, name="2026 fall", actor="t")
    with session_scope(engine) as s:
        assert get_season(session=s, league_id=league.id).name == "2026 Fall"
        actions = [e.action for e in list_audit(session=s, league_id=league.id, limit=3)]
    assert actions[0] == "season.current"


def test_2_4_a_an_unknown_current_season_is_refused(engine):
    league, _ = _league(engine, event([["Alice"]]))
    refused(
        engine,
        lambda s: set_current_season(session=s, league_id=league.id, name="2027", actor="t"),
        NotFound,
        "there is no season '2027'",
    )


# -- 3. a mistaken award can be undone (1.C) ------------------------------------------------


def test_3_1_c_b_a_receipt_is_removed_by_its_reference_and_entered_again(engine):
    night = event([["Alice"], ["Bob"]], receipts=[{"player": "Bob", "amount": "100", "ref": "R-7"}])
    league, [stored] = _league(engine, night)
    eid = stored.event.id
    with session_scope(engine) as s:
        gone = amend_event(
            session=s,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(receipt=Receipt("Bob", 0, "r-7"), remove=True),
            actor="t",
        )
    assert gone.changes == {"Bob": (0, -2000)}  # $100 x 20 BP taken back
    with session_scope(engine) as s:
        entry = list_audit(session=s, league_id=league.id, limit=1)[0]
        assert entry.action == "event.amend"
        assert (entry.after or {})["points"] == {"Bob": [0, -2000]}
        fixed = amend_event(
            session=s,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(receipt=Receipt("Bob", 1000, "R-7")),
            actor="t",
        )
    assert fixed.changes == {"Bob": (0, 200)}


def test_3_1_c_a_premium_hand_entered_twice_is_taken_back_once(engine):
    night = event(
        [["Alice"], ["Bob"]],
        premium_hands=[{"player": "Bob", "hand": "quads"}, {"player": "Bob", "hand": "quads"}],
    )
    league, [stored] = _league(engine, night)
    with session_scope(engine) as s:
        once = amend_event(
            session=s,
            league_id=league.id,
            event_id=stored.event.id,
            edit=EventEdit(premium_hand=("bob", "four of a kind"), remove=True),
            actor="t",
        )
    bob = next(p for p in once.points if p.player == "Bob")
    assert bob.breakdown["premium"] == (100, 0)
    assert once.changes == {"Bob": (-100, 0)}


def test_3_1_c_a_bounty_is_removed_and_a_second_chance_win_too(engine):
    night = event(
        [["Alice"], ["Bob"]], played=["Cy"], bounties={"Alice": 2}, second_chance_winners=["Cy"]
    )
    league, [stored] = _league(engine, night)
    eid = stored.event.id
    with session_scope(engine) as s:
        out = amend_event(
            session=s,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(bounty=("Alice", 0), remove=True),
            actor="t",
        )
        assert out.changes == {"Alice": (-100, 0)}
        out = amend_event(
            session=s,
            league_id=league.id,
            event_id=eid,
            edit=EventEdit(second_chance_winner="Cy", remove=True),
            actor="t",
        )
        assert out.changes == {"Cy": (0, -250)}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (EventEdit(bounty=("Bob", 0), remove=True), "Bob has no bounty at event"),
        (EventEdit(premium_hand=("Bob", "royal"), remove=True), "no premium hand"),
        (EventEdit(second_chance_winner="Bob", remove=True), "no second-chance win of Bob"),
        (EventEdit(receipt=Receipt("Bob", 0, "R-404"), remove=True), "no receipt R-404"),
    ],
)
def test_3_1_c_removing_an_award_that_is_not_there_is_refused(engine, edit, message):
    league, [stored] = _league(engine, event([["Alice"], ["Bob"]]))
    refused(
        engine,
        lambda s: amend_event(
            session=s, league_id=league.id, event_id=stored.event.id, edit=edit, actor="t"
        ),
        StorageError,
        message,
    )


# -- 4. voids and corrections (1.C: a night's points count once) ---------------------------


def test_4_1_c_a_voided_night_is_entered_again_as_a_new_event(engine):
    night = event([["Alice"], ["Bob"]])
    league, [first] = _league(engine, night)
    with session_scope(engine) as s:
        void_event(session=s, league_id=league.id, event_id=first.event.id, reason="x", actor="t")
    with session_scope(engine) as s:
        [again] = load(s, league, event([["Bob"], ["Alice"]]))
    assert again.status == "imported"
    assert again.event.id != first.event.id
    with session_scope(engine) as s:
        statuses = [(e.id, e.status) for e in list_events(session=s, league_id=league.id)]
    assert statuses == [(first.event.id, "void"), (again.event.id, "active")]
    assert _standings(engine, league) == {"Bob": (1200, 250, 1), "Alice": (800, 200, 1)}


def test_4_1_c_correcting_a_void_event_is_refused_unless_unvoided(engine):
    league, [first] = _league(engine, event([["Alice"], ["Bob"]]))
    with session_scope(engine) as s:
        void_event(session=s, league_id=league.id, event_id=first.event.id, reason="x", actor="t")
    fixed = _records(event([["Bob"], ["Alice"]]))

    def correct(s: Session) -> list[ImportOutcome]:
        return correct_events(fixed, session=s, league_id=league.id, actor="t")

    refused(engine, correct, StorageError, r"is void; un-void it explicitly \(--unvoid")
    refused(
        engine,
        lambda s: amend_event(
            session=s,
            league_id=league.id,
            event_id=first.event.id,
            edit=EventEdit(bounty=("Bob", 1)),
            actor="t",
        ),
        StorageError,
        "is void",
    )
    with session_scope(engine) as s:
        [out] = revive_events(fixed, session=s, league_id=league.id, actor="t")
    assert (out.status, out.event.id, out.event.status) == ("corrected", first.event.id, "active")
    assert _standings(engine, league)["Bob"] == (1200, 250, 1)
    with session_scope(engine) as s:
        actions = [e.action for e in list_audit(session=s, league_id=league.id, limit=2)]
    assert set(actions) == {"event.unvoid", "event.correct"}


def test_4_1_c_a_void_night_entered_again_is_not_unvoided_beside_it(engine):
    league, [first] = _league(engine, event([["Alice"], ["Bob"]]))
    with session_scope(engine) as s:
        void_event(session=s, league_id=league.id, event_id=first.event.id, reason="x", actor="t")
        [again] = load(s, league, event([["Bob"], ["Alice"]]))
    refused(
        engine,
        lambda s: amend_event(
            session=s,
            league_id=league.id,
            event_id=first.event.id,
            edit=EventEdit(bounty=("Bob", 1)),
            actor="t",
            unvoid=True,
        ),
        StorageError,
        f"was entered again as #{again.event.id}",
    )


def test_4_1_c_correcting_a_night_that_is_not_stored_is_an_error(engine):
    league, _ = _league(engine, event([["Alice"], ["Bob"]]))
    typo = _records(event([["Bob"], ["Alice"]], date="2026-11-21"))
    refused(
        engine,
        lambda s: correct_events(typo, session=s, league_id=league.id, actor="t"),
        NotFound,
        "there is no stored event 2026-11-21 Brewpub",
    )


# -- 5. suspensions are enforced (3.B) and strike 3 forfeits the TOC (3.B.a, 4.B) ----------


def _strike(
    engine: Engine, league: LeagueInfo, level: int, day: str = "2026-11-01", name: str = "Eve"
) -> None:
    with session_scope(engine) as s:
        season = get_season(session=s, league_id=league.id)
        add_strike(
            session=s,
            league_id=league.id,
            name=name,
            season_id=season.id,
            level=level,
            reason="abuse",
            actor="t",
            day=dt.date.fromisoformat(day),
            now=NOW,
        )


def test_5_3_b_d_a_suspended_player_is_refused_until_three_events_pass(engine):
    league, _ = _league(engine, event([["Eve"], ["Bob"]], date="2026-10-25"))
    _strike(engine, league, 1)
    with_eve = _records(event([["Eve"], ["Bob"]], date="2026-11-05"))
    error = refused(
        engine,
        lambda s: import_events(with_eve, session=s, league_id=league.id, actor="t", now=NOW),
        SuspendedPlayerError,
        r"Eve is suspended \(strike 1 on 2026-11-01\): 3 of 3 events left \(3.B\)",
    )
    assert error.players == ["Eve"]
    with session_scope(engine) as s:
        load(s, league, event([["Bob"]], date="2026-11-05"), event([["Bob"]], date="2026-11-12"))
    later = _records(event([["Eve"], ["Bob"]], date="2026-11-19"))
    refused(
        engine,
        lambda s: import_events(later, session=s, league_id=league.id, actor="t", now=NOW),
        SuspendedPlayerError,
        "1 of 3 events left",
    )
    with session_scope(engine) as s:  # confirmed: recorded anyway
        [ok] = import_events(
            later, session=s, league_id=league.id, actor="t", now=NOW, allow_suspended=["eve"]
        )
    assert ok.status == "imported"
    with session_scope(engine) as s:  # three events have passed: no question asked
        load(s, league, event([["Eve"], ["Bob"]], date="2026-11-26"))


def test_5_3_b_d_nights_earlier_in_the_same_file_count_down_the_suspension(engine):
    league, _ = _league(engine, event([["Eve"], ["Bob"]], date="2026-10-25"))
    _strike(engine, league, 1)
    nights = [event([["Bob"]], date=f"2026-11-{day:02d}") for day in (5, 12, 19)]
    with session_scope(engine) as s:
        outcomes = load(s, league, *nights, event([["Eve"], ["Bob"]], date="2026-11-26"))
    assert [o.status for o in outcomes] == ["imported"] * 4


def test_5_3_b_a_strike_three_keeps_him_out_all_season_and_shows_forfeited(engine):
    league, _ = _league(engine, event([["Eve"], ["Bob"]], date="2026-10-25"))
    _strike(engine, league, 3)
    night = _records(event([["Bob"], ["Eve"]], date="2026-12-20"))
    refused(
        engine,
        lambda s: import_events(night, session=s, league_id=league.id, actor="t", now=NOW),
        SuspendedPlayerError,
        "for the rest of the season and its TOC",
    )
    with session_scope(engine) as s:
        toc = {r.player: r.status for r in season_toc(session=s, league_id=league.id).rows}
    assert toc["Eve"] == "forfeited"
    with session_scope(engine) as s:  # a new season is clean
        load(s, league, event([["Eve"]], season="2027 Spring", date="2027-01-05"))


def test_5_3_b_a_strike_date_is_bounded(engine):
    league, _ = _league(engine, event([["Eve"], ["Bob"]]))
    refused(
        engine,
        lambda s: add_strike(
            session=s,
            league_id=league.id,
            name="Eve",
            season_id=get_season(session=s, league_id=league.id).id,
            level=1,
            reason="x",
            actor="t",
            day=dt.date(1999, 1, 1),
            now=NOW,
        ),
        EventFormatError,
        "strike date: 1999-01-01 is outside",
    )


# -- 6. awards only to players of the event (1.C; events played break ties) ----------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"bounties": {"Zed": 1}}, "bounties: Zed did not play this event"),
        ({"second_chance_winners": ["Zed"]}, "second_chance_winners: Zed did not play"),
        ({"premium_hands": [{"player": "Zed", "hand": "quads"}]}, "premium_hands: Zed did not"),
        ({"receipts": [{"player": "Zed", "amount": "5"}]}, "receipts: Zed did not play"),
    ],
)
def test_6_1_c_an_award_to_someone_who_did_not_play_is_refused(engine, extra, message):
    league, _ = _league(engine, event([["Alice"], ["Bob"]], date="2026-11-13"))
    refused(
        engine, lambda s: load(s, league, event([["Alice"]], **extra)), EventFormatError, message
    )


def test_6_1_c_played_adds_the_winner_and_counts_his_event(engine):
    night = event([["Alice"]], played=["Zed"], second_chance_winners=["Zed"])
    league, _ = _league(engine, night)
    assert _standings(engine, league)["Zed"] == (0, 250, 1)


def test_6_1_c_b_a_zero_receipt_is_refused(engine):
    league, [stored] = _league(engine, event([["Alice"], ["Bob"]]))
    refused(
        engine,
        lambda s: amend_event(
            session=s,
            league_id=league.id,
            event_id=stored.event.id,
            edit=EventEdit(receipt=Receipt("Bob", 0)),
            actor="t",
        ),
        EventFormatError,
        "zero",
    )


# -- 7. rule changes re-score the current season (1.B.b owner, 1.C.a points, 4.B TOC) ------


def test_7_1_b_b_naming_the_owner_rescores_the_current_season_when_confirmed(engine):
    league, _ = _league(
        engine,
        event([["Old"], ["Alice"]], season="2026 Spring", date="2026-04-01"),
        event([["Alice"], ["Bob"]]),
        event([["Bob"], ["Alice"]], date="2026-11-13"),
    )
    before = _standings(engine, league)
    error = refused(
        engine,
        lambda s: update_league_rules(
            session=s, league_id=league.id, overrides={"owner": "Alice"}, actor="t"
        ),
        UnconfirmedRescoreError,
        r"re-scores 2 stored events of 2026 Fall \(1 player's points change\); confirm",
    )
    assert (error.events, error.players) == (2, 1)
    assert _standings(engine, league) == before
    with session_scope(engine) as s:
        change = update_league_rules(
            session=s, league_id=league.id, overrides={"owner": "Alice"}, actor="t", confirm=True
        )
    assert (change.season, change.events, change.players) == ("2026 Fall", 2, 1)
    assert _standings(engine, league)["Alice"] == (0, 0, 2)
    # the earlier season keeps the rules of its day
    assert _standings(engine, league, "2026 Spring")["Alice"] == (800, 200, 1)
    with session_scope(engine) as s:
        toc = {r.player: r for r in season_toc(session=s, league_id=league.id).rows}
        actions = [e.action for e in list_audit(session=s, league_id=league.id, limit=2)]
    assert toc["Alice"].reason == "the league owner is not eligible (1.B.b)"
    assert actions == ["league.rescore", "league.rules"]


def test_7_1_c_a_points_table_change_rescores_every_player(engine):
    league, _ = _league(engine, event([["Alice"], ["Bob"], ["Cy"]]))
    points = [100, 80, 70]
    with session_scope(engine) as s:
        change = update_league_rules(
            session=s,
            league_id=league.id,
            overrides={"regular_points": points},
            actor="t",
            confirm=True,
        )
    assert (change.events, change.players) == (1, 3)
    assert {p: v[0] for p, v in _standings(engine, league).items()} == {
        "Alice": 100,
        "Bob": 80,
        "Cy": 70,
    }


def test_7_a_change_that_changes_no_points_needs_no_confirmation(engine):
    league, _ = _league(engine, event([["Alice"], ["Bob"]]))
    with session_scope(engine) as s:
        change = update_league_rules(
            session=s, league_id=league.id, overrides={"toc_rp_required": 1000}, actor="t"
        )
    assert (change.events, change.players) == (0, 0)


# -- 8. input bounds, the same on every path (1.C.b amounts and references) ----------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"date": "1999-12-31"}, "date: 1999-12-31 is outside 2000-01-01"),
        ({"date": "2028-01-07"}, "is outside 2000-01-01 to 2028-01-06"),
        ({"season": "S" * 5000}, "season: .* longer than 100 characters"),
        ({"location": "L" * 101}, "location: .* longer than 100 characters"),
    ],
)
def test_8_bounds_on_the_import_path(engine, changes, message):
    league, _ = _league(engine, event([["Alice"], ["Bob"]]))
    refused(
        engine,
        lambda s: load(s, league, event([["Alice"]], **changes)),
        EventFormatError,
        message,
    )


def test_8_1_c_b_receipt_references_compare_ignoring_case_per_location(engine):
    night = event([["Alice"]], receipts=[{"player": "Alice", "amount": "5", "ref": "R-1"}])
    league, _ = _league(engine, night)
    other = event(
        [["Bob"]],
        date="2026-11-27",
        receipts=[{"player": "Bob", "amount": "5", "ref": "r-1"}],
    )
    refused(engine, lambda s: load(s, league, other), DuplicateReceiptError, "receipt R-1")
    with session_scope(engine) as s:  # another bar's r-1 is another receipt
        load(s, league, {**other, "location": "Tavern"}, allow_new=True)


def test_8_event_numbers_beyond_64_bits_are_refused(engine):
    league, _ = _league(engine, event([["Alice"]]))
    refused(
        engine,
        lambda s: amend_event(
            session=s,
            league_id=league.id,
            event_id=2**63,
            edit=EventEdit(bounty=("Alice", 1)),
            actor="t",
        ),
        EventFormatError,
        "not an event number",
    )


def test_8_an_import_over_20_mb_is_refused_before_it_is_read(engine, tmp_path):
    league, _ = _league(engine, event([["Alice"]]))
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(20_000_001)  # sparse: nothing to read, and nothing is
    refused(
        engine,
        lambda s: import_event_file(big, session=s, league_id=league.id, actor="t"),
        EventFormatError,
        "big.json is 20,000,001 bytes; an import file is at most 20,000,000",
    )


def test_8_a_streamed_import_stores_every_batch_or_none(engine, tmp_path, monkeypatch):
    import storage.event_files as files

    monkeypatch.setattr(files, "BATCH_EVENTS", 2)
    nights = [
        event([["Alice"], ["Bob"]], date=f"2026-10-{day:02d}", receipts=[]) for day in range(1, 8)
    ]
    path = tmp_path / "season.json"
    path.write_text(json.dumps(nights, indent=1))
    league, _ = _league(engine)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([*nights, event([["Alice"]], date="1999-01-01")]))
    refused(
        engine,
        lambda s: import_event_file(bad, session=s, league_id=league.id, actor="t"),
        EventFormatError,
        "outside 2000-01-01",
    )
    with session_scope(engine) as s:
        outcomes = import_event_file(path, session=s, league_id=league.id, actor="t", now=NOW)
    assert [o.status for o in outcomes] == ["imported"] * 7
    assert _standings(engine, league)["Alice"] == (7 * 1200, 7 * 250, 7)


_ONE = json.dumps(event([["Alice"]]))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"season": 1}]', "event 1: location: missing"),
        ("[1]", "event 1: an event must be a JSON object"),
        ("[", r"not valid JSON \(line 1, column 2\)"),
        (f"[{_ONE}\n {{}}]", r"line 2, column 2\): expecting ',' or ']'"),
        ("[]", "the file holds no events"),
        (f"{_ONE} x", "expecting the end of the file after the event"),
        (
            f'[{_ONE.replace("2026-11-20", "2026-11-20", 1)[:-1]}, "receipts": '
            '[{"player": "Alice", "amount": 1e3}]}]',
            "receipts entry 1: amount",
        ),
    ],
)
def test_8_a_malformed_import_file_is_one_clear_error(engine, tmp_path, text, message):
    league, _ = _league(engine)
    path = tmp_path / "x.json"
    path.write_text(text)
    refused(
        engine,
        lambda s: import_event_file(path, session=s, league_id=league.id, actor="t"),
        EventFormatError,
        message,
    )

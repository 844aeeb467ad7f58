"""Awards noted during the night (no event yet): bounties, premium hands, second-chance wins."""

import datetime as dt

import pytest

from rulings import (
    AwardNoted,
    EventFormatError,
    PremiumHand,
    TournamentError,
    bust_players,
    chart_from_data,
    chart_to_data,
    entry_from_data,
    entry_to_data,
    finish_night,
    night_event,
    note_award,
    replay_night,
    undo_last,
)
from tests.rulings.tournament.test_night import night_of


def test_awards_are_noted_replaced_and_taken_back():
    night, _ = night_of(["Ann", "Bob", "Cy"])
    night, entry = note_award(night, "bounty", "ann", chips=2)
    assert entry == AwardNoted("bounty", "ann", chips=2)
    night, _ = note_award(night, "bounty", "Ann", chips=3)  # replaces the number
    night, _ = note_award(night, "premium", "bob", hand="Four of a kind")
    night, _ = note_award(night, "premium", "bob", hand="quads")
    night, _ = note_award(night, "second_chance", "cy")
    assert dict(night.chart.bounties) == {"ann": 3}
    assert night.chart.premium_hands == (("bob", "quads"), ("bob", "quads"))
    assert night.chart.second_chance == ("cy",)
    night, _ = note_award(night, "premium", "bob", hand="quads", remove=True)  # one of the two
    night, _ = note_award(night, "bounty", "ann", chips=0)  # 0 takes them back
    assert dict(night.chart.bounties) == {}
    assert night.chart.premium_hands == (("bob", "quads"),)
    # The chart is the replay of the log, and survives storage.
    assert replay_night(night.setup, night.log).chart == night.chart
    assert chart_from_data(chart_to_data(night.chart)) == night.chart
    assert all(entry_from_data(entry_to_data(e)) == e for e in night.log)


@pytest.mark.parametrize(
    ("award", "player", "options", "error", "message"),
    [
        ("bounty", "Zed", {"chips": 1}, TournamentError, "Zed did not sign in tonight"),
        ("bounty", "Bob", {"remove": True}, TournamentError, "no bounty chips are noted for Bob"),
        ("premium", "Bob", {"hand": "flush"}, EventFormatError, "is not a premium hand"),
        ("premium", "Bob", {"hand": "quads", "remove": True}, TournamentError, "no quads is noted"),
        ("second_chance", "Bob", {"remove": True}, TournamentError, "no second-chance win"),
        ("second_chance", "Dee", {}, TournamentError, "Dee is on the reserve list"),
    ],
)
def test_awards_that_do_not_fit_the_night_are_refused(award, player, options, error, message):
    night, _ = night_of(["Ann", "Bob", "Cy", "Dee"], seats=3, tables=1)
    assert night.chart.reserve == ("dee",)
    with pytest.raises(error, match=message):
        note_award(night, award, player, **options)


def test_undo_takes_back_the_last_award():
    night, _ = night_of(["Ann", "Bob"])
    before = night
    night, _ = note_award(night, "second_chance", "Ann")
    night, undone = undo_last(night)
    assert undone == AwardNoted("second_chance", "ann")
    assert night.chart == before.chart


def test_the_finished_night_carries_its_awards_into_the_event():
    night, _ = night_of(["Ann", "Bob", "Cy"])
    night, _ = note_award(night, "bounty", "bob", chips=2)
    night, _ = bust_players(night, ["Cy"], None)
    night, _ = note_award(night, "premium", "cy", hand="royal flush")  # busted: still tonight's
    night, _ = note_award(night, "second_chance", "cy")
    night, _ = bust_players(night, ["Bob"], None)
    night, _ = finish_night(night)
    event = night_event(night, season="2026 Fall", date=dt.date(2026, 12, 1))
    assert event.finish == (("Ann",), ("Bob",), ("Cy",))
    assert dict(event.bounties) == {"Bob": 2}
    assert event.premium_hands == (PremiumHand("Cy", "royal_flush"),)
    assert event.second_chance_winners == ("Cy",)
    with pytest.raises(TournamentError, match="finished; record awards on the event"):
        note_award(night, "bounty", "Ann", chips=1)

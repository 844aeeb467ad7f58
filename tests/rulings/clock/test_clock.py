import contextlib
import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulings.clock.blinds import BlindLevel, Break, load_structure
from rulings.clock.timing import (
    AnnouncementKind,
    ClockAction,
    ClockEvent,
    ClockState,
    announcements_between,
    catch_up,
    format_seconds,
    next_announcement_at,
    position_at,
)
from rulings.errors import BlindStructureError, ClockError

T0 = datetime(2026, 3, 5, 19, 0, tzinfo=UTC)
BTOWN = load_structure("btown")


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def level_at(state: ClockState, minutes: float) -> BlindLevel:
    level = position_at(state, at(minutes)).level
    assert level is not None
    return level


def btown(*events: tuple[ClockAction, float, float]) -> ClockState:
    state = ClockState(BTOWN, T0, level_seconds=1200, break_seconds=600)
    for action, minutes, value in events:
        state = state.with_event(ClockEvent(action, at(minutes), value))
    return state


def texts(state: ClockState, until_minutes: float, since_minutes: float | None = None) -> list[str]:
    since = None if since_minutes is None else at(since_minutes)
    return [a.text for a in announcements_between(state, since, at(until_minutes))]


def test_position_at_start_and_mid_level():
    pos = position_at(btown(), at(0))
    assert pos.level == BlindLevel(1, 100, 200)
    assert pos.remaining == 1200
    assert pos.ends_at == at(20)
    pos = position_at(btown(), at(65.5))
    assert pos.level == BlindLevel(4, 400, 800)
    assert pos.remaining == 14.5 * 60
    assert pos.next_level == BlindLevel(5, 500, 1000)
    assert pos.next_break == BTOWN.steps[5]
    assert pos.seconds_to_break == (14.5 + 20) * 60
    assert pos.summary == "Level 4: blinds 400/800, 14:30 left"


def test_2_b_first_break_after_500_1000_then_level_6():
    pos = position_at(btown(), at(105))
    assert isinstance(pos.step, Break)
    assert pos.step.number == 1
    assert pos.remaining == 300
    assert pos.next_level == BlindLevel(6, 1000, 2000)
    assert position_at(btown(), at(110)).level == BlindLevel(6, 1000, 2000)


def test_announcements_in_order_level_warning_break_chip_up():
    found = texts(btown(), 110)
    assert found[:4] == [
        "Level 1: blinds 100/200",
        "One minute left in level 1. Next: level 2: blinds 200/400.",
        "Level 2: blinds 200/400",
        "One minute left in level 2. Next: level 3: blinds 300/600.",
    ]
    assert found[10].startswith("Break 1 (10 minutes). Chip-up: All white (100) and red (500)")
    assert found[11] == "Late registration closes at the end of this break."
    assert found[-2:] == [
        "Late registration is now closed.",
        "The break is over. Level 6: blinds 1,000/2,000",
    ]


def test_only_level_and_break_announcements_ping():
    kinds = {a.kind: a.pings for a in announcements_between(btown(), None, at(110))}
    assert kinds == {
        AnnouncementKind.LEVEL: True,
        AnnouncementKind.BREAK: True,
        AnnouncementKind.WARNING: False,
        AnnouncementKind.LATE_LAST_CALL: False,
        AnnouncementKind.LATE_CLOSED: False,
    }


def test_1_e_d_late_registration_open_until_end_of_first_break():
    assert position_at(btown(), at(109.9)).is_late_registration_open is True
    assert position_at(btown(), at(110)).is_late_registration_open is False
    bar = ClockState(load_structure("bar-league"), T0, 1800, 600)
    assert position_at(bar, at(5)).is_late_registration_open is None


def test_4_e_toc_late_registration_ends_with_the_100_200_level():
    toc = ClockState(load_structure("btown-toc"), T0, 1800, 600)
    found = [a.text for a in announcements_between(toc, None, at(30))]
    assert found[:2] == [
        "Level 1: blinds 100/200",
        "Late registration closes at the end of this level.",
    ]
    assert found[-2:] == ["Late registration is now closed.", "Level 2: blinds 200/400"]


def test_2_d_d_timer_paused_during_redraw_keeps_time_left():
    state = btown((ClockAction.PAUSE, 5, 0), (ClockAction.RESUME, 9, 0))
    assert position_at(state, at(7)).remaining == 15 * 60
    assert position_at(state, at(7)).is_paused
    assert position_at(state, at(7)).ends_at is None
    assert position_at(state, at(9)).remaining == 15 * 60
    assert level_at(state, 24).number == 2
    assert next_announcement_at(state, at(9)) == at(23)  # the one-minute warning, 4 min late
    paused = btown((ClockAction.PAUSE, 5, 0))
    assert next_announcement_at(paused, at(5)) is None
    assert announcements_between(paused, at(5), at(500)) == []


def test_pause_and_resume_are_announced_without_repeating_the_level():
    state = btown((ClockAction.PAUSE, 5, 0), (ClockAction.RESUME, 9, 0))
    assert texts(state, 20) == [
        "Level 1: blinds 100/200",
        "The clock is paused: level 1 (100/200), 15:00 left.",
        "The clock is running again: level 1 (100/200), 15:00 left.",
    ]


def test_next_back_and_level_jump_and_announce_the_new_level():
    state = btown((ClockAction.NEXT, 3, 0))
    assert level_at(state, 3).number == 2
    assert position_at(state, at(3)).remaining == 1200
    state = state.with_event(ClockEvent(ClockAction.BACK, at(4)))
    state = state.with_event(ClockEvent(ClockAction.LEVEL, at(5), 6))
    assert position_at(state, at(5)).level == BlindLevel(6, 1000, 2000)
    assert texts(state, 5) == [
        "Level 1: blinds 100/200",
        "Level 2: blinds 200/400",
        "Level 1: blinds 100/200",
        "Level 6: blinds 1,000/2,000",
    ]
    keys = [a.key for a in announcements_between(state, None, at(5))]
    assert len(set(keys)) == len(keys)


def test_next_while_paused_stays_paused():
    state = btown((ClockAction.PAUSE, 3, 0), (ClockAction.NEXT, 4, 0))
    assert position_at(state, at(10)).is_paused
    assert level_at(state, 10).number == 2
    assert texts(state, 10)[-1] == "Moved to level 2 (200/400) (the clock is paused)."
    state = state.with_event(ClockEvent(ClockAction.RESUME, at(11)))
    assert texts(state, 11, since_minutes=10) == [
        "The clock is running again: level 2 (200/400), 20:00 left.",
        "Level 2: blinds 200/400",
    ]


def test_add_time_may_be_negative_and_rearms_the_warning():
    state = btown((ClockAction.ADD_TIME, 19.5, 2))
    assert position_at(state, at(19.5)).remaining == 150
    assert texts(state, 22.5) == [
        "Level 1: blinds 100/200",
        "One minute left in level 1. Next: level 2: blinds 200/400.",
        "2 minutes added: level 1 (100/200) now has 2:30 left.",
        "One minute left in level 1. Next: level 2: blinds 200/400.",
        "Level 2: blinds 200/400",
    ]
    shorter = btown((ClockAction.ADD_TIME, 10, -5))
    assert position_at(shorter, at(10)).remaining == 300
    assert level_at(shorter, 15).number == 2
    assert position_at(shorter, at(15)).remaining == 1200  # only the current level was cut


def test_add_time_cannot_take_off_more_than_is_left():
    with pytest.raises(ClockError, match=r"Only 5:00 left in this step; can't take off 6 minutes"):
        btown((ClockAction.ADD_TIME, 15, -6))
    with pytest.raises(ClockError, match="other than 0"):
        btown((ClockAction.ADD_TIME, 15, 0))


def test_2_b_ante_added_by_the_director_applies_from_this_level_on():
    state = btown((ClockAction.LEVEL, 1, 11), (ClockAction.ANTE, 2, 5000))
    assert position_at(state, at(2)).level == BlindLevel(11, 10000, 20000, 5000)
    assert position_at(state, at(25)).level == BlindLevel(12, 20000, 40000, 5000)
    assert texts(state, 2)[-1] == "Ante added: 5,000 from level 11 on (blinds 10,000/20,000)."
    state = state.with_event(ClockEvent(ClockAction.ANTE, at(3), 0))
    assert level_at(state, 3).ante == 0
    assert texts(state, 3)[-1] == "The ante is removed from level 11 on."


def test_2_g_b_ante_shall_not_exceed_the_small_blind():
    with pytest.raises(BlindStructureError, match=r"more than the small blind \(100\)"):
        btown((ClockAction.ANTE, 1, 101))
    # during a break the ante is for the next level (1,000/2,000)
    state = btown((ClockAction.ANTE, 105, 1000))
    assert level_at(state, 110).ante == 1000


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([(ClockAction.PAUSE, 1, 0), (ClockAction.PAUSE, 2, 0)], "already paused"),
        ([(ClockAction.RESUME, 1, 0)], "not paused"),
        ([(ClockAction.BACK, 1, 0)], "already at the first level"),
        ([(ClockAction.LEVEL, 1, 0)], "no level 0"),
        ([(ClockAction.LEVEL, 1, 2.5)], "whole number"),
        ([(ClockAction.ANTE, 1, 50), (ClockAction.ANTE, 2, 50)], "already 50"),
        ([(ClockAction.ANTE, 1, 0)], "no ante to remove"),
        ([(ClockAction.END, 1, 0), (ClockAction.NEXT, 2, 0)], "has ended"),
        ([(ClockAction.NEXT, 5, 0), (ClockAction.NEXT, 4, 0)], "time order"),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(events, message):
    state = btown(*events[:-1])
    action, minutes, value = events[-1]
    with pytest.raises(ClockError, match=message):
        state.with_event(ClockEvent(action, at(minutes), value))
    assert len(state.events) == len(events) - 1


def test_bad_clock_settings_are_refused():
    with pytest.raises(ClockError, match="timezone-aware"):
        ClockState(BTOWN, datetime(2026, 1, 1), 60, 60)  # noqa: DTZ001
    with pytest.raises(ClockError, match="between 1 second and 24 hours"):
        ClockState(BTOWN, T0, 0.5, 60)


@pytest.mark.parametrize(
    ("warnings", "message"),
    [
        ((0.5,), "Warnings must come between 1 second and 24 hours"),
        ((float("nan"),), "Warnings must come between"),
        ((60.0, 60.0), "at most 5 different warnings"),
        ((1.0, 2.0, 3.0, 4.0, 5.0, 6.0), "at most 5 different warnings"),
    ],
)
def test_bad_warnings_are_refused(warnings, message):
    with pytest.raises(ClockError, match=message):
        ClockState(BTOWN, T0, 1200, 600, warning_seconds=warnings)


def test_warnings_are_configurable_or_none():
    five_and_one = ClockState(BTOWN, T0, 1200, 600, warning_seconds=(60.0, 300.0))
    assert texts(five_and_one, 19.5)[1:] == [
        "5 minutes left in level 1. Next: level 2: blinds 200/400.",
        "One minute left in level 1. Next: level 2: blinds 200/400.",
    ]
    silent = ClockState(BTOWN, T0, 1200, 600, warning_seconds=())
    assert texts(silent, 39) == ["Level 1: blinds 100/200", "Level 2: blinds 200/400"]


def test_end_stops_everything():
    state = btown((ClockAction.END, 30, 0))
    assert position_at(state, at(100)).is_ended
    assert level_at(state, 100).number == 2
    assert texts(state, 500)[-1] == "The clock has been stopped at level 2 (200/400)."
    assert next_announcement_at(state, at(30)) is None


def test_schedule_running_out_is_announced_once_and_levels_double():
    state = btown((ClockAction.LEVEL, 0, 17))
    found = announcements_between(state, None, at(41))
    added = [a.text for a in found if a.kind is AnnouncementKind.ADDED_LEVELS]
    assert added == ["The blind schedule has run out: from now on every level doubles the blinds."]
    assert [a.text for a in found if a.kind is AnnouncementKind.LEVEL][-2:] == [
        "Level 18: blinds 400,000/800,000",
        "Level 19: blinds 800,000/1,600,000",
    ]


def test_the_clock_stops_adding_levels_at_level_100():
    state = btown((ClockAction.LEVEL, 1, 100))
    assert level_at(state, 10_000).number == 100
    assert position_at(state, at(10_000)).ends_at is None
    assert position_at(state, at(10_000)).summary.endswith("the last level")
    assert next_announcement_at(state, at(1)) is None
    with pytest.raises(ClockError, match="last level"):
        state.with_event(ClockEvent(ClockAction.NEXT, at(2)))
    state = btown((ClockAction.LEVEL, 1, 99))
    assert level_at(state, 50).number == 100


def test_catch_up_we_are_now_at_level_6():
    state = btown()
    missed = announcements_between(state, at(90), at(115))
    message = catch_up(state, missed, at(115))
    assert message.text == (
        "We are now at level 6: blinds 1,000/2,000, 15:00 left. Late registration is closed."
    )
    assert message.pings
    assert message.kind is AnnouncementKind.CATCH_UP
    assert catch_up(state, missed[-1:-2:-1] or missed[:1], at(115)).key.startswith("catch-up:")
    warning_only = [a for a in missed if a.kind is AnnouncementKind.WARNING][:1]
    assert not catch_up(state, warning_only, at(115)).pings
    with pytest.raises(ClockError, match="Nothing"):
        catch_up(state, [], at(115))


def test_catch_up_of_a_paused_clock_and_of_a_break():
    state = btown((ClockAction.PAUSE, 30, 0))
    missed = announcements_between(state, at(10), at(40))
    assert catch_up(state, missed, at(40)).text == (
        "The clock is paused at level 2: blinds 200/400, 10:00 left."
    )
    assert catch_up(btown(), missed, at(102)).text == "We are now on break 1, 8:00 left."


def test_format_seconds_rounds_up():
    assert format_seconds(0.2) == "0:01"
    assert format_seconds(-3) == "0:00"


ACTIONS = st.sampled_from(list(ClockAction))


@settings(max_examples=150, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.floats(0, 600), ACTIONS, st.integers(-3, 20), st.booleans()),
        max_size=25,
    )
)
def test_a_poller_that_records_keys_posts_each_announcement_once(steps):
    """Apply random actions and polls; announcements already made never come back."""
    state = ClockState(load_structure("poker-pub"), T0, level_seconds=120, break_seconds=60)
    now = T0
    made: dict[str, tuple[datetime, str]] = {}
    for gap, action, value, poll_only in steps:
        now += timedelta(seconds=gap)
        if not poll_only:
            with contextlib.suppress(ClockError, BlindStructureError):
                state = state.with_event(ClockEvent(action, now, value))
        for item in announcements_between(state, None, now):
            seen = made.setdefault(item.key, (item.at, item.text))
            assert seen[0] == item.at  # a key always means the same moment
    history = announcements_between(state, None, now)
    keys = [a.key for a in history]
    assert len(set(keys)) == len(keys)  # nothing twice
    assert set(made) <= set(keys)  # nothing once made is ever taken back
    assert all(a.at <= b.at for a, b in itertools.pairwise(history))


@settings(max_examples=150, deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            st.floats(0, 900) | st.sampled_from([0.0, 60.0, 120.0]), ACTIONS, st.integers(-3, 20)
        ),
        max_size=20,
    ),
    extra=st.floats(0, 2000),
)
def test_the_last_level_announced_is_the_level_the_clock_is_at(steps, extra):
    state = ClockState(BTOWN, T0, level_seconds=120, break_seconds=60)
    now = T0
    for gap, action, value in steps:
        now += timedelta(seconds=gap)
        with contextlib.suppress(ClockError, BlindStructureError):
            state = state.with_event(ClockEvent(action, now, value))
    now += timedelta(seconds=extra)
    pos = position_at(state, now)
    if pos.is_paused or pos.is_ended:
        return  # a jump while paused is announced on resume
    kinds = (AnnouncementKind.LEVEL, AnnouncementKind.BREAK)
    last = [a for a in announcements_between(state, None, now) if a.kind in kinds][-1]
    step = pos.step
    name = f"Level {step.number}:" if isinstance(step, BlindLevel) else f"Break {step.number} "
    assert name in last.text

import pytest

from rulings.clock.blinds import (
    BlindLevel,
    Break,
    check_ante,
    load_structure,
    parse_structure,
    preset_names,
    with_ante,
)
from rulings.errors import BlindStructureError, RulingsError


def levels(name: str) -> list[tuple[int, int]]:
    return [
        (s.small_blind, s.big_blind)
        for s in load_structure(name).steps
        if isinstance(s, BlindLevel)
    ]


def test_presets_are_the_four_rulebook_structures():
    assert preset_names() == ("bar-league", "btown", "btown-toc", "poker-pub")


def test_2_b_btown_schedule_exactly_with_both_breaks():
    s = load_structure("btown")
    assert levels("btown") == [
        (100, 200), (200, 400), (300, 600), (400, 800), (500, 1000),
        (1000, 2000), (2000, 4000), (3000, 6000), (4000, 8000),
        (5000, 10000), (10000, 20000), (20000, 40000), (30000, 60000), (40000, 80000),
        (50000, 100000), (100000, 200000), (200000, 400000),
    ]  # fmt: skip
    breaks = [i for i, step in enumerate(s.steps) if isinstance(step, Break)]
    assert breaks == [5, 10]  # after 500/1,000 and after 4,000/8,000
    assert s.level_minutes == 20
    assert s.break_minutes == 10


def test_2_c_c_first_break_chips_up_white_and_red():
    first = load_structure("btown").steps[5]
    assert isinstance(first, Break)
    assert "white (100) and red (500)" in first.chip_up


def test_1_e_d_late_registration_until_end_of_first_break():
    s = load_structure("btown")
    assert s.late_registration_step == 5
    assert isinstance(s.steps[5], Break)
    assert s.steps[5].number == 1


def test_1_e_d_late_player_loses_twice_the_big_blind():
    s = load_structure("btown")
    assert s.late_penalty(BlindLevel(3, 300, 600)) == 1200  # the rulebook's 300/600 example
    assert load_structure("bar-league").late_penalty(BlindLevel(1, 1, 2)) == 0


def test_4_e_toc_longer_levels_and_late_registration_ends_with_100_200():
    toc = load_structure("btown-toc")
    assert toc.level_minutes > load_structure("btown").level_minutes
    assert levels("btown-toc") == levels("btown")
    assert toc.late_registration_step == 0
    assert toc.steps[0] == BlindLevel(1, 100, 200)


def test_poker_pub_rule_6_and_10_25_50_then_50_100_and_break_after_first_hour():
    pub = load_structure("poker-pub")
    assert levels("poker-pub")[:2] == [(25, 50), (50, 100)]
    assert 15 <= pub.level_minutes <= 20
    first_break = next(i for i, step in enumerate(pub.steps) if isinstance(step, Break))
    assert first_break * pub.level_minutes == 60  # the first hour of play
    assert pub.break_minutes == 15


def test_bar_league_1_2_doubling_every_30_minutes():
    bar = load_structure("bar-league")
    assert bar.level_minutes == 30
    assert not any(isinstance(s, Break) for s in bar.steps)
    small = [step.small_blind for i in range(12) if isinstance(step := bar.step(i), BlindLevel)]
    assert small == [2**i for i in range(12)]


def test_2_b_director_adds_levels_when_the_schedule_runs_out():
    s = load_structure("btown")
    first_added = s.step(len(s.steps))
    assert first_added == BlindLevel(18, 400_000, 800_000, is_added=True)
    assert s.step(len(s.steps) + 1) == BlindLevel(19, 800_000, 1_600_000, is_added=True)
    assert s.index_of_level(18) == len(s.steps)


def test_level_numbers_skip_breaks():
    s = load_structure("btown")
    assert s.index_of_level(5) == 4
    assert s.index_of_level(6) == 6
    assert s.index_of_level(10) == 11
    assert s.next_level(4) == BlindLevel(6, 1000, 2000)
    assert s.next_break(6) == (10, s.steps[10])


@pytest.mark.parametrize("number", [0, -1, 101])
def test_no_such_level(number):
    with pytest.raises(BlindStructureError, match=f"no level {number}"):
        load_structure("btown").index_of_level(number)


def test_2_g_b_ante_shall_not_exceed_the_small_blind():
    check_ante(400, 400)
    with pytest.raises(BlindStructureError, match=r"more than the small blind \(400\)"):
        check_ante(401, 400)
    with pytest.raises(BlindStructureError, match="negative"):
        check_ante(-1, 400)
    assert with_ante(BlindLevel(4, 400, 800), 100).blinds == "400/800, ante 100"


def test_unknown_structure_is_a_user_error():
    with pytest.raises(RulingsError, match=r"Unknown blind structure 'nope'\. Known: bar-league"):
        load_structure("nope")
    assert load_structure(" BTown ") is load_structure("btown")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("schedule = [", "not valid TOML"),
        ('level_minutes = 5\nbreak_minutes = 5\nschedule = ["100"]', "small/big"),
        ('level_minutes = 5\nbreak_minutes = 5\nschedule = ["200/100"]', "not a valid level"),
        ('level_minutes = 5\nbreak_minutes = 5\nschedule = ["100/200/150"]', "small blind"),
        ('level_minutes = 5\nbreak_minutes = 5\nschedule = [{break = ""}, "1/2"]', "starts with"),
        ('level_minutes = 0\nbreak_minutes = 5\nschedule = ["1/2"]', "positive"),
        ('break_minutes = 5\nschedule = ["1/2"]', "malformed"),
        (
            'level_minutes = 5\nbreak_minutes = 5\nlate_registration = "break 1"\n'
            'schedule = ["1/2"]',
            "no break 1",
        ),
        (
            'level_minutes = 5\nbreak_minutes = 5\nadded_levels = "triple"\nschedule = ["1/2"]',
            "added_levels",
        ),
    ],
)
def test_malformed_presets_are_refused(text, message):
    with pytest.raises(BlindStructureError, match=message):
        parse_structure(text, name="custom")


def test_a_schedule_that_adds_no_levels_ends():
    s = parse_structure(
        'level_minutes = 5\nbreak_minutes = 5\nadded_levels = "none"\nschedule = ["1/2", "2/4"]',
        name="short",
    )
    assert s.step_count == 2
    assert s.next_level(1) is None
    with pytest.raises(BlindStructureError, match="only 2 steps"):
        s.step(2)
    with pytest.raises(BlindStructureError, match="levels run from 1 to 2"):
        s.index_of_level(3)

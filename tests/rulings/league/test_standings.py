import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulings import RankedRow, StandingRow, rank_standings
from rulings.league.standings import RankBy, champion, ranking_points


def order(rows: list[StandingRow], by: RankBy = "rp") -> list[str]:
    return [r.row.player for r in rank_standings(rows, by=by)]


def test_ranks_by_regular_points_by_default():
    rows = [StandingRow("Moe", 900, 0, 3), StandingRow("Curly", 1200, 0, 3)]
    ranked = rank_standings(rows)
    assert ranked == [
        RankedRow(1, StandingRow("Curly", 1200, 0, 3)),
        RankedRow(2, StandingRow("Moe", 900, 0, 3)),
    ]


def test_ranks_by_bonus_points_and_by_total():
    rows = [StandingRow("Moe", 900, 500, 3), StandingRow("Curly", 1200, 100, 3)]
    assert order(rows, "bp") == ["Moe", "Curly"]
    assert order(rows, "total") == ["Moe", "Curly"]  # 1,400 against 1,300


def test_tie_break_1_the_other_point_kind():
    rows = [StandingRow("A", 900, 100, 3), StandingRow("B", 900, 300, 3)]
    assert order(rows) == ["B", "A"]
    rows = [StandingRow("A", 100, 900, 3), StandingRow("B", 300, 900, 3)]
    assert order(rows, "bp") == ["B", "A"]
    rows = [StandingRow("A", 500, 500, 3), StandingRow("B", 600, 400, 3)]
    assert order(rows, "total") == ["B", "A"]


def test_tie_break_2_more_wins():
    rows = [StandingRow("A", 900, 100, 3, wins=0), StandingRow("B", 900, 100, 3, wins=1)]
    assert order(rows) == ["B", "A"]


def test_tie_break_3_better_best_finish_and_never_placed_last():
    rows = [
        StandingRow("A", 900, 100, 3, best_finish=None),
        StandingRow("B", 900, 100, 3, best_finish=4),
        StandingRow("C", 900, 100, 3, best_finish=2),
    ]
    assert order(rows) == ["C", "B", "A"]


def test_tie_break_4_fewer_events():
    rows = [StandingRow("A", 900, 100, 5), StandingRow("B", 900, 100, 4)]
    assert order(rows) == ["B", "A"]


def test_tie_break_5_name_so_no_two_rows_share_a_rank():
    rows = [StandingRow("bob", 900, 100, 3), StandingRow("Amy", 900, 100, 3)]
    ranked = rank_standings(rows)
    assert [(r.rank, r.row.player, r.tied_on_points) for r in ranked] == [
        (1, "Amy", False),
        (2, "bob", True),
    ]


def test_ranking_by_an_unknown_key_is_a_bug():
    with pytest.raises(ValueError, match="cannot rank by 'wins'"):
        rank_standings([], by="wins")  # type: ignore[arg-type]


def test_champion_is_the_leader_if_anyone_scored():
    rows = [StandingRow("A", 0, 250, 1), StandingRow("B", 0, 0, 1)]
    assert champion(rows, by="rp") is None
    assert champion(rows, by="bp") == rows[0]
    assert champion([], by="rp") is None


rows_strategy = st.lists(
    st.builds(
        StandingRow,
        player=st.text(alphabet="abcAB", min_size=1, max_size=3),
        rp=st.integers(0, 3000),
        bp=st.integers(0, 3000),
        events=st.integers(0, 18),
        wins=st.integers(0, 3),
        best_finish=st.one_of(st.none(), st.integers(1, 20)),
    ),
    max_size=30,
    unique_by=lambda r: r.player,
)


@given(rows_strategy, st.sampled_from(["rp", "bp", "total"]), st.randoms())
def test_ranks_are_unique_ordered_and_independent_of_input_order(rows, by, rnd):
    ranked = rank_standings(rows, by=by)
    assert [r.rank for r in ranked] == list(range(1, len(rows) + 1))
    pairs = itertools.pairwise(ranked)
    assert all(ranking_points(a.row, by) >= ranking_points(b.row, by) for a, b in pairs)
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    assert rank_standings(shuffled, by=by) == ranked

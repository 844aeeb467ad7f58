import pickle

import pytest

from rulings import (
    CITATION_TOPICS,
    LeagueConfigError,
    league_presets,
    load_league_rules,
    rule_citation,
)
from rulings.rulebook import default_index


@pytest.mark.parametrize("preset", league_presets())
def test_every_preset_cites_sections_its_home_book_has(preset):
    rules = load_league_rules(preset)
    book = default_index().books[rules.rulebook]
    assert rules.citations
    for topic, section in rules.citations.items():
        assert topic in CITATION_TOPICS
        first = section.split("-")[0]  # "2.C.a-b" and "4.B-4.G" are ranges
        assert book.get(first).book == rules.rulebook


def test_btown_cites_its_rulebook_sections():
    rules = load_league_rules("btown")
    assert rule_citation(rules, "starting_stack", "late_registration") == (
        "btown-poker-league 2.C.a-b (starting stack), 1.E.d (late registration)"
    )
    assert rule_citation(rules, "strikes") == "btown-poker-league 3.B (strikes)"
    assert rule_citation(rules, "toc") == "btown-poker-league 4.B-4.G (Tournament of Champions)"


def test_a_topic_the_home_book_has_no_rule_for_is_not_cited():
    rules = load_league_rules("poker-pub")
    assert rule_citation(rules, "split_pots") is None
    assert rule_citation(rules, "strikes") is None
    assert rule_citation(rules, "hand_rankings", "split_pots") == (
        "poker-pub Additional information (hand rankings)"
    )


def test_a_league_may_cite_another_book_by_override():
    rules = load_league_rules(
        "btown", {"rulebook": "bar-league-rules", "citations": {"hand_rankings": "Hands"}}
    )
    assert rule_citation(rules, "hand_rankings") == "bar-league-rules Hands (hand rankings)"
    assert rule_citation(rules, "split_pots") is None


def test_an_unknown_topic_is_a_bug_in_the_caller():
    with pytest.raises(KeyError):
        rule_citation(load_league_rules(), "seating")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"citations": {"seating": "1"}}, "unknown topic 'seating'"),
        ({"citations": {"strikes": " "}}, "citations.strikes must be a section"),
        ({"citations": ["6"]}, "citations must be a table"),
        ({"rulebook": "", "citations": {"strikes": "3.B"}}, "need the rulebook"),
        ({"rulebook": 7}, "rulebook must be a book name"),
    ],
)
def test_bad_citation_settings_are_refused(overrides, message):
    with pytest.raises(LeagueConfigError, match=message):
        load_league_rules("btown", overrides)


@pytest.mark.parametrize("preset", league_presets())
def test_rules_pickle_for_the_compute_workers(preset):
    rules = load_league_rules(preset, {"owner": "Zach"})
    assert pickle.loads(pickle.dumps(rules)) == rules

"""Rule search: the quality bar on the labelled query set, and one focused test per feature."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulings.errors import UnknownRuleError
from rulings.rulebook.books import citation_slug
from rulings.rulebook.expand import Glossary, opposite_pairs
from rulings.rulebook.normalise import MAX_QUERY_CHARS, clean_query, stem
from rulings.rulebook.present import Match
from rulings.rulebook.search import RuleIndex, load_rulebooks
from tests.rulings.rulebook.overlap import near_duplicates

QUERIES = Path(__file__).with_name("rule_queries.toml")
SEALED = Path(__file__).with_name("sealed_queries.toml")
KINDS = ("keyword", "question", "slang", "misspelling", "table", "number", "paraphrase")
# The batch written fresh for the semantic tier (slice "fresh") and the training batch of the
# second model (slice "train", two thirds paraphrases): both trained on, but the lexical ranker was
# built before them and a static model does not learn every paraphrase it is shown, so their bars
# are lower than the older slices'. Held out, the train slice's dev quarter measured far lower
# (the benchmark's docstring): these bars hold what training reached, they measure no paraphrase
# a player has yet to write.
FRESH_BAR = {"top1": 0.85, "top3": 0.97}
TRAIN_BAR = {"top1": 0.85, "top3": 0.98}
# The sealed batches, their near duplicates gone from the training file (issue 24): asserted,
# never printed by the suite. Both batches clear these with the shipped model and with the model
# rebuilt after the de-duplication (tools/rebuild_rule_model.py; its figures are in
# benchmarks/rules.py's docstring, measured once).
# Batch C, written for issue 24 and first measured with this model, holds what it reached then
# (85.0 / 96.2, paraphrases 83.7 / 96.9): below the target (90 / 97), a bar to keep, not
# a goal met. These bars, and the labelled slices' above, measure the ranking (the `ranking`
# fixture): the "does it answer" decision's wrong refusals of answerable questions are its own
# figure (docs/rule-search.md, "No rule answers this"; `benchmarks/rules.py --quality`), not a
# ranking miss. (C's bar still allows the one question the earlier decision turned away.)
SEALED_BAR = {
    "A": {"overall": {"top1": 0.88, "top3": 0.95}, "paraphrase": {"top1": 0.84, "top3": 0.90}},
    "B": {"overall": {"top1": 0.88, "top3": 0.95}, "paraphrase": {"top1": 0.84, "top3": 0.90}},
    "C": {"overall": {"top1": 0.84, "top3": 0.95}, "paraphrase": {"top1": 0.82, "top3": 0.95}},
}


@pytest.fixture(scope="module")
def index() -> RuleIndex:
    return load_rulebooks()


@pytest.fixture(scope="module")
def ranking(index: RuleIndex) -> RuleIndex:
    """The ranking alone, without the "does it answer" decision: for what the ranking does."""
    return RuleIndex(index.books, home=index.home, decide=False)


def load_queries(path: Path = QUERIES) -> list[dict[str, Any]]:
    queries: list[dict[str, Any]] = tomllib.loads(path.read_text(encoding="utf-8"))["query"]
    return queries


def rates(index: RuleIndex, queries: list[dict[str, Any]]) -> dict[str, tuple[int, float, float]]:
    """``{kind: (n, top-1 rate, top-3 rate)}``, plus ``overall``."""
    hits: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for q in queries:
        matches = index.search(str(q["q"]), limit=3).matches
        top1 = bool(matches) and answers(matches[0], q["expect"])
        top3 = any(answers(m, q["expect"]) for m in matches)
        hits[str(q["kind"])].append((top1, top3))
        hits["overall"].append((top1, top3))
    return {
        kind: (len(r), sum(a for a, _ in r) / len(r), sum(b for _, b in r) / len(r))
        for kind, r in hits.items()
    }


def answers(match: Match, expected: list[str]) -> bool:
    """An expectation is a passage key, or "book section" accepting any part of the section."""
    mine = {citation_slug(match.key), citation_slug(f"{match.book} {match.section}")}
    return any(citation_slug(e) in mine for e in expected)


def top_key(index: RuleIndex, query: str) -> str:
    result = index.search(query)
    assert result.found, query
    return result.matches[0].key


# --- the quality bar -------------------------------------------------------------------------


def test_labelled_set_is_big_varied_and_points_at_real_passages(index):
    queries = load_queries()
    assert len(queries) >= 120
    keys = {citation_slug(p.key) for p in index.passages}
    keys |= {citation_slug(p.citation) for p in index.passages}
    kinds: dict[str, int] = defaultdict(int)
    for q in queries:
        kinds[q["kind"]] += 1
        for expected in q["expect"]:
            assert citation_slug(expected) in keys, expected
    assert set(kinds) == set(KINDS)
    assert min(kinds[k] for k in KINDS if k != "number") >= 15


def test_search_quality_top1_and_top3_per_kind(ranking):
    """Targets on the older tuned slices: top-1 >= 90% and top-3 >= 97%, overall and every kind."""
    queries = [q for q in load_queries() if q.get("slice", "dev") not in ("fresh", "train")]
    misses = [
        (q["q"], [m.key for m in ranking.search(str(q["q"]), limit=3).matches])
        for q in queries
        if not answers(ranking.search(str(q["q"]), limit=1).matches[0], q["expect"])
    ]
    for kind, (_, rate1, rate3) in rates(ranking, queries).items():
        assert rate1 >= 0.90, (kind, rate1, misses)
        assert rate3 >= 0.97, (kind, rate3, misses)


def test_search_quality_on_the_fresh_batch(ranking):
    """The fresh batch (half paraphrases) holds what the semantic tier reached on it."""
    fresh = [q for q in load_queries() if q.get("slice") == "fresh"]
    assert len(fresh) >= 40
    _, rate1, rate3 = rates(ranking, fresh)["overall"]
    assert rate1 >= FRESH_BAR["top1"], rate1
    assert rate3 >= FRESH_BAR["top3"], rate3


def test_search_quality_on_the_train_batch(ranking):
    """The training batch of the second model, overall and on its paraphrases (trained on)."""
    train = [q for q in load_queries() if q.get("slice") == "train"]
    assert len(train) >= 9000
    assert sum(q["kind"] == "paraphrase" for q in train) >= len(train) / 2
    found = rates(ranking, train)
    for kind in ("overall", "paraphrase"):
        _, rate1, rate3 = found[kind]
        assert rate1 >= TRAIN_BAR["top1"], (kind, rate1)
        assert rate3 >= TRAIN_BAR["top3"], (kind, rate3)


def test_sealed_queries_are_disjoint_from_training():
    """No sealed query is a training query typed alike (equal normalised text, or word sets with
    a Jaccard similarity of 0.8 or more): the sealed figures measure what was never learnt.
    Nothing of the sealed batches is printed, a failure names only training positions."""
    training = [str(q["q"]) for q in load_queries()]
    sealed = [str(q["q"]) for q in load_queries(SEALED)]
    assert near_duplicates(training, sealed) == []


def test_near_duplicates_are_found_by_words_not_by_typing():
    training = ["Who deals at the 2nd chance table?", "what is a chop", "when do blinds go up"]
    sealed = ["who DEALS at the 2nd-chance table", "when do the blinds go up"]
    assert near_duplicates(training, sealed) == [0, 2]  # one word more of five: 5/6 alike
    assert near_duplicates(training, ["when do the big blinds go up"]) == []  # 5/7
    assert near_duplicates(training, ["what is a chop?"]) == [1]


def test_sealed_batches_hold_their_bars_unprinted(ranking):
    """The sealed batches: valid, pointing at real passages, at least a third paraphrases each,
    and above their bars. The suite prints no sealed figure: ``benchmarks/rules.py`` reports
    them once per change set."""
    sealed = load_queries(SEALED)
    keys = {citation_slug(p.key) for p in ranking.passages}
    keys |= {citation_slug(p.citation) for p in ranking.passages}
    batches = {q["batch"] for q in sealed}
    assert batches == {"A", "B", "C"}
    assert all(citation_slug(e) in keys for q in sealed for e in q["expect"])
    for batch in sorted(batches):
        queries = [q for q in sealed if q["batch"] == batch]
        assert len(queries) >= 80
        assert sum(q["kind"] == "paraphrase" for q in queries) >= len(queries) / 3
        found = rates(ranking, queries)
        for kind, bar in SEALED_BAR[batch].items():
            _, rate1, rate3 = found[kind]
            above = rate1 >= bar["top1"] and rate3 >= bar["top3"]  # a bool: no figure shown
            assert above, f"sealed batch {batch}, {kind}: below its bar"


# --- rule numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query", ["2.G.d.6", "2-G-d-6", "2gd6", "2 g d 6", "rule 2.G.d.6", "#2-G-d-6", "2.g.d.6"]
)
def test_rule_number_returns_that_rule_directly(index, query):
    result = index.search(query)
    assert result.is_lookup
    assert result.matches[0].key == "btown-poker-league 2.G.d.6"
    assert result.matches[0].score == 1.0


def test_rule_number_of_other_books_and_book_qualified_keys(index):
    assert top_key(index, "bar rules 12") == "poker-pub Bar rules 12"
    assert (
        top_key(index, "No-Limit Betting Rules 9")
        == "red-white-blue-league No-Limit Betting Rules 9"
    )
    assert top_key(index, "the-game-texas-holdem 19") == "the-game-texas-holdem 19"
    assert top_key(index, "btown-poker-league 1.C.a [Finishing Position 7]") == (
        "btown-poker-league 1.C.a [Finishing Position 7]"
    )


def test_heading_number_lists_its_rules(index):
    result = index.search("2.G.d", limit=5)
    assert [m.section for m in result.matches] == [f"2.G.d.{n}" for n in range(1, 6)]


def test_number_for_the_twice_used_section_4_gives_both(index):
    keys = [m.key for m in index.search("4.D", limit=3).matches]
    assert keys == ["btown-poker-league 4.D", "btown-poker-league 4.D [Second Chance Table]"]


def test_words_are_not_mistaken_for_rule_numbers(index):
    assert not index.search("betting").is_lookup
    assert not index.search("5th street").is_lookup


# --- the examples --------------------------------------------------------------------


def test_2_g_d_6_oversized_chip(index):
    assert top_key(index, "oversized chip") == "btown-poker-league 2.G.d.6"
    assert top_key(index, "over-sized chip") == "btown-poker-league 2.G.d.6"


def test_4_d_who_deals_at_the_second_chance_table(index):
    assert top_key(index, "who deals at the second chance table?") == (
        "btown-poker-league 4.D [Second Chance Table]"
    )


def test_2_g_d_4_cards_speak_is_cards_read_themselves(index):
    assert top_key(index, "cards speak") == "btown-poker-league 2.G.d.4"


def test_1_f_smoking_policy_with_a_typo(index):
    assert top_key(index, "smoking polcy") == "btown-poker-league 1.F"
    assert top_key(index, "smokng") == "btown-poker-league 1.F"


def test_1_c_a_points_for_7th_is_the_table_row(index):
    best = index.search("points for 7th").matches[0]
    assert best.key == "btown-poker-league 1.C.a [Finishing Position 7]"
    assert best.text == "Finishing Position 7: Regular Points Awarded 300"
    assert best.section == "1.C.a"
    assert best.table is not None
    assert "Players earn Regular Points" in best.table


def test_2_c_value_of_a_black_chip(index):
    assert top_key(index, "value of a black chip") == "btown-poker-league 2.C [Chip Color Black]"


def test_2_b_blinds_at_level_8(index):
    best = index.search("blinds at level 8").matches[0]
    assert best.text == "Level 8: Small Blind 3,000, Big Blind 6,000"


# --- numbers, ordinals, slang, typos ---------------------------------------------------------


@pytest.mark.parametrize(
    "query", ["points for 5th", "points for fifth", "points for 5 place", "5th place points"]
)
def test_1_c_a_ordinals_5th_fifth_and_5_agree(index, query):
    assert top_key(index, query) == "btown-poker-league 1.C.a [Finishing Position 5]"


@pytest.mark.parametrize("query", ["1st BREAK", "first break", "when is the 1st break"])
def test_2_b_first_break_in_any_spelling(index, query):
    assert top_key(index, query) == "btown-poker-league 2.B [1st BREAK]"


def test_1_c_a_ranges_cover_every_place_in_them(index):
    for place in ("10th", "11th", "12th", "13th"):
        assert top_key(index, f"points for {place}") == (
            "btown-poker-league 1.C.a [Finishing Position 10 — 13]"
        )


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("color up", "btown-poker-league 2.C.c"),
        ("can i vape at the table", "btown-poker-league 1.F"),
        ("dealer flashed a card on the deal", "btown-poker-league 2.G.d.13"),
        ("guy dumped his chips to his buddy", "btown-poker-league 3.A.e"),
        ("TD ruling final?", "btown-poker-league 1.D"),
        ("shove for less than a min raise", "btown-poker-league 2.G.d.8"),
    ],
)
def test_slang_reaches_the_rulebook_words(index, query, key):
    assert top_key(index, query) == key


@pytest.mark.parametrize(
    ("query", "key"),
    [
        # both passages that say "misdeal" (a card exposed on the deal, on the flop) answer it
        ("misdael", ("btown-poker-league 2.G.d.13", "btown-poker-league 2.G.d.14")),
        ("suspention", "btown-poker-league 3.B.a"),
        ("tournement of champions qualifing", "btown-poker-league 4.B"),
        ("burn crad shown", "btown-poker-league 2.G.d.12"),
        ("celphone at table", "btown-poker-league 1.G.a"),
    ],
)
def test_typos_are_corrected_against_the_books_vocabulary(index, query, key):
    assert top_key(index, query) in (key if isinstance(key, tuple) else (key,))


def test_typo_correction_leaves_unrelated_words_alone(index):
    terms = index.query_terms("can I bring my dog")
    assert "dog" in terms
    assert "dig" not in terms
    assert "mak" not in index.query_terms("parking")


def test_joined_and_split_words(index):
    assert "oversi" in index.query_terms("over sized chip")
    assert {"cell", "phon"} <= set(index.query_terms("cellphone"))


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("secondchance blinds", "btown-poker-league 4.B [Second Chance Table]"),
        ("firstbreak", "btown-poker-league 2.B [1st BREAK]"),
    ],
)
def test_4_b_a_joined_word_is_split_before_stemming(ranking, query, key):
    # "secondchance" must not be read as a form of "second"; number words split off too. (The
    # ranking's reading: with the decision on, a lone "firstbreak" is offered as the closest
    # section, not an answer; docs/rule-search.md, "No rule answers this".)
    assert top_key(ranking, query) == key


def test_2_g_d_13_a_doubled_letter_is_a_typo_not_two_words(index):
    # "missdeal" is "misdeal" typed with a double s, not "miss" + "deal".
    assert set(index.query_terms("missdeal")) == set(index.query_terms("misdeal"))
    assert "miss" not in index.query_terms("missdeal")
    assert top_key(index, "missdeal") == "btown-poker-league 2.G.d.13"


def test_a_phrase_typed_as_one_word_splits_with_its_small_words(index):
    # "ontheclock" is "on the clock": stop words are pieces too, the fewest pieces win.
    assert index.index.speller._split("ontheclock") == ["on", "the", "clock"]
    assert index.index.speller._split("registraton") is None  # a typo is not cut into scraps
    assert top_key(index, "bar leauge ontheclock") == "bar-league-rules Time 1"


def test_a_run_together_phrase_needs_a_real_content_word(index):
    assert index.index.speller._split_phrase("xyzzyfoobar") is None
    assert index.index.speller._split("afternoon") is None  # not "after no on": small words only


def test_a_word_with_a_particle_stuck_on_is_split(index):
    assert "stack" in index.query_terms("stackup")
    assert "chop" in index.query_terms("chopit")


def test_a_joined_word_may_hold_an_inflection_but_not_a_scrap(index):
    assert index.index.speller._split("stringbetting") == ["string", "betting"]
    assert index.index.speller._split("completes") is None  # not "comp" + "letes"


@pytest.mark.parametrize("query", ["poker pub stradle", "poker pub straddle"])
def test_poker_pub_bar_rules_strattle_betting_is_a_straddle(index, query):
    # Poker Pub writes "strattle"; a straddle, spelt right or wrong, must not read as silence.
    result = index.search(query)
    assert result.found
    assert result.silent_book is None
    assert result.matches[0].key == "poker-pub Additional information 6"


def test_stemming_is_light_and_consistent():
    assert stem("raises") == stem("raised") == stem("raising") == stem("raise")
    assert stem("chips") == stem("chipped") == "chip"
    assert stem("rake") == stem("raking")


# --- home book, other leagues, filters -------------------------------------------------------


def test_home_book_ranks_first_other_leagues_listed(index):
    result = index.search("misdeal")
    assert result.matches[0].book == "btown-poker-league"
    assert [m.book for m in result.other_leagues] == ["red-white-blue-league"]


def test_other_books_answer_what_the_home_book_does_not(index):
    assert top_key(index, "rebuy") == "poker-pub Bar rules 11"
    assert top_key(index, "string betting") == "poker-pub Additional information 6"


def test_query_naming_a_book_searches_that_book(index):
    assert top_key(index, "poker pub points for third place") == (
        "poker-pub Points Awarding 1 [Third place]"
    )


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("waitng list pokr pub", "poker-pub Bar rules 5"),  # the name typed with a slip
        ("royel flush the game", "the-game-texas-holdem 9.I"),  # a short name at the end
        ("in the game who cuts the deck", "the-game-texas-holdem 9"),  # "in" + short name
        ("rwb clock rule", "red-white-blue-league No-Limit Betting Rules 12"),  # initials
        ("the cards speak bar league", "bar-league-rules Winning Hands 2"),  # answers little
    ],
)
def test_a_book_named_loosely_is_searched(index, query, key):
    assert top_key(index, query) == key


def test_a_short_name_inside_a_question_does_not_switch_books(index):
    assert top_key(index, "can spectators bet on the game") == "btown-poker-league 1.A"
    assert top_key(index, "we both had the same straight") == "btown-poker-league 6.B [Straight]"


def test_home_passage_lacking_the_players_rarest_word_yields_to_another_book(index):
    # BTown's wait-list rule never says when the list closes; the Poker Pub's does.
    assert top_key(index, "waiting list closes when") == "poker-pub Bar rules 5"
    query = "keep mucked cards away from burn cards"
    assert top_key(index, query) == "poker-pub Additional information 7"
    # ... while slang the glossary translates ("kicker") keeps the home book first.
    assert index.search("kicker").matches[0].book == "btown-poker-league"


def test_table_talk_weighs_little_and_glossary_phrases_match_any_person(index):
    terms = index.query_terms("do we get anything for making the final table")
    assert terms["mak"] < 0.5 <= terms["final"]
    query = "my friend can't make it tonight can I play his stack for him"
    assert top_key(index, query) == "btown-poker-league 1.E.c"
    query = "so my buddy went all in and the guy behind him only had half a raise, can I re-raise?"
    assert top_key(index, query) == "btown-poker-league 2.G.d.8"


def test_typos_of_stop_and_number_words(index):
    assert "durring" not in index.query_terms("durring the hand")
    assert "dump" not in index.query_terms("durring the hand")
    assert "2nd" in index.query_terms("secnd chance")
    assert "min" not in index.query_terms("30 minits")


def test_typos_that_sound_like_a_book_word(index):
    assert index.query_terms("blinds dubble").get("doubl") == 0.8  # not "bubble"
    assert "rebuy" in index.query_terms("rebye")
    assert "policy" in index.query_terms("smoking polisy")
    assert "dig" not in index.query_terms("dog")  # a short word is not one vowel away


def test_typo_correction_prefers_the_word_the_books_write_next_to_a_neighbour(index):
    assert "read" in index.query_terms("cards reed")  # "cards read themselves", not "red"
    assert "red" in index.query_terms("reed chip")  # nothing to go on: the likelier word


def test_a_book_short_name_set_apart_or_followed_by_league_names_it(index):
    assert index._named_book("the game: royal on the board, does everyone chop?")[2]
    assert index._named_book("royal on the board, do we chop, the game")[2]
    book, rest, strong = index._named_book("The Game league: how many players at a table?")
    assert (book, strong) == ("the-game-texas-holdem", True)
    assert "league" not in rest.split()
    # A verb after the name still ends the question: the book is favoured.
    assert index._named_book("how many decks of cards does the game use?")[0] == (
        "the-game-texas-holdem"
    )
    assert not index._named_book("can spectators bet on the game")[2]  # only favoured


@pytest.mark.parametrize(
    ("query", "book"),
    [
        ("barleague starting chips", "bar-league-rules"),
        ("pokerpub rebuy", "poker-pub"),
        ("thegame kicker", "the-game-texas-holdem"),
        ("redwhiteblue misdeal", "red-white-blue-league"),
    ],
)
def test_a_book_name_typed_as_one_word_names_it(index, query, book):
    assert index._named_book(query)[0::2] == (book, True)
    assert index.search(query).matches[0].book == book


def test_how_many_prefers_the_passage_that_gives_the_number(index):
    assert top_key(index, "how many decks of cards does the game use?") == (
        "the-game-texas-holdem 3"
    )


def test_roman_numbered_rules_are_found_by_their_numeral(index):
    assert top_key(index, "the game hand ranking III") == "the-game-texas-holdem 9.III"


def test_why_prefers_the_rule_that_gives_the_reason(index):
    # The Game's flop rule burns a card "to prevent cheating"; BTown's only says when.
    assert top_key(index, "why burn a card") == "the-game-texas-holdem 12"


def test_a_section_intro_counts_a_little_less_than_its_numbered_rules(index):
    intro = next(
        d
        for d in index.index.lexical.docs
        if d.passage.key == "red-white-blue-league No-Limit Betting Rules"
    )
    rule = next(
        d
        for d in index.index.lexical.docs
        if d.passage.key == "red-white-blue-league No-Limit Betting Rules 5"
    )
    assert intro.is_intro
    assert not rule.is_intro


def test_the_books_words_in_a_row_after_fixing_typos_count_as_a_quote(index):
    assert top_key(index, "dealr turns over cards erly poker pub") == "poker-pub Bar rules 13"


def test_number_n_picks_the_rule_numbered_n(index):
    assert top_key(index, "bar league hand ranking number 8") == (
        "bar-league-rules Standard Poker Hand Ranking 8"
    )


def test_stemmer_keeps_short_roots_and_strips_derivations():
    assert stem("string") == stem("stringing") == "string"
    assert stem("abusive") == stem("abuse")
    assert stem("excessively") == stem("excessive")


def test_books_filter_and_unknown_book(index):
    result = index.search("misdeal", books=["red-white-blue-league"])
    assert {m.book for m in result.matches} == {"red-white-blue-league"}
    with pytest.raises(UnknownRuleError, match="no rulebook called 'nope'"):
        index.search("misdeal", books=["nope"])


def test_no_home_book_ranks_all_alike():
    index = load_rulebooks(home=None)
    assert index.home is None
    assert index.search("misdeal").found


def test_limit_is_checked(index):
    assert len(index.search("chips", limit=7).matches) == 7
    with pytest.raises(UnknownRuleError):
        index.search("chips", limit=0)
    with pytest.raises(UnknownRuleError):
        index.search("chips", limit=26)


# --- no match and bad input ------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["pizza", "who won the super bowl", "asdf qwer", "weather tomorrow", "xyzzy foo", "zork bluf"],
)
def test_nothing_matches_says_so_and_offers_closest(index, query):
    result = index.search(query)
    assert not result.found
    assert result.matches == ()
    assert 1 <= len(result.closest) <= 3


def test_gibberish_with_a_typo_like_word_is_not_answered_but_real_typos_are(index):
    # "foo" looks like "food", but next to a word foreign to every book it is a guess.
    assert not index.search("xyzzy foo").found
    assert index.search("smoking polcy").matches[0].key == "btown-poker-league 1.F"
    assert index.search("abusiv languge").found


@pytest.mark.parametrize(
    ("query", "book", "other"),
    [
        ("does rwb allow straddles", "red-white-blue-league", "btown-poker-league"),
        ("poker pub smoking", "poker-pub", "btown-poker-league"),
    ],
)
def test_a_named_book_silent_on_the_topic_says_so_and_shows_other_leagues(
    index, query, book, other
):
    result = index.search(query)
    assert not result.found
    assert result.silent_book == book
    assert all(m.book == book for m in result.closest)
    assert other in {m.book for m in result.other_leagues}
    assert book not in {m.book for m in result.other_leagues}


def test_a_named_book_with_a_rule_on_the_topic_is_not_silent(index):
    result = index.search("poker pub rebuy")
    assert result.found
    assert result.silent_book is None
    assert result.matches[0].key == "poker-pub Bar rules 11"


@pytest.mark.parametrize("query", ["flop has too many cards", "flop has to many cards"])
def test_rwb_dealing_3_too_many_cards_on_the_flop_even_written_to_many(index, query):
    keys = [m.key for m in index.search(query).matches]
    rwb = "red-white-blue-league Texas Hold'em Dealing and Card Rules"
    assert {f"{rwb} 2", f"{rwb} 3"} & set(keys)


@pytest.mark.parametrize("query", ["who decides disputes", "who settles a dispute"])
def test_1_d_problem_resolution_who_decides_disputes(index, query):
    assert index.search(query).matches[0].key == "btown-poker-league 1.D"


def test_poker_talk_is_answered_even_when_little_of_it_is_in_the_books(index):
    result = index.search("what's the buy in")
    assert result.found
    assert result.matches[0].key in {"btown-poker-league 5", "poker-pub Bar rules"}  # free, no fee


def test_a_question_naming_a_book_at_either_end_is_answered(index):
    result = index.search("the game how do blinds work")
    assert result.found
    assert result.matches[0].book == "the-game-texas-holdem"


@pytest.mark.parametrize(
    ("query", "book"), [("rules of the game", "the-game-texas-holdem"), ("poker pub", "poker-pub")]
)
def test_only_a_book_name_answers_with_the_books_opening(index, query, book):
    result = index.search(query)
    assert result.found
    assert {m.book for m in result.matches} == {book}


def test_empty_query_is_not_a_search(index):
    result = index.search("   \x00 ")
    assert result.query == ""
    assert not result.found


def test_query_is_cleaned_and_cut():
    assert clean_query("smoking\x07 \u202epolicy") == "smoking policy"
    assert len(clean_query("chip " * 100)) <= MAX_QUERY_CHARS


def test_long_query_is_cut_and_still_finds_its_rule(index):
    # Thirty "please tell me"s drown the two words' meaning: the decision (5% budget) offers the
    # rule as the closest section rather than an answer; the cut query still finds it first.
    result = index.search("oversized chip " + "please tell me " * 30)
    assert result.query == clean_query(result.query)
    assert len(result.query) <= MAX_QUERY_CHARS
    assert (result.matches or result.closest)[0].section == "2.G.d.6"


# --- get and autocomplete --------------------------------------------------------------------


def test_get_by_book_and_section(index):
    assert index.get("btown-poker-league", "2-G-d-6").section == "2.G.d.6"
    row = index.get("btown-poker-league", "2.B [Level 8]")
    assert row.part == "Level 8"
    with pytest.raises(UnknownRuleError, match="no rulebook called"):
        index.get("nope", "1")
    with pytest.raises(UnknownRuleError):
        index.get("btown-poker-league", "9.Z")


@pytest.mark.parametrize(
    "prefix", ["", "over", "oversi", "2.G.d", "2g", "points for 7", "smok", "second chance", "zzz"]
)
def test_autocomplete_values_resolve_back_to_exactly_that_passage(index, prefix):
    pairs = index.autocomplete(prefix)
    assert len(pairs) <= 25
    for label, value in pairs:
        assert 0 < len(label) <= 100
        assert 0 < len(value) <= 100
        result = index.search(value)
        assert result.is_lookup
        assert result.matches[0].key == value


def test_autocomplete_suggests_the_rule_being_typed(index):
    values = [v for _, v in index.autocomplete("oversi")]
    assert "btown-poker-league 2.G.d.6" in values[:3]
    values = [v for _, v in index.autocomplete("2.G.d.1")]
    assert values[:3] == [
        "btown-poker-league 2.G.d.1",
        "btown-poker-league 2.G.d.10",
        "btown-poker-league 2.G.d.11",
    ]


def test_glossary_is_valid_and_reads_toml():
    glossary = Glossary.bundled()
    assert len(glossary.pairs) >= 300
    assert ("cards speak", "cards read themselves verbal declarations not binding") in (
        glossary.pairs
    )
    custom = Glossary.from_toml('[x]\n"nuts" = "best hand"\n')
    assert custom.pairs == (("nuts", "best hand"),)


# --- any input -------------------------------------------------------------------------------


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=300))
def test_any_text_searches_and_completes_without_error(index, text):
    result = index.search(text, limit=5)
    assert len(result.matches) <= 5
    assert len(result.query) <= MAX_QUERY_CHARS
    assert result.found == bool(result.matches)
    for match in result.matches:
        assert 0.0 <= match.score <= 1.0
    for label, value in index.autocomplete(text):
        assert 0 < len(label) <= 100
        assert 0 < len(value) <= 100


def test_2_e_d_a_while_i_clause_is_what_the_player_does_meanwhile(index):
    # "food" must not pull the food-points rule (1.C.b) over being blinded off while away.
    assert top_key(index, "can I get blinded off while I grab food") == "btown-poker-league 2.E.d"
    # "while dealing" is still the topic: no person follows "while".
    terms = index.query_terms("card flipped while dealing")
    assert terms["deal"] == 1.0


def test_2_g_d_14_turned_is_turned_over_not_the_turn_card(index):
    # "flop turned early" is the flop exposed early, not the turn card (2.G.d.15).
    assert top_key(index, "flopp turned early") == "btown-poker-league 2.G.d.14"
    assert top_key(index, "turn card exposed") == "btown-poker-league 2.G.d.15"


@pytest.mark.parametrize(
    ("query", "part"),
    [
        ("toc extra chips for the points champion", "Title Won Overall Regular Points Champion"),
        ("toc chips for the bonus points champion", "Title Won Overall Bonus Points Champion"),
    ],
)
def test_4_c_points_champion_extra_chips_is_the_27000_row(index, query, part):
    # The table row that names the title, not the section's introduction.
    assert top_key(index, query) == f"btown-poker-league 4.C [{part}]"


# --- question focus --------------------------------------------------------------------------


def test_the_game_13_after_the_flop_is_not_the_pre_flop_round(index):
    # Rule 11 is the "Pre Flop" round; the question asks about the round after the flop.
    assert top_key(index, "the game: who acts first after the flop?") == "the-game-texas-holdem 13"


def test_bar_league_winning_hands_1_who_decides_names_the_players(index):
    query = "bar league: who decides who won the hand?"
    assert top_key(index, query) == "bar-league-rules Winning Hands 1"


def test_poker_pub_bar_rules_12_min_bet_is_the_minimum_bet_rule(index):
    query = "poker pub: what's the min bet on the turn and river?"
    assert top_key(index, query) == "poker-pub Bar rules 12"


def test_opposite_time_words_in_the_query():
    assert opposite_pairs(["act", "1st", "after", "flop"]) == {
        ("after", "flop"): frozenset({("befor", "flop"), ("pre", "flop"), ("prior", "flop")})
    }


def test_2_g_d_13_one_of_my_cards_is_not_the_glossary_one_card(index):
    # "one card" (show both hole cards) must not match across "of": "one of my cards" is any card.
    query = "what if the dealer shows one of my cards before the flop?"
    assert top_key(index, query) == "btown-poker-league 2.G.d.13"


def test_bar_league_betting_2_starting_blinds_is_blinds_will_start(index):
    # The same two words the other way round ("Blinds will start at $1") still sit together.
    assert top_key(index, "bar league starting blinds") == "bar-league-rules Betting 2"


def test_a_book_name_with_typos_and_a_dropped_letter_names_it(index):
    assert index._named_book("red wite blu minimun raize")[0::2] == ("red-white-blue-league", True)
    keys = [m.key for m in index.search("red wite blu minimun raize").matches]
    assert keys[0] == "red-white-blue-league No-Limit Betting Rules 10"


def test_a_title_page_is_not_the_answer_to_a_rules_question(ranking):
    for query in ("undercall rwb", "red white blue blinds", "rwb chips"):
        top = ranking.search(query).matches[0]
        assert top.section != "Red, White, and Blue Poker League", query


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("undercall rwb", "red-white-blue-league No-Limit Betting Rules 6"),
        ("do the cards play themselves in bar league", "bar-league-rules Winning Hands 2"),
        ("poker pub brake", "poker-pub Bar rules 10"),
    ],
)
def test_slang_and_sound_alike_words_of_this_round(index, query, key):
    assert index.search(query).matches[0].key == key


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("the game kicker", "the-game-texas-holdem 19"),  # "This is called the 'Kicker'"
        ("the game small blind", "the-game-texas-holdem 7"),  # "a bet called the 'Small Blind'"
        ("the game kiker", "the-game-texas-holdem 19"),  # the typo fixed asks for the same term
    ],
)
def test_the_passage_that_defines_the_word_beats_those_that_use_it(index, query, key):
    assert index.search(query).matches[0].key == key


def test_a_definition_elsewhere_does_not_unseat_the_home_book(index):
    assert index.search("kicker").matches[0].book == "btown-poker-league"


def test_points_for_winning_is_the_first_place_row_not_the_whole_list(index):
    top = index.search("poker pub points for winning").matches[0]
    assert top.key == "poker-pub Points Awarding 1 [First place]"
    assert index.search("points for winning").matches[0].key.startswith("btown-poker-league 1.C")


def test_a_sound_alike_anagram_is_the_book_word_without_any_glossary(index):
    bare = RuleIndex(index.books, glossary=Glossary.from_toml(""), home=index.home)
    assert bare.index.speller._candidates("brake")[0][0] == "break"  # not "broke", one letter off
    assert bare.search("poker pub brake").matches[0].key == "poker-pub Bar rules 10"


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("red white blue string raise", "red-white-blue-league No-Limit Betting Rules 8"),
        ("bounty on last season's champ at toc", "btown-poker-league 4.F"),
        (
            "rwb dealer gave me 3 hole cards",
            "red-white-blue-league Texas Hold'em Dealing and Card Rules 5",
        ),
    ],
)
def test_slang_for_string_raise_defending_champ_and_an_extra_hole_card(index, query, key):
    assert key in [m.key for m in index.search(query).matches]


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("bonus for hitting four of a kind", "btown-poker-league 1.C.a [Premium Hand Any Quads]"),
        ("4 of a kind bonus", "btown-poker-league 1.C.a [Premium Hand Any Quads]"),
        ("is there a bonus for quads", "btown-poker-league 1.C.a [Premium Hand Any Quads]"),
    ],
)
def test_1_c_a_a_bonus_for_a_named_hand_is_the_premium_hand_row(index, query, key):
    # Four of a kind is quads in every form; its bonus is Regular Points, not Bonus Points.
    assert top_key(index, query) == key
    assert top_key(index, "bonus points") == "btown-poker-league 1.C.b"


def test_1_c_a_and_1_c_b_a_royal_flush_bonus_is_in_both_tables(index):
    # 200 Regular Points in the premium-hand row (1.C.a), 100 Bonus Points more in 1.C.b.
    top = [m.key for m in index.search("royal flush bonus").matches[:2]]
    assert "btown-poker-league 1.C.a [Premium Hand Royal Flush]" in top
    assert any(k.startswith("btown-poker-league 1.C.b") for k in top)


def test_7_asking_about_one_blind_drops_the_other_from_a_vague_translation(index):
    # "who posts" translates to both blinds; "little blind" (= small blind) picks one of them.
    assert "big" not in index.query_terms("the game who posts the little blind")
    assert {"small", "big"} <= set(index.query_terms("who posts blinds"))
    assert top_key(index, "the game who posts the little blind") == "the-game-texas-holdem 7"


def test_2_e_c_dumping_a_stack_to_leave_is_chip_dumping(index):
    assert top_key(index, "guy dumps his stack so he can go home") == "btown-poker-league 2.E.c"
    assert top_key(index, "dumps his stack") == "btown-poker-league 3.A.e"


def test_poker_pub_bar_rules_14_a_three_way_pot_is_a_multi_way_pot(index):
    query = "poker pub flashing hole cards in a three way pot"
    assert top_key(index, query) == "poker-pub Bar rules 14"
    assert top_key(index, "three way all in side pot") == "btown-poker-league 2.G.e.1"


# --- the semantic tier -------------------------------------------------------------------------


def test_semantic_tier_lifts_the_fresh_batch_over_the_lexical_ranker_alone(index):
    fresh = [q for q in load_queries() if q.get("slice") == "fresh"]
    lexical = RuleIndex(index.books, home=index.home, semantic=False)
    _, fused1, fused3 = rates(index, fresh)["overall"]
    _, lex1, lex3 = rates(lexical, fresh)["overall"]
    assert fused1 >= lex1
    assert fused3 > lex3


def test_a_book_from_rulebook_dir_is_embedded_at_start_up_the_bundled_ones_come_cached(tmp_path):
    (tmp_path / "house-rules.txt").write_text(
        "House rules\n1. Players who arrive late may still buy in until the second break.\n"
        "2. Drinks stay off the felt at all times.\n",
        encoding="utf-8",
    )
    bundled = load_rulebooks()
    assert bundled.index.semantic is not None
    assert bundled.index.semantic.embedded_at_start == 0
    index = load_rulebooks(tmp_path)
    assert index.index.semantic is not None
    assert 0 < index.index.semantic.embedded_at_start <= 4
    result = index.search("can i put my beer on the table", books=["house-rules"])
    assert result.matches[0].key == "house-rules 2"

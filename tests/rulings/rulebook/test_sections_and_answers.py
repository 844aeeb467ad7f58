"""Whole sections, each book's edition, and whether a result answers the question."""

from pathlib import Path

import pytest

from rulings.errors import UnknownRuleError
from rulings.rulebook import Edition, RuleIndex, load_rulebooks
from rulings.rulebook.answers import AnswerModel
from rulings.rulebook.books import Rulebook, split_front_matter


@pytest.fixture(scope="module")
def index() -> RuleIndex:
    return load_rulebooks()


def test_whole_section_2_d_is_its_heading_and_every_rule(index):
    whole = index.section("2.D")
    assert (whole.book, whole.section) == ("btown-poker-league", "2.D")
    assert whole.title == "Combining Tables and Reseating Players"
    assert [p.section for p in whole.passages] == ["2.D.a", "2.D.b", "2.D.c", "2.D.d"]


def test_whole_section_loose_spelling_and_book_name(index):
    assert index.section("rule 2-d").section == "2.D"
    whole = index.section("poker-pub Bar rules")
    assert whole.book == "poker-pub"
    assert len(whole.passages) > 10
    assert all(p.book == "poker-pub" for p in whole.passages)


def test_whole_section_of_a_single_rule_is_that_rule(index):
    assert [p.key for p in index.section("2.G.d.6").passages] == ["btown-poker-league 2.G.d.6"]


def test_the_section_around_2_g_d_6_is_2_g_d(index):
    whole = index.enclosing("btown-poker-league", "2.G.d.6")
    assert whole.section == "2.G.d"
    assert "btown-poker-league 2.G.d.6" in {p.key for p in whole.passages}


def test_an_unknown_section_is_one_clear_error(index):
    with pytest.raises(UnknownRuleError, match=r"no section '9\.Z'"):
        index.section("9.Z")
    with pytest.raises(UnknownRuleError, match="no rulebook called"):
        index.section("2.D", book="nope")


def test_bundled_books_state_date_and_source(index):
    for book in index.books.values():
        assert book.edition is not None
        assert book.edition.date
        assert book.edition.source
    assert index.books["btown-poker-league"].edition.describe().startswith("as of ")


def test_front_matter_states_a_league_books_edition():
    edition, text = split_front_matter(
        "---\nedition: 3rd\ndate: 2026-09-01\nsource: our website\n---\nRules\n1. Cards speak.\n"
    )
    assert edition == Edition("3rd", "2026-09-01", "our website")
    assert text == "Rules\n1. Cards speak.\n"
    book = Rulebook.from_text("ours", "---\nversion: 2\n---\nRules\n1. Cards speak.\n")
    assert book.edition == Edition("2")
    assert [p.text for p in book.passages] == ["Cards speak."]


def test_a_league_book_without_front_matter_is_dated_by_its_file(tmp_path: Path):
    path = tmp_path / "house.txt"
    path.write_text("House rules\n1. Drinks stay off the felt.\n", encoding="utf-8")
    index = load_rulebooks(tmp_path)
    edition = index.books["house"].edition
    assert edition is not None
    assert edition.date is not None
    assert len(edition.date) == 10
    assert edition.source == "the league's own rulebook file"


def test_a_found_result_says_its_matches_answer(index):
    result = index.search("oversized chip")
    assert result.found
    assert all(m.answers for m in result.matches)
    assert result.evidence is not None


def test_a_lookup_answers(index):
    assert index.search("2.G.d.6").matches[0].answers


def test_a_question_no_book_rules_on_offers_closest_not_answers(index):
    deciding = RuleIndex(index.books, home=index.home, decide=True)
    result = deciding.search("what is the wifi password")
    assert not result.found
    assert result.matches == ()
    assert result.closest
    assert not any(m.answers for m in result.closest)


def test_the_decision_is_on_by_default_and_can_be_left_out(index):
    assert index.answer_model == AnswerModel.bundled()
    alone = RuleIndex(index.books, home=index.home, decide=False)
    assert alone.answer_model is None
    assert alone.search("oversized chip").matches[0].section == "2.G.d.6"
    assert index.search("oversized chip").matches[0].section == "2.G.d.6"

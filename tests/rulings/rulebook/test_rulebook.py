"""The rulebook parser: passages and citations exactly as each of the five books numbers them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulings.errors import RulebookError, UnknownRuleError
from rulings.rulebook.books import Passage, Rulebook, bundled_books, citation_slug, parse_books
from rulings.rulebook.search import load_rulebooks

SHARED = Path(__file__).resolve().parents[4] / "shared" / "rulebooks"


@pytest.fixture(scope="module")
def books() -> dict[str, Rulebook]:
    return parse_books(bundled_books().items())


def passage(books: dict[str, Rulebook], book: str, key: str) -> Passage:
    found = [p for p in books[book].passages if p.key == f"{book} {key}"]
    assert len(found) == 1, [p.key for p in books[book].passages]
    return found[0]


def test_the_five_books_ship_as_package_data():
    names = set(bundled_books())
    assert names == {
        "btown-poker-league",
        "bar-league-rules",
        "poker-pub",
        "red-white-blue-league",
        "the-game-texas-holdem",
    }


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared rulebook folder is not mounted")
def test_bundled_books_are_verbatim_copies():
    for name, text in bundled_books().items():
        assert (SHARED / f"{name}.txt").read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    ("book", "count", "rows"),
    [
        ("btown-poker-league", 169, 54),
        ("bar-league-rules", 29, 0),
        ("poker-pub", 44, 9),  # the points list's nine rows, indexed also one by one
        ("red-white-blue-league", 30, 0),
        ("the-game-texas-holdem", 30, 0),
    ],
)
def test_passage_counts(books, book, count, rows):
    assert len(books[book].passages) == count
    assert sum(1 for p in books[book].passages if p.table) == rows


def test_an_inline_list_is_findable_row_by_row(books):
    rows = [p for p in books["poker-pub"].passages if p.table]
    third = next(p for p in rows if p.part == "Third place")
    assert third.section == "Points Awarding 1"
    assert third.text == "Third place: 60 points"
    assert third.table is not None
    assert "awarded points as follows" in third.table
    whole = books["poker-pub"].get("Points Awarding 1")
    assert "Second place/80 points" in whole.text  # the whole list stays one passage too


def test_every_key_is_unique_and_short(books):
    keys = [p.key for b in books.values() for p in b.passages]
    assert len(keys) == len(set(keys))
    assert max(len(k) for k in keys) <= 100


@pytest.mark.parametrize(
    ("book", "key", "starts"),
    [
        ("btown-poker-league", "2.G.d.6", "A single over-sized chip placed in front of a player"),
        ("btown-poker-league", "1.F", "Smoking is prohibited at the tables."),
        ("btown-poker-league", "2.C.b.1.A", "Players who show up at least 15 minutes prior"),
        ("btown-poker-league", "2.G.c.2.E", "After the final betting round"),
        ("btown-poker-league", "3.A.c.1", "Prior to involving the tournament director"),
        ("btown-poker-league", "6.B [Flush]", "Flush (5 cards of the same suit)"),
        ("poker-pub", "Bar rules 12", "Pre-flop, the minimum bet is up to the Big Blind"),
        ("poker-pub", "3", "Upon completion of the first round of betting"),
        ("poker-pub", "Additional information 6", "Please use poker etiquette"),
        ("red-white-blue-league", "No-Limit Betting Rules 9", "A bet of a single chip without"),
        (
            "red-white-blue-league",
            "Texas Hold'em Dealing and Card Rules 1",
            "If the first holecard",
        ),
        ("bar-league-rules", "Winning Hands 2", "“Cards Read” will always take precedent"),
        ("bar-league-rules", "Standard Poker Hand Ranking 5", "Five cards of the same suit."),
        ("the-game-texas-holdem", "19", 'The final phase called "The Showdown"'),
        ("the-game-texas-holdem", "9.I", "Royal Flush: An Ace, King, Queen, Jack and Ten"),
        ("the-game-texas-holdem", "20.V", "Flush: Five cards of the same suit."),
    ],
)
def test_citations_as_the_books_number_them(books, book, key, starts):
    assert passage(books, book, key).text.startswith(starts)


def test_heading_is_attached_to_its_text_never_a_passage(books):
    smoking = passage(books, "btown-poker-league", "1.F")
    assert smoking.title == "Smoking Policy"
    assert smoking.headings == ("General rules", "Smoking Policy")
    dealer = passage(books, "btown-poker-league", "2.G.c.1")
    assert dealer.title == "The Dealer"
    assert dealer.text.startswith("The tournament director shall assign designated players")
    headings = {"Smoking Policy", "Betting Procedure", "GENERAL RULES", "Time", "Betting Rounds"}
    for book in books.values():
        for p in book.passages:
            assert p.text.strip() not in headings


def test_quick_links_are_navigation_not_rules(books):
    btown = books["btown-poker-league"]
    assert all("Quick Links" not in p.text for p in btown.passages)
    assert btown.passages[0].section == "1.A"
    rwb = books["red-white-blue-league"]
    assert all("About: Chips | Points" not in p.text for p in rwb.passages)


def test_duplicated_paragraphs_of_the_game_are_indexed_once(books):
    game = books["the-game-texas-holdem"]
    sections = [p.section for p in game.passages]
    for number in ("17", "18", "19"):
        assert sections.count(number) == 1
    flushes = [p for p in game.passages if p.text.startswith("Flush: Five cards of the same suit")]
    assert [p.section for p in flushes] == ["20.V"]
    # the kept 12 is the real one, not the stray "12. Flush" repeat
    assert passage(books, "the-game-texas-holdem", "12").text.startswith("The second deal")


def test_section_numbered_twice_is_told_apart(books):
    toc = passage(books, "btown-poker-league", "4.D")
    second_chance = passage(books, "btown-poker-league", "4.D [Second Chance Table]")
    assert toc.title == "Tournament of champions"
    assert second_chance.text.startswith("To encourage practice and learning")


def test_1_c_a_table_rows_carry_header_and_introducing_sentence(books):
    row = passage(books, "btown-poker-league", "1.C.a [Finishing Position 7]")
    assert row.text == "Finishing Position 7: Regular Points Awarded 300"
    assert row.section == "1.C.a"
    assert row.table is not None
    assert row.table.startswith("Regular Points: Players earn Regular Points (RP) by finishing")
    quads = passage(books, "btown-poker-league", "1.C.a [Premium Hand Any Quads]")
    assert quads.text == "Premium Hand Any Quads: Regular Points Awarded 100"


def test_2_b_blind_rows_are_numbered_levels_and_breaks(books):
    level8 = passage(books, "btown-poker-league", "2.B [Level 8]")
    assert level8.text == "Level 8: Small Blind 3,000, Big Blind 6,000"
    first_break = passage(books, "btown-poker-league", "2.B [1st BREAK]")
    assert first_break.text == "1st BREAK (after Level 5: Small Blind 500, Big Blind 1,000)"
    levels = [p for p in books["btown-poker-league"].passages if (p.part or "").startswith("Level")]
    assert len(levels) == 17


def test_2_c_chip_rows_and_separator_rows(books):
    black = passage(books, "btown-poker-league", "2.C [Chip Color Black]")
    assert black.text == "Chip Color Black: Value 1,000"
    parts = [p.part for p in books["btown-poker-league"].passages if p.section == "2.C" and p.table]
    assert "Chip Color ———" not in parts
    assert len(parts) == 7
    total = passage(books, "btown-poker-league", "2.C.a [Starting Stack Total]")
    assert total.text == "Starting Stack Total: Quantity 18,000"


def test_see_also_from_cross_references(books):
    def links(key: str) -> tuple[str, ...]:
        return passage(books, "btown-poker-league", key).see_also

    assert links("2.G.c.2.E") == ("2.G.d.4",)
    assert links("2.D.d") == ("2.G.a",)
    assert links("2.E.d") == ("2.E.e", "2.E.f", "2.E.g")
    assert links("2.G.c.2.B") == ("2.G.d",)
    assert links("3.A.d") == ("3.B",)
    assert links("4.G [Second Chance Table]") == ("1.C.a.2",)
    assert links("2.G.c.1") == ("1.D",)


def test_top_level_sections(books):
    assert books["btown-poker-league"].sections[:3] == (
        ("1", "General rules"),
        ("2", "Tournament structure and rules"),
        ("3", "Conduct, warnings and penalties"),
    )
    assert ("Bar rules", "Bar rules") in books["poker-pub"].sections


def test_get_by_loose_citation(books):
    btown = books["btown-poker-league"]
    assert btown.get("2-G-d-6").section == "2.G.d.6"
    assert btown.get("2gd6").section == "2.G.d.6"
    assert btown.get("2.G.d").section == "2.G.d.1"  # a bare heading gives its first rule
    with pytest.raises(UnknownRuleError):
        btown.get("9.Z")


def test_citation_slug_folds_separators():
    assert citation_slug("Bar rules 12") == citation_slug("bar-rules-12") == "barrules12"


def test_markdown_book_with_heading_list_and_table():
    text = (
        "# House Rules\n\n"
        "Our own rules, on top of BTown's.\n\n"
        "## Phones\n"
        "1. **No** phones at the final table.\n"
        "2. Calls outside only.\n\n"
        "## Payouts\n"
        "Points are paid as follows:\n\n"
        "| Place | Points |\n|---|---|\n| 1 | 10 |\n| 2 | 5 |\n"
    )
    book = Rulebook.from_text("house", text, is_markdown=True)
    keys = [p.key for p in book.passages]
    assert "house Phones 1" in keys
    assert "house Phones 2" in keys
    phones = book.get("Phones 1")
    assert phones.text == "No phones at the final table."
    row = next(p for p in book.passages if p.part == "Place 1")
    assert row.text == "Place 1: Points 10"


def test_empty_book_is_refused():
    with pytest.raises(RulebookError, match="no rules"):
        Rulebook.from_text("empty", "\n\n")


def test_extra_folder_adds_books_and_replaces_same_name(tmp_path):
    (tmp_path / "house.txt").write_text("House rules\n1. Dealer tips go in the jar.\n")
    (tmp_path / "poker-pub.txt").write_text("Pub rules\n1. New pub rule only.\n")
    (tmp_path / "notes.pdf").write_text("ignored")
    index = load_rulebooks(tmp_path)
    assert "house" in index.books
    assert [p.text for p in index.books["poker-pub"].passages] == ["New pub rule only."]
    assert index.search("dealer tips jar").matches[0].book == "house"


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(RulebookError, match="does not exist"):
        load_rulebooks(tmp_path / "nope")

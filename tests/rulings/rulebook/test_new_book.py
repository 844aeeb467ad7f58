"""A league's own book, never seen by the model: split, indexed and searched by meaning too."""

from pathlib import Path

import pytest

from rulings.rulebook import RuleIndex, default_index, load_rulebooks
from rulings.rulebook.books import parse_books

BOOK = "riverside-card-club"

# Written for this test: no model, glossary or labelled query has seen it.
TEXT = """# Riverside Card Club House Rules

## 1. Seating

1. Seats are drawn at random from the dealer's tray; a player may not swap seats with a friend.
2. A player who leaves the table for more than thirty minutes loses the seat and the chips are
removed.

## 2. Conduct

1. Sunglasses, hoods and headphones are not allowed once the final table begins.
2. Players speak English only while a hand is in progress.
3. Pets are welcome on the patio but never inside the card room.

## 3. Food and drink

1. Glass bottles stay at the bar; drinks at the table must be in a plastic cup with a lid.
2. Pizza is delivered at the second break; players pay the kitchen directly.
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("league-books")
    (path / f"{BOOK}.md").write_text(TEXT, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def index(folder: Path) -> RuleIndex:
    return load_rulebooks(folder)


def test_a_new_book_is_split_into_its_numbered_rules(index):
    sections = [p.section for p in index.books[BOOK].passages if p.part is None]
    assert "2. Conduct 1" in sections
    assert "3. Food and drink 2" in sections


def test_a_new_book_is_embedded_for_the_semantic_tier(index):
    semantic = index.index.semantic
    assert semantic is not None
    owners = {int(i) for i in semantic.owners}
    assert all(i in owners for i, p in enumerate(index.passages) if p.book == BOOK)


@pytest.mark.parametrize(
    ("query", "section"),
    [
        ("can I keep my shades on when we are down to the last nine", "2. Conduct 1"),
        ("can I bring my dog inside", "2. Conduct 3"),
        ("is beer in a glass ok at my seat", "3. Food and drink 1"),
        ("how long can I be away before I lose my spot", "1. Seating 2"),
    ],
)
def test_a_paraphrase_finds_the_new_books_rule(index, query, section):
    result = index.search(query, books=[BOOK])
    assert result.matches[0].section == section


def test_shades_for_sunglasses_is_the_semantic_tiers_find(index):
    lexical = RuleIndex(index.books, home=index.home, semantic=False)
    query = "can I keep my shades on when we are down to the last nine"
    found = lexical.search(query, books=[BOOK])
    assert not found.matches or found.matches[0].section != "2. Conduct 1"
    assert index.search(query, books=[BOOK]).matches[0].section == "2. Conduct 1"


def test_the_same_book_again_embeds_nothing_anew(index):
    again = RuleIndex(index.books, home=BOOK)
    assert again.index.semantic is not None
    assert again.index.semantic.embedded_at_start == 0
    dog = again.search("can I bring my dog inside", books=[BOOK])
    assert dog.matches[0].key == f"{BOOK} 2. Conduct 3"


def test_default_index_is_kept_by_the_books_content_not_their_folder(folder, tmp_path):
    first = default_index(folder)
    assert default_index(folder) is first
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / f"{BOOK}.md").write_text(TEXT, encoding="utf-8")
    assert default_index(copy) is first
    (copy / f"{BOOK}.md").write_text(TEXT + "3. The kitchen closes at midnight.\n", "utf-8")
    changed = default_index(copy)
    assert changed is not first
    assert "3. Food and drink 3" in {p.section for p in changed.books[BOOK].passages}


def test_a_book_parsed_from_text_alone_is_searched_the_same_way():
    books = parse_books([(f"{BOOK}.md", TEXT)])
    index = RuleIndex(books, home=BOOK)
    assert index.search("pets in the card room").matches[0].section == "2. Conduct 3"

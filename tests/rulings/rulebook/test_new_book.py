"""A league's own book, never seen by the model: split, indexed and searched by meaning too."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rulings.rulebook import RuleIndex, default_index, load_rulebooks
from rulings.rulebook import search as search_module
from rulings.rulebook.books import parse_books
from rulings.rulebook.fuse import fuse

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


def test_only_a_book_the_model_never_saw_is_unseen(index):
    semantic = index.index.semantic
    assert semantic is not None
    new = index.index.book_of == BOOK
    assert not semantic.seen[new].any()
    assert semantic.seen[~new].all()
    bundled = load_rulebooks().index.semantic
    assert bundled is not None
    assert bundled.seen.all()


def test_an_edited_bundled_passage_is_unseen_and_the_rest_of_its_book_seen():
    books = dict(load_rulebooks().books)
    btown = books["btown-poker-league"]
    first = btown.passages[0]
    edited = replace(first, text=first.text + " Edited by the league.")
    books["btown-poker-league"] = replace(btown, passages=(edited, *btown.passages[1:]))
    semantic = RuleIndex(books).index.semantic
    assert semantic is not None
    seen = dict(zip(RuleIndex(books).passages, semantic.seen, strict=True))
    assert not seen[edited]
    assert all(seen[p] for p in btown.passages[1:])


def _spy_on_fuse(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    shares: list[object] = []

    def spy(
        lexical: list[tuple[float, int, float]],
        cosines: np.ndarray,
        allowed: np.ndarray,
        weight: float | np.ndarray,
        depth: int,
    ) -> list[tuple[float, int, float]]:
        shares.append(weight)
        return fuse(lexical, cosines, allowed, weight, depth)

    monkeypatch.setattr(search_module, "fuse", spy)
    return shares


def test_the_leagues_own_unseen_book_takes_the_unseen_fusion(folder, monkeypatch):
    own = load_rulebooks(folder, home=BOOK)
    shares = _spy_on_fuse(monkeypatch)
    own.search("can I bring my dog inside")
    share = shares[-1]
    assert isinstance(share, np.ndarray)
    new = own.index.book_of == BOOK
    assert np.unique(share[new]).size == 1
    assert np.unique(share[~new]).size == 1
    seen_share, unseen_share = float(share[~new][0]), float(share[new][0])
    assert seen_share >= search_module._LEXICAL_SHARE
    assert unseen_share >= search_module._UNSEEN_LEXICAL_SHARE
    assert unseen_share > seen_share


def test_another_leagues_unseen_book_and_the_bundled_books_keep_the_one_share(index, monkeypatch):
    shares = _spy_on_fuse(monkeypatch)
    index.search("can I bring my dog inside")  # the league's own book is BTown
    load_rulebooks().search("can I bring my dog inside")
    assert [type(s) for s in shares] == [float, float]


def test_the_unseen_lift_is_the_home_books_and_moves_the_order_only(folder, index, monkeypatch):
    own = load_rulebooks(folder, home=BOOK)
    query = "when do the blinds go up"  # the new book has no rule on it
    monkeypatch.setattr(search_module, "_UNSEEN_COSINE_LIFT", 0.0)
    plain = own.search(query)
    monkeypatch.setattr(search_module, "_UNSEEN_COSINE_LIFT", 5.0)
    lifted = own.search(query)
    assert plain.matches[0].book != BOOK
    assert lifted.matches[0].book == BOOK
    assert plain.evidence is not None
    assert lifted.evidence is not None
    assert plain.evidence.best_cosine == lifted.evidence.best_cosine
    # a league whose own book is a bundled one: the unseen book is not lifted above it
    assert index.search(query).matches[0].book != BOOK

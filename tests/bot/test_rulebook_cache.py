"""The command line keeps the bundled rulebooks' index between runs, and never trusts a bad file."""

from __future__ import annotations

from pathlib import Path

import rulings
import rulings.rulebook
from bot.surfaces.cli import rulebook_cache


def test_the_second_run_reads_the_index_the_first_one_built(tmp_path: Path):
    first = rulebook_cache.load_rulebooks(None, directory=tmp_path)
    files = list(tmp_path.glob("rulebooks-*.pickle"))
    assert len(files) == 1
    assert rulebook_cache.fingerprint() in files[0].name
    second = rulebook_cache.load_rulebooks(None, directory=tmp_path)
    assert second is not first  # read back from the file
    fresh = rulings.rulebook.load_rulebooks(None)
    for query in ("oversized chip", "points for 7th", "2.G.d.6", "who deals second chance"):
        assert [m.key for m in second.search(query).matches] == [
            m.key for m in fresh.search(query).matches
        ]


def test_a_damaged_cache_is_built_anew(tmp_path: Path):
    path = tmp_path / f"rulebooks-{rulebook_cache.fingerprint()}.pickle"
    path.write_bytes(b"not a pickle")
    index = rulebook_cache.load_rulebooks(None, directory=tmp_path)
    assert isinstance(index, rulings.rulebook.RuleIndex)
    assert index.search("oversized chip").matches[0].key == "btown-poker-league 2.G.d.6"
    assert path.read_bytes() != b"not a pickle"


def test_extra_books_are_never_cached(tmp_path: Path):
    books = tmp_path / "books"
    books.mkdir()
    (books / "house.txt").write_text(
        "House Rules\n\n1. Phones\nNo phones at the table during a hand.\n", encoding="utf-8"
    )
    cache = tmp_path / "cache"
    index = rulebook_cache.load_rulebooks(books, directory=cache)
    assert "house" in index.books
    assert not cache.exists()

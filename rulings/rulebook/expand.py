"""Stage 3, expand: the glossary turns players' words into the rulebook's words."""

from __future__ import annotations

import itertools
import logging
import re
import tomllib
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import NamedTuple

from rulings.errors import RulebookError
from rulings.rulebook.normalise import (
    CHATTY_STEMS,
    WORD,
    analyse,
    fold_text,
    person_form,
    stem,
    surface_words,
)
from rulings.rulebook.spell import (
    CHATTY_WEIGHT,
    CORRECTED_WEIGHT,
    Speller,
)
from rulings.rulebook.tuning import stage_weights, stage_words

log = logging.getLogger(__name__)


_W = stage_weights("expand")
_GLOSSARY_WEIGHT = _W["glossary_weight"]


_REPLACED_WEIGHT = _W["replaced_weight"]


_PHRASE_GAP = 2  # words a glossary phrase's words may stand apart in the query


_ONE_OF = (("small", "big"),)  # a question about one of these is not about the other


_WORDS = stage_words("expand")
_BEFORE = tuple(_WORDS["before"].split())


_AFTER = tuple(_WORDS["after"].split())


_MONEY = re.compile(r"\$\s?\d|\d\s?(?:bucks|dollars)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Glossary:
    """Players' words -> rulebook words.

    Attributes:
        pairs: ``(players' phrase, rulebook words)`` as written in the data file.
    """

    pairs: tuple[tuple[str, str], ...]

    @classmethod
    def bundled(cls) -> Glossary:
        """The glossary shipped in ``rulings/data/glossary.toml``.

        Returns:
            The glossary.
        """
        raw = (resources.files("rulings") / "data" / "glossary.toml").read_text(encoding="utf-8")
        return cls.from_toml(raw)

    @classmethod
    def from_toml(cls, text: str) -> Glossary:
        """Read a glossary: TOML tables of ``"players' phrase" = "rulebook words"``.

        Args:
            text: the TOML document.

        Returns:
            The glossary.

        Raises:
            RulebookError: the document is not valid TOML.
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RulebookError(f"The glossary is not valid TOML: {exc}.") from exc
        pairs: list[tuple[str, str]] = []
        for table in data.values():
            if isinstance(table, dict):
                pairs.extend((str(k), str(v)) for k, v in table.items())
        return cls(tuple(pairs))

    @property
    def words(self) -> frozenset[str]:
        """Every word of the glossary's phrases, as folded surface words."""
        return frozenset(w for phrase, _ in self.pairs for w in surface_words(phrase))


def _follows(sequence: Sequence[str], start: int, key: tuple[str, ...]) -> tuple[int, ...] | None:
    """Where ``key`` occurs from ``start`` on, each word within a couple of words of the last.

    "show up 20 minutes late" matches the phrase "show up late"; the order must hold.
    """
    at = start
    positions = [start]
    for word in key[1:]:
        window = sequence[at + 1 : at + 2 + _PHRASE_GAP]
        if word not in window:
            return None
        if "of" in window[: window.index(word)]:
            return None  # "one of my cards" is not "one card"
        at += 1 + window.index(word)
        positions.append(at)
    return tuple(positions)


def opposite_pairs(content: Sequence[str]) -> dict[tuple[str, str], frozenset[tuple[str, str]]]:
    """``{("after", "flop"): {("befor", "flop"), ("pre", "flop"), ...}}`` for the query's words."""
    out: dict[tuple[str, str], frozenset[tuple[str, str]]] = {}
    for word, after in itertools.pairwise(content):
        if word in _BEFORE:
            out[(word, after)] = frozenset((w, after) for w in _AFTER)
        elif word in _AFTER:
            out[(word, after)] = frozenset((w, after) for w in _BEFORE)
    return out


class QueryTerms(NamedTuple):
    """What the expand stage makes of a query.

    Attributes:
        weighted: ``{term: weight}``; typed words weigh 1, corrected ones 0.8, glossary words
            0.7.
        own: the player's untranslated words.
        recognised: poker talk: a glossary phrase matched and no word the player typed is
            foreign to the books; such a query is answered even when its best passage covers
            little of it.
        content: the content words, stemmed, in order.
        gibberish: a word foreign to the books and no word the books use typed as it is (only
            guesses at typos are left: "xyzzy foo" is not about "food").
    """

    weighted: dict[str, float]
    own: frozenset[str]
    recognised: bool
    content: list[str]
    gibberish: bool


@dataclass(frozen=True)
class Expander:
    """Stage 3's glossary, keyed for matching a query's words.

    Attributes:
        by_first: each glossary phrase (stemmed words) and its rulebook words, by first word.
        words: every stemmed word of the glossary's phrases.
        phrases: the glossary's phrases, folded, sorted (autocomplete completes them).
    """

    by_first: Mapping[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]
    words: frozenset[str]
    phrases: tuple[str, ...]

    def expand(self, text: str, speller: Speller, indexed: Collection[str]) -> QueryTerms:
        """The query's search terms after corrections and glossary, and what they tell.

        Args:
            text: the cleaned query.
            speller: stage 2, for the query's words.
            indexed: the lexical index's terms.

        Returns:
            The weighted terms, own words, poker talk?, content words, gibberish?.
        """
        words, sequence, content = speller.query_words(text)
        weighted: dict[str, float] = {}
        for term, weight in words:
            weighted[term] = max(weighted.get(term, 0.0), weight)
        replaced: set[str] = set()
        kept: set[str] = set()
        found: list[tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]] = []
        for i, word in enumerate(sequence):
            for key, expansion in self.by_first.get(word, ()):
                positions = _follows(sequence, i, key)
                if positions is not None:
                    found.append((positions, key, expansion))
        # Longest phrases first; a phrase inside a longer one that matched adds nothing.
        found.sort(key=lambda f: -len(f[0]))
        covered: set[int] = set()
        # Phrase -> where it starts: expansions go in in query order, the same on every run.
        at: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
        for positions, key, expansion in found:
            if set(positions) <= covered:
                continue
            covered.update(positions)
            at.setdefault((key, expansion), positions[0])
        if _MONEY.search(text):
            at[(("$",), ("money", "currency", "cash"))] = len(sequence)
        matched_keys = sorted(at, key=at.__getitem__)
        for key, expansion in matched_keys:
            replaced.update(t for t in key if t not in expansion)
            kept.update(expansion)
            # A phrase made only of table talk ("friend") translates with little weight too.
            share = CHATTY_WEIGHT if all(t in CHATTY_STEMS for t in key) else 1.0
            for term in expansion:
                weighted[term] = max(weighted.get(term, 0.0), _GLOSSARY_WEIGHT * share)
        # A translation naming both sides of a pair ("who posts" -> small blind, big blind) is
        # vague; a typed word or a translation naming one side ("little blind") picks that side.
        for pair in _ONE_OF:
            picked = {t for t in pair if t in sequence} | {
                t
                for key, expansion in matched_keys
                for t in pair
                if t in expansion
                if not set(pair) <= set(expansion)
            }
            if len(picked) == 1:
                for other in set(pair) - picked:
                    if other not in sequence:
                        weighted.pop(other, None)
        # The player's slang words that the glossary translated count less than the translation.
        for term in replaced - kept:
            if term in weighted:
                weighted[term] = min(weighted[term], _REPLACED_WEIGHT)
        bridged = {t for key, _ in matched_keys for t in key}
        typed = set(sequence)  # single words as typed, not joined forms ("signup")
        own = frozenset(
            t
            for t, w in weighted.items()
            if w >= CORRECTED_WEIGHT and t in typed and t not in bridged
        )
        slang = [key for key, _ in matched_keys if not all(t in CHATTY_STEMS for t in key)]
        foreign = [
            t
            for t, w in words
            if w >= CORRECTED_WEIGHT and t in typed and t not in indexed and t not in bridged
        ]
        as_typed = any(
            w >= 1.0 and t in typed and not t.isdigit() and (t in indexed or t in bridged)
            for t, w in words
        )
        gibberish = bool(foreign) and not as_typed
        return QueryTerms(weighted, own, bool(slang) and not foreign, content, gibberish)


def build_expander(glossary: Glossary) -> Expander:
    """Key ``glossary`` for ``Expander.expand``: longest phrases first under each first word."""
    entries: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for phrase, words in glossary.pairs:
        key = tuple(person_form(stem(w)) for w in surface_words(phrase))
        if key:
            entries.append((key, tuple(analyse(words))))
    entries.sort(key=lambda e: -len(e[0]))
    by_first: defaultdict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = defaultdict(list)
    for key, expansion in entries:
        by_first[key[0]].append((key, expansion))
    return Expander(
        by_first={first: tuple(found) for first, found in by_first.items()},
        words=frozenset(w for key, _ in entries for w in key),
        phrases=tuple(sorted({" ".join(WORD.findall(fold_text(p))) for p, _ in glossary.pairs})),
    )

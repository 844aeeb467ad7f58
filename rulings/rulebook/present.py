"""Stage 7, present: what a search found, as matches, a "nothing found" or another book."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from rulings.rulebook.books import (
    Passage,
)
from rulings.rulebook.lexical import (
    _HOME_BOOST,
    _K1,
)
from rulings.rulebook.state import IndexState
from rulings.rulebook.tuning import stage_weights

log = logging.getLogger(__name__)


AUTOCOMPLETE_CHARS = 100


_W = stage_weights("present")
_FOUND_THRESHOLD = _W["found_threshold"]


_MIN_COVERAGE = _W["min_coverage"]


_OTHERS_SHARE = _W["others_share"]


_SILENT_MIN_IDF = _W["silent_min_idf"]


@dataclass(frozen=True)
class Match:
    """One passage found by a search.

    Attributes:
        book: the book's name.
        section: the citation as the book numbers it.
        title: the heading the passage sits under.
        text: the passage.
        score: relevance between 0 and 1 (1 for a rule-number look-up).
        see_also: sections of the same book the passage refers to.
        part: the table row, hand or repeated-number label, if any.
        table: the table's name and introducing sentence, for a table row.
        key: the passage's unique handle (``book section [part]``).
    """

    book: str
    section: str
    title: str
    text: str
    score: float
    see_also: tuple[str, ...] = ()
    part: str | None = None
    table: str | None = None
    key: str = ""

    @classmethod
    def of(cls, passage: Passage, score: float) -> Match:
        """Wrap a passage with its score.

        Args:
            passage: the passage found.
            score: its relevance, 0 to 1.

        Returns:
            The match.
        """
        return cls(
            book=passage.book,
            section=passage.section,
            title=passage.title,
            text=passage.text,
            score=round(score, 3),
            see_also=passage.see_also,
            part=passage.part,
            table=passage.table,
            key=passage.key,
        )


@dataclass(frozen=True)
class SearchResult:
    """What a search found.

    Attributes:
        query: the query as searched (cleaned and cut to 200 characters).
        matches: the best passages, best first (the home book's first when it answers).
        found: False when nothing in the books answers; ``matches`` is then empty.
        closest: when nothing matched, the sections nearest the query, to offer instead.
        other_leagues: the best answer of each other book, best first.
        is_lookup: the query was a rule number or passage key.
        silent_book: the book the query named when that book has no rule on the question;
            ``closest`` is then that book's nearest passages and ``other_leagues`` what the
            other books say.
    """

    query: str
    matches: tuple[Match, ...]
    found: bool
    closest: tuple[Match, ...] = ()
    other_leagues: tuple[Match, ...] = ()
    is_lookup: bool = False
    silent_book: str | None = None


def _label(p: Passage, show_book: bool) -> str:
    head = f"{p.section} [{p.part}]" if p.part else p.section
    if show_book:
        head = f"{p.book}: {head}"
    snippet = " ".join(p.text.split())
    label = (
        f"{head} {p.title}: {snippet}" if p.title and p.title not in head else f"{head}: {snippet}"
    )
    if len(label) > AUTOCOMPLETE_CHARS:
        label = label[: AUTOCOMPLETE_CHARS - 1].rstrip() + "…"
    return label


class Presenter(IndexState):
    """The present stage of ``RuleIndex`` (its methods run on the index)."""

    def _result(
        self,
        text: str,
        weighted: Mapping[str, float],
        scored: list[tuple[float, int, float]],
        wanted: set[str],
        limit: int,
        *,
        named: bool = False,
        fused: list[tuple[float, int, float]] | None = None,
    ) -> SearchResult:
        """Matches from the lexical ranking, or from the fused one when there is one.

        Whether anything answers is the lexical ranker's call (enough of the query's weight
        matched) unless ``named`` says so already (a book named, poker talk, or a semantic
        score high enough).
        """
        ceiling = sum(self._idf.get(t, 0.0) * w for t, w in weighted.items()) * (_K1 + 1)
        ceiling = max(ceiling, 1e-9)
        ranked = fused if fused else scored
        if not ranked or (not scored and not named):
            return SearchResult(text, (), False, closest=self._closest(text, wanted, limit))
        lexical_found = bool(scored) and (
            scored[0][0] / ceiling >= _FOUND_THRESHOLD and scored[0][2] >= _MIN_COVERAGE
        )
        # A player who names the book wants its closest passage even when it answers little.
        if not named and not lexical_found:
            partial = tuple(
                Match.of(self._docs[i].passage, min(coverage, 0.29))
                for _, i, coverage in ranked[:limit]
            )
            return SearchResult(text, (), False, closest=partial)
        top_score, _, top_coverage = ranked[0]
        top_score = max(top_score, 1e-9)
        if fused:
            top_coverage = max(top_coverage, min(1.0, top_score))

        def confidence(score: float) -> float:
            return max(0.0, min(1.0, top_coverage * score / top_score))

        matches = tuple(
            Match.of(self._docs[i].passage, confidence(score)) for score, i, _ in ranked[:limit]
        )
        others: list[Match] = []
        seen = {matches[0].book} | ({self.home} if self.home else set())
        # Another book's answer is worth showing when it covers most of what the best one does.
        boost = _HOME_BOOST if matches[0].book == self.home and not fused else 1.0
        top_unboosted = min(top_score / boost, top_score)
        for score, i, coverage in ranked:
            passage = self._docs[i].passage
            if passage.book in seen or coverage < max(_MIN_COVERAGE, 0.6 * top_coverage):
                continue
            if score < _OTHERS_SHARE * top_unboosted:
                continue
            seen.add(passage.book)
            others.append(Match.of(passage, confidence(score)))
        return SearchResult(text, matches, True, other_leagues=tuple(others))

    def _silent(
        self,
        book: str | None,
        content: Sequence[str],
        weighted: Mapping[str, float],
        limit: int,
        text: str,
        rest: str,
    ) -> SearchResult | None:
        """The book named has nothing on the question ("does rwb allow straddles").

        Nothing: none of the words the player typed, and none of the rarer words the glossary
        adds, appear in that book, while another book answers.

        Returns:
            A "no rule in that book" result with what the other books say, or None.
        """
        typed = [t for t in content if t in self._idf and not t.isdigit()]
        if book is None or not typed:
            return None
        rare = [t for t in weighted if self._idf.get(t, 0.0) >= _SILENT_MIN_IDF]
        for term in (*typed, *rare):
            if any(self._docs[i].passage.book == book for i, _ in self._postings[term]):
                return None
        others = self.search(rest, limit=limit)
        if not others.found:
            return None
        best: dict[str, Match] = {}
        for m in (*others.matches, *others.other_leagues):
            best.setdefault(m.book, m)
        closest = self.search(text, books=[book], limit=limit)
        return SearchResult(
            text,
            (),
            False,
            closest=closest.matches or closest.closest,
            other_leagues=tuple(best.values()),
            silent_book=book,
        )

    def _closest(self, text: str, wanted: set[str], limit: int) -> tuple[Match, ...]:
        """Sections whose headings look most like the query (for a "did you mean")."""
        seen: dict[str, Passage] = {}
        for p in self.passages:
            if p.book in wanted:
                seen.setdefault(f"{p.book}|{p.title}", p)
        choices = {k: f"{p.title} {' '.join(p.headings)}" for k, p in seen.items()}
        ranked = process.extract(text.lower(), choices, scorer=fuzz.WRatio, limit=limit)
        return tuple(Match.of(seen[key], score / 100 * 0.1) for _, score, key in ranked)

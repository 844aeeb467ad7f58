"""Stage 7, present: what a search found, as matches, a "nothing found" or another book."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from rulings.rulebook.answers import Evidence
from rulings.rulebook.books import Passage
from rulings.rulebook.lexical import HOME_BOOST, K1, LexicalIndex
from rulings.rulebook.tuning import stage_weights

log = logging.getLogger(__name__)


AUTOCOMPLETE_CHARS = 100


_W = stage_weights("present")
_FOUND_THRESHOLD = _W["found_threshold"]


MIN_COVERAGE = _W["min_coverage"]


_OTHERS_SHARE = _W["others_share"]


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
        answers: the passage answers the question; False for a closest section offered when
            no rule does ("closest, not an answer"), and for a rule-number look-up's passage
            it is True.
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
    answers: bool = False

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
        evidence: what the ranking showed, for the answer decision (None for a look-up, an
            empty query or without the semantic tier).
    """

    query: str
    matches: tuple[Match, ...]
    found: bool
    closest: tuple[Match, ...] = ()
    other_leagues: tuple[Match, ...] = ()
    is_lookup: bool = False
    silent_book: str | None = None
    evidence: Evidence | None = None


@dataclass(frozen=True)
class WholeSection:
    """A section with every rule under it, in book order.

    Attributes:
        book: the book's name.
        section: the section's citation as the book numbers it (``2.D``).
        title: its heading.
        passages: the section's own text (when it has some) and every rule under it.
    """

    book: str
    section: str
    title: str
    passages: tuple[Passage, ...]


def autocomplete_label(p: Passage, show_book: bool) -> str:
    """A passage's autocomplete label: citation, title and text, cut to 100 characters."""
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


def present(
    lexical: LexicalIndex,
    passages: Sequence[Passage],
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

    Args:
        lexical: the lexical index (its docs and idf).
        passages: every passage, for the closest sections when nothing matched.
        text: the cleaned query.
        weighted: the query's weighted terms.
        scored: the lexical ranking, ``(score, passage, coverage)``.
        wanted: the books searched.
        limit: how many matches.
        named: something other than the lexical ranker already says the query is answered.
        fused: the fused ranking, when the semantic tier ran.

    Returns:
        The result.
    """
    ceiling = sum(lexical.idf.get(t, 0.0) * w for t, w in weighted.items()) * (K1 + 1)
    ceiling = max(ceiling, 1e-9)
    ranked = fused if fused else scored
    if not ranked or (not scored and not named):
        return SearchResult(
            text, (), False, closest=closest_sections(passages, text, wanted, limit)
        )
    lexical_found = bool(scored) and (
        scored[0][0] / ceiling >= _FOUND_THRESHOLD and scored[0][2] >= MIN_COVERAGE
    )
    # A player who names the book wants its closest passage even when it answers little.
    if not named and not lexical_found:
        partial = tuple(
            Match.of(lexical.docs[i].passage, min(coverage, 0.29))
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
        Match.of(lexical.docs[i].passage, confidence(score)) for score, i, _ in ranked[:limit]
    )
    others: list[Match] = []
    seen = {matches[0].book} | ({lexical.home} if lexical.home else set())
    # Another book's answer is worth showing when it covers most of what the best one does.
    boost = HOME_BOOST if matches[0].book == lexical.home and not fused else 1.0
    top_unboosted = min(top_score / boost, top_score)
    for score, i, coverage in ranked:
        passage = lexical.docs[i].passage
        if passage.book in seen or coverage < max(MIN_COVERAGE, 0.6 * top_coverage):
            continue
        if score < _OTHERS_SHARE * top_unboosted:
            continue
        seen.add(passage.book)
        others.append(Match.of(passage, confidence(score)))
    return SearchResult(text, matches, True, other_leagues=tuple(others))


def closest_sections(
    passages: Sequence[Passage], text: str, wanted: set[str], limit: int
) -> tuple[Match, ...]:
    """Sections whose headings look most like the query (for a "did you mean")."""
    seen: dict[str, Passage] = {}
    for p in passages:
        if p.book in wanted:
            seen.setdefault(f"{p.book}|{p.title}", p)
    choices = {k: f"{p.title} {' '.join(p.headings)}" for k, p in seen.items()}
    ranked = process.extract(text.lower(), choices, scorer=fuzz.WRatio, limit=limit)
    return tuple(Match.of(seen[key], score / 100 * 0.1) for _, score, key in ranked)

"""Search the rulebooks the way players ask: keywords, questions, slang, typos, paraphrases.

``build_index`` makes one immutable ``Index`` of the books (each stage's part of it built by
that stage's module); ``RuleIndex`` runs a pipeline of stages over it, each a function or a
small class with explicit inputs and outputs, reading its word lists and weights from
``rulings/data/search_words.toml`` and ``rulings/data/search_weights.toml``:

1. ``normalise``: lower case, thousands separators dropped (``1,200`` -> ``1200``), ordinals
   and number words to digits (``fifth``/``5th`` -> ``5th``), hyphenated words kept whole and
   split, light stemming and stop words;
2. ``spell``: words the books never use joined or split against the books' vocabulary
   (``cellphone`` -> ``cell phone``, ``ontheclock`` -> ``on the clock``) or corrected
   (``polcy`` -> ``policy``; a doubled letter, a sound-alike, the word the books write next to
   a neighbour win); words of table talk weigh little;
3. ``expand``: the glossary (``rulings/data/glossary.toml``) adds the rulebook's words for
   players' slang and synonyms (``cards speak`` -> ``cards read themselves``);
4. ``lexical``: BM25F over title, headings, text and table context, with the books' cues
   (words side by side, coverage of the query, the question word, a rule's number, a position
   word steering to a table of places, the league's own book first);
5. ``semantic``: the cosine of the query's embedding with each passage's (and its sentences'),
   static word-piece embeddings distilled from a sentence transformer (numpy only);
6. ``fuse``: the two rankings fused, the lexical share growing with how much of the query its
   best passage covers;
7. ``present``: matches, "nothing found" with the closest sections, what other leagues say.

Here: rule numbers and passage keys answer directly; a book's name (``poker pub``, ``rwb``,
``the game: ...``) picks or favours that book; autocomplete.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import logging
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz

from rulings.errors import UnknownRuleError
from rulings.rulebook.answers import AnswerModel, Evidence
from rulings.rulebook.books import (
    Passage,
    Rulebook,
    book_dates,
    bundled_books,
    bundled_editions,
    citation_slug,
    parse_books,
    read_books,
    with_editions,
)
from rulings.rulebook.expand import Expander, Glossary, QueryTerms, build_expander, opposite_pairs
from rulings.rulebook.fuse import fuse
from rulings.rulebook.lexical import (
    K1,
    NUMBERED,
    LexicalIndex,
    asks_amount,
    build_lexical,
    definition_asked,
    parent_sections,
)
from rulings.rulebook.normalise import (
    WORD,
    clean_query,
    fold_text,
    is_stop,
    plain_text,
    surface_words,
)
from rulings.rulebook.present import (
    AUTOCOMPLETE_CHARS,
    MIN_COVERAGE,
    Match,
    SearchResult,
    WholeSection,
    autocomplete_label,
    closest_sections,
    present,
)
from rulings.rulebook.scope import ScopeBasis, ScopeSignals, basis_for, scope_signals
from rulings.rulebook.semantic import Embedder, SemanticIndex, StaticModel, bundled_cache
from rulings.rulebook.spell import Speller, build_speller, same_word, vocabulary
from rulings.rulebook.tuning import stage_weights, stage_words

log = logging.getLogger(__name__)


DEFAULT_HOME = "btown-poker-league"


MAX_LIMIT = 25


_W = stage_weights("search")
_LEXICAL_SHARE = _W["lexical_share"]
# The league's own book, when the model was never tuned on it (a RULEBOOK_DIR book, an edited
# passage: its vectors did not ship with the model), has a fusion of its own: its cosines are
# weaker evidence, so the lexical ranker counts more there, and a model tuned on the other
# books scores their passages higher whatever the query, so its cosines get a lift for the
# order (on top of semantic_home). Fitted with the unseen book as the home one; another
# league's unseen book keeps the usual fusion, not to crowd out the book the league chose
# (benchmarks/rules.py --unseen's guard).
_UNSEEN_LEXICAL_SHARE = _W["unseen_lexical_share"]
_UNSEEN_COSINE_LIFT = _W["unseen_cosine_lift"]


_SILENT_MIN_IDF = stage_weights("present")["silent_min_idf"]


_SEMANTIC_DEPTH = 25  # the semantic ranking's best that join the lexical candidates


_COVERAGE_TRUST = _W["coverage_trust"]


# A query naming a book ("the game how do blinds work", "can spectators bet on the game") is
# the lexical ranker's to weigh: it knows a book named at either end from one inside a sentence.
_NAMED_BOOK_TRUST = _W["named_book_trust"]
_SEMANTIC_HOME = _W["semantic_home"]  # added to a home-book passage's cosine


_SEMANTIC_FOUND = _W["semantic_found"]


_HEADING_MATCH_RATIO = 88


_HEADING_MIN_CHARS = 6


_LOOKUP_PREFIX = re.compile(
    r"^\s*(?:(?:rule|rules|section|sec|see|paragraph|para)\b\.?|§|#)\s*", re.IGNORECASE
)


@dataclass(frozen=True)
class Index:
    """The one value every stage of the search reads: built once by ``build_index``.

    Attributes:
        books: the loaded books, by name.
        home: the league's own book (ranked first), if loaded.
        glossary: players' words -> rulebook words.
        passages: every passage, the home book's first.
        lexical: stage 4's index.
        speller: stage 2's words.
        expander: stage 3's glossary.
        semantic: stage 5's passage vectors; None without the semantic tier.
        book_of: each passage's book, as an array (for masks).
        aliases: word sequences that name a book, ``(words, book, strong)``.
        headings: ``(heading, folded, length)`` for a query naming a heading.
        vocabulary: the words autocomplete completes to.
        by_key: each passage by its key's slug.
        by_match_key: a match's key back to the passage ``by_key`` gives for it.
        citation_slugs: ``(section slug, key slug, passage)`` for completing citations.
        book_slugs: each book's name as a slug.
        section_slugs: each book's ``(section slug, passage)``.
    """

    books: Mapping[str, Rulebook]
    home: str | None
    glossary: Glossary
    passages: tuple[Passage, ...]
    lexical: LexicalIndex
    speller: Speller
    expander: Expander
    semantic: SemanticIndex | None
    book_of: np.ndarray
    aliases: tuple[tuple[tuple[str, ...], str, bool], ...]
    headings: tuple[tuple[str, str, int], ...]
    vocabulary: tuple[str, ...]
    by_key: Mapping[str, Passage]
    by_match_key: Mapping[str, Passage]
    citation_slugs: tuple[tuple[str, str, Passage], ...]
    book_slugs: Mapping[str, str]
    section_slugs: Mapping[str, list[tuple[str, Passage]]]


def build_index(
    books: Mapping[str, Rulebook],
    *,
    home: str | None = DEFAULT_HOME,
    glossary: Glossary | None = None,
    semantic: bool = True,
    model: Embedder | None = None,
    shipped: Mapping[str, np.ndarray] | None = None,
) -> Index:
    """Index ``books``; ``home`` is the league's own book (ranked first), if loaded.

    ``semantic=False`` leaves out the semantic tier (the lexical ranker alone); ``model``
    replaces the bundled sentence model (its passage vectors are then computed here, but for
    ``shipped``: the vectors that ship with it, of the passages it was tuned on).
    """
    books = dict(books)
    home = home if home in books else None
    glossary = glossary if glossary is not None else Glossary.bundled()
    order = sorted(books, key=lambda name: (name != home, name))
    passages = tuple(p for name in order for p in books[name].passages)
    lexical = build_lexical(passages, home)
    expander = build_expander(glossary)
    phrases = [phrase for phrase, _ in glossary.pairs]
    speller = build_speller(passages, phrases, expander.words, lexical.idf)
    names = {h: plain_text(h) for p in passages for h in (*p.headings, p.title) if h}
    by_key = {citation_slug(p.key): p for p in passages}
    vectors: SemanticIndex | None = None
    if semantic and model is not None:
        vectors = SemanticIndex(passages, model, dict(shipped or {}))
    elif semantic:
        vectors = SemanticIndex(passages, _bundled_model(), _bundled_cache())
    index = Index(
        books=books,
        home=home,
        glossary=glossary,
        passages=passages,
        lexical=lexical,
        speller=speller,
        expander=expander,
        semantic=vectors,
        book_of=np.array([p.book for p in passages]),
        aliases=_book_aliases(books, home),
        headings=tuple((h, folded, len(folded)) for h, folded in names.items()),
        vocabulary=tuple(vocabulary(speller.surface_freq, glossary.words)),
        by_key=by_key,
        by_match_key={p.key: by_key[citation_slug(p.key)] for p in passages},
        citation_slugs=tuple((citation_slug(p.section), citation_slug(p.key), p) for p in passages),
        book_slugs={name: citation_slug(name) for name in books},
        section_slugs={
            name: [(citation_slug(p.section), p) for p in book.passages]
            for name, book in books.items()
        },
    )
    log.debug("indexed %d passages from %d books", len(passages), len(books))
    return index


class RuleIndex:
    """Every loaded rulebook, indexed for search, look-up and autocomplete.

    It runs the pipeline over one ``Index`` value and keeps two memos of its own (autocomplete
    labels, book masks), which change no answer.
    """

    def __init__(
        self,
        books: Mapping[str, Rulebook],
        *,
        home: str | None = DEFAULT_HOME,
        glossary: Glossary | None = None,
        semantic: bool = True,
        model: Embedder | None = None,
        shipped: Mapping[str, np.ndarray] | None = None,
        answer_model: AnswerModel | None = None,
        decide: bool | None = None,
    ) -> None:
        """Index ``books``; ``home`` is the league's own book (ranked first), if loaded.

        ``semantic=False`` leaves out the semantic tier (the lexical ranker alone); ``model``
        replaces the bundled sentence model (its passage vectors are then computed here, but
        for ``shipped``: those that ship with it, of the passages it was tuned on; the home
        book's passages the model was not tuned on get the unseen fusion, see ``ranked``);
        ``decide=True`` adds the fitted "does it answer" decision (``answer_model``, else the
        bundled one: its ``unseen`` fit when the league's own book is one the model was not
        tuned on) to the ranking's own ``found``; ``decide=False`` leaves the ranking alone to
        decide. The default adds it (its ``seen`` fit) when every loaded book is one the model was
        tuned on, and leaves the ranking alone when a book it was not is loaded (a
        ``RULEBOOK_DIR`` book or an edited passage): on such a book both fits turned away too
        many of its real questions (docs/rule-search.md, "No rule answers this").
        """
        self.index = build_index(
            books, home=home, glossary=glossary, semantic=semantic, model=model, shipped=shipped
        )
        self._labels: dict[tuple[Passage, bool], str] = {}
        self._masks: dict[frozenset[str], np.ndarray] = {}
        vectors = self.index.semantic
        # The league's own book's passages the model never saw: the unseen fusion's.
        self._own_unseen = np.zeros(0, dtype=bool)
        if vectors is not None:
            self._own_unseen = ~vectors.seen & (self.index.book_of == self.index.home)
        self._unseen_fusion = bool(self._own_unseen.any())
        self.answer_model: AnswerModel | None = None
        self.scope: ScopeBasis | None = None
        if decide is None:
            decide = vectors is not None and bool(vectors.seen.all())
        if decide:
            self.answer_model = answer_model or AnswerModel.bundled(unseen=self._unseen_fusion)
            index = self.index
            self.scope = basis_for(index.lexical, index.expander.words, index.passages, vectors)

    @property
    def books(self) -> Mapping[str, Rulebook]:
        """The loaded books, by name."""
        return self.index.books

    @property
    def home(self) -> str | None:
        """The league's own book, if loaded."""
        return self.index.home

    @property
    def glossary(self) -> Glossary:
        """Players' words -> rulebook words, as indexed."""
        return self.index.glossary

    @property
    def passages(self) -> tuple[Passage, ...]:
        """Every passage, the home book's first."""
        return self.index.passages

    def query_terms(self, text: str) -> dict[str, float]:
        """The weighted index terms searched for ``text`` (after corrections and glossary).

        Args:
            text: the cleaned query.

        Returns:
            ``{term: weight}``; typed words weigh 1, corrected ones 0.8, glossary words 0.7.
        """
        return self._expand(text).weighted

    def _expand(self, text: str) -> QueryTerms:
        index = self.index
        return index.expander.expand(text, index.speller, index.lexical.idf)

    @property
    def book_names(self) -> tuple[str, ...]:
        """Loaded book names, home first."""
        return tuple(sorted(self.books, key=lambda name: (name != self.home, name)))

    def get(self, book: str, section: str) -> Passage:
        """Return a passage by book and section (or full key ``section [part]``).

        Args:
            book: the book's name.
            section: its citation, e.g. ``2.G.d.6``; separators and case are loose.

        Returns:
            The passage.

        Raises:
            UnknownRuleError: no such book or section.
        """
        found = self.books.get(book)
        if found is None:
            names = ", ".join(self.book_names)
            raise UnknownRuleError(f"There is no rulebook called {book!r}; try one of: {names}.")
        exact = self.index.by_key.get(citation_slug(f"{book} {section}"))
        return exact if exact is not None else found.get(section)

    def search(
        self, query: str, books: Sequence[str] | None = None, limit: int = 3
    ) -> SearchResult:
        """Find the passages that answer ``query``, or say that no rule does.

        The ranking's best passage answers only when the answer model (``answers.py``) is
        confident enough; otherwise the result is "no rule answers this" with the ranked
        passages as its closest sections. Every match says whether it answers.

        Args:
            query: what the player typed.
            books: only search these books (names); all books when None.
            limit: how many matches to return (1 to 25).

        Returns:
            The result: best matches, or a "no match" with the closest sections.

        Raises:
            UnknownRuleError: a book in ``books`` is not loaded, or ``limit`` is out of range.
        """
        result = self.ranked(query, books, limit)
        evidence = result.evidence
        if result.found and evidence is not None and self.answer_model is not None:
            signals = self.scope_signals(result.query, books)
            if not self.answer_model.answers(evidence, signals):
                return SearchResult(
                    result.query,
                    (),
                    False,
                    closest=tuple(replace(m, answers=False) for m in result.matches),
                    evidence=evidence,
                )
        if not result.found:
            return result  # closest sections: Match.answers is False
        return replace(
            result,
            matches=tuple(replace(m, answers=True) for m in result.matches),
            other_leagues=tuple(replace(m, answers=True) for m in result.other_leagues),
        )

    def scope_signals(self, text: str, books: Sequence[str] | None = None) -> ScopeSignals:
        """What the books say about the scope of ``text`` (``scope.py``), for the decision.

        Args:
            text: the query as searched (``SearchResult.query``).
            books: the books searched; all books when None.
        """
        if self.scope is None:
            self.scope = basis_for(
                self.index.lexical, self.index.expander.words, self.passages, self.index.semantic
            )
        semantic = self.index.semantic
        meaning = semantic.scores(text) if semantic is not None and text else None
        allowed = self._allowed(frozenset(self._wanted_books(books)))
        return scope_signals(self.scope, text, self.query_terms(text), meaning, allowed)

    def ranked(
        self, query: str, books: Sequence[str] | None = None, limit: int = 3
    ) -> SearchResult:
        """The ranking before the answer model's say: ``search`` without the decision.

        ``found`` is the ranking's own (a book named, poker talk, enough of the query matched
        or a close enough meaning); ``evidence`` is what the answer model decides on.

        Args:
            query: what the player typed.
            books: only search these books (names); all books when None.
            limit: how many matches to return (1 to 25).

        Returns:
            The result: best matches, or a "no match" with the closest sections.

        Raises:
            UnknownRuleError: a book in ``books`` is not loaded, or ``limit`` is out of range.
        """
        if not 1 <= limit <= MAX_LIMIT:
            raise UnknownRuleError(f"The limit must be between 1 and {MAX_LIMIT}.")
        wanted = self._wanted_books(books)
        text = clean_query(query)
        if not text:
            return SearchResult(query="", matches=(), found=False)
        lookup = self._lookup(text, wanted)
        if lookup:
            matches = tuple(Match.of(p, 1.0) for p in lookup[:limit])
            return SearchResult(text, matches, True, is_lookup=True)
        favoured = None
        named = False
        text_for_terms = text
        if books is None:
            book_named, rest, strong = self._named_book(text)
            if book_named is not None and strong:
                wanted, text_for_terms, named = {book_named}, rest, True
            elif book_named is not None:
                favoured, text_for_terms = book_named, rest
        weighted, own, recognised, content, gibberish = self._expand(text_for_terms)
        book_asked = favoured or (next(iter(wanted)) if named else None)
        if gibberish and book_asked is None:
            # "xyzzy foo": no word the books use, only guesses at typos; say nothing matches.
            return SearchResult(
                text, (), False, closest=closest_sections(self.index.passages, text, wanted, limit)
            )
        if book_asked is not None and not any(t in self.index.lexical.idf for t in weighted):
            # Only the book's name ("rules of the game", "poker pub"): its opening passages.
            opening = [p for p in self.passages if p.book == book_asked][:limit]
            matches = tuple(Match.of(p, 0.5) for p in opening)
            return SearchResult(text, matches, bool(matches))
        phrase = surface_words(text_for_terms)
        plain = plain_text(text_for_terms)
        shortest, longest = _heading_lengths(len(plain))
        headings = frozenset(
            h
            for h, folded, size in self.index.headings
            if shortest <= size <= longest and fuzz.ratio(plain, folded) >= _HEADING_MATCH_RATIO
        )
        amount = asks_amount(phrase)
        numbered = NUMBERED.search(fold_text(text_for_terms))
        scored = self.index.lexical.score(
            weighted,
            wanted,
            headings,
            favoured,
            own,
            amount=amount,
            numbered=numbered.group(1) if numbered else None,
            opposite=opposite_pairs(content),
            defines=definition_asked(self.index.speller.spelt(phrase)),
            one_book=book_asked is not None or len(wanted) == 1,
        )
        if named and books is None and (not scored or scored[0][2] < MIN_COVERAGE):
            silent = self._silent(book_asked, content, weighted, limit, text, text_for_terms)
            if silent is not None:
                return silent
        # A question in players' words ("what's the buy in") is answered, not turned away.
        # So is a question that names a book at either end ("the game how do blinds work").
        answer = (
            named
            or recognised
            or (
                favoured is not None
                and bool(scored)
                and self.index.lexical.docs[scored[0][1]].passage.book == favoured
            )
        )
        fused = None
        evidence = None
        if self.index.semantic is not None:
            meaning = self.index.semantic.scores(text_for_terms)
            cosines = meaning
            if self.home is not None and favoured is None:
                # The league's own book is preferred here too, by a little (for the order only:
                # whether anything answers at all is the cosine's own).
                cosines = meaning + _SEMANTIC_HOME * (self.index.book_of == self.home)
            if self._unseen_fusion:
                cosines = cosines + _UNSEEN_COSINE_LIFT * self._own_unseen
            allowed = self._allowed(frozenset(wanted))
            if favoured is not None:
                allowed = allowed & (self.index.book_of == favoured)
            # The more of the query the lexical best covers, the more the lexical ranking counts:
            # a query in the book's words keeps its ranking, a paraphrase leans on the meaning.
            coverage = scored[0][2] if scored else 0.0
            trust = _NAMED_BOOK_TRUST if favoured is not None else _COVERAGE_TRUST
            share: float | np.ndarray = _LEXICAL_SHARE + (1 - _LEXICAL_SHARE) * trust * coverage
            if self._unseen_fusion:
                # The league's own book, never seen by the model: the lexical ranker's larger share.
                unseen = _UNSEEN_LEXICAL_SHARE + (1 - _UNSEEN_LEXICAL_SHARE) * trust * coverage
                share = np.where(self._own_unseen, unseen, share)
            fused = fuse(scored, cosines, allowed, share, _SEMANTIC_DEPTH)
            best = float(np.max(np.where(allowed, meaning, -1.0)))
            evidence = _evidence(meaning, allowed, fused, scored, weighted, self.index, answer)
            answer = answer or best >= _SEMANTIC_FOUND
        result = present(
            self.index.lexical,
            self.index.passages,
            text,
            weighted,
            scored,
            wanted,
            limit,
            named=answer,
            fused=fused,
        )
        return replace(result, evidence=evidence)

    def _allowed(self, wanted: frozenset[str]) -> np.ndarray:
        """A boolean mask of the passages in the books searched (kept per set of books)."""
        mask = self._masks.get(wanted)
        if mask is None:
            mask = self._masks[wanted] = np.isin(self.index.book_of, list(wanted))
        return mask

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
        lexical = self.index.lexical
        typed = [t for t in content if t in lexical.idf and not t.isdigit()]
        if book is None or not typed:
            return None
        rare = [t for t in weighted if lexical.idf.get(t, 0.0) >= _SILENT_MIN_IDF]
        for term in (*typed, *rare):
            if any(lexical.docs[i].passage.book == book for i, _ in lexical.postings[term]):
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

    def section(self, ref: str, book: str | None = None) -> WholeSection:
        """The heading and every rule of a section (``2.D``), for reading it whole.

        Args:
            ref: the section's citation; a book's name may lead it (``poker-pub Bar rules``).
            book: look only in this book; else the league's own book first, then the others.

        Returns:
            The section.

        Raises:
            UnknownRuleError: no loaded book has that section, or ``book`` is not loaded.
        """
        names = [book] if book is not None else list(self.book_names)
        self._wanted_books(names)
        bare = _LOOKUP_PREFIX.sub("", ref).strip()
        slug = citation_slug(bare)
        for name in names:
            book_slug = self.index.book_slugs[name]
            wanted = slug[len(book_slug) :] if slug.startswith(book_slug) else slug
            if not wanted:
                continue
            inside = tuple(
                p
                for s, p in self.index.section_slugs[name]
                if s == wanted or (s.startswith(wanted) and _is_section_child(p.section, wanted))
            )
            if inside:
                head = inside[0]
                return WholeSection(name, _cited(head.section, wanted), head.title, inside)
        where = book if book is not None else "the league's books"
        raise UnknownRuleError(f"There is no section {bare!r} in {where}.")

    def enclosing(self, book: str, section: str) -> WholeSection:
        """The section one level up from ``section`` (``2.G.d`` for ``2.G.d.6``), whole.

        A top-level section is its own enclosing section.

        Raises:
            UnknownRuleError: the book is not loaded or has no such section.
        """
        parents = parent_sections(section)
        for ref in (*reversed(parents), section):
            try:
                return self.section(ref, book)
            except UnknownRuleError:
                continue
        raise UnknownRuleError(f"There is no section {section!r} in {book}.")

    def autocomplete(self, prefix: str, limit: int = 25) -> list[tuple[str, str]]:
        """Suggestions for a half-typed query: ``(label, value)`` pairs, both <= 100 characters.

        The value is a passage key that ``search`` resolves back to exactly that passage.

        Args:
            prefix: what has been typed so far.
            limit: at most this many suggestions (Discord shows 25).

        Returns:
            Suggestions, best first.
        """
        limit = max(1, min(limit, MAX_LIMIT))
        text = clean_query(prefix)
        if not text:
            passages: list[Passage] = list(self.passages[:limit])
        else:
            passages = self._complete_citation(text, limit)
            if not passages:
                words = text.split()
                last = words[-1].lower() if words else ""
                # A phrase completes several words or a whole word ("odd" -> "odd chip"); a
                # half-typed single word completes from the books' words ("smok" -> "smoking").
                is_word = last in self.index.speller.known or len(words) > 1
                phrase = self._complete_phrase(text) if is_word else None
                if phrase is not None:
                    text = phrase  # "cards sp" -> "cards speak", "odd" -> "odd chip"
                elif last and last not in self.index.speller.known and len(last) >= 2:
                    completions = _starting(self.index.vocabulary, last)
                    completions.sort(key=lambda w: -self.index.speller.surface_freq.get(w, 0))
                    if completions:
                        text = " ".join([*words[:-1], *completions[:3]])
                result = self.search(text, limit=limit)
                passages = [self.index.by_match_key[m.key] for m in result.matches]
                if not result.found:
                    passages = [self.index.by_match_key[m.key] for m in result.closest]
        return [(self._label_of(p), p.key[:AUTOCOMPLETE_CHARS]) for p in passages]

    def _label_of(self, p: Passage) -> str:
        """A passage's autocomplete label (each made once)."""
        show_book = p.book != self.home
        label = self._labels.get((p, show_book))
        if label is None:
            label = self._labels[(p, show_book)] = autocomplete_label(p, show_book)
        return label

    def _wanted_books(self, books: Sequence[str] | None) -> set[str]:
        if books is None:
            return set(self.books)
        unknown = [b for b in books if b not in self.books]
        if unknown:
            names = ", ".join(self.book_names)
            raise UnknownRuleError(
                f"There is no rulebook called {unknown[0]!r}; try one of: {names}."
            )
        return set(books)

    def _lookup(self, text: str, wanted: set[str]) -> list[Passage]:
        """Passages named by a rule number or key in ``text``, home book first."""
        exact = self.index.by_key.get(citation_slug(text))
        if exact is not None and exact.book in wanted:
            return [exact]
        bare = _LOOKUP_PREFIX.sub("", text).strip()
        bare_slug = citation_slug(bare)
        if not bare_slug:
            return []
        names = sorted(wanted, key=lambda name: (name != self.home, name))
        for name in names:
            book_slug = self.index.book_slugs[name]
            if bare_slug.startswith(book_slug) and len(bare_slug) > len(book_slug):
                hits = self._section_hits(name, bare_slug[len(book_slug) :])
                if hits:
                    return hits
        if not any(ch.isdigit() for ch in bare_slug) or len(bare.split()) > 4:
            return []
        for name in names:
            hits = self._section_hits(name, bare_slug)
            if hits:
                return hits
        return []

    def _named_book(self, text: str) -> tuple[str | None, str, bool]:
        """A book the query names ("poker pub points for 3rd", "pokr pub").

        Returns the book, the query without its name, and whether the name is unmistakable
        (else the book is only favoured).
        """
        words = [w for w in surface_words(text) if w != "and"]
        # Where each alias may start: its first word as typed, or a slip of it in a word the
        # books never use ("pokr pub"); the rest is only checked there.
        at: defaultdict[str, list[int]] = defaultdict(list)
        for i, w in enumerate(words):
            at[w].append(i)
        foreign = [i for i, w in enumerate(words) if w not in self.index.speller.known]
        for alias, name, strong in self.index.aliases:
            size = len(alias)
            first = alias[0]
            starts = sorted(
                {*at.get(first, ()), *(i for i in foreign if same_word(first, words[i]))}
            )
            for i in starts:
                if i > len(words) - size:
                    break
                if (
                    not strong
                    and not (  # "the game" names a book only at either end of the query
                        len(words) > size
                        and (
                            all(map(is_stop, words[:i]))
                            or all(is_stop(w) or w in _NAME_VERBS for w in words[i + size :])
                            or words[i + size] in _NAME_TAIL
                        )
                    )
                ):
                    continue
                found = zip(alias, words[i : i + size], strict=True)
                if all(
                    a == w or (w not in self.index.speller.known and same_word(a, w))
                    for a, w in found
                ):
                    after = words[i + size :]
                    # "the game league: ..." / "the game rules": the tail word names it too.
                    tail = bool(after) and after[0] in _NAME_TAIL
                    rest = words[:i] + (after[1:] if tail else after)
                    # "in the game ..." is the book; "bet on the game" may not be.
                    led = i > 0 and words[i - 1] in _BOOK_LEAD
                    if strong or led or tail:
                        return name, " ".join(rest), True
                    # "the game: ..." or "..., the game": punctuation sets the name apart.
                    marked = [
                        w
                        for w in surface_words(re.sub(r"\s*[:;,]\s*", " qqsep ", text))
                        if w != "and"
                    ]
                    return name, " ".join(rest), _set_apart(marked, alias)
        return None, text, True

    def _section_hits(self, book: str, slug: str) -> list[Passage]:
        slugged = self.index.section_slugs[book]
        exact = [p for s, p in slugged if s == slug and not p.table]
        if not exact:
            exact = [p for s, p in slugged if s == slug]
        if exact:
            return exact
        return [
            p
            for s, p in slugged
            if s.startswith(slug) and not p.table and _is_section_child(p.section, slug)
        ]

    def _complete_phrase(self, text: str) -> str | None:
        """The shortest glossary phrase of two or more words that ``text`` begins."""
        typed = " ".join(WORD.findall(fold_text(text)))
        if len(typed) < 3:
            return None
        found = [
            phrase
            for phrase in _starting(self.index.expander.phrases, typed)
            if phrase != typed and " " in phrase
        ]
        return min(found, key=len) if found else None

    def _complete_citation(self, text: str, limit: int) -> list[Passage]:
        slug = citation_slug(_LOOKUP_PREFIX.sub("", text))
        if not slug or not (
            text[0].isdigit() or any(ch in text for ch in ".-") or slug[-1].isdigit()
        ):
            return []
        hits = [
            p
            for section, key, p in self.index.citation_slugs
            if section.startswith(slug) or key.startswith(slug)
        ]
        return hits[:limit]


def _evidence(
    meaning: np.ndarray,
    allowed: np.ndarray,
    fused: Sequence[tuple[float, int, float]],
    scored: Sequence[tuple[float, int, float]],
    weighted: Mapping[str, float],
    index: Index,
    poker_talk: bool,
) -> Evidence:
    """What the ranking shows about a query, for the answer model."""
    masked = np.where(allowed, meaning, -1.0)
    if masked.size >= 2:
        second, first = np.partition(masked, masked.size - 2)[-2:]
    else:
        first, second = float(masked.max(initial=-1.0)), -1.0
    idf = index.lexical.idf
    ceiling = max(sum(idf.get(t, 0.0) * w for t, w in weighted.items()) * (K1 + 1), 1e-9)
    top = fused[0][0] if fused else 0.0
    return Evidence(
        best_cosine=float(first),
        cosine_margin=float(first - second),
        fused_top=float(top),
        fused_margin=float(top - fused[1][0]) if len(fused) >= 2 else float(top),
        coverage=float(scored[0][2]) if scored else 0.0,
        lexical_share=float(scored[0][0] / ceiling) if scored else 0.0,
        poker_talk=1.0 if poker_talk else 0.0,
    )


_WORDS = stage_words("search")
_GENERIC_NAME_WORDS = frozenset(_WORDS["generic_name_words"].split())


def _book_aliases(
    books: Mapping[str, Rulebook], home: str | None
) -> tuple[tuple[tuple[str, ...], str, bool], ...]:
    """Word sequences that name a book in a query: ``(words, book, strong)``.

    A book's full name always does ("red white blue league"), and so do its initials ("rwb");
    its first two words do when one of them is a word the league's own book never uses ("poker
    pub", "bar league"). Other first two words ("the game", "red white") and a name's word no
    other book uses ("pub") are weak: they count only at either end of the query (nothing but
    stop words before or after them), and then only favour the book, unless "in", "at", ...
    leads them ("in the game"); so "red white" chips do not switch books.
    """
    vocabulary = {
        name: {w for p in book.passages for w in surface_words(f"{p.title} {p.text}")}
        for name, book in books.items()
    }
    home_words = vocabulary[home] if home is not None else set()
    aliases: list[tuple[tuple[str, ...], str, bool]] = []
    for name in books:
        words = tuple(surface_words(name.replace("-", " ")))
        if len(words) >= 2:
            aliases.append((words, name, True))
        if len(words) >= 4:
            aliases.append((words[:3], name, True))
        short = words[:2]
        # Run together, a name is unmistakable: "barleague", "pokerpub", "thegame".
        for size in (2, 3):
            if len(words) > size or (len(words) == size and size == 2):
                aliases.append((("".join(words[:size]),), name, True))
        if len(words) > 2:
            strong = not is_stop(short[0]) and any(
                w not in home_words and w not in _GENERIC_NAME_WORDS for w in short
            )
            aliases.append((short, name, strong))
            # Initials name a book outright ("rwb").
            initials = "".join(w[0] for w in words if w not in _GENERIC_NAME_WORDS)
            if len(initials) >= 3:
                aliases.append(((initials,), name, True))
        # A word of the name no other book uses ("pub") is a weak name.
        others = set().union(*(vocab for other, vocab in vocabulary.items() if other != name))
        for word in words:
            if word not in others and word not in _GENERIC_NAME_WORDS and len(word) >= 3:
                aliases.append(((word,), name, False))
    aliases.sort(key=lambda a: -len(a[0]))
    return tuple(aliases)


_BOOK_LEAD = frozenset(_WORDS["book_lead"].split())


_NAME_TAIL = frozenset(_WORDS["name_tail"].split())


_NAME_VERBS = frozenset(_WORDS["name_verbs"].split())


def _set_apart(words: Sequence[str], alias: tuple[str, ...]) -> bool:
    """The name opens or closes the query, set apart by punctuation ("the game: ...")."""
    size = len(alias)
    for i in range(len(words) - size + 1):
        if tuple(words[i : i + size]) != alias:
            continue
        before, after = words[:i], words[i + size :]
        if (not before or before[-1] == "qqsep") and (after[:1] == ["qqsep"] or not after):
            return bool(before or after)
        if before[-1:] == ["qqsep"] and not after:
            return True
    return False


def _starting(words: Sequence[str], prefix: str) -> list[str]:
    """The words of a sorted list that start with ``prefix``, in order (a binary search).

    >>> _starting(["odd", "odd chip", "odds", "one"], "odd")
    ['odd', 'odd chip', 'odds']
    """
    start = bisect.bisect_left(words, prefix)
    end = start
    while end < len(words) and words[end].startswith(prefix):
        end += 1
    return list(words[start:end])


def _heading_lengths(typed: int) -> tuple[int, int]:
    """The lengths a heading may have to be ``_HEADING_MATCH_RATIO`` like a query this long.

    ``fuzz.ratio`` is ``100 * (1 - indel distance / total length)`` and the distance is at
    least the difference of the lengths, so a heading far shorter or longer cannot match: an
    exact bound, in integers. A query shorter than ``_HEADING_MIN_CHARS`` matches none.

    >>> _heading_lengths(14), _heading_lengths(5)
    ((11, 17), (1, 0))
    """
    if typed < _HEADING_MIN_CHARS:
        return 1, 0
    ratio = _HEADING_MATCH_RATIO
    return -(-ratio * typed // (200 - ratio)), (200 - ratio) * typed // ratio


def _cited(section: str, slug: str) -> str:
    """The citation of ``section`` cut to the part whose slug is ``slug``.

    >>> _cited("2.D.a", "2d")
    '2.D'
    """
    for end in range(len(section), 0, -1):
        if citation_slug(section[:end]) == slug:
            return section[:end].rstrip(" .-")
    return section


def _is_section_child(section: str, slug: str) -> bool:
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", section) if p]
    acc = ""
    for part in parts:
        acc += part.lower()
        if acc == slug:
            return True
        if len(acc) >= len(slug):
            return False
    return False


@functools.cache
def _bundled_model() -> StaticModel:
    return StaticModel.bundled()


@functools.cache
def _bundled_cache() -> dict[str, np.ndarray]:
    return bundled_cache()


def load_rulebooks(extra_dir: Path | None = None, *, home: str | None = DEFAULT_HOME) -> RuleIndex:
    """Load the bundled rulebooks plus every ``.txt``/``.md`` book in ``extra_dir``.

    A book in ``extra_dir`` with a bundled book's name replaces it.

    Args:
        extra_dir: the league's own rulebook folder, if any.
        home: the league's own book, ranked first; None ranks all books alike.

    Returns:
        The index.

    Raises:
        RulebookError: the folder is missing or holds an unreadable or empty book.

    >>> index = load_rulebooks()
    >>> index.search("2-G-d-6").matches[0].section
    '2.G.d.6'
    """
    texts: list[tuple[str, str]] = list(bundled_books().items())
    dates: dict[str, str] = {}
    if extra_dir is not None:
        texts.extend(read_books(Path(extra_dir)).items())
        dates = book_dates(Path(extra_dir))
    return RuleIndex(with_editions(parse_books(texts), bundled_editions(), dates), home=home)


_DEFAULT: dict[tuple[str, str | None], RuleIndex] = {}


def default_index(extra_dir: Path | None = None, *, home: str | None = DEFAULT_HOME) -> RuleIndex:
    """``load_rulebooks`` once per content of the folder's books and home, then reuse the index.

    The folder's books are read on every call and hashed: a book added, changed or removed
    builds a new index; the same books under another path reuse the one built.

    Args:
        extra_dir: the league's own rulebook folder, if any.
        home: the league's own book.

    Returns:
        The shared index.

    Raises:
        RulebookError: as ``load_rulebooks``.
    """
    texts = read_books(Path(extra_dir)) if extra_dir is not None else {}
    digest = hashlib.sha256()
    for name, text in texts.items():
        digest.update(f"{name}\0{text}\0".encode())
    key = (digest.hexdigest(), home)
    if key not in _DEFAULT:
        books = parse_books([*bundled_books().items(), *texts.items()])
        dates = book_dates(Path(extra_dir)) if extra_dir is not None else {}
        _DEFAULT[key] = RuleIndex(with_editions(books, bundled_editions(), dates), home=home)
    return _DEFAULT[key]

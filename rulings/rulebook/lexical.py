"""Stage 4, lexical score: BM25F over title, headings, text and table, with the books' cues."""

from __future__ import annotations

import itertools
import logging
import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

from rulings.rulebook.books import (
    Passage,
)
from rulings.rulebook.normalise import (
    analyse,
    fold_text,
    is_stop,
    ordinal_form,
    stem,
    surface_words,
)
from rulings.rulebook.tuning import stage_weights, stage_words

log = logging.getLogger(__name__)


_W = stage_weights("lexical")
K1 = _W["k1"]


_B = _W["b"]


_TITLE_WEIGHT = _W["title_weight"]


_HEADING_WEIGHT = _W["heading_weight"]


_TABLE_WEIGHT = _W["table_weight"]


_ROW_TITLE_WEIGHT = _W["row_title_weight"]


_ROW_CONTEXT_ONLY = _W["row_context_only"]


_TITLE_BONUS = _W["title_bonus"]


_FIRST_BOOST = _W["first_boost"]


_ROW_LABEL_BOOST = _W["row_label_boost"]


_COMPOUND_WEIGHT = _W["compound_weight"]


HOME_BOOST = _W["home_boost"]


_HOME_BOOST_PARTIAL = _W["home_boost_partial"]


_HOME_SHARE = _W["home_share"]


_KEY_MIN_IDF = _W["key_min_idf"]  # a word about five passages use


_UNKNOWN_SHARE = _W["unknown_share"]


_HEADING_MATCH_BOOST = _W["heading_match_boost"]


_NAMED_BOOST = _W["named_boost"]


_AMOUNT_BOOST = _W["amount_boost"]


_NUMBERED_BOOST = _W["numbered_boost"]


_INTRO_SHARE = _W["intro_share"]


_OPPOSITE_SHARE = _W["opposite_share"]


_DEFINES_BOOK_BOOST = _W["defines_book_boost"]


_DEFINED_WORDS = 3  # a query of at most this many content words may ask for a definition


_WORDS = stage_words("lexical")


# An amount in figures ("52 cards"); words are not counted: "three cards face up" is no answer
# to "how many decks".
_AMOUNT = re.compile(r"\d")


# "hand ranking number 8", "no. 8", "#8", "item 8": the rule numbered 8 of the section named.
NUMBERED = re.compile(r"(?:\bnumber|\bno\.?|\bnum|#|\bitem|\brule)\s*(\d+)\b")


_AMOUNT_WORDS = frozenset(_WORDS["amount_words"].split())


_ROMAN_SECTION = re.compile(r"^\d+\.([IVXL]{1,5})$")


@dataclass(frozen=True)
class Doc:
    """A passage as the lexical ranker reads it (worked out once, at start-up)."""

    passage: Passage
    weights: dict[str, float]
    length: float
    sequence: tuple[str, ...]
    own_terms: frozenset[str]
    title_terms: frozenset[str]
    is_first: bool
    label_terms: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    has_amount: bool
    number: str | None
    is_intro: bool
    book: str
    table: bool


_POSITION_WORDS = frozenset(_WORDS["position_words"].split())


def _is_position_row(p: Passage) -> bool:
    return bool(p.table) and not _POSITION_WORDS.isdisjoint(surface_words(p.part or ""))


def _compounds(passages: Sequence[Passage]) -> frozenset[str]:
    """Words the books write joined that are also two of their words ("burncard", "allin")."""
    words = {w for p in passages for w in surface_words(f"{p.title} {p.text}")}
    found = set()
    for word in words:
        if len(word) < 6 or word.isdigit():
            continue
        for cut in range(2, len(word) - 1):
            if word[:cut] in words and word[cut:] in words and not word[:cut].isdigit():
                found.add(word)
                break
    return frozenset(found)


def _table_common_terms(
    passages: Sequence[Passage],
) -> dict[tuple[str, str, str | None], frozenset[str]]:
    """Terms most rows of a table share (its header words): they do not tell rows apart."""
    rows: dict[tuple[str, str, str | None], list[set[str]]] = defaultdict(list)
    for p in passages:
        if p.table:
            rows[(p.book, p.section, p.table)].append(set(analyse(p.text, ranges=True)))
    common: dict[tuple[str, str, str | None], frozenset[str]] = {}
    for key, term_sets in rows.items():
        counts = Counter(t for terms in term_sets for t in terms)
        half = max(2, (len(term_sets) + 1) // 2)
        common[key] = frozenset(t for t, n in counts.items() if n >= half)
    return common


# Where a passage defines a term: "... called the 'Kicker'", "Kicker: ...", "A kicker is ...".
_Q = "[\"'\u201c\u201d]?"


_DEFINED_AFTER = re.compile(
    rf"\b(?:called|known as|named)\s+{_Q}(?:the |a |an )?{_Q}([a-z0-9]+(?:\W+[a-z0-9]+){{0,2}})"
)


_DEFINED_SUBJECT = re.compile(
    rf"(?:^|[.!?]\s+){_Q}(?:the |a |an )?{_Q}([a-z0-9]+(?:\W+[a-z0-9]+){{0,2}}?){_Q}"
    r"(?:\s*:|\s+(?:is|are|means|refers)\b)"
)


def _defined_terms(folded: str) -> frozenset[tuple[str, ...]]:
    """The terms a passage defines, as word tuples (singular and as written), built once.

    >>> ('kicker',) in _defined_terms('this is called the "kicker". if two players')
    True
    >>> ('small', 'blind') in _defined_terms('left of the "small blind" posts')
    False
    """
    found: set[tuple[str, ...]] = set()
    for match in _DEFINED_AFTER.finditer(folded):
        words = re.findall(r"[a-z0-9]+", match[1])
        found.update(tuple(words[:n]) for n in range(1, len(words) + 1))
    for match in _DEFINED_SUBJECT.finditer(folded):
        found.add(tuple(re.findall(r"[a-z0-9]+", match[1])))
    # "kickers" defines "kicker", "boxes" defines "box"
    for term in list(found):
        last = term[-1]
        for ending in ("es", "s"):
            if last.endswith(ending) and len(last) > len(ending):
                found.add((*term[:-1], last[: -len(ending)]))
    return frozenset(found)


def definition_asked(phrase: Sequence[str]) -> tuple[str, ...] | None:
    """The term a short query may ask to have defined (at most ``_DEFINED_WORDS`` words)."""
    words = tuple(w for w in phrase if not is_stop(w) and not w.isdigit())
    if not words or len(words) > _DEFINED_WORDS:
        return None
    return words


def parent_sections(section: str) -> list[str]:
    """Citations above ``section``.

    ``2.G.d.6`` -> ``2``, ``2.G``, ``2.G.d``; ``No-Limit Betting Rules 9`` -> ``No-Limit
    Betting Rules``.
    """
    parts = section.split(".")
    out = [".".join(parts[:k]) for k in range(1, len(parts))]
    words = section.rsplit(" ", 1)
    if len(words) == 2 and words[1][:1].isdigit():
        out.append(words[0])
    return out


def _last_number(section: str) -> str | None:
    """The number a rule carries last in its citation: ``Standard Poker Hand Ranking 8`` -> 8."""
    found = re.search(r"(\d+)$", section)
    return str(int(found.group(1))) if found else None


def asks_amount(words: Sequence[str]) -> bool:
    """The question asks for a number: "how many", "how much", "how long", "how old"."""
    return any(a == "how" and b in _AMOUNT_WORDS for a, b in itertools.pairwise(words))


def _doc(
    p: Passage,
    compounds: frozenset[str],
    table_common: Mapping[tuple[str, str, str | None], frozenset[str]],
    parents: set[tuple[str, str]],
    seen_titles: set[tuple[str, str, tuple[str, ...]]],
) -> Doc:
    weights: defaultdict[str, float] = defaultdict(float)
    # "points for 7th" asks for the row numbered 7 of a table of places, not level 7 nor
    # "15 to 18 weeks": only such a row's ranges spell out their places.
    ranked = _is_position_row(p)
    body = analyse(p.text, ranges=ranked)
    for term in body:
        weights[term] += 1.0
    # "burn card" here, "burncard" in another book: index the joined form too.
    words = surface_words(p.text)
    for a, b in itertools.pairwise(words):
        if a + b in compounds:
            weights[stem(a + b)] += _COMPOUND_WEIGHT
    if ranked:
        for term in analyse(p.part or "", ranges=True):
            if term.isdigit() and 0 < int(term) <= 100:
                weights[ordinal_form(int(term))] += 1.0
    title_terms = analyse(" ".join(filter(None, [p.title, p.part])))
    is_first = not p.table and (p.book, p.title, p.headings) not in seen_titles
    seen_titles.add((p.book, p.title, p.headings))
    # The heading weighs fully on its own text only; later rules under it inherit less.
    title_weight = _TITLE_WEIGHT if is_first or p.part else _HEADING_WEIGHT
    for term in title_terms:
        weights[term] += title_weight if not p.table else _ROW_TITLE_WEIGHT
    for term in analyse(" ".join(p.headings)):
        weights[term] += _HEADING_WEIGHT
    if p.table:
        for term in analyse(p.table):
            weights[term] += _TABLE_WEIGHT
    length = float(len(body)) + 4.0
    sequence = (*title_terms, *body)
    own = frozenset(body) - table_common.get((p.book, p.section, p.table), frozenset())
    own = own if p.table else frozenset(weights)
    common = table_common.get((p.book, p.section, p.table), frozenset())
    label = frozenset(analyse(p.part or "", ranges=True)) - common - set(analyse(p.title))
    # Only a number or a single distinctive word picks out one row ("7", "black").
    label = frozenset(t for t in label if t.isdigit() or len(label) == 1)
    if ranked:
        label |= {ordinal_form(int(t)) for t in label if t.isdigit() and 0 < int(t) <= 100}
    label = label if p.table else frozenset()
    roman = _ROMAN_SECTION.match(p.section)
    if roman:
        # "hand ranking III" names the rule numbered III under its section.
        weights[roman.group(1).lower()] += 1.0
        label = frozenset({roman.group(1).lower()})
    bigrams = frozenset(itertools.pairwise(sequence))
    return Doc(
        p,
        dict(weights),
        length,
        sequence,
        own,
        frozenset(title_terms),
        is_first,
        label,
        bigrams,
        bool(_AMOUNT.search(p.text)),
        _last_number(p.section) if not p.table else None,
        not p.table and not p.part and (p.book, p.section) in parents,
        p.book,
        bool(p.table),
    )


@dataclass(frozen=True)
class LexicalIndex:
    """Stage 4's index over the passages: BM25F postings and each passage's cues.

    Attributes:
        home: the league's own book, ranked first when it answers about as much.
        docs: each passage as the ranker reads it, in the index's passage order.
        postings: each term's ``(passage, weight)``.
        idf: each term's inverse document frequency.
        mean_idf: the mean of ``idf``, the weight of a word no book uses.
        bm25: each term's ``(passage, tf, tf + the passage's length norm)``.
        beside: the passages that write each pair of terms side by side.
        opens: the passage that opens each ``(book, heading)``.
        defines: the terms each passage defines.
    """

    home: str | None
    docs: tuple[Doc, ...]
    postings: Mapping[str, list[tuple[int, float]]]
    idf: Mapping[str, float]
    mean_idf: float
    bm25: Mapping[str, list[tuple[int, float, float]]]
    beside: Mapping[tuple[str, str], list[int]]
    opens: Mapping[tuple[str, str], int]
    defines: tuple[frozenset[tuple[str, ...]], ...]

    def score(
        self,
        weighted: Mapping[str, float],
        wanted: set[str],
        named: frozenset[str] = frozenset(),
        favoured: str | None = None,
        own: frozenset[str] = frozenset(),
        *,
        amount: bool = False,
        numbered: str | None = None,
        opposite: Mapping[tuple[str, str], frozenset[tuple[str, str]]] | None = None,
        defines: tuple[str, ...] | None = None,
        one_book: bool = False,
    ) -> list[tuple[float, int, float]]:
        """``(score, doc, coverage)`` for every passage sharing a term with the query.

        Runs over every passage sharing a word with the query (about a quarter of the books),
        so what does not depend on the query is worked out at start-up (``Doc``, ``bm25``).
        """
        idf_of = self.idf
        scores: dict[int, float] = {}
        matched: dict[int, float] = {}
        total_weight = sum(idf_of.get(t, 0.0) * w for t, w in weighted.items()) or 1.0
        # Words no book uses count fully against how much of the query a passage answers.
        unknown = sum(
            _UNKNOWN_SHARE * self.mean_idf * w for t, w in weighted.items() if t not in idf_of
        )
        saturation = K1 + 1
        for term, q_weight in weighted.items():
            idf = idf_of.get(term)
            if idf is None:
                continue
            share = q_weight * idf
            for i, tf, damped in self.bm25[term]:  # damped: tf plus the passage's length norm
                scores[i] = scores.get(i, 0.0) + share * tf * saturation / damped
                matched[i] = matched.get(i, 0.0) + share
        best_matched = max(matched.values(), default=0.0)
        # The rarest word the player typed themselves: a home passage without it, when another
        # book has it, is not "about as good" ("waiting list closes when": the Poker Pub's).
        key_term = max((t for t in own if t in idf_of), key=lambda t: (idf_of[t], t), default=None)
        if key_term is not None and (
            idf_of[key_term] < _KEY_MIN_IDF
            or all(self.docs[i].passage.book == self.home for i, _ in self.postings[key_term])
        ):
            key_term = None
        ordered = list(weighted)
        pairs = {(a, b) for a, b in itertools.pairwise(ordered)}
        # A passage with none of these pairs side by side gets no bonus: the sums are skipped.
        paired: set[int] = set()
        for pair in pairs:
            paired.update(self.beside.get(pair, ()))
        terms = frozenset(weighted)
        digits = frozenset(t for t in terms if t.isdigit())
        # "after the flop" asked, "pre flop" written, and "after" nowhere in the passage.
        contrary_docs = {
            i
            for asked, contrary in (opposite or {}).items()
            for pair in contrary
            for i in self.beside.get(pair, ())
            if asked[0] not in self.docs[i].weights
        }
        coverage_of = total_weight + unknown
        home = self.home
        rows = self.docs
        out = []
        for i, raw in scores.items():
            row = rows[i]
            book = row.book
            if book not in wanted:
                continue
            coverage = matched[i] / total_weight
            bonus = 0.0
            if i in paired:
                # In a fixed order: a set's order follows the hash seed, and so would the sum's
                # last bits (two processes could then break a tie differently).
                bonus = sum(
                    0.25 * (idf_of.get(a, 0.0) + idf_of.get(b, 0.0))
                    for a, b in sorted(pairs & row.bigrams)
                )
            score = (raw + bonus) * (0.4 + 0.6 * coverage)
            if row.title_terms:
                title_hits = len(row.title_terms & terms)
                score *= 1 + _TITLE_BONUS * title_hits / len(row.title_terms)
            numbers = len(row.own_terms & digits) if digits else 0
            if (row.label_terms and not row.label_terms.isdisjoint(terms)) or numbers >= 2:
                score *= _ROW_LABEL_BOOST  # "blinds at level 8", "100/200 blinds"
            elif row.table and row.own_terms.isdisjoint(terms):
                score *= _ROW_CONTEXT_ONLY
            if row.is_first:
                score *= _FIRST_BOOST
            if named and any(self.opens.get((book, h)) == i for h in named):
                score *= _HEADING_MATCH_BOOST  # the query names the section: "smoking policy"
            if numbered is not None and row.number == numbered:
                score *= _NUMBERED_BOOST  # "hand ranking number 8": the rule numbered 8
            if one_book and defines is not None and defines in self.defines[i]:
                # Inside the one book asked, the passage whose subject is the asked word
                # ("called the kicker") wins; across books the league's own book comes first.
                score *= _DEFINES_BOOK_BOOST
            if row.is_intro and not named:
                score *= _INTRO_SHARE  # a section's opening words rarely rule on the question
            if i in contrary_docs:
                score *= _OPPOSITE_SHARE  # "after the flop" asked, "pre flop" written
            if amount and row.has_amount:
                score *= _AMOUNT_BOOST  # "how many decks": the passage that gives a number
            if favoured is not None:
                # The query ends or starts with a book's short name ("... the game").
                score *= _NAMED_BOOST if book == favoured else 1.0
            elif book == home:
                # The league's own book wins when it answers about as much of the question.
                # Not when it lacks the rarest word the player typed and another book has it.
                full = matched[i] >= _HOME_SHARE * best_matched
                if key_term is None or key_term in row.weights:
                    score *= HOME_BOOST if full else _HOME_BOOST_PARTIAL
            out.append((score, i, matched[i] / coverage_of))
        # Best first, ties by passage: two stable sorts on C keys, not a key tuple per passage.
        out.sort(key=itemgetter(1))
        out.sort(key=itemgetter(0), reverse=True)
        return out


def build_lexical(passages: Sequence[Passage], home: str | None) -> LexicalIndex:
    """Index ``passages`` (home book first) for ``LexicalIndex.score``."""
    table_common = _table_common_terms(passages)
    # Sections that have numbered rules under them: their own text is an introduction.
    parents = {
        (p.book, parent) for p in passages if not p.table for parent in parent_sections(p.section)
    }
    compounds = _compounds(passages)
    seen_titles: set[tuple[str, str, tuple[str, ...]]] = set()
    docs = tuple(_doc(p, compounds, table_common, parents, seen_titles) for p in passages)
    # the terms each passage defines, for a short query asking what a word means
    defines = tuple(_defined_terms(fold_text(p.text)) for p in passages)
    # The passage that opens each heading: where a query naming the heading should land.
    opens: dict[tuple[str, str], int] = {}
    for i, p in enumerate(passages):
        for h in (*p.headings, p.title):
            if h and not p.table:
                opens.setdefault((p.book, h), i)
    avg_length = sum(d.length for d in docs) / max(len(docs), 1)
    postings: defaultdict[str, list[tuple[int, float]]] = defaultdict(list)
    for i, doc in enumerate(docs):
        for term, weight in doc.weights.items():
            postings[term].append((i, weight))
    total = len(docs)
    idf = {
        term: math.log(1 + (total - len(posts) + 0.5) / (len(posts) + 0.5))
        for term, posts in postings.items()
    }
    mean_idf = sum(idf.values()) / max(len(idf), 1)
    # Each term's (passage, tf, tf + the passage's length norm), for ``score``.
    norms = [K1 * (1 - _B + _B * doc.length / avg_length) for doc in docs]
    bm25 = {term: [(i, tf, tf + norms[i]) for i, tf in posts] for term, posts in postings.items()}
    beside: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for i, doc in enumerate(docs):
        for pair in doc.bigrams:
            beside[pair].append(i)
    return LexicalIndex(
        home=home,
        docs=docs,
        postings=dict(postings),
        idf=idf,
        mean_idf=mean_idf,
        bm25=bm25,
        beside=dict(beside),
        opens=opens,
        defines=defines,
    )

"""Search the rulebooks the way players ask: keywords, questions, slang, typos and table look-ups.

The pipeline, for the passages at build time and for every query:

1. normalise: lower case, thousands separators dropped (``1,200`` -> ``1200``), ordinals and
   number words to digits (``fifth``/``5th`` -> ``5``), hyphenated words kept whole and split
   (``over-sized`` -> ``oversized``, ``over``, ``sized``);
2. query only: a rule number (``2.G.d.6``, ``2-G-d-6``, ``2gd6``, ``bar rules 12``) or a passage
   key answers directly; a book's name (``poker pub``, ``pokr pub``, ``rwb``, ``red wite blu``,
   ``barleague``, ``in the game``, ``the game: ...``, ``the game rules``) picks or favours that
   book; words the books never use are joined or split against the books' vocabulary
   (``cellphone`` -> ``cell phone``; a whole phrase with its small words, ``ontheclock`` ->
   ``on the clock``, even ending in a typo, ``outoftrun``; a doubled letter is a typo first,
   ``missdeal`` -> ``misdeal``, not ``miss deal``) or corrected (``polcy`` -> ``policy``,
   ``durring`` -> ``during``, rapidfuzz), a word that sounds alike counting one slip less
   (``dubble`` -> ``double``), one more if it has the same letters (``brake`` -> ``break``,
   not ``broke``) and, among equal candidates, the one the books write next to a neighbouring
   word winning (``cards reed`` -> ``read``); words of table talk (``buddy``, ``made``) weigh
   little;
3. light stemming and stop words;
4. query only: the glossary (``rulings/data/glossary.toml``) adds the rulebook's words for players'
   slang and synonyms (``cards speak`` -> ``cards read themselves``); its phrases match whoever
   the player talks about (``play for me`` = ``play his stack for him``); a translation naming
   both sides of a pair (``who posts`` -> small and big blind) gives way to the side asked;
5. a BM25F scorer over title, headings, text and table context, with a bonus for query words
   that sit next to each other in the passage (or all in a row once typos are fixed) and for
   passages that cover more of the query (a glossary translation's book words side by side, or
   the player's two words the other way round, count a little too); the question word steers:
   "how many/much/long" prefers a passage with figures, "why" one that gives a purpose, "who" one
   that names a person or role, "number 8" the rule numbered 8; "after the flop" is not "pre
   flop" (a passage that only writes the opposite time word counts less); a section's
   introduction counts a little less than its numbered rules, a book's title page (its name over
   a tagline) much less; for a short query, the passage that defines the asked words ("called
   the 'Kicker'", "Kicker: ...", typos fixed first) counts more, most inside the one book asked.

A query that names a book, or is plainly poker talk (a glossary phrase and no word foreign to the
books), always gets the best passage; only the rest can come back as "nothing found".

The league's own (home) book is preferred when it has a good answer, but not a passage that lacks
the rarest word the player typed when another book has it; the other books' best answers are
returned separately as what "other leagues say".
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import re
import tomllib
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from rulings.errors import RulebookError, UnknownRuleError
from rulings.rulebook.books import (
    Passage,
    Rulebook,
    bundled_books,
    citation_slug,
    parse_books,
    read_books,
)

log = logging.getLogger(__name__)

DEFAULT_HOME = "btown-poker-league"
MAX_QUERY_CHARS = 200
MAX_LIMIT = 25
AUTOCOMPLETE_CHARS = 100

_K1 = 1.2
_B = 0.75
_TITLE_WEIGHT = 2.0
_HEADING_WEIGHT = 0.8
_TABLE_WEIGHT = 0.3
_ROW_TITLE_WEIGHT = 1.0
_ROW_CONTEXT_ONLY = 0.5
_TITLE_BONUS = 0.25
_FIRST_BOOST = 1.1
_ROW_OWN_BOOST = 1.2
_ROW_OWN_MIN_IDF = 3.0
_ROW_COMMON_OWN = 0.8
_ROW_LABEL_BOOST = 1.5
_GLOSSARY_WEIGHT = 0.7
_REPLACED_WEIGHT = 0.7
_CORRECTED_WEIGHT = 0.8
_COMPOUND_WEIGHT = 0.5  # "burn card" also counts a little as "burncard" (another book's spelling)
_JOINED_WEIGHT = 1.0  # "burn cards" also as "burncards": an alternative, not a second word
_HOME_BOOST = 1.8
_HOME_BOOST_PARTIAL = 1.2
_HOME_SHARE = 0.75
_KEY_MIN_IDF = 4.0  # a word about five passages use
_FOUND_THRESHOLD = 0.12
_MIN_COVERAGE = 0.3
_UNKNOWN_SHARE = 0.5
_PHRASE_WORDS = 3
_HEADING_MATCH_RATIO = 88
_HEADING_MATCH_BOOST = 1.6
_HEADING_MIN_CHARS = 6
_PHRASE_GAP = 2
_PHRASE_BOOST = 1.5
_OTHERS_SHARE = 0.4
_SILENT_MIN_IDF = 3.0  # a glossary word this rare in the named book means it has a rule on it
_NAMED_BOOST = 3.5
_AMOUNT_BOOST = 1.25
_NUMBERED_BOOST = 2.0
_INTRO_SHARE = 0.9
_TERMS_PHRASE_BOOST = 1.3
_GLOSSARY_PAIR_SHARE = 0.25
_OPPOSITE_SHARE = 0.6
_ONE_OF = (("small", "big"),)  # a question about one of these is not about the other
_REVERSED_PAIR_SHARE = 0.15
_TAGLINE_SHARE = 0.3
_DEFINES_BOOST = 1.3  # "kicker": the passage that says what a kicker is
_DEFINES_BOOK_BOOST = 2.0  # ... more so inside the one book asked ("the game kicker")
_DEFINED_WORDS = 3  # a query of at most this many content words may ask for a definition
# "after the flop" and "before the flop" are different rules: the words of time order count.
_BEFORE = ("befor", "pre", "prior")
_AFTER = ("after", "post")
_WHO_BOOST = 1.2  # "who decides ...": a passage that names a person or role
_ROLES = frozenset(
    {"player", "direct", "host", "floor", "manage", "staff", "owner", "barten"}
)  # book words of a translation side by side in the passage
_REASON_BOOST = 2.0
_REASON = re.compile(
    r"\b(?:to prevent|prevents?|so that|in order to|the reason|purpose|to keep|to avoid"
    r"|to ensure|to protect|to speed|this is to)\b",
    re.IGNORECASE,
)
# An amount in figures ("52 cards"); words are not counted: "three cards face up" is no answer
# to "how many decks".
_AMOUNT = re.compile(r"\d")
# "hand ranking number 8", "no. 8", "#8", "item 8": the rule numbered 8 of the section named.
_NUMBERED = re.compile(r"(?:\bnumber|\bno\.?|\bnum|#|\bitem|\brule)\s*(\d+)\b")
_AMOUNT_WORDS = frozenset({"many", "much", "big", "long", "old", "often", "large", "high"})

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20,
}  # fmt: skip
# A word list reads better as text than as a list literal.
_ORDINAL_WORDS = frozenset(w for w in _NUMBER_WORDS if w.endswith(("st", "nd", "rd", "th")))
_STOP_WORDS = frozenset(
    """
    a about above after again all am an and any are as at be been being before both but by
    can could did do does doing done during each few for from further had has have having he
    her here hers him his how i if im in into is it its itll ive just let lets me might more
    most must my myself no nor not now of off on once only or other our ours out over own
    same she should so some such than that thats the their theirs them then there these they
    this those through to too under until up very was we were what whats when where which
    while who whom whose why will with would you your yours rule rules ok okay please hey
    guys anyone someone somebody thing things happen happens happened say says said mean
    means tell know guy guys went go goes going get gets got getting per much many like
    really also even yes yeah still anything something everyone everybody whether supposed
    us em between among gonna wanna need needs allowed gotta hafta dont doesnt didnt cant wont
    isnt arent wasnt werent shouldnt couldnt wouldnt hasnt havent hadnt youre theyre ive id ill
    u ur ya
    """.split()  # noqa: SIM905
)
# Words of table talk and storytelling ("so my buddy made a move and..."): searched, but they
# weigh little, so a rare book word they happen to match ("making" a call) cannot carry a result.
_CHATTY = frozenset(
    """
    buddy buddies friend friends pal pals dude dudes bro bros man fella fellas homie mate
    wife husband girlfriend boyfriend lady ladies woman girl girls kid kids fellow folks
    actually basically literally kinda sorta totally seriously honestly anyway anyways um uh
    lol lmao omg wtf idk tbh imo pls plz thanks thx ty hi hello yo question questions quick
    real really dumb stupid weird crazy exactly tonight today yesterday think thought
    wondering wonder curious sure confused asking ask asked try tried trying
    told make made makes making take took takes taking give gave given gives put puts
    putting come came comes coming look looked looks looking see saw seen sees let stuff way
    lot bit whole legit fine fair bad good well now wrong true false work works explain
    policy policies procedure procedures guideline guidelines regulation regulations
    """.split()  # noqa: SIM905
)
_CHATTY_WEIGHT = 0.35
_ASIDE_WEIGHT = 0.5  # words of a "while ..." clause: what the player does meanwhile
_CONTRACTED_PERSONS = frozenset(
    "im ive hes shes were youre theyre <person>".split()  # noqa: SIM905
)
# "too many", "too much", "too early": their own term; players also write "to many".
_EXCESS = {
    w: f"too{w}"
    for w in "many much few early soon late fast slow big small long high low".split()  # noqa: SIM905
}
_ROOT_LETTERS = 6
_VOWEL = re.compile("[aeiouy]")
_KEPT = frozenset({"after", "before", "out", "off"})
_IRREGULAR = {
    "dealt": "deal", "chose": "choose", "chosen": "choose", "won": "win", "winning": "win",
    "wins": "win", "lost": "lose", "losing": "lose", "left": "left", "folded": "fold",
    "sat": "sit", "sitting": "sit", "seated": "seat", "men": "man", "paid": "pay", "bet": "bet",
    "bets": "bet", "betting": "bet", "bettor": "bet", "better": "better", "best": "best",
    "its": "it", "cards": "card", "chips": "chip", "chipped": "chip", "themselves": "themselves",
    "busted": "bust", "busting": "bust", "moved": "move", "mucked": "muck", "mucking": "muck",
    "shown": "show", "showed": "show", "shows": "show", "showing": "show", "flopped": "flop",
    "turned": "turned", "turning": "turned",
    "blinds": "blind", "rankings": "rank", "ranking": "rank", "ranked": "rank", "ranks": "rank",
    "worth": "valu", "action": "act", "actions": "act", "acts": "act", "acted": "act",
    "acting": "act", "winner": "win", "winners": "win", "using": "use", "used": "use",
    "uses": "use", "being": "be",
}  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_RANGE = re.compile(r"\b(\d+)(?:st|nd|rd|th)?\s*(?:—|–|-|to)\s*(\d+)(?:st|nd|rd|th)?\b")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_MONEY = re.compile(r"\$\s?\d|\d\s?(?:bucks|dollars)\b", re.IGNORECASE)
_LOOKUP_PREFIX = re.compile(
    r"^\s*(?:(?:rule|rules|section|sec|see|paragraph|para)\b\.?|§|#)\s*", re.IGNORECASE
)
_ROMAN_SECTION = re.compile(r"^\d+\.([IVXL]{1,5})$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


# --- text analysis --------------------------------------------------------------------------


def clean_query(query: str) -> str:
    r"""Drop control and invisible characters, squeeze spaces and cut to 200 characters.

    Args:
        query: what was typed.

    Returns:
        The query as searched and echoed back.

    >>> clean_query("  oversized\x00 chip\n ")
    'oversized chip'
    """
    text = _CONTROL.sub(" ", query)
    return " ".join(text.split())[:MAX_QUERY_CHARS].strip()


_DASHES = str.maketrans({"—": "-", "–": "-", "’": "'", "‘": "'", "`": "'"})


def _fold(text: str) -> str:
    text = text.lower().translate(_DASHES)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"\b(\d+)k\b", r"\g<1>000", text)  # 100k -> 100000
    return re.sub(r"'s\b", "", text)


def _expand_ranges(text: str) -> str:
    def repl(match: re.Match[str]) -> str:
        low, high = int(match.group(1)), int(match.group(2))
        if 0 < high - low <= 10:
            return " ".join(f"{n} {ordinal_form(n)}" for n in range(low, high + 1))
        return match.group(0)

    return _RANGE.sub(repl, text)


def _surface(text: str, *, ranges: bool = False) -> list[str]:
    """Words as written, folded; numbers and ordinals as digits; hyphenated words whole+parts."""
    folded = _fold(text)
    if ranges:
        folded = _expand_ranges(folded)
    out: list[str] = []
    for word in _WORD.findall(folded):
        word = word.replace("'", "")
        if "-" in word:
            parts = [p for p in word.split("-") if p]
            if not all(p.isdigit() for p in parts):  # "100-200" is two amounts, not one
                out.append("".join(parts))
            # A prefix on its own ("re" of "re-raise") says nothing the whole word does not.
            out.extend(p for p in parts if len(p) > 2 or p.isdigit())
            continue
        out.append(word)
    return [_number(w) for w in out]


def _number(word: str) -> str:
    ordinal = _ORDINAL.match(word)
    if ordinal:
        return ordinal_form(int(ordinal.group(1)))
    if word in _NUMBER_WORDS:
        value = _NUMBER_WORDS[word]
        return ordinal_form(value) if word in _ORDINAL_WORDS else str(value)
    return word


def ordinal_form(number: int) -> str:
    """``1`` -> ``1st``: "first", "1st" and "1ST" all become this one token.

    Args:
        number: a positive integer.

    Returns:
        The ordinal token.

    >>> [ordinal_form(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']
    """
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def stem(word: str) -> str:
    """A light suffix stripper, enough to match plural and tense variants.

    Args:
        word: a folded word.

    Returns:
        Its root: suffixes stripped, at most six letters.

    >>> [stem(w) for w in ["raises", "raised", "raising", "players", "policies", "chipped"]]
    ['rais', 'rais', 'rais', 'player', 'policy', 'chip']
    """
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ly") and len(word) > 6:
        word = word[:-2]  # excessively -> excessive
    if word.endswith("ive") and len(word) > 6:
        word = word[:-3]  # abusive -> abus, disruptive -> disrupt
    elif word.endswith("ing") and len(word) > 5 and _VOWEL.search(word[:-3]):
        word = _undouble(word[:-3])  # "string" keeps its "ing"; "stringing" -> "string"
    elif word.endswith("ed") and len(word) > 4 and _VOWEL.search(word[:-2]):
        word = _undouble(word[:-2])
    if word.endswith("e") and len(word) >= 4:
        word = word[:-1]
    # Long words keep their first six letters, which joins derived forms the suffix rules
    # miss: qualify/qualification, register/registration, suspend/suspension.
    return word[:_ROOT_LETTERS]


def _undouble(word: str) -> str:
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        return word[:-1]
    return word


def _is_stop(word: str) -> bool:
    return word in _STOP_WORDS and word not in _KEPT


def _is_content(word: str) -> bool:
    """A word of four letters or more that carries meaning (a run-together phrase needs one)."""
    return len(word) >= 4 and word not in _STOP_WORDS


_CHATTY_STEMS = frozenset(stem(w) for w in _CHATTY)
# Glossary phrases match whoever the player talks about: "play for me" = "play for him".
_PERSONS = frozenset(
    "i me my mine he him his she her hers their we us our you your".split()  # noqa: SIM905
)


def _person(word: str) -> str:
    return "<person>" if word in _PERSONS else word


@functools.lru_cache(maxsize=8192)
def _analysed(text: str, ranges: bool) -> tuple[str, ...]:
    words = _surface(text, ranges=ranges)
    out = [stem(w) for w in words if not _is_stop(w)]
    # "too many cards": two stop words that together rule on something; one term of their own.
    out.extend(
        stem(_EXCESS[b]) for a, b in itertools.pairwise(words) if a == "too" and b in _EXCESS
    )
    return tuple(out)


def analyse(text: str, *, ranges: bool = False) -> list[str]:
    """Text -> index terms (folded, numbers normalised, stop words dropped, stemmed).

    Args:
        text: any text (a passage or a query).
        ranges: spell out number ranges ("10 — 13" -> 10 11 12 13), for table rows.

    Returns:
        The terms, in order.

    >>> analyse("Points for the fifth place")
    ['point', '5th', 'plac']
    """
    return list(_analysed(text, ranges))


# --- the glossary ---------------------------------------------------------------------------


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
        return frozenset(w for phrase, _ in self.pairs for w in _surface(phrase))


# --- results --------------------------------------------------------------------------------


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


# --- the index ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Doc:
    passage: Passage
    weights: dict[str, float]
    length: float
    sequence: tuple[str, ...]
    own_terms: frozenset[str]
    title_terms: frozenset[str]
    is_first: bool
    label_terms: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    flat: str
    has_amount: bool
    number: str | None
    is_intro: bool
    gives_reason: bool
    flat_terms: str


class RuleIndex:
    """Every loaded rulebook, indexed for search, look-up and autocomplete."""

    def __init__(
        self,
        books: Mapping[str, Rulebook],
        *,
        home: str | None = DEFAULT_HOME,
        glossary: Glossary | None = None,
    ) -> None:
        """Index ``books``; ``home`` is the league's own book (ranked first), if loaded."""
        self.books: dict[str, Rulebook] = dict(books)
        self.home = home if home in self.books else None
        self.glossary = glossary if glossary is not None else Glossary.bundled()
        order = sorted(self.books, key=lambda name: (name != self.home, name))
        self.passages: tuple[Passage, ...] = tuple(
            p for name in order for p in self.books[name].passages
        )
        self._seen_titles: set[tuple[str, str, tuple[str, ...]]] = set()
        self._table_common = _table_common_terms(self.passages)
        # Sections that have numbered rules under them: their own text is an introduction.
        self._parents = {
            (p.book, parent)
            for p in self.passages
            if not p.table
            for parent in _parent_sections(p.section)
        }
        self._compounds = _compounds(self.passages)
        self._docs = [self._doc(p) for p in self.passages]
        self._aliases = _book_aliases(self.books, self.home)
        # the terms each passage defines, for a short query asking what a word means
        self._defines = [_defined_terms(_fold(p.text)) for p in self.passages]
        # A book's title page ("Red, White, and Blue Poker League: Free Poker! ..."): its opening
        # passage headed by the book's own name, a tagline rather than a rule.
        self._taglines = frozenset(
            i
            for i, p in enumerate(self.passages)
            if len(p.headings) == 1
            and p.section == p.headings[0]
            and self._docs[i].is_first
            and fuzz.token_set_ratio(_plain(p.section), _plain(self.books[p.book].title)) >= 80
        )
        self._headings = {h: _plain(h) for p in self.passages for h in (*p.headings, p.title) if h}
        # The passage that opens each heading: where a query naming the heading should land.
        self._opens: dict[tuple[str, str], int] = {}
        for i, p in enumerate(self.passages):
            for h in (*p.headings, p.title):
                if h and not p.table:
                    self._opens.setdefault((p.book, h), i)
        self._avg_length = sum(d.length for d in self._docs) / max(len(self._docs), 1)
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for i, doc in enumerate(self._docs):
            for term, weight in doc.weights.items():
                self._postings[term].append((i, weight))
        total = len(self._docs)
        self._idf = {
            term: math.log(1 + (total - len(posts) + 0.5) / (len(posts) + 0.5))
            for term, posts in self._postings.items()
        }
        self._mean_idf = sum(self._idf.values()) / max(len(self._idf), 1)
        surfaces: Counter[str] = Counter()
        for p in self.passages:
            surfaces.update(_surface(" ".join([p.title, p.text, p.part or ""])))
        self._surface_freq = surfaces
        self._vocabulary = sorted(
            w
            for w in set(surfaces) | self.glossary.words
            if len(w) >= 3 and not w.isdigit() and w not in _STOP_WORDS
        )
        # Typos are corrected to any word players write: "durring" is "during", not "dumping";
        # "secnd" is "second" (the books' "2nd"); a corrected stop word is then dropped.
        self._spelling = sorted(
            set(self._vocabulary)
            | {w for w in (*_STOP_WORDS, *_NUMBER_WORDS) if len(w) >= 3 and w not in _CHATTY}
        )
        self._known = set(surfaces) | self.glossary.words
        self._corrections: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        # Words that sound alike ("fone"/"phone", "rebye"/"rebuy", "dubble"/"double").
        self._sounds: dict[str, list[str]] = defaultdict(list)
        for w in self._spelling:
            self._sounds[_sound(w)].append(w)
        # Pairs of words the books and the glossary write side by side ("cards read").
        self._pairs: frozenset[tuple[str, str]] = frozenset(
            pair
            for text in (
                *(f"{p.title} {p.text}" for p in self.passages),
                *(phrase for phrase, _ in self.glossary.pairs),
            )
            for pair in itertools.pairwise(_surface(text))
        )
        entries: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        for phrase, words in self.glossary.pairs:
            key = tuple(_person(stem(w)) for w in _surface(phrase))
            if key:
                entries.append((key, tuple(analyse(words))))
        entries.sort(key=lambda e: -len(e[0]))
        self._glossary = tuple(entries)
        self._phrases = sorted({" ".join(_WORD.findall(_fold(p))) for p, _ in self.glossary.pairs})
        self._glossary_by_first: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = (
            defaultdict(list)
        )
        for key, expansion in entries:
            self._glossary_by_first[key[0]].append((key, expansion))
        self._glossary_words = frozenset(w for key, _ in entries for w in key)
        self._by_key = {citation_slug(p.key): p for p in self.passages}
        self._section_slugs = {
            name: [(citation_slug(p.section), p) for p in book.passages]
            for name, book in self.books.items()
        }
        log.debug("indexed %d passages from %d books", len(self.passages), len(self.books))

    # building

    def _doc(self, p: Passage) -> _Doc:
        weights: defaultdict[str, float] = defaultdict(float)
        body = analyse(p.text, ranges=True)
        for term in body:
            weights[term] += 1.0
        # "burn card" here, "burncard" in another book: index the joined form too.
        words = _surface(p.text)
        for a, b in itertools.pairwise(words):
            if a + b in self._compounds:
                weights[stem(a + b)] += _COMPOUND_WEIGHT
        if p.table:
            # "points for 7th" asks for the row numbered 7.
            for term in analyse(p.part or "", ranges=True):
                if term.isdigit() and 0 < int(term) <= 100:
                    weights[ordinal_form(int(term))] += 1.0
        title_terms = analyse(" ".join(filter(None, [p.title, p.part])))
        is_first = not p.table and (p.book, p.title, p.headings) not in self._seen_titles
        self._seen_titles.add((p.book, p.title, p.headings))
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
        own = frozenset(body) - self._table_common.get((p.book, p.section, p.table), frozenset())
        own = own if p.table else frozenset(weights)
        common = self._table_common.get((p.book, p.section, p.table), frozenset())
        label = frozenset(analyse(p.part or "", ranges=True)) - common - set(analyse(p.title))
        # Only a number or a single distinctive word picks out one row ("7", "black").
        label = frozenset(t for t in label if t.isdigit() or len(label) == 1)
        label |= {ordinal_form(int(t)) for t in label if t.isdigit() and 0 < int(t) <= 100}
        label = label if p.table else frozenset()
        roman = _ROMAN_SECTION.match(p.section)
        if roman:
            # "hand ranking III" names the rule numbered III under its section.
            weights[roman.group(1).lower()] += 1.0
            label = frozenset({roman.group(1).lower()})
        bigrams = frozenset(itertools.pairwise(sequence))
        return _Doc(
            p,
            dict(weights),
            length,
            sequence,
            own,
            frozenset(title_terms),
            is_first,
            label,
            bigrams,
            " " + " ".join(_surface(p.text)) + " ",
            bool(_AMOUNT.search(p.text)),
            _last_number(p.section) if not p.table else None,
            not p.table and not p.part and (p.book, p.section) in self._parents,
            bool(_REASON.search(p.text)),
            " " + " ".join(analyse(p.text)) + " ",
        )

    # public API

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
        exact = self._by_key.get(citation_slug(f"{book} {section}"))
        return exact if exact is not None else found.get(section)

    def search(
        self, query: str, books: Sequence[str] | None = None, limit: int = 3
    ) -> SearchResult:
        """Find the passages that answer ``query``.

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
        weighted, own, recognised, content, gibberish, phrase_pairs = self._analyse_query(
            text_for_terms
        )
        book_asked = favoured or (next(iter(wanted)) if named else None)
        if gibberish and book_asked is None:
            # "xyzzy foo": no word the books use, only guesses at typos; say nothing matches.
            return SearchResult(text, (), False, closest=self._closest(text, wanted, limit))
        if book_asked is not None and not any(t in self._idf for t in weighted):
            # Only the book's name ("rules of the game", "poker pub"): its opening passages.
            opening = [p for p in self.passages if p.book == book_asked][:limit]
            matches = tuple(Match.of(p, 0.5) for p in opening)
            return SearchResult(text, matches, bool(matches))
        # The player's words, typos fixed, as the books' terms in a row ("dealer turns cards
        # early" for "dealr turns over cards erly").
        terms_flat = " " + " ".join(content) + " " if len(content) >= _PHRASE_WORDS else None
        phrase = _surface(text_for_terms)
        flat = " " + " ".join(phrase) + " " if len(phrase) >= _PHRASE_WORDS else None
        plain = _plain(text_for_terms)
        headings = frozenset(
            h
            for h, folded in self._headings.items()
            if len(plain) >= _HEADING_MIN_CHARS
            and fuzz.ratio(plain, folded) >= _HEADING_MATCH_RATIO
        )
        amount = _asks_amount(phrase)
        why = "why" in phrase
        who = "who" in phrase
        numbered = _NUMBERED.search(_fold(text_for_terms))
        scored = self._score(
            weighted,
            wanted,
            flat,
            headings,
            favoured,
            own,
            amount=amount,
            numbered=numbered.group(1) if numbered else None,
            why=why,
            who=who,
            terms_flat=terms_flat,
            phrase_pairs=phrase_pairs,
            opposite=_opposite_pairs(content),
            defines=_definition(self._spelt(phrase)),
            one_book=book_asked is not None or len(wanted) == 1,
        )
        if named and books is None and (not scored or scored[0][2] < _MIN_COVERAGE):
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
                and self._docs[scored[0][1]].passage.book == favoured
            )
        )
        return self._result(text, weighted, scored, wanted, limit, named=answer)

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
                is_word = last in self._known or len(words) > 1
                phrase = self._complete_phrase(text) if is_word else None
                if phrase is not None:
                    text = phrase  # "cards sp" -> "cards speak", "odd" -> "odd chip"
                elif last and last not in self._known and len(last) >= 2:
                    completions = [w for w in self._vocabulary if w.startswith(last)]
                    completions.sort(key=lambda w: -self._surface_freq.get(w, 0))
                    if completions:
                        text = " ".join([*words[:-1], *completions[:3]])
                result = self.search(text, limit=limit)
                passages = [self._by_key[citation_slug(m.key)] for m in result.matches]
                if not result.found:
                    passages = [self._by_key[citation_slug(m.key)] for m in result.closest]
        return [(_label(p, p.book != self.home), p.key[:AUTOCOMPLETE_CHARS]) for p in passages]

    # query analysis

    def query_terms(self, text: str) -> dict[str, float]:
        """The weighted index terms searched for ``text`` (after corrections and glossary).

        Args:
            text: the cleaned query.

        Returns:
            ``{term: weight}``; typed words weigh 1, corrected ones 0.8, glossary words 0.7.
        """
        return self._analyse_query(text)[0]

    def _analyse_query(
        self, text: str
    ) -> tuple[dict[str, float], frozenset[str], bool, list[str], bool, frozenset[tuple[str, str]]]:
        """``query_terms``, own words, poker talk?, content words, gibberish?, glossary pairs.

        Own words: the player's untranslated words.
        Poker talk: a glossary phrase matched and no word the player typed is foreign to the
        books; such a query is answered even when its best passage covers little of it.
        Gibberish: a word foreign to the books and no word the books use typed as it is (only
        guesses at typos are left: "xyzzy foo" is not about "food").
        """
        words, sequence, content = self._query_words(text)
        weighted: dict[str, float] = {}
        for term, weight in words:
            weighted[term] = max(weighted.get(term, 0.0), weight)
        replaced: set[str] = set()
        kept: set[str] = set()
        found: list[tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]] = []
        for i, word in enumerate(sequence):
            for key, expansion in self._glossary_by_first.get(word, ()):
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
        aside = _aside_start(sequence)
        # The book's words of a translation sit together in the passage that answers it.
        phrase_pairs = frozenset(
            pair
            for _, expansion in matched_keys
            for pair in itertools.pairwise(expansion)
            if not (pair[0].isdigit() or pair[1].isdigit())
        )
        for key, expansion in matched_keys:
            replaced.update(t for t in key if t not in expansion)
            kept.update(expansion)
            # A phrase made only of table talk ("friend") translates with little weight too.
            share = _CHATTY_WEIGHT if all(t in _CHATTY_STEMS for t in key) else 1.0
            if aside is not None and at[(key, expansion)] > aside:
                share *= _ASIDE_WEIGHT
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
            if w >= _CORRECTED_WEIGHT and t in typed and t not in bridged
        )
        slang = [key for key, _ in matched_keys if not all(t in _CHATTY_STEMS for t in key)]
        foreign = [
            t
            for t, w in words
            if w >= _CORRECTED_WEIGHT and t in typed and t not in self._idf and t not in bridged
        ]
        as_typed = any(
            w >= 1.0 and t in typed and not t.isdigit() and (t in self._idf or t in bridged)
            for t, w in words
        )
        gibberish = bool(foreign) and not as_typed
        return weighted, own, bool(slang) and not foreign, content, gibberish, phrase_pairs

    def _query_words(self, text: str) -> tuple[list[tuple[str, float]], list[str], list[str]]:
        """Weighted search terms, the stemmed word sequence, and the content words.

        The sequence (every word, stemmed) is what the glossary matches; the content words are
        the corrected words without stop words or table talk, stemmed, in order, for matching
        the books' phrases.
        """
        # First fix the words: known ones stay, run-together ones split, typos corrected.
        fixed: list[tuple[str, float]] = []
        raw = _surface(text)
        for k, word in enumerate(raw):
            is_piece = (k + 1 < len(raw) and word + raw[k + 1] in self._known) or (
                k > 0 and raw[k - 1] + word in self._known
            )  # "mis deal" is "misdeal" typed apart: keep both halves as they are
            if word in _CHATTY:
                fixed.append((word, _CHATTY_WEIGHT))
                continue
            if _is_stop(word) or word.isdigit() or is_piece or word in self._known:
                fixed.append((word, 1.0))
                continue
            # A doubled letter typed for a single one ("missdeal") is a typo, not "miss deal".
            single = self._undoubled(word)
            if single is not None:
                fixed.append((_number(single), _CORRECTED_WEIGHT))
                continue
            parts = self._undoubled_split(word)  # "sidepott" is "side pot"
            if parts:
                fixed.extend((_number(part), _CORRECTED_WEIGHT) for part in parts)
                continue
            # Split before stemming: "secondchance" is "second chance", not a form of "second".
            parts = self._split(word)
            if parts:
                fixed.extend((_number(part), 1.0) for part in parts)
                continue
            if self._is_known(word):
                fixed.append((word, 1.0))
                continue
            context = (raw[k - 1] if k else "", raw[k + 1] if k + 1 < len(raw) else "")
            correction = self._correct(word, context)
            if correction:
                fixed.append((_number(correction), _CORRECTED_WEIGHT))
                continue
            # A phrase typed as one word with a typo in its last word ("outoftrun").
            parts = self._split_phrase(word, typo_last=True) if len(word) >= 8 else None
            if parts:
                fixed.extend((_number(part), _CORRECTED_WEIGHT) for part in parts)
            else:
                fixed.append((word, 1.0))
        # A "while ..." clause says what the player is doing meanwhile, not what they ask about
        # ("can I get blinded off while I grab food" is about being away, not food points).
        # Only "while I/he/we ..." ("while dealing" is still the topic).
        start = _aside_start([w for w, _ in fixed])
        if start is not None:
            fixed[start:] = [(w, weight * _ASIDE_WEIGHT) for w, weight in fixed[start:]]
        # Then words the books write joined ("chip up" -> "chipup", "heads up" -> "headsup").
        out: list[tuple[str, float]] = []
        for i, (word, weight) in enumerate(fixed):
            if i + 1 < len(fixed):
                after = fixed[i + 1][0]
                excess = _EXCESS.get(after)
                if word in ("too", "to") and excess is not None and stem(excess) in self._idf:
                    out.append((excess, 1.0))  # "flop has to many cards" = "too many"
                joined = word + after
                is_number = word.isdigit() and after.isdigit()
                if joined in self._known and not _is_stop(joined) and not is_number:
                    out.append((joined, _JOINED_WEIGHT * min(weight, fixed[i + 1][1])))
            if not _is_stop(word):
                out.append((word, weight))
        sequence = [_person(stem(word)) for word, _ in fixed]
        content = [stem(w) for w, _ in fixed if not _is_stop(w) and w not in _CHATTY]
        return [(stem(w), weight) for w, weight in out], sequence, content

    def _is_known(self, word: str) -> bool:
        if word in self._known:
            return True
        # An unseen inflection of a known word ("bringing") is known; a bare stem is not
        # ("stak" is a typo for "stack", not the stem of "stakes").
        root = stem(word)
        return root != word and (root in self._idf or root in self._glossary_words)

    def _spelt(self, words: Sequence[str]) -> list[str]:
        """The words as the books spell them: typos corrected, known words as typed."""
        out = []
        for word in words:
            if _is_stop(word) or word.isdigit() or self._is_known(word):
                out.append(word)
            else:
                out.append(self._undoubled(word) or self._correct(word) or word)
        return out

    def _undoubled(self, word: str) -> str | None:
        """The book word ``word`` is with one doubled letter typed once ("missdeal"), if any."""
        if len(word) < 5:
            return None
        for i in range(len(word) - 1):
            if word[i] == word[i + 1] and (single := word[:i] + word[i + 1 :]) in self._known:
                return single
        return None

    def _undoubled_split(self, word: str) -> list[str] | None:
        """Two book words typed together with one letter doubled ("sidepott"), if so."""
        if len(word) < 7 or self._split(word):
            return None
        for i in range(len(word) - 1):
            if word[i] == word[i + 1] and (parts := self._split(word[:i] + word[i + 1 :])):
                return parts
        return None

    def _split(self, word: str) -> list[str] | None:
        if word.startswith("a") and len(word) >= 5 and word[1:] in self._known:
            return ["a", word[1:]]  # "aplay" is "a play" typed together
        if len(word) < 6:
            return None
        for cut in range(3, len(word) - 2):
            left, right = word[:cut], word[cut:]
            if self._is_part(left) and self._is_part(right):
                return [left, right]
        # "stackup", "chopit": a word the books know with a short particle stuck on.
        for tail in ("up", "it", "in", "out", "off", "down"):
            left = word[: -len(tail)]
            if word.endswith(tail) and len(left) >= 4 and self._is_part(left):
                return [left, tail]
        return self._split_phrase(word) if len(word) >= 8 else None

    def _split_phrase(self, word: str, *, typo_last: bool = False) -> list[str] | None:
        """A phrase typed as one word, small words included ("ontheclock" -> on the clock).

        The fewest pieces, each a content word the books know or a stop word of two letters or
        more, with at least one content word of four letters or more. With ``typo_last``, the
        last piece (four letters or more, after at least one stop word) may be a typo of a
        book word ("outoftrun" -> out of turn).
        """
        best: list[list[str] | None] = [[]] + [None] * len(word)
        for end in range(1, len(word) + 1):
            for start in range(max(0, end - 20), end):
                before = best[start]
                piece = word[start:end]
                if (
                    before is None
                    or len(piece) < 2
                    or not (self._is_part(piece) or _is_stop(piece))
                ):
                    continue
                current = best[end]
                if current is None or len(before) + 1 < len(current):
                    best[end] = [*before, piece]
        parts = best[-1]
        if parts is not None and len(parts) >= 2 and any(_is_content(p) for p in parts):
            return parts
        if not typo_last:
            return None
        # The shortest last piece that is a typo of a content word ("buton" in "onthebuton"),
        # after two pieces or more ("tomorrow" is not "to borrow"), its first letter as typed.
        for start in range(len(word) - 4, 1, -1):
            before = best[start]
            if before and len(before) >= 2 and any(_is_stop(p) for p in before):
                last = self._correct(word[start:])
                if last is not None and _is_content(last) and last[0] == word[start]:
                    return [*before, last]
        return None

    def _is_part(self, piece: str) -> bool:
        """A piece of a run-together word: a content word the books or glossary know.

        Number words count ("secondchance" is "second chance").
        """
        if _number(piece) != piece:
            return True
        if _is_stop(piece):
            return False
        # An inflection of a word the books use counts ("slow" + "rolling").
        return piece in self._known or (len(stem(piece)) >= 4 and self._is_known(piece))

    def _correct(self, word: str, context: tuple[str, str] = ("", "")) -> str | None:
        """The book word a misspelt ``word`` most likely meant, or None when none is close.

        One typing slip for words of up to five letters, two for longer ones (optimal string
        alignment: a swap of two letters is one slip). Short words only get a dropped, added
        or swapped letter, so "dog" does not become "dig" while "crad" becomes "card"; a second
        slip must keep the first letter, so "weather" does not become "either". A word that
        sounds the same ("dubble", "rebye") is preferred, and among equals the one the books
        write next to a neighbouring word ("cards reed" -> "cards read").
        """
        found, if_context = self._candidates(word)
        before, after = context
        for cand in (*found, *if_context):
            if (before, cand) in self._pairs or (cand, after) in self._pairs:
                return cand
        return found[0] if found else None

    def _candidates(self, word: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Corrections for ``word``, best first, and ones good only in context (cached).

        A short word with one letter changed ("reed" -> "read") is only taken when the books
        write it next to a neighbouring word ("cards read"): "dog" is not "dig".
        """
        if word in self._corrections:
            return self._corrections[word]
        best: tuple[str, ...] = ()
        if_context: list[str] = []
        if len(word) >= 3 and not any(ch.isdigit() for ch in word):
            allowed = 1 if len(word) <= 5 else 2
            found = process.extract(
                word, self._spelling, scorer=OSA.distance, score_cutoff=allowed, limit=12
            )
            sound = _sound(word)
            alike = (
                [
                    (c, d)
                    for c in self._sounds.get(sound, ())
                    if (d := OSA.distance(word, c)) <= allowed + 1 and c[0] == word[0]
                ]
                if len(word) >= _SOUND_MIN
                else []
            )
            ranked = []
            for cand, distance in {**{c: d for c, d, _ in found}, **dict(alike)}.items():
                same_first = cand[0] == word[0]
                same_sound = _sound(cand) == sound and len(word) >= _SOUND_MIN and len(sound) >= 3
                if len(word) <= 4 and not same_sound:
                    is_swap = len(cand) == len(word) and sorted(cand) == sorted(word)
                    if len(cand) == len(word) and not is_swap:
                        if distance == 1:
                            if_context.append(cand)
                        continue
                if (
                    distance == 2
                    and not same_sound
                    and (not same_first or (len(word) == 6 and fuzz.ratio(word, cand) < 85))
                ):
                    continue
                # Sounding alike makes up for one slip ("dubble" is "double", not "bubble"), and
                # so do the same letters sounding alike ("brake" is "break", not "broke").
                same_letters = same_sound and sorted(cand) == sorted(word)
                slips = distance - same_sound - same_letters
                ranked.append(
                    (
                        -slips,
                        same_sound,
                        same_letters,
                        same_first,
                        self._surface_freq.get(cand, 0),
                        cand,
                    )
                )
            ranked.sort(reverse=True)
            # Only the equally good candidates compete on context.
            best = tuple(r[-1] for r in ranked if r[:3] == ranked[0][:3]) if ranked else ()
        self._corrections[word] = (best, tuple(if_context))
        return self._corrections[word]

    # scoring

    def _score(
        self,
        weighted: Mapping[str, float],
        wanted: set[str],
        flat: str | None = None,
        named: frozenset[str] = frozenset(),
        favoured: str | None = None,
        own: frozenset[str] = frozenset(),
        *,
        amount: bool = False,
        numbered: str | None = None,
        why: bool = False,
        who: bool = False,
        terms_flat: str | None = None,
        phrase_pairs: frozenset[tuple[str, str]] = frozenset(),
        opposite: Mapping[tuple[str, str], frozenset[tuple[str, str]]] | None = None,
        defines: tuple[str, ...] | None = None,
        one_book: bool = False,
    ) -> list[tuple[float, int, float]]:
        """``(score, doc, coverage)`` for every passage sharing a term with the query."""
        scores: dict[int, float] = defaultdict(float)
        matched: dict[int, float] = defaultdict(float)
        total_weight = sum(self._idf.get(t, 0.0) * w for t, w in weighted.items()) or 1.0
        # Words no book uses count fully against how much of the query a passage answers.
        unknown = sum(
            _UNKNOWN_SHARE * self._mean_idf * w for t, w in weighted.items() if t not in self._idf
        )
        for term, q_weight in weighted.items():
            idf = self._idf.get(term)
            if idf is None:
                continue
            for i, tf in self._postings[term]:
                doc = self._docs[i]
                norm = _K1 * (1 - _B + _B * doc.length / self._avg_length)
                scores[i] += q_weight * idf * tf * (_K1 + 1) / (tf + norm)
                matched[i] += q_weight * idf
        best_matched = max(matched.values(), default=0.0)
        # The rarest word the player typed themselves: a home passage without it, when another
        # book has it, is not "about as good" ("waiting list closes when": the Poker Pub's).
        key_term = max(
            (t for t in own if t in self._idf), key=lambda t: (self._idf[t], t), default=None
        )
        if key_term is not None and (
            self._idf[key_term] < _KEY_MIN_IDF
            or all(self._docs[i].passage.book == self.home for i, _ in self._postings[key_term])
        ):
            key_term = None
        ordered = list(weighted)
        pairs = {(a, b) for a, b in itertools.pairwise(ordered)}
        glossary_pairs = phrase_pairs - pairs
        # "starting blinds" = "blinds will start": the same two words the other way round.
        reversed_pairs = {(b, a) for a, b in pairs if a != b} - pairs - glossary_pairs
        out = []
        for i, raw in scores.items():
            doc = self._docs[i]
            if doc.passage.book not in wanted:
                continue
            coverage = matched[i] / total_weight
            bonus = 0.0
            if pairs or glossary_pairs:  # reversed_pairs is empty without pairs
                adjacent = doc.bigrams
                bonus = (
                    sum(
                        0.25 * (self._idf.get(a, 0.0) + self._idf.get(b, 0.0))
                        for a, b in pairs & adjacent
                    )
                    + sum(
                        _GLOSSARY_PAIR_SHARE
                        * 0.25
                        * (self._idf.get(a, 0.0) + self._idf.get(b, 0.0))
                        for a, b in glossary_pairs & adjacent
                    )
                    + sum(
                        _REVERSED_PAIR_SHARE
                        * 0.25
                        * (self._idf.get(a, 0.0) + self._idf.get(b, 0.0))
                        for a, b in reversed_pairs & adjacent
                    )
                )
            score = (raw + bonus) * (0.4 + 0.6 * coverage)
            if doc.title_terms:
                title_hits = len(doc.title_terms.intersection(weighted))
                score *= 1 + _TITLE_BONUS * title_hits / len(doc.title_terms)
            numbers = [t for t in doc.own_terms.intersection(weighted) if t.isdigit()]
            if doc.label_terms.intersection(weighted) or len(numbers) >= 2:
                score *= _ROW_LABEL_BOOST  # "blinds at level 8", "100/200 blinds"
            elif doc.passage.table:
                own = doc.own_terms.intersection(weighted)
                if not own:
                    score *= _ROW_CONTEXT_ONLY
                elif max(self._idf.get(t, 0.0) for t in own) >= _ROW_OWN_MIN_IDF:
                    score *= _ROW_OWN_BOOST
                else:
                    score *= _ROW_COMMON_OWN  # a common word ("bonus") hardly picks a row
            if doc.is_first:
                score *= _FIRST_BOOST
            if named and any(self._opens.get((doc.passage.book, h)) == i for h in named):
                score *= _HEADING_MATCH_BOOST  # the query names the section: "smoking policy"
            if flat is not None and flat in doc.flat:
                score *= _PHRASE_BOOST  # the player quoted the book word for word
            elif terms_flat is not None and terms_flat in doc.flat_terms:
                score *= _TERMS_PHRASE_BOOST  # ... or nearly: typos and small words aside
            if numbered is not None and doc.number == numbered:
                score *= _NUMBERED_BOOST  # "hand ranking number 8": the rule numbered 8
            if defines is not None and defines in self._defines[i]:
                # The asked word is the subject ("called the kicker"). Across books the league's
                # own book still comes first; inside the book asked the definition wins.
                score *= _DEFINES_BOOK_BOOST if one_book else _DEFINES_BOOST
            if i in self._taglines:
                score *= _TAGLINE_SHARE  # a title page answers no rules question
            if doc.is_intro and not named:
                score *= _INTRO_SHARE  # a section's opening words rarely rule on the question
            if why and doc.gives_reason:
                score *= _REASON_BOOST  # "why burn a card": the rule that gives the reason
            if any(
                asked[0] not in doc.weights and not contrary.isdisjoint(doc.bigrams)
                for asked, contrary in (opposite or {}).items()
            ):
                score *= _OPPOSITE_SHARE  # "after the flop" asked, "pre flop" written
            if who and not _ROLES.isdisjoint(doc.weights):
                score *= _WHO_BOOST  # "who ...": the rule that names who does it
            if amount and doc.has_amount:
                score *= _AMOUNT_BOOST  # "how many decks": the passage that gives a number
            if favoured is not None:
                # The query ends or starts with a book's short name ("... the game").
                score *= _NAMED_BOOST if doc.passage.book == favoured else 1.0
            elif doc.passage.book == self.home and not (why and not doc.gives_reason):
                # The league's own book wins when it answers about as much of the question.
                # Not when it lacks the rarest word the player typed and another book has it.
                full = matched[i] >= _HOME_SHARE * best_matched
                if key_term is None or key_term in doc.weights:
                    score *= _HOME_BOOST if full else _HOME_BOOST_PARTIAL
            out.append((score, i, matched[i] / (total_weight + unknown)))
        out.sort(key=lambda item: (-item[0], item[1]))
        return out

    def _result(
        self,
        text: str,
        weighted: Mapping[str, float],
        scored: list[tuple[float, int, float]],
        wanted: set[str],
        limit: int,
        *,
        named: bool = False,
    ) -> SearchResult:
        ceiling = sum(self._idf.get(t, 0.0) * w for t, w in weighted.items()) * (_K1 + 1)
        ceiling = max(ceiling, 1e-9)
        if not scored:
            return SearchResult(text, (), False, closest=self._closest(text, wanted, limit))
        top_score, _, top_coverage = scored[0]
        # A player who names the book wants its closest passage even when it answers little.
        if not named and (top_score / ceiling < _FOUND_THRESHOLD or top_coverage < _MIN_COVERAGE):
            partial = tuple(
                Match.of(self._docs[i].passage, min(coverage, 0.29))
                for _, i, coverage in scored[:limit]
            )
            return SearchResult(text, (), False, closest=partial)

        def confidence(score: float) -> float:
            return min(1.0, top_coverage * score / top_score)

        matches = tuple(
            Match.of(self._docs[i].passage, confidence(score)) for score, i, _ in scored[:limit]
        )
        others: list[Match] = []
        seen = {matches[0].book} | ({self.home} if self.home else set())
        # Another book's answer is worth showing when it covers most of what the best one does.
        top_unboosted = top_score / (_HOME_BOOST if matches[0].book == self.home else 1.0)
        top_unboosted = min(top_unboosted, top_score)
        for score, i, coverage in scored:
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

    # look-ups

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
        exact = self._by_key.get(citation_slug(text))
        if exact is not None and exact.book in wanted:
            return [exact]
        bare = _LOOKUP_PREFIX.sub("", text).strip()
        bare_slug = citation_slug(bare)
        if not bare_slug:
            return []
        names = sorted(wanted, key=lambda name: (name != self.home, name))
        for name in names:
            book_slug = citation_slug(name)
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
        words = [w for w in _surface(text) if w != "and"]
        # "the game: ..." or "..., the game": punctuation sets the name apart from the question.
        marked = [w for w in _surface(re.sub(r"\s*[:;,]\s*", " qqsep ", text)) if w != "and"]
        for alias, name, strong in self._aliases:
            size = len(alias)
            starts: Sequence[int] = range(len(words) - size + 1)
            if not strong:  # "the game" names a book only at either end of the query
                starts = [
                    i
                    for i in starts
                    if len(words) > size
                    and (
                        all(map(_is_stop, words[:i]))
                        or all(_is_stop(w) or w in _NAME_VERBS for w in words[i + size :])
                        or words[i + size] in _NAME_TAIL
                    )
                ]
            for i in starts:
                found = zip(alias, words[i : i + size], strict=True)
                if all(a == w or (w not in self._known and _same_word(a, w)) for a, w in found):
                    after = words[i + size :]
                    # "the game league: ..." / "the game rules": the tail word names it too.
                    tail = bool(after) and after[0] in _NAME_TAIL
                    rest = words[:i] + (after[1:] if tail else after)
                    # "in the game ..." is the book; "bet on the game" may not be.
                    led = i > 0 and words[i - 1] in _BOOK_LEAD
                    return name, " ".join(rest), strong or led or tail or _set_apart(marked, alias)
        return None, text, True

    def _section_hits(self, book: str, slug: str) -> list[Passage]:
        slugged = self._section_slugs[book]
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
        typed = " ".join(_WORD.findall(_fold(text)))
        if len(typed) < 3:
            return None
        found = [
            phrase
            for phrase in self._phrases
            if phrase.startswith(typed) and phrase != typed and " " in phrase
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
            for p in self.passages
            if citation_slug(p.section).startswith(slug) or citation_slug(p.key).startswith(slug)
        ]
        return hits[:limit]


def _compounds(passages: Sequence[Passage]) -> frozenset[str]:
    """Words the books write joined that are also two of their words ("burncard", "allin")."""
    words = {w for p in passages for w in _surface(f"{p.title} {p.text}")}
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


_GENERIC_NAME_WORDS = frozenset({"poker", "league", "rules", "texas", "holdem", "the", "and"})


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
        name: {w for p in book.passages for w in _surface(f"{p.title} {p.text}")}
        for name, book in books.items()
    }
    home_words = vocabulary[home] if home is not None else set()
    aliases: list[tuple[tuple[str, ...], str, bool]] = []
    for name in books:
        words = tuple(_surface(name.replace("-", " ")))
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
            strong = not _is_stop(short[0]) and any(
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


_BOOK_LEAD = frozenset({"in", "at", "per", "under", "from"})
# Words right after a book's short name that make it a name: "the game rules", "the game league".
_NAME_TAIL = frozenset({"league", "leagues", "rules", "rule", "rulebook", "book", "says"})
# Verbs a question may end with after naming the book: "how many decks does the game use".
_NAME_VERBS = frozenset({"use", "uses", "say", "allow", "allows", "handle", "handles", "do"})


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


def _definition(phrase: Sequence[str]) -> tuple[str, ...] | None:
    """The term a short query may ask to have defined (at most ``_DEFINED_WORDS`` words)."""
    words = tuple(w for w in phrase if not _is_stop(w) and not w.isdigit())
    if not words or len(words) > _DEFINED_WORDS:
        return None
    return words


def _same_word(alias: str, word: str) -> bool:
    """A word of a book's name with one slip ("pokr" for "poker", not "same" for "game").

    A dropped last letter is a slip too, even in a short word ("blu" for "blue").
    """
    if alias == word:
        return True
    if len(alias) >= 4 and len(word) >= 3 and word == alias[:-1]:
        return True  # the last letter dropped: "red wite blu"
    return len(alias) >= 5 and len(word) >= 4 and OSA.distance(alias, word, score_cutoff=1) <= 1


_SOUND_MIN = 5  # shorter words have too many sound-alikes ("dog", "dig")
_SOUND_RULES = (
    ("ph", "f"), ("gh", ""), ("ck", "k"), ("q", "k"), ("x", "ks"), ("z", "s"), ("ce", "se"),
    ("ci", "si"), ("cy", "sy"), ("c", "k"), ("wh", "w"),
)  # fmt: skip


@functools.lru_cache(maxsize=16384)
def _sound(word: str) -> str:
    """A rough sound key: letters that sound alike, doubled letters and vowel runs folded.

    >>> [_sound(w) for w in ("fone", "phone", "rebye", "rebuy", "dubble", "double")]
    ['fan', 'fan', 'rab', 'rab', 'dabl', 'dabl']
    """
    for a, b in _SOUND_RULES:
        word = word.replace(a, b)
    word = re.sub(r"(.)\1+", r"\1", word)
    return re.sub("[aeiouy]+$", "", re.sub("[aeiouy]+", "a", word))


def _parent_sections(section: str) -> list[str]:
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


def _asks_amount(words: Sequence[str]) -> bool:
    """The question asks for a number: "how many", "how much", "how long", "how old"."""
    return any(a == "how" and b in _AMOUNT_WORDS for a, b in itertools.pairwise(words))


def _plain(text: str) -> str:
    """Lower-case words only, for comparing a query with a heading."""
    return " ".join(_WORD.findall(_fold(text)))


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


def _opposite_pairs(content: Sequence[str]) -> dict[tuple[str, str], frozenset[tuple[str, str]]]:
    """``{("after", "flop"): {("befor", "flop"), ("pre", "flop"), ...}}`` for the query's words."""
    out: dict[tuple[str, str], frozenset[tuple[str, str]]] = {}
    for word, after in itertools.pairwise(content):
        if word in _BEFORE:
            out[(word, after)] = frozenset((w, after) for w in _AFTER)
        elif word in _AFTER:
            out[(word, after)] = frozenset((w, after) for w in _BEFORE)
    return out


def _aside_start(words: Sequence[str]) -> int | None:
    """Where a "while I ..." clause starts (after the first word), or None."""
    for i in range(1, len(words) - 1):
        after = words[i + 1]
        if words[i] in ("while", "whil") and (
            _person(after) == "<person>" or after in _CONTRACTED_PERSONS
        ):
            return i
    return None


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


# --- loading --------------------------------------------------------------------------------


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
    if extra_dir is not None:
        texts.extend(read_books(Path(extra_dir)).items())
    return RuleIndex(parse_books(texts), home=home)


_DEFAULT: dict[tuple[str | None, str | None], RuleIndex] = {}


def default_index(extra_dir: Path | None = None, *, home: str | None = DEFAULT_HOME) -> RuleIndex:
    """``load_rulebooks`` once per folder and home, then reuse the index.

    Args:
        extra_dir: the league's own rulebook folder, if any.
        home: the league's own book.

    Returns:
        The shared index.

    Raises:
        RulebookError: as ``load_rulebooks``.
    """
    key = (str(extra_dir) if extra_dir is not None else None, home)
    if key not in _DEFAULT:
        _DEFAULT[key] = load_rulebooks(extra_dir, home=home)
    return _DEFAULT[key]

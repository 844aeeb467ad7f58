"""Stage 1, normalise: fold case and accents, numbers and ordinals to digits, stem."""

from __future__ import annotations

import functools
import itertools
import logging
import re
import unicodedata

from rulings.rulebook.tuning import stage_words

log = logging.getLogger(__name__)


MAX_QUERY_CHARS = 200


_WORDS = stage_words("normalise")
NUMBER_WORDS: dict[str, int] = _WORDS["number_words"]


# A word list reads better as text than as a list literal.
_ORDINAL_WORDS = frozenset(w for w in NUMBER_WORDS if w.endswith(("st", "nd", "rd", "th")))


STOP_WORDS = frozenset(_WORDS["stop_words"].split())


CHATTY = frozenset(_WORDS["chatty"].split())


# "too many", "too much", "too early": their own term; players also write "to many".
EXCESS = {
    w: f"too{w}"
    for w in "many much few early soon late fast slow big small long high low".split()  # noqa: SIM905
}


_ROOT_LETTERS = 6


_VOWEL = re.compile("[aeiouy]")


_KEPT = frozenset(_WORDS["kept_stop_words"].split())


_IRREGULAR: dict[str, str] = _WORDS["irregular"]


WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


_RANGE = re.compile(r"\b(\d+)(?:st|nd|rd|th)?\s*(?:—|–|-|to)\s*(\d+)(?:st|nd|rd|th)?\b")


_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


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


def fold_text(text: str) -> str:
    """Lower case, dashes and quotes plain, accents dropped, ``1,200`` -> ``1200``, ``100k``."""
    text = text.lower().translate(_DASHES)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = _THOUSANDS.sub("", text)
    text = _KILO.sub(r"\g<1>000", text)  # 100k -> 100000
    return _POSSESSIVE.sub("", text)


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


_KILO = re.compile(r"\b(\d+)k\b")


_POSSESSIVE = re.compile(r"'s\b")


def _expand_ranges(text: str) -> str:
    def repl(match: re.Match[str]) -> str:
        low, high = int(match.group(1)), int(match.group(2))
        if 0 < high - low <= 10:
            return " ".join(f"{n} {ordinal_form(n)}" for n in range(low, high + 1))
        return match.group(0)

    return _RANGE.sub(repl, text)


def surface_words(text: str, *, ranges: bool = False) -> list[str]:
    """Words as written, folded; numbers and ordinals as digits; hyphenated words whole+parts."""
    folded = fold_text(text)
    if ranges:
        folded = _expand_ranges(folded)
    out: list[str] = []
    for word in WORD.findall(folded):
        word = word.replace("'", "")
        if "-" in word:
            parts = [p for p in word.split("-") if p]
            if not all(p.isdigit() for p in parts):  # "100-200" is two amounts, not one
                out.append("".join(parts))
            # A prefix on its own ("re" of "re-raise") says nothing the whole word does not.
            out.extend(p for p in parts if len(p) > 2 or p.isdigit())
            continue
        out.append(word)
    return [to_digits(w) for w in out]


def to_digits(word: str) -> str:
    """An ordinal or number word as digits (``fifth``/``5th`` -> ``5th``, ``two`` -> ``2``)."""
    ordinal = _ORDINAL.match(word)
    if ordinal:
        return ordinal_form(int(ordinal.group(1)))
    if word in NUMBER_WORDS:
        value = NUMBER_WORDS[word]
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


@functools.lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A light suffix stripper, enough to match plural and tense variants (cached: pure).

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


def is_stop(word: str) -> bool:
    """A stop word (not one of those that rule on something, kept)."""
    return word in STOP_WORDS and word not in _KEPT


def is_content(word: str) -> bool:
    """A word of four letters or more that carries meaning (a run-together phrase needs one)."""
    return len(word) >= 4 and word not in STOP_WORDS


CHATTY_STEMS = frozenset(stem(w) for w in CHATTY)


_PERSONS = frozenset(_WORDS["persons"].split())


def person_form(word: str) -> str:
    """A word naming a person (``friend``, ``wife``) as one placeholder."""
    return "<person>" if word in _PERSONS else word


@functools.lru_cache(maxsize=8192)
def _analysed(text: str, ranges: bool) -> tuple[str, ...]:
    words = surface_words(text, ranges=ranges)
    out = [stem(w) for w in words if not is_stop(w)]
    # "too many cards": two stop words that together rule on something; one term of their own.
    out.extend(stem(EXCESS[b]) for a, b in itertools.pairwise(words) if a == "too" and b in EXCESS)
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


def plain_text(text: str) -> str:
    """Lower-case words only, for comparing a query with a heading."""
    return " ".join(WORD.findall(fold_text(text)))

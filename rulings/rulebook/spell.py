"""Stage 2, spell: words the books never use joined, split or corrected against their words."""

from __future__ import annotations

import functools
import itertools
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from rulings.rulebook.books import Passage
from rulings.rulebook.normalise import (
    CHATTY,
    EXCESS,
    NUMBER_WORDS,
    STOP_WORDS,
    is_content,
    is_stop,
    person_form,
    stem,
    surface_words,
    to_digits,
)
from rulings.rulebook.tuning import stage_weights

log = logging.getLogger(__name__)


_W = stage_weights("spell")
CORRECTED_WEIGHT = _W["corrected_weight"]


_JOINED_WEIGHT = _W["joined_weight"]


CHATTY_WEIGHT = _W["chatty_weight"]


def same_word(alias: str, word: str) -> bool:
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


class Speller:
    """Stage 2 over the books' words: joins, splits and corrects a query's words.

    Built once by ``build_speller``; its only state after that is a memo of corrections.
    """

    def __init__(
        self,
        *,
        known: frozenset[str],
        indexed: Collection[str],
        glossary_words: frozenset[str],
        spelling: Sequence[str],
        pairs: frozenset[tuple[str, str]],
        surface_freq: Mapping[str, int],
    ) -> None:
        """Hold the words to check against.

        Args:
            known: every word the books or the glossary write, as typed.
            indexed: the lexical index's terms (stemmed).
            glossary_words: the glossary phrases' words, stemmed.
            spelling: the words a typo may be corrected to, sorted.
            pairs: words the books and the glossary write side by side.
            surface_freq: how often the books write each word.
        """
        self.known = known
        self.indexed = indexed
        self.glossary_words = glossary_words
        self.spelling = spelling
        self.pairs = pairs
        self.surface_freq = surface_freq
        # Words that sound alike ("fone"/"phone", "rebye"/"rebuy", "dubble"/"double").
        sounds: defaultdict[str, list[str]] = defaultdict(list)
        for w in spelling:
            sounds[_sound(w)].append(w)
        self.sounds: Mapping[str, list[str]] = sounds
        self._corrections: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def query_words(self, text: str) -> tuple[list[tuple[str, float]], list[str], list[str]]:
        """Weighted search terms, the stemmed word sequence, and the content words.

        The sequence (every word, stemmed) is what the glossary matches; the content words are
        the corrected words without stop words or table talk, stemmed, in order, for matching
        the books' phrases.
        """
        # First fix the words: known ones stay, run-together ones split, typos corrected.
        fixed: list[tuple[str, float]] = []
        raw = surface_words(text)
        for k, word in enumerate(raw):
            is_piece = (k + 1 < len(raw) and word + raw[k + 1] in self.known) or (
                k > 0 and raw[k - 1] + word in self.known
            )  # "mis deal" is "misdeal" typed apart: keep both halves as they are
            if word in CHATTY:
                fixed.append((word, CHATTY_WEIGHT))
                continue
            if is_stop(word) or word.isdigit() or is_piece or word in self.known:
                fixed.append((word, 1.0))
                continue
            # A doubled letter typed for a single one ("missdeal") is a typo, not "miss deal".
            single = self._undoubled(word)
            if single is not None:
                fixed.append((to_digits(single), CORRECTED_WEIGHT))
                continue
            # Split before stemming: "secondchance" is "second chance", not a form of "second".
            parts = self._split(word)
            if parts:
                fixed.extend((to_digits(part), 1.0) for part in parts)
                continue
            if self.is_known(word):
                fixed.append((word, 1.0))
                continue
            context = (raw[k - 1] if k else "", raw[k + 1] if k + 1 < len(raw) else "")
            correction = self._correct(word, context)
            if correction:
                fixed.append((to_digits(correction), CORRECTED_WEIGHT))
                continue
            fixed.append((word, 1.0))
        # Then words the books write joined ("chip up" -> "chipup", "heads up" -> "headsup").
        out: list[tuple[str, float]] = []
        for i, (word, weight) in enumerate(fixed):
            if i + 1 < len(fixed):
                after = fixed[i + 1][0]
                excess = EXCESS.get(after)
                if word in ("too", "to") and excess is not None and stem(excess) in self.indexed:
                    out.append((excess, 1.0))  # "flop has to many cards" = "too many"
                joined = word + after
                is_number = word.isdigit() and after.isdigit()
                if joined in self.known and not is_stop(joined) and not is_number:
                    out.append((joined, _JOINED_WEIGHT * min(weight, fixed[i + 1][1])))
            if not is_stop(word):
                out.append((word, weight))
        sequence = [person_form(stem(word)) for word, _ in fixed]
        content = [stem(w) for w, _ in fixed if not is_stop(w) and w not in CHATTY]
        return [(stem(w), weight) for w, weight in out], sequence, content

    def is_known(self, word: str) -> bool:
        """A word the books or glossary write, or an unseen inflection of one."""
        if word in self.known:
            return True
        # An unseen inflection of a known word ("bringing") is known; a bare stem is not
        # ("stak" is a typo for "stack", not the stem of "stakes").
        root = stem(word)
        return root != word and (root in self.indexed or root in self.glossary_words)

    def spelt(self, words: Sequence[str]) -> list[str]:
        """The words as the books spell them: typos corrected, known words as typed."""
        out = []
        for word in words:
            if is_stop(word) or word.isdigit() or self.is_known(word):
                out.append(word)
            else:
                out.append(self._undoubled(word) or self._correct(word) or word)
        return out

    def _undoubled(self, word: str) -> str | None:
        """The book word ``word`` is with one doubled letter typed once ("missdeal"), if any."""
        if len(word) < 5:
            return None
        for i in range(len(word) - 1):
            if word[i] == word[i + 1] and (single := word[:i] + word[i + 1 :]) in self.known:
                return single
        return None

    def _split(self, word: str) -> list[str] | None:
        if word.startswith("a") and len(word) >= 5 and word[1:] in self.known:
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

    def _split_phrase(self, word: str) -> list[str] | None:
        """A phrase typed as one word, small words included ("ontheclock" -> on the clock).

        The fewest pieces, each a content word the books know or a stop word of two letters or
        more, with at least one content word of four letters or more.
        """
        best: list[list[str] | None] = [[]] + [None] * len(word)
        for end in range(1, len(word) + 1):
            for start in range(max(0, end - 20), end):
                before = best[start]
                piece = word[start:end]
                if before is None or len(piece) < 2 or not (self._is_part(piece) or is_stop(piece)):
                    continue
                current = best[end]
                if current is None or len(before) + 1 < len(current):
                    best[end] = [*before, piece]
        parts = best[-1]
        if parts is not None and len(parts) >= 2 and any(is_content(p) for p in parts):
            return parts
        return None

    def _is_part(self, piece: str) -> bool:
        """A piece of a run-together word: a content word the books or glossary know.

        Number words count ("secondchance" is "second chance").
        """
        if to_digits(piece) != piece:
            return True
        if is_stop(piece):
            return False
        # An inflection of a word the books use counts ("slow" + "rolling").
        return piece in self.known or (len(stem(piece)) >= 4 and self.is_known(piece))

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
            if (before, cand) in self.pairs or (cand, after) in self.pairs:
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
                word, self.spelling, scorer=OSA.distance, score_cutoff=allowed, limit=12
            )
            sound = _sound(word)
            alike = (
                [
                    (c, d)
                    for c in self.sounds.get(sound, ())
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
                        self.surface_freq.get(cand, 0),
                        cand,
                    )
                )
            ranked.sort(reverse=True)
            # Only the equally good candidates compete on context.
            best = tuple(r[-1] for r in ranked if r[:3] == ranked[0][:3]) if ranked else ()
        self._corrections[word] = (best, tuple(if_context))
        return self._corrections[word]


def build_speller(
    passages: Sequence[Passage],
    glossary_phrases: Sequence[str],
    glossary_words: frozenset[str],
    indexed: Collection[str],
) -> Speller:
    """The speller for these passages and glossary.

    Args:
        passages: every passage indexed.
        glossary_phrases: the glossary's players' phrases.
        glossary_words: the glossary phrases' words, stemmed.
        indexed: the lexical index's terms.

    Returns:
        The speller.
    """
    glossary_surface = frozenset(w for phrase in glossary_phrases for w in surface_words(phrase))
    surfaces: Counter[str] = Counter()
    for p in passages:
        surfaces.update(surface_words(" ".join([p.title, p.text, p.part or ""])))
    # Typos are corrected to any word players write: "durring" is "during", not "dumping";
    # "secnd" is "second" (the books' "2nd"); a corrected stop word is then dropped.
    spelling = sorted(
        set(vocabulary(surfaces, glossary_surface))
        | {w for w in (*STOP_WORDS, *NUMBER_WORDS) if len(w) >= 3 and w not in CHATTY}
    )
    return Speller(
        known=frozenset(surfaces) | glossary_surface,
        indexed=indexed,
        glossary_words=glossary_words,
        spelling=spelling,
        # Pairs of words the books and the glossary write side by side ("cards read").
        pairs=frozenset(
            pair
            for text in (*(f"{p.title} {p.text}" for p in passages), *glossary_phrases)
            for pair in itertools.pairwise(surface_words(text))
        ),
        surface_freq=surfaces,
    )


def vocabulary(surface_freq: Mapping[str, int], glossary_surface: frozenset[str]) -> list[str]:
    """The words autocomplete completes to: the books' and the glossary's, sorted."""
    return sorted(
        w
        for w in set(surface_freq) | glossary_surface
        if len(w) >= 3 and not w.isdigit() and w not in STOP_WORDS
    )

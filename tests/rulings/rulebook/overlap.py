"""Near-duplicate queries: what keeps the sealed batches disjoint from the training data.

Two queries are near duplicates when their normalised texts are equal or their word sets have a
Jaccard similarity of at least ``NEAR`` (lower case, accents dropped, runs of letters and
digits). ``tools/drop_sealed_duplicates.py`` removes such training queries, the suite checks
that none is left; neither prints a sealed query.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

NEAR = 0.8
_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """The words of a query, lower-cased, accents dropped.

    >>> tokens("Who's   DEALING, señor?")
    ['who', 's', 'dealing', 'senor']
    """
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return _WORD.findall("".join(c for c in decomposed if not unicodedata.combining(c)))


def near_duplicates(training: Sequence[str], sealed: Sequence[str]) -> list[int]:
    """The positions in ``training`` of the queries that nearly duplicate a sealed one."""
    exact = {" ".join(tokens(s)) for s in sealed}
    sets = [set(tokens(s)) for s in sealed]
    out = []
    for i, text in enumerate(training):
        words = tokens(text)
        mine = set(words)
        if " ".join(words) in exact or any(
            mine and len(mine & other) / len(mine | other) >= NEAR for other in sets
        ):
            out.append(i)
    return out

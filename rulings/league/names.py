"""Names: the one way a name is cleaned, compared and matched, whichever door it came through.

Every name the league stores (players and their aliases, seasons, locations) passes
``check_name`` at storage's write boundary, so Discord, the console, the CLI and import files
store the same text for the same name:

- Unicode NFKC (a full-width "Ｂｏｂ" or a decomposed "José" reads as typed elsewhere);
- invisible characters (zero-width spaces and joiners, bidirectional marks, a byte-order mark,
  soft hyphens, fillers) are dropped: they change nothing a reader sees, so "A\u200bnn" and "Ann"
  must not be two players;
- a control character (NUL, BEL, ...) is refused: it is a paste gone wrong, never a name;
- blanks collapse to one space; the result may not be empty or longer than
  ``MAX_NAME_LENGTH``.

Names are compared by ``name_key`` (the same cleaning, case-folded, so "STRASSE" matches
"straße"); a name not known but close to one that is is found by ``similar_name`` (rapidfuzz).

>>> name_key("  John   SMITH ")
'john smith'
>>> name_key("Ｂｏｂ") == name_key("bob")
True
>>> name_key("Jose\u0301") == name_key("JOSÉ")
True
>>> check_name("A\u200bnn  Lee")
'Ann Lee'
>>> similar_name("jon smith", {"john smith": "John Smith"})
'John Smith'
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping
from typing import Any

from rulings.errors import NameFormatError

MAX_NAME_LENGTH = 100
"""The longest name of a player, season or location."""

SIMILAR_NAME_SCORE = 88.0
"""A new name scoring this much (rapidfuzz ``ratio``) against a known one is a likely duplicate."""

SUGGEST_SCORE = 70.0
"""An unknown name looked up is answered with "did you mean" above this score."""

# Characters that show nothing but are not format characters (category Cf, dropped too).
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u180b\u180c\u180d\u180e\ufe00")
_BLANKS = frozenset(" \t\n\r\v\f\x1c\x1d\x1e\x1f\x85")


def _is_invisible(ch: str) -> bool:
    return ch in _INVISIBLE or unicodedata.category(ch) == "Cf" or "\ufe00" <= ch <= "\ufe0f"


def _visible(name: str) -> str:
    """NFKC with invisible characters dropped and blanks collapsed (no checks)."""
    text = unicodedata.normalize("NFKC", name)
    if not text.isascii():
        text = "".join(ch for ch in text if not _is_invisible(ch))
    return " ".join(text.split())


def check_name(value: Any, what: str = "name") -> str:
    r"""Return a name as the league stores it, or refuse it.

    Args:
        value: The name as typed (or read from a file).
        what: What it names, for the error (``season``, ``location``, ``player name``).

    Returns:
        The name in NFKC, invisible characters dropped, blanks collapsed.

    Raises:
        NameFormatError: not text, a control character, empty once cleaned, or longer than
            ``MAX_NAME_LENGTH``.

    >>> check_name("  2026   Fall ")
    '2026 Fall'
    >>> check_name("\u200b\u200d", "player name")
    Traceback (most recent call last):
    ...
    rulings.errors.NameFormatError: player name: missing or empty
    >>> check_name("Bea\x07")
    Traceback (most recent call last):
    ...
    rulings.errors.NameFormatError: name: 'Bea\x07' holds a control character (U+0007)
    """
    if not isinstance(value, str):
        raise NameFormatError(f"{what}: missing or empty")
    if value.isascii() and value.isprintable():
        # The common name: no control character, NFKC leaves it as it is, none is invisible.
        name = " ".join(value.split())
    else:
        for ch in value:
            if ch not in _BLANKS and unicodedata.category(ch) == "Cc":
                shown = value[:20] + ("..." if len(value) > 20 else "")
                raise NameFormatError(
                    f"{what}: {shown!r} holds a control character (U+{ord(ch):04X})"
                )
        name = _visible(value)
    if not name:
        raise NameFormatError(f"{what}: missing or empty")
    if len(name) > MAX_NAME_LENGTH:
        raise NameFormatError(
            f"{what}: {name[:20]!r}... is longer than {MAX_NAME_LENGTH} characters"
        )
    return name


@functools.lru_cache(maxsize=1 << 16)  # an import asks for the same few names many times
def name_key(name: str) -> str:
    """Return the comparison key of a name.

    Args:
        name: a name as typed.

    Returns:
        The name cleaned as ``check_name`` cleans it (without refusing anything), then
        case-folded; equal keys are the same name.
    """
    if name.isascii():  # NFKC and casefold change no ASCII letter but its case
        return " ".join(name.split()).lower()
    return unicodedata.normalize("NFKC", _visible(name).casefold())


def similar_name(
    key: str, known: Mapping[str, str], cutoff: float = SIMILAR_NAME_SCORE
) -> str | None:
    """Return the display name in ``known`` closest to ``key``, if it is close enough.

    Args:
        key: The ``name_key`` of a name not known.
        known: Name key -> display name of the names known.
        cutoff: The least rapidfuzz ``ratio`` (0-100) that counts as close.

    Returns:
        The closest display name scoring ``cutoff`` or more, else None.
    """
    if not known:
        return None
    # rapidfuzz is imported here, not with the module: ``import rulings`` (every command
    # line's start) loads no heavy package; only a name that must be matched pays for it.
    from rapidfuzz import fuzz, process

    match = process.extractOne(key, list(known), scorer=fuzz.ratio, score_cutoff=cutoff)
    return known[match[0]] if match is not None else None

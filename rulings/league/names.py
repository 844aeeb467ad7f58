"""When two names are the same name: the one comparison key of players, aliases, seasons, etc.

Every name the league matches (players and their aliases, strikes' players and seasons,
seasons, locations, an event's finishers, the owner and the staff) is compared by
``name_key``: Unicode NFKC (so a full-width "Ｂｏｂ" or a decomposed "José" reads as typed
elsewhere), inner spaces collapsed, ends stripped, case-folded (so "STRASSE" matches
"straße").

>>> name_key("  John   SMITH ")
'john smith'
>>> name_key("Ｂｏｂ") == name_key("bob")
True
>>> name_key("Jose\u0301") == name_key("JOSÉ")
True
"""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """Return the comparison key of a name.

    Args:
        name: a name as typed.

    Returns:
        The name in NFKC, inner spaces collapsed, case-folded; equal keys are the same name.
    """
    folded = " ".join(unicodedata.normalize("NFKC", name).split()).casefold()
    return unicodedata.normalize("NFKC", folded)

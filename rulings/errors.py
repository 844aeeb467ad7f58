"""The errors of the domain engine.

Every ``RulingsError`` is a user mistake or an impossible request; its message is written for
a player or a director and is shown to them as it is.
"""

from __future__ import annotations


class RulingsError(ValueError):
    """Base class: a request the rules engine refuses, with a player-readable message."""

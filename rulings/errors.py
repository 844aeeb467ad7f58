"""The errors of the domain engine.

Every ``RulingsError`` is a user mistake or an impossible request; its message is written for
a player or a director and is shown to them as it is.
"""

from __future__ import annotations


class RulingsError(ValueError):
    """Base class: a request the rules engine refuses, with a player-readable message."""


class LeagueConfigError(RulingsError):
    """A league preset or override that is unknown or holds a bad value."""


class EventFormatError(RulingsError):
    """An event record (typed, JSON, text or CSV) that breaks the format; names the row/field."""


class StackError(RulingsError):
    """A starting-stack request the rules do not allow (e.g. a late player after the cutoff)."""


class StrikeError(RulingsError):
    """A strike that cannot exist (unknown level, unknown season)."""


class BlindStructureError(RulingsError):
    """A blind structure that is unknown or malformed, or an ante above the small blind."""


class ClockError(RulingsError):
    """A tournament-clock request that cannot apply (already paused, no such level, ...)."""


class InvalidCardsError(RulingsError):
    """Cards that cannot be read or cannot be dealt together (bad token, duplicate, count)."""


class InvalidShowdownError(RulingsError):
    """A showdown, equity or pot request that cannot happen at a Hold'em table."""


class UnknownRuleError(RulingsError):
    """A rulebook or section that does not exist (names what does)."""


class RulebookError(RulingsError):
    """A rulebook folder or file that cannot be read, or a book with no rules in it."""


class TournamentError(RulingsError):
    """A tournament-night request that cannot apply (a seat taken, a player already out, ...)."""

"""The one exception tree of pokerfloor: the engine's, storage's and the bot's user errors.

Every ``RulingsError`` is a user mistake or an impossible request; its message is written for
a player or a director and is shown to them as it is (privately on Discord, one line on the
CLI's stderr). Anything else that escapes is a bug. The whole tree (storage's errors live in
``storage/errors.py`` and subclass ``RulingsError``; the bot's own user errors join it the same
way)::

    RulingsError (ValueError)      a refused request, with a readable message
    ├── LeagueConfigError          an unknown preset, or a league setting with a bad value
    ├── EventFormatError           an event record that breaks the format (names row/field)
    │   ├── NameFormatError        a name that is empty, too long or holds a control character
    │   └── ImportFileError        an import file that cannot be read (not a file, too deep)
    ├── StackError                 a starting stack the rules do not allow
    ├── StrikeError                a strike that cannot exist (level, season)
    ├── BlindStructureError        an unknown or malformed blind structure
    ├── ClockError                 a clock request that cannot apply (already paused, ...)
    ├── InvalidCardsError          cards that cannot be read or dealt together
    ├── InvalidShowdownError       a showdown, equity or pot that cannot happen
    ├── UnknownRuleError           a rulebook or section that does not exist
    ├── RulebookError              a rulebook that cannot be read, or has no rules
    ├── TournamentError            a tournament-night request that cannot apply (seat taken, ...)
    ├── NightError                 a scheduled night or RSVP that cannot apply (past, cancelled)
    ├── BotError                   the bot refuses (bot/errors.py; no Discord class)
    │   ├── BadOption              an option that cannot be used (empty, unknown, out of range)
    │   │   └── UnknownCommandError    a line or path that names no command
    │   └── NotDirectorError       a director command (or button) used by someone else
    └── StorageError               storage refuses (storage/errors.py)
        ├── NotFound               a league, season, location, player or event that is not there
        ├── AlreadyExists          something that may exist once exists already
        │   ├── DuplicateReceiptError   a receipt already counted at this location
        │   └── EventConflictError      the same event recorded with other content
        ├── DuplicatePlayerError   a new name close to an existing player's
        ├── UnconfirmedNameError   a result naming a season or location never seen, unconfirmed
        ├── MergeError             two players that cannot be merged
        ├── DatabaseBusyError      the database stayed locked or unreachable: try again soon
        ├── SuspendedPlayerError   a result names a suspended player (3.B), unconfirmed
        ├── UnconfirmedRescoreError    a rule change that re-scores stored events, unconfirmed
        └── BackupError            a backup file that cannot be read, or a refused restore

Catch ``RulingsError`` to answer any user mistake; catch a leaf only where the caller does
something different for it (``DuplicatePlayerError`` offers the existing name). Every surface
turns an exception into what the user sees with ``bot.errors.describe``.
"""

from __future__ import annotations


class RulingsError(ValueError):
    """Base class: a request the rules engine refuses, with a player-readable message."""


class LeagueConfigError(RulingsError):
    """A league preset or override that is unknown or holds a bad value."""


class EventFormatError(RulingsError):
    """An event record (typed, JSON, text or CSV) that breaks the format; names the row/field."""


class NameFormatError(EventFormatError):
    """A player, alias, season or location name: empty, too long, or with a control character."""


class ImportFileError(EventFormatError):
    """An import file that cannot be read: not a regular file, too large, nested too deep."""


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


class NightError(RulingsError):
    """A league night or RSVP request that cannot apply (bad time, past or cancelled night)."""


class TournamentError(RulingsError):
    """A tournament-night request that cannot apply (a seat taken, a player already out, ...)."""

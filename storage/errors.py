"""User-facing storage errors: what a director asked for does not exist, or exists already.

Each message is written for the person who typed the command and is shown to them as it is.
They derive from ``RulingsError`` so the bot and the CLI treat every user mistake the same way;
the whole tree is drawn in one place, the docstring of ``rulings/errors.py``.
"""

from __future__ import annotations

import logging

from rulings import RulingsError

log = logging.getLogger(__name__)


class StorageError(RulingsError):
    """Base class: a storage request refused with a readable message."""


class NotFound(StorageError):
    """A league, season, location, player or event that does not exist."""


class AlreadyExists(StorageError):
    """Something that may exist only once exists already."""


class DuplicatePlayerError(StorageError):
    """A new name is close to an existing player's: probably the same person.

    Attributes:
        name: the name as typed.
        suggestion: the existing player's display name it resembles.
    """

    def __init__(self, name: str, suggestion: str) -> None:
        self.name = name
        self.suggestion = suggestion
        super().__init__(
            f"'{name}' looks like the existing player '{suggestion}'; use '{suggestion}', "
            f"or confirm '{name}' is a new player"
        )


class UnconfirmedNameError(StorageError):
    """A result names a season or location the league has never had; confirm it is new.

    Attributes:
        what: ``season`` or ``location``.
        name: the name as typed.
    """

    def __init__(self, what: str, name: str, known: list[str]) -> None:
        self.what = what
        self.name = name
        listed = ", ".join(known[:5]) + (", ..." if len(known) > 5 else "")
        super().__init__(
            f"'{name}' is a new {what} (the league has {listed}); check the spelling, or "
            f"confirm it is new (confirm:yes)"
        )


class DuplicateReceiptError(AlreadyExists):
    """A receipt reference already counted at this location."""


class EventConflictError(AlreadyExists):
    """An event with the same season, location, date and kind but different content exists."""


class MergeError(StorageError):
    """Two players that cannot be merged (same player, or both played the same event)."""


class DatabaseBusyError(StorageError):
    """The database stayed locked or unreachable through every retry (a transient condition).

    Shown to the user as it is: nothing was changed, and trying again shortly will work.
    """

    def __init__(self, message: str = "The database is busy, try again in a moment.") -> None:
        super().__init__(message)


class SuspendedPlayerError(StorageError):
    """A result names a player under suspension (3.B); recorded only when confirmed.

    Attributes:
        players: the suspended players' names, as recorded.
    """

    def __init__(self, message: str, *, players: list[str]) -> None:
        self.players = players
        super().__init__(message)


class UnconfirmedRescoreError(StorageError):
    """A change of the league's rules would re-score stored events; confirm to apply it.

    Attributes:
        season: the season re-scored.
        events: how many of its events change.
        players: how many players' points change.
    """

    def __init__(self, message: str, *, season: str, events: int, players: int) -> None:
        self.season = season
        self.events = events
        self.players = players
        super().__init__(message)


class BackupError(StorageError):
    """A backup that cannot be written or read, or a restore refused (a non-empty database)."""

"""Blind structures and the tournament clock's maths; time is always a parameter."""

from typing import TYPE_CHECKING

from rulings._exports import lazy_exports

if TYPE_CHECKING:  # at run time a name is imported on first use (rulings._exports)
    from rulings.clock.blinds import (
        BlindLevel,
        BlindStructure,
        Break,
        check_ante,
        load_structure,
        parse_structure,
        preset_names,
    )
    from rulings.clock.timing import (
        Announcement,
        AnnouncementKind,
        ClockAction,
        ClockEvent,
        ClockPosition,
        ClockState,
        announcements_between,
        catch_up,
        format_seconds,
        next_announcement_at,
        position_at,
    )

__all__ = [
    "Announcement",
    "AnnouncementKind",
    "BlindLevel",
    "BlindStructure",
    "Break",
    "ClockAction",
    "ClockEvent",
    "ClockPosition",
    "ClockState",
    "announcements_between",
    "catch_up",
    "check_ante",
    "format_seconds",
    "load_structure",
    "next_announcement_at",
    "parse_structure",
    "position_at",
    "preset_names",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, __all__, ("blinds", "timing"))

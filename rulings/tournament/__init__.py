"""Tournament night: the seating chart and the night's log, seat draw, busts, balancing, finish.

Pure values and functions: every random draw comes from a ``random.Random`` passed in, the
clock's level comes in as a ``LateEntry``, and the finished night becomes a league
``EventRecord`` (``night_event``) for the league's engine to store.
"""

from typing import TYPE_CHECKING

from rulings._exports import lazy_exports

if TYPE_CHECKING:  # at run time a name is imported on first use (rulings._exports)
    from rulings.tournament.chart import (
        MAX_SEATS_PER_TABLE,
        AwardNoted,
        BustedOut,
        ButtonSet,
        Chart,
        Entrant,
        Entry,
        Night,
        NightFinished,
        PlayerMoved,
        PlayStarted,
        Room,
        Seat,
        SeatMove,
        SignedIn,
        TablesBalanced,
        open_night,
        replay_night,
    )
    from rulings.tournament.codec import (
        chart_from_data,
        chart_to_data,
        entry_from_data,
        entry_to_data,
        room_from_data,
        room_to_data,
        snapshot_from_data,
        snapshot_to_data,
    )
    from rulings.tournament.night import (
        LateEntry,
        balance_tables,
        bust_players,
        check_bust,
        chop_heads_up,
        find_player,
        finish_night,
        finish_order,
        move_player,
        night_event,
        note_award,
        set_button,
        sign_in,
        standings_order,
        start_play,
        tables_needed,
        undo_last,
    )

__all__ = [
    "MAX_SEATS_PER_TABLE",
    "AwardNoted",
    "BustedOut",
    "ButtonSet",
    "Chart",
    "Entrant",
    "Entry",
    "LateEntry",
    "Night",
    "NightFinished",
    "PlayStarted",
    "PlayerMoved",
    "Room",
    "Seat",
    "SeatMove",
    "SignedIn",
    "TablesBalanced",
    "balance_tables",
    "bust_players",
    "chart_from_data",
    "chart_to_data",
    "check_bust",
    "chop_heads_up",
    "entry_from_data",
    "entry_to_data",
    "find_player",
    "finish_night",
    "finish_order",
    "move_player",
    "night_event",
    "note_award",
    "open_night",
    "replay_night",
    "room_from_data",
    "room_to_data",
    "set_button",
    "sign_in",
    "snapshot_from_data",
    "snapshot_to_data",
    "standings_order",
    "start_play",
    "tables_needed",
    "undo_last",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, __all__, ("chart", "codec", "night"))

"""Words of a player's own reported bust (``/out``, "I'm out"): pure functions of values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.features.td.approval import answer_buttons
from bot.reply import Reply, escape

if TYPE_CHECKING:
    from rulings import Seat
    from storage.bust_reports import BustReportInfo

REPORT = "bust_report"
"""The action of a report's Confirm and Reject buttons."""


def reported(name: str) -> Reply:
    """To the player: his report is with the directors and counts for nothing yet."""
    return Reply(
        title="Bust reported",
        text=f"**{escape(name)}**: a director will confirm your bust; until then nothing "
        "counts and your seat is yours.",
        private=True,
    )


def report_post(report: BustReportInfo, location: str, seat: Seat | None) -> Reply:
    """For the directors (results channel): the report, with Confirm and Reject."""
    where = f" ({seat})" if seat is not None else ""
    return Reply(
        title=f"Bust reported: {escape(location)}",
        text=f"**{escape(report.name)}**{where} says he is out. Confirm records his bust as "
        "/tournament bust does (/tournament undo takes it back); Reject drops the report.",
        footer=f"Reported by <@{report.discord_id}>; not counted until a director confirms.",
        buttons=answer_buttons(REPORT, report.id, ("Confirm", "confirm"), ("Reject", "reject")),
    )


def report_answered(report: BustReportInfo, director: str, busted: Reply | None) -> Reply:
    """The report once answered (the buttons go): the bust as recorded, or the rejection."""
    who = f"reported by <@{report.discord_id}>"
    if busted is None:
        return Reply(
            title="Bust report rejected",
            text=f"{escape(report.name)} stays in: rejected by {escape(director)} ({who}).",
        )
    return Reply(
        title="Bust confirmed",
        text=f"Confirmed by {escape(director)} ({who}).\n{busted.text}",
        footer=busted.footer,
    )

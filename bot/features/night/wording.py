"""What the league-night commands say: pure functions of values, the same on every surface."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import rulings
from bot.features.td.approval import answer_buttons
from bot.reply import Reply, escape, plural

_EVERY = {1: "every week", 2: "every other week"}


def _weekday(series: rulings.NightSeries) -> str:
    return rulings.WEEKDAYS[series.weekday].capitalize()


def _when(series: rulings.NightSeries) -> str:
    every = _EVERY.get(series.every_weeks, f"every {series.every_weeks} weeks")
    ends = f", until {series.ends.isoformat()}" if series.ends else ""
    return f"{_weekday(series)}s at {series.start.strftime('%H:%M')}, {every}{ends}"


def _reminder(series: rulings.NightSeries) -> str:
    minutes = int(series.remind.total_seconds() // 60)
    if not minutes:
        return "No reminder."
    hours, rest = divmod(minutes, 60)
    lead = f"{hours} h {rest} min" if hours and rest else (f"{hours} h" if hours else f"{rest} min")
    return f"Reminder {lead} before, to the players who RSVP'd."


def _day(day: dt.date) -> str:
    return f"{day.strftime('%a')} {day.isoformat()}"


def _dates(dates: Sequence[dt.date]) -> str:
    return ", ".join(_day(d) for d in dates) if dates else "none left"


def scheduled_reply(series: rulings.NightSeries, dates: Sequence[dt.date]) -> Reply:
    """A new weekly night."""
    return Reply(
        title=f"League night: {escape(series.location)}",
        text=f"{_when(series)} ({series.hours} hours, 2.F.a).\nNext: {_dates(dates)}\n"
        f"{_reminder(series)}",
        footer="Players say they are coming with /rsvp (or Interested on the Discord event).",
    )


def list_reply(
    found: Sequence[tuple[rulings.NightSeries, Sequence[dt.date]]],
) -> Reply:
    """Every series with its next dates."""
    if not found:
        return Reply(
            title="League nights",
            text="No weekly night yet: /td night schedule location weekday time",
            private=True,
        )
    lines = [f"**{escape(s.location)}**: {_when(s)}; next {_dates(d)}" for s, d in found]
    return Reply(title="League nights", text="\n".join(lines), private=True)


def cancelled_reply(series: rulings.NightSeries, day: dt.date | None) -> Reply:
    """One night called off, or the whole series."""
    if day is None:
        return Reply(
            title="League night cancelled",
            text=f"{escape(series.location)}: the {_weekday(series)} series is removed.",
        )
    return Reply(
        title="League night cancelled",
        text=f"{escape(series.location)}: no night on {_day(day)}.",
    )


def noshows_reply(counts: Sequence[tuple[str, int]], season: str) -> Reply:
    """No-shows per player (kept private: it is for the directors)."""
    if not counts:
        return Reply(
            title=f"No-shows: {season}", text="Nobody missed a night they RSVP'd to.", private=True
        )
    lines = [f"{escape(name)}: {plural(n, 'night')}" for name, n in counts]
    return Reply(title=f"No-shows: {season}", text="\n".join(lines), private=True)


def rsvp_reply(
    series: rulings.NightSeries, day: dt.date, name: str, added: bool, coming: int
) -> Reply:
    """A name put on a night's list (or already there)."""
    what = "is coming" if added else "was already on the list"
    return Reply(
        title=f"RSVP: {escape(series.location)}, {_day(day)}",
        text=f"{escape(name)} {what}. {plural(coming, 'player')} coming.",
        private=True,
    )


def rsvp_cancelled_reply(
    series: rulings.NightSeries, day: dt.date, name: str, removed: bool, coming: int
) -> Reply:
    """A name taken off a night's list."""
    what = "is off the list" if removed else "was not on the list"
    return Reply(
        title=f"RSVP: {escape(series.location)}, {_day(day)}",
        text=f"{escape(name)} {what}. {plural(coming, 'player')} coming.",
        private=True,
    )


def night_reply(
    series: rulings.NightSeries, day: dt.date, names: Sequence[str], zone: str
) -> Reply:
    """Who is coming: the count first, then the names in the order they said so."""
    start, _ = rulings.night_window(series, day, zone)
    listed = "\n".join(escape(n) for n in names) or "Nobody yet: be the first (/rsvp)."
    return Reply(
        title=f"{escape(series.location)}, {_day(day)} at {series.start.strftime('%H:%M')}",
        text=f"**{plural(len(names), 'player')} coming**\n{listed}",
        footer=f"Starts <t:{int(start.timestamp())}:R>",
    )


def no_shows_notice(location: str, day: dt.date, names: Sequence[str]) -> Reply:
    """For the directors after a finish: who RSVP'd and never signed in."""
    listed = ", ".join(escape(n) for n in names)
    return Reply(
        title=f"No-shows: {escape(location)}, {_day(day)}",
        text=f"RSVP'd and did not sign in ({len(names)}): {listed}",
        footer="For the directors; /td night noshows counts them over the season.",
    )


def checkin_asked(name: str) -> Reply:
    """To the player: his request is with the directors."""
    return Reply(
        title="Check-in asked",
        text=f"{escape(name)}: a director will confirm your sign-in; nothing counts before.",
    )


def checkin_request(name: str, location: str, request_id: int) -> Reply:
    """For the directors: a player asks to be signed in, with Approve and Refuse."""
    return Reply(
        title=f"Check-in: {escape(location)}",
        text=f"**{escape(name)}** asks to be signed in to tonight's tournament.",
        buttons=answer_buttons("checkin", request_id, ("Approve", "approve"), ("Refuse", "refuse")),
    )


def checkin_answered(name: str, director: str, signed: Reply | None) -> Reply:
    """The request once answered (the buttons go): the sign-in, or the refusal."""
    if signed is None:
        return Reply(
            title="Check-in refused", text=f"{escape(name)}: refused by {escape(director)}."
        )
    return Reply(
        title="Check-in approved",
        text=f"Approved by {escape(director)}.\n{signed.text}",
        footer=signed.footer,
    )

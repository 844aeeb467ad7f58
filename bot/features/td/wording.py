"""Director (/td) wording, used by the handlers in ``bot.features.td.handlers``.

Parsing of options (finish text, uploads, names, dates) and the replies confirming each write:
what changed and the points it produced. Pure functions of values: the storage calls that
resolve a server's league first are in ``bot.features.td.by_server``.
"""

from __future__ import annotations

import csv
import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

import rulings
from bot.errors import BadOption
from bot.features.league import wording as views
from bot.reply import Field, Reply, escape, plural
from rulings import (
    EventFormatError,
    EventRecord,
    LeagueRules,
    parse_finish_csv,
    rule_citation,
    suspension_events,
)
from storage.event_changes import RecordBuilder
from storage.event_files import decode_event_json
from storage.events import (
    EventSummary,
    ImportOutcome,
    parse_events,
)
from storage.guild_settings import GuildSettings
from storage.league_rules import RulesChange
from storage.leagues import (
    LocationInfo,
)
from storage.players import StrikeInfo
from storage.seasons import SeasonInfo

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 1_000_000
"""The largest results file a director may attach (JSON or CSV)."""

MAX_NAMES = 200


# -- option parsing --------------------------------------------------------------------------


def parse_names(text: str | None, what: str) -> tuple[str, ...]:
    """Split a comma- or line-separated list of names (``"Gus, Hal"``).

    Raises:
        BadOption: more than ``MAX_NAMES`` names.
    """
    if not text:
        return ()
    names = tuple(" ".join(n.split()) for n in text.replace("\n", ",").split(","))
    names = tuple(n for n in names if n)
    if len(names) > MAX_NAMES:
        raise BadOption(f"{what}: at most {MAX_NAMES} names.")
    return names


def parse_day(text: str | None, today: dt.date) -> dt.date:
    """An event date: ISO ``2026-11-20``, ``today`` or ``yesterday`` (default today).

    Raises:
        EventFormatError: not a date.
    """
    if text is None or not text.strip() or text.strip().lower() == "today":
        return today
    if text.strip().lower() == "yesterday":
        return today - dt.timedelta(days=1)
    return rulings.parse_date(text.strip())


def _season_or_current(season: str | None, current: str | None) -> str:
    if season and season.strip():
        return season
    if current is None:
        raise EventFormatError("season: there is no season yet; give the season's name")
    return current


def text_event_builder(
    *,
    finish: str,
    location: str,
    day: dt.date,
    season: str | None = None,
    kind: str = "regular",
    played: Sequence[str] = (),
) -> RecordBuilder:
    """Build one event from a typed finish list (``1 Alice, 2 Bob, 3 Carol=Dave``).

    The season defaults to the current one (the season of the latest event).
    """

    def build(rules: rulings.LeagueRules, current: str | None) -> list[EventRecord]:
        return [
            rulings.build_event(
                season=_season_or_current(season, current),
                location=location,
                date=day,
                kind=kind,
                finish=rulings.parse_finish_text(finish),
                played=played,
                max_receipt_cents=rules.receipt_max_cents,
            )
        ]

    return build


def check_upload(filename: str, size: int) -> str:
    """Check an attached results file before downloading it.

    Returns:
        Its kind: ``json`` or ``csv``.

    Raises:
        BadOption: another kind of file, or larger than ``MAX_UPLOAD_BYTES``.
    """
    kind = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if kind not in ("json", "csv"):
        raise BadOption(f"{filename}: attach a .json or .csv results file.")
    if size > MAX_UPLOAD_BYTES:
        raise BadOption(
            f"{filename} is {size:,} bytes; results files are at most {MAX_UPLOAD_BYTES:,}."
        )
    return kind


def upload_builder(
    *,
    filename: str,
    data: bytes,
    day: dt.date,
    location: str | None = None,
    season: str | None = None,
    kind: str = "regular",
    played: Sequence[str] = (),
) -> RecordBuilder:
    """Build events from an attached file: the JSON import format, or a ``position,player`` CSV.

    A JSON file carries its own season, location, date and kind; a CSV file holds only the
    finish order and takes them from the command's options.

    Raises:
        BadOption: a file that is not UTF-8, or a CSV without a location.
        EventFormatError: malformed content (raised when the builder runs).
    """
    file_kind = check_upload(filename, len(data))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadOption(f"{filename} is not UTF-8 text.") from None
    if file_kind == "json":
        parsed = decode_event_json(text, filename)

        def build_json(rules: rulings.LeagueRules, current: str | None) -> list[EventRecord]:
            return parse_events(parsed, rules=rules, season=current)

        return build_json
    if not location:
        raise BadOption("a CSV finish list needs the location option (and season, date, kind).")
    try:
        finish = parse_finish_csv(text)
    except csv.Error as exc:
        raise EventFormatError(f"{filename}: {exc}") from None

    def build_csv(rules: rulings.LeagueRules, current: str | None) -> list[EventRecord]:
        return [
            rulings.build_event(
                season=_season_or_current(season, current),
                location=location,
                date=day,
                kind=kind,
                finish=finish,
                played=played,
                max_receipt_cents=rules.receipt_max_cents,
            )
        ]

    return build_csv


def allow_new_names(confirm: bool, new_players: str | None) -> bool | tuple[str, ...]:
    """What ``import_events(allow_new=...)`` gets: every new name, or those listed."""
    return True if confirm else parse_names(new_players, "new_players")


# -- replies -----------------------------------------------------------------------------------


def recorded_reply(
    outcomes: Sequence[ImportOutcome], *, change: str | None = None, reason: str | None = None
) -> Reply:
    """Confirm a write of events: what changed and the points each player got."""
    if len(outcomes) != 1:
        return views.import_report_reply(outcomes)
    reply = views.event_summary_reply(outcomes[0])
    extra = [
        line
        for line in (
            f"Change: {change}" if change else None,
            points_changed_line(outcomes[0].changes) if outcomes[0].changes else None,
            f"Reason: {reason}" if reason else None,
        )
        if line
    ]
    if not extra:
        return reply
    return replace(reply, text="\n".join([reply.text, *extra]))


def _signed(value: int, unit: str) -> str:
    return f"{'+' if value > 0 else '−'}{abs(value):,} {unit}"


def points_changed_line(changes: Mapping[str, tuple[int, int]]) -> str:
    """Say whose points a change moved and by how much (``Points: Bob −2,000 BP``)."""
    parts = []
    for player, (rp, bp) in changes.items():
        moved = [_signed(v, u) for v, u in ((rp, "RP"), (bp, "BP")) if v]
        parts.append(f"{escape(player)} {', '.join(moved)}")
    return "Points: " + "; ".join(parts)


def rules_change_reply(change: RulesChange) -> Reply:
    """Confirm a change of the league's rules and what it re-scored (issue 11, point 7)."""
    if change.events:
        whose = "1 player's" if change.players == 1 else f"{change.players:,} players'"
        text = (
            f"Re-scored {change.events:,} stored event{'s' if change.events != 1 else ''} of "
            f"{escape(change.season or '')}: {whose} points changed."
        )
    elif change.season:
        text = f"No stored points of {escape(change.season)} change."
    else:
        text = "No events are stored yet."
    return Reply(title="League rules changed", text=text)


def void_reply(event: EventSummary) -> Reply:
    """Confirm a voided event."""
    return Reply(
        title=f"Event #{event.id} voided",
        text=(
            f"{escape(event.label)} no longer counts in the standings "
            f"({plural(event.players, 'player')}).\n"
            f"Reason: {escape(event.void_reason or '')}"
        ),
        footer="The event and its points stay on record in the audit log.",
    )


def strike_reply(strike: StrikeInfo, rules: LeagueRules) -> Reply:
    """Confirm a strike and say what it means under the league's ``rules`` (3.B)."""
    events = suspension_events(strike.level, rules)
    if strike.level >= rules.strike_forfeit_level:
        meaning = "Suspended for the rest of the season and the TOC; the season's points are lost."
    else:
        meaning = f"Suspended for the next {plural(events or 0, 'event')}."
    given = f"\nGiven: {strike.date.isoformat()}" if strike.date else ""
    return Reply(
        title=f"Strike {strike.level} for {escape(strike.player)}",
        text=(
            f"{meaning}\nSeason: {escape(strike.season)}{given}\nReason: {escape(strike.reason)}"
        ),
        citation=rule_citation(rules, "strikes"),
    )


def season_added_reply(season: SeasonInfo) -> Reply:
    """Confirm a new season, which is now the current one."""
    return Reply(
        title="Season added",
        text=(
            f"**{escape(season.name)}** is now the current season: results without a season "
            "go to it, and /standings and /toc show it."
        ),
    )


def seasons_reply(seasons: Sequence[SeasonInfo]) -> Reply:
    """The league's seasons, oldest first, the current one marked."""
    if not seasons:
        return Reply(title="Seasons", text="No seasons yet.")
    lines = [f"• {escape(s.name)}{' (current)' if s.is_current else ''}" for s in seasons]
    return Reply(title="Seasons", text="\n".join(lines))


def current_season_reply(season: SeasonInfo, *, changed: bool) -> Reply:
    """The current season, or the confirmation that it changed."""
    if changed:
        return Reply(
            title="Current season changed",
            text=(
                f"**{escape(season.name)}** is now the current season: results without a season go "
                "to it, and /standings and /toc show it."
            ),
        )
    return Reply(title="Current season", text=f"**{escape(season.name)}**")


def location_added_reply(location: LocationInfo) -> Reply:
    """Confirm a new location."""
    return Reply(title="Location added", text=f"**{escape(location.name)}** can host events now.")


def names_reply(title: str, names: Sequence[str], *, empty: str) -> Reply:
    """A plain list of names (seasons, locations)."""
    return Reply(title=title, text="\n".join(f"• {escape(n)}" for n in names) if names else empty)


def _mention(kind: str, value: int | None) -> str:
    if value is None:
        return "not set"
    return f"<#{value}>" if kind == "channel" else f"<@&{value}>"


def settings_reply(
    after: GuildSettings,
    before: GuildSettings | None = None,
    rescored: RulesChange | None = None,
) -> Reply:
    """Show a server's settings; with ``before``, mark what changed.

    ``rescored`` is what a preset change re-scored (issue 11, point 7).
    """
    rows = (
        ("Director role", _mention("role", after.director_role_id), "director_role_id"),
        ("Results channel", _mention("channel", after.results_channel_id), "results_channel_id"),
        ("Clock ping role", _mention("role", after.clock_ping_role_id), "clock_ping_role_id"),
        ("Rules preset", after.preset, "preset"),
        ("Rulebook", after.rulebook or "not set (the default home book)", "rulebook"),
        ("Live page", "on" if after.live_page else "off (hidden)", "live_page"),
        ("Clock TTS", "on" if after.clock_tts else "off", "clock_tts"),
        ("Self check-in", "on" if after.self_checkin else "off", "self_checkin"),
        ("Night thread", "on" if after.night_thread else "off", "night_thread"),
        ("Self-reported busts", "on" if after.self_report else "off", "self_report"),
    )
    old = before.as_dict() if before is not None else None
    new = after.as_dict()
    fields = tuple(
        Field(
            name + (" (changed)" if old is not None and old.get(key) != new.get(key) else ""),
            value,
            inline=True,
        )
        for name, value, key in rows
    )
    return Reply(
        title="League settings" if before is None else "League settings changed",
        text=rules_change_reply(rescored).text if rescored is not None else "",
        fields=fields,
        footer="Directors: the director role or Manage Server.",
    )


def announcement(reply: Reply, by: str) -> Reply:
    """The public copy of a confirmation for the results channel."""
    footer = " · ".join(p for p in (reply.footer, f"Recorded by {by}") if p)
    return replace(reply, private=False, footer=footer)

"""/td: the director's commands.

Every write is audited with ``ctx.actor``, confirmed with what changed, and
(``Effect("announce")``) posted to the league's results channel on Discord.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import replace
from typing import Any

import rulings
from bot.command.model import Context, Upload
from bot.errors import BadOption, NotDirectorError
from bot.features.td import by_server
from bot.features.td import wording as views
from bot.features.td.announce import announced
from bot.features.tournament.views import NightAward, note_award
from bot.reply import Effect, Field, Reply, escape
from storage.event_changes import EventEdit, RecordBuilder

log = logging.getLogger(__name__)


def season_add(ctx: Context, name: str) -> Reply:
    """``/td season add name``: start a new season."""
    with ctx.transaction() as session:
        info = by_server.season_add_for(
            session=session, guild_id=ctx.guild_id, name=name, actor=ctx.actor
        )
    return announced(ctx, views.season_added_reply(info))


def season_list(ctx: Context) -> Reply:
    """``/td season list``: the league's seasons, oldest first, the current one marked."""
    with ctx.transaction() as session:
        found = by_server.seasons_for(session=session, guild_id=ctx.guild_id)
    return replace(views.seasons_reply(found), private=True)


def season_current(ctx: Context, name: str | None = None) -> Reply:
    """``/td season current [name]``: show the current season, or make ``name`` current."""
    if name is None:
        with ctx.transaction() as session:
            found = by_server.current_season_for(session=session, guild_id=ctx.guild_id)
        return replace(views.current_season_reply(found, changed=False), private=True)
    with ctx.transaction() as session:
        found = by_server.set_current_season_for(
            session=session, guild_id=ctx.guild_id, name=name, actor=ctx.actor
        )
    return announced(ctx, views.current_season_reply(found, changed=True))


def location_add(ctx: Context, name: str, confirm: bool = False) -> Reply:
    """``/td location add name [confirm]``: a new host location."""
    with ctx.transaction() as session:
        info = by_server.location_add_for(
            session=session, guild_id=ctx.guild_id, name=name, actor=ctx.actor, confirm=confirm
        )
    return announced(ctx, views.location_added_reply(info))


def location_list(ctx: Context) -> Reply:
    """``/td location list``: the league's host locations by name."""
    with ctx.transaction() as session:
        found = by_server.locations_for(session=session, guild_id=ctx.guild_id)
    reply = views.names_reply("Locations", [x.name for x in found], empty="No locations yet.")
    return replace(reply, private=True)


# -- results -----------------------------------------------------------------------------------


def _allow(confirm: bool, new_players: str | None) -> bool | tuple[str, ...]:
    return views.allow_new_names(confirm, new_players)


def _record(
    ctx: Context, build: RecordBuilder, allow: bool | tuple[str, ...], confirm: bool
) -> Reply:
    with ctx.transaction() as session:
        outcomes = by_server.record_for(
            session=session,
            guild_id=ctx.guild_id,
            build=build,
            actor=ctx.actor,
            allow_new=allow,
            allow_suspended=confirm,
        )
    return announced(ctx, views.recorded_reply(outcomes))


def result(
    ctx: Context,
    finish: str | None = None,
    location: str | None = None,
    season: str | None = None,
    date: dt.date | None = None,
    kind: str = "regular",
    played: str | None = None,
    file: Upload | None = None,
    new_players: str | None = None,
    confirm: bool = False,
) -> Reply:
    """``/td result finish|file location ...``: record a night, all or nothing."""
    if (finish is None) == (file is None):
        raise BadOption("Give the finish order as text or as an attached file (one of them).")
    day = date or ctx.today()
    others = views.parse_names(played, "played")
    build: RecordBuilder
    if file is not None:
        build = views.upload_builder(
            filename=file.filename,
            data=file.data,
            day=day,
            location=location,
            season=season,
            kind=kind,
            played=others,
        )
    else:
        assert finish is not None
        if location is None:
            raise BadOption("Give the location of the event.")
        build = views.text_event_builder(
            finish=finish, location=location, day=day, season=season, kind=kind, played=others
        )
    return _record(ctx, build, _allow(confirm, new_players), confirm)


def _amend(
    ctx: Context,
    event: int,
    edit: EventEdit,
    *,
    reason: str | None = None,
    allow: bool | tuple[str, ...] = False,
    confirm: bool = False,
    unvoid: bool = False,
) -> Reply:
    with ctx.transaction() as session:
        outcome = by_server.amend_for(
            session=session,
            guild_id=ctx.guild_id,
            event_id=event,
            edit=edit,
            actor=ctx.actor,
            reason=reason,
            allow_new=allow,
            allow_suspended=confirm,
            unvoid=unvoid,
        )
    if outcome.status == "unchanged":
        return Reply(
            title=f"Event #{event} unchanged",
            text=f"It already says that ({escape(edit.describe())}).",
            private=True,
        )
    return announced(ctx, views.recorded_reply([outcome], change=edit.describe(), reason=reason))


def correct(
    ctx: Context,
    event: int,
    finish: str,
    reason: str,
    played: str | None = None,
    new_players: str | None = None,
    confirm: bool = False,
    unvoid: bool = False,
) -> Reply:
    """``/td correct event finish reason``: replace an event's finish order (audited).

    A void event is refused unless ``unvoid`` (it is corrected and counts again).
    """
    edit = EventEdit(
        finish=rulings.parse_finish_text(finish),
        played=views.parse_names(played, "played") if played is not None else None,
    )
    return _amend(
        ctx,
        event,
        edit,
        reason=reason,
        allow=_allow(confirm, new_players),
        confirm=confirm,
        unvoid=unvoid,
    )


def void(ctx: Context, event: int, reason: str) -> Reply:
    """``/td void event reason``: the event stays on record but no longer counts."""
    with ctx.transaction() as session:
        summary = by_server.void_for(
            session=session, guild_id=ctx.guild_id, event_id=event, reason=reason, actor=ctx.actor
        )
    return announced(ctx, views.void_reply(summary))


def events(ctx: Context, season: str | None = None) -> Reply:
    """``/td events [season]``: a season's events with their numbers."""
    from bot.features.league import wording as league_views

    with ctx.transaction() as session:
        found = by_server.events_for(session=session, guild_id=ctx.guild_id, season=season)
    if ctx.surface == "discord":
        page = league_views.event_list_pages(found)[-1]  # the latest events
    else:
        page = league_views.event_list_pages(found, per_page=1_000_000, char_limit=1 << 30)[0]
    return replace(page, private=True)


# -- awards ------------------------------------------------------------------------------------


def bounty(
    ctx: Context,
    player: str,
    event: int | None = None,
    chips: int | None = None,
    remove: bool = False,
    confirm: bool = False,
) -> Reply:
    """``/td bounty player [event] chips [remove]``: a player's bounty chips (replaces the number).

    ``chips:0`` or ``remove:yes`` takes the bounty back. Without ``event``: tonight's
    tournament in this channel, stored with its result at the finish.
    """
    if chips is None and not remove:
        raise BadOption("chips: give the bounty chips turned in (0 or remove:yes takes them back).")
    if event is None:
        return _tonight(ctx, "bounty", player, chips=0 if remove else chips or 0)
    edit = EventEdit(bounty=(player, chips or 0), remove=remove or not chips)
    return _amend(ctx, event, edit, allow=confirm, confirm=confirm)


def premium(
    ctx: Context,
    player: str,
    hand: str,
    event: int | None = None,
    remove: bool = False,
    confirm: bool = False,
) -> Reply:
    """``/td premium player hand [event] [remove]``: a premium hand won at showdown (or back)."""
    if event is None:
        return _tonight(ctx, "premium", player, hand=hand, remove=remove)
    edit = EventEdit(premium_hand=(player, hand), remove=remove)
    return _amend(ctx, event, edit, allow=confirm, confirm=confirm)


def second_chance(
    ctx: Context,
    player: str,
    event: int | None = None,
    remove: bool = False,
    confirm: bool = False,
) -> Reply:
    """``/td second_chance player [event] [remove]``: a second-chance win, or take one back."""
    if event is None:
        return _tonight(ctx, "second_chance", player, remove=remove)
    edit = EventEdit(second_chance_winner=player, remove=remove)
    return _amend(ctx, event, edit, allow=confirm, confirm=confirm)


def _tonight(ctx: Context, award: NightAward, player: str, **options: Any) -> Reply:
    """An award without ``event``: noted on this channel's open tournament (no event yet)."""
    return note_award(ctx, award, player, **options)


def receipt(
    ctx: Context,
    event: int,
    player: str,
    amount: str | None = None,
    ref: str | None = None,
    photo: str | None = None,
    remove: bool = False,
    confirm: bool = False,
) -> Reply:
    """``/td receipt event player amount [ref] [photo] [remove]``: bonus points for a receipt.

    ``remove:yes`` takes a receipt back: by its ``ref`` (any case), else the player's receipt of
    that ``amount``.
    """
    if remove and not (ref and ref.strip()) and amount is None:
        raise BadOption("To remove a receipt, give its ref (or its amount).")
    if amount is None and not remove:
        raise BadOption("amount: give the receipt's amount in dollars, e.g. 12.50.")
    cents = rulings.parse_amount_cents(amount, "receipt") if amount is not None else 0
    edit = EventEdit(receipt=rulings.Receipt(player, cents, ref, photo), remove=remove)
    return _amend(ctx, event, edit, allow=confirm, confirm=confirm)


def strike(
    ctx: Context,
    player: str,
    level: int,
    reason: str,
    season: str | None = None,
    date: dt.date | None = None,
) -> Reply:
    """``/td strike player level reason [season] [date]``: a strike (3.B).

    Given today (``TIMEZONE``) or on ``date``; the suspension counts the events after that day.
    """
    with ctx.transaction() as session:
        info, rules = by_server.strike_for(
            session=session,
            guild_id=ctx.guild_id,
            player=player,
            level=level,
            reason=reason,
            season=season,
            actor=ctx.actor,
            day=date or ctx.today(),
        )
    return announced(ctx, views.strike_reply(info, rules))


# -- settings ----------------------------------------------------------------------------------

_DISCORD_ONLY = (
    "director_role",
    "results_channel",
    "clock_ping_role",
    "rulebook",
    "live_page",
    "clock_tts",
    "self_checkin",
    "night_thread",
    "self_report",
)


def _known_book(ctx: Context, name: str) -> str:
    """A loaded rulebook's name, as the index spells it.

    Raises:
        BadOption: no loaded book has that name (nothing is written).
    """
    books = ctx.rules().book_names
    found = next((b for b in books if b.lower() == name.strip().lower()), None)
    if found is None:
        shown = name.strip()[:100]  # the Discord adapter escapes what it echoes
        raise BadOption(f"There is no rulebook called '{shown}'; try: {', '.join(books)}.")
    return found


def settings(
    ctx: Context,
    director_role: int | None = None,
    results_channel: int | None = None,
    clock_ping_role: int | None = None,
    preset: str | None = None,
    rulebook: str | None = None,
    clear: str | None = None,
    confirm: bool = False,
    live_page: str | None = None,
    clock_tts: str | None = None,
    self_checkin: str | None = None,
    night_thread: str | None = None,
    self_report: str | None = None,
) -> Reply:
    """``/td settings [...]``: show the league's settings, or change them (Manage Server).

    A preset change that re-scores the current season's stored events needs ``confirm``.
    """
    from storage.guild_settings import KEEP, get_guild_settings, update_guild_settings

    values: dict[str, Any] = {
        "director_role_id": director_role if director_role is not None else KEEP,
        "results_channel_id": results_channel if results_channel is not None else KEEP,
        "clock_ping_role_id": clock_ping_role if clock_ping_role is not None else KEEP,
        "rulebook": rulebook if rulebook is not None else KEEP,
        "live_page": KEEP if live_page is None else live_page == "on",
        "clock_tts": KEEP if clock_tts is None else clock_tts == "on",
        "self_checkin": KEEP if self_checkin is None else self_checkin == "on",
        "night_thread": KEEP if night_thread is None else night_thread == "on",
        "self_report": KEEP if self_report is None else self_report == "on",
    }
    if clear is not None:
        key = clear if clear == "rulebook" else f"{clear}_id"
        if values[key] is not KEEP:
            raise BadOption(f"Either set {clear} or clear it, not both.")
        values[key] = None
    changing = preset is not None or any(v is not KEEP for v in values.values())
    if changing and not ctx.is_manager:
        # A director may look; only a server manager may move the director role itself.
        raise NotDirectorError("Only members with Manage Server can change league settings.")
    if isinstance(values["rulebook"], str):
        values["rulebook"] = _known_book(ctx, values["rulebook"])
    if ctx.guild_id is None:
        return _own_league_settings(ctx, preset, values, confirm)
    with ctx.transaction() as session:
        if not changing:
            shown = views.settings_reply(get_guild_settings(session=session, guild_id=ctx.guild_id))
            return replace(_with_failed_posts(session, ctx.guild_id, shown), private=True)
        rescored = by_server.preview_preset_for(
            session=session, guild_id=ctx.guild_id, preset=preset
        )
        before, after = update_guild_settings(
            session=session,
            guild_id=ctx.guild_id,
            actor=ctx.actor,
            preset=preset,
            confirm=confirm,
            **values,
        )
    reply = announced(ctx, views.settings_reply(after, before, rescored), private=True)
    if after.rulebook != before.rulebook:
        # Build the home book's index now (off the loop) so that no /rule waits for it.
        reply = replace(reply, effects=(Effect("rule_home", after.rulebook), *reply.effects))
    return reply


def _with_failed_posts(session: Any, guild_id: int, shown: Reply) -> Reply:
    """The settings, with the server's last posts Discord refused (and the fix), when any."""
    from bot.features.admin.wording import failures_field
    from storage.post_failures import list_post_failures

    failed = list_post_failures(session=session, guild_id=guild_id, limit=3)
    return replace(shown, fields=(*shown.fields, failures_field(failed))) if failed else shown


def _own_league_settings(
    ctx: Context, preset: str | None, values: dict[str, Any], confirm: bool = False
) -> Reply:
    """The settings of the database's own league (no Discord server): only its preset."""
    from storage.guild_settings import KEEP
    from storage.league_rules import update_league_rules
    from storage.leagues import ensure_league

    given = [
        name for name, key in zip(_DISCORD_ONLY, values, strict=True) if values[key] is not KEEP
    ]
    if given:
        raise BadOption(
            f"{given[0]} belongs to a Discord server's league; give its id with --guild."
        )
    with ctx.transaction() as session:
        league = ensure_league(session=session, actor=ctx.actor)
        change = None
        if preset is not None:
            change = update_league_rules(
                session=session,
                league_id=league.id,
                preset=preset,
                overrides=dict(league.overrides),
                actor=ctx.actor,
                confirm=confirm,
            )
    return Reply(
        title="League settings" if preset is None else "League settings changed",
        text=views.rules_change_reply(change).text if change is not None else "",
        fields=(Field("Rules preset", preset or league.preset, inline=True),),
        footer="Roles, channels and the home rulebook belong to a Discord server (--guild ID).",
        private=True,
    )

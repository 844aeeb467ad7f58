"""Tournament of Champions qualification and extra starting chips (BTown 4.B-4.D, 4.G, 1.B.b).

A player qualifies with at least ``toc_rp_required`` RP and ``toc_bp_required`` BP. A player
short of RP but holding at least half of it (``toc_conversion_min_rp_percent``) may convert
BP to RP, at ``toc_conversion_bp_per_rp`` BP per missing RP on top of the BP requirement,
and then starts with no extra chips. A qualified player with more than the required BP
starts with extra chips equal to the BP rounded up to the next hundred; a points champion
starts with the larger of that and the title's stack, never both, and only one title
counts. Staff (4.G) start with the larger of the league average extra stack and their own.

Curly, with 1,000 RP / 1,000 BP required, 600 RP and 3,000 BP, converts:

>>> from rulings.league.rules import load_league_rules
>>> rules = load_league_rules(overrides={"toc_rp_required": 1000, "toc_bp_required": 1000})
>>> toc_table([StandingRow("Curly", 600, 3000, 10)], rules)[0].status
'conversion'
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from rulings.errors import LeagueConfigError
from rulings.league.names import name_key
from rulings.league.rules import LeagueRules
from rulings.league.standings import StandingRow, champion, rank_standings

log = logging.getLogger(__name__)

TocStatusKind = Literal["qualified", "conversion", "not_qualified", "forfeited"]
_QUALIFIED = ("qualified", "conversion")


@dataclass(frozen=True)
class TocStatus:
    """One player's TOC standing.

    Attributes:
        player: Display name.
        status: ``qualified``, ``conversion`` (qualified by converting BP), ``not_qualified``,
            or ``forfeited`` (strike 3 this season: points and the TOC are lost, 3.B.a).
        extra_chips: Extra starting chips at the TOC (0 unless qualified).
        rp_short: RP still missing to qualify outright (0 once qualified).
        bp_short: BP still missing (0 once qualified); for a player who may convert, the BP
            still missing to cover the conversion.
        reason: A sentence for the director, with the numbers.
        titles: Championships held (``rp_champion``, ``bp_champion``, ``location_champion``).
        bp_short_outright: For a player who may convert (4.D), the BP still missing to
            qualify without converting, beside the ``rp_short`` RP; None when converting is
            not open to him (``bp_short`` is then that number).
    """

    player: str
    status: TocStatusKind
    extra_chips: int
    rp_short: int
    bp_short: int
    reason: str
    titles: tuple[str, ...] = ()
    bp_short_outright: int | None = None

    def short_text(self) -> str:
        """What the player is short, each route once ("" unless not qualified).

        >>> TocStatus("Bea", "not_qualified", 0, 200, 1650, "", (), 1250).short_text()
        '200 RP and 1,250 BP, or 1,650 BP by conversion'
        """
        if self.status != "not_qualified":
            return ""
        outright_bp = self.bp_short if self.bp_short_outright is None else self.bp_short_outright
        outright = _both(self.rp_short, outright_bp)
        if self.bp_short_outright is None:
            return outright
        return f"{outright}, or {_n(self.bp_short)} BP by conversion"


def _more(rp: int, bp: int) -> str:
    """``200 more RP and 1,250 more BP`` (a zero left out)."""
    return _both(rp, bp).replace(" RP", " more RP").replace(" BP", " more BP")


def _both(rp: int, bp: int) -> str:
    parts = [f"{_n(rp)} RP"] if rp else []
    if bp:
        parts.append(f"{_n(bp)} BP")
    return " and ".join(parts)


def round_up(value: int, step: int) -> int:
    """Round up to a multiple of ``step``.

    Args:
        value: A whole number >= 0.
        step: The multiple, >= 1.

    Returns:
        The smallest multiple of ``step`` that is >= ``value``.

    >>> round_up(2725, 100), round_up(32000, 100)
    (2800, 32000)
    """
    return -(-value // step) * step


def bp_extra_chips(bp: int, rules: LeagueRules) -> int:
    """Extra TOC chips earned by Bonus Points (4.C).

    Only BP above the requirement earn chips, and then the whole BP count is rounded up.

    Args:
        bp: The player's season BP.
        rules: Supplies the requirement and the rounding step.

    Returns:
        The chips (0 at or below the requirement).

    >>> from rulings.league.rules import load_league_rules
    >>> bp_extra_chips(2725, load_league_rules(overrides={"toc_bp_required": 1000}))
    2800
    """
    if bp <= rules.toc_bp_required:
        return 0
    return round_up(bp, rules.toc_extra_chips_round_to)


def conversion_min_rp(rules: LeagueRules) -> int:
    """The RP a player needs before BP may be converted (4.D: half the requirement).

    Args:
        rules: Supplies the requirement and the percentage.

    Returns:
        The RP floor, rounded up to a whole point.
    """
    return -(-rules.toc_rp_required * rules.toc_conversion_min_rp_percent // 100)


def _n(value: int) -> str:
    return f"{value:,}"


def _title_chips(titles: Sequence[str], rules: LeagueRules) -> int:
    chips = {
        "rp_champion": rules.toc_rp_champion_chips,
        "bp_champion": rules.toc_bp_champion_chips,
        "location_champion": rules.toc_location_champion_chips,
    }
    return max((chips[t] for t in titles), default=0)


def _assess(row: StandingRow, rules: LeagueRules, titles: tuple[str, ...]) -> TocStatus:
    rp_req, bp_req = rules.toc_rp_required, rules.toc_bp_required
    need = f"{_n(rp_req)} RP and {_n(bp_req)} BP"
    own = bp_extra_chips(row.bp, rules)
    stack = _title_chips(titles, rules)
    if row.rp >= rp_req and row.bp >= bp_req:
        extra = max(own, stack)
        why = f"{_n(row.rp)} RP and {_n(row.bp)} BP meet {need}"
        if stack and stack >= own:
            why += f"; champion stack {_n(stack)}"
        elif own:
            why += f"; {_n(own)} extra chips from BP"
        return TocStatus(row.player, "qualified", extra, 0, 0, why, titles)
    if titles and not rules.toc_champion_needs_qualification:
        why = f"qualified as {titles[0].replace('_', ' ')}; champion stack {_n(max(own, stack))}"
        return TocStatus(row.player, "qualified", max(own, stack), 0, 0, why, titles)
    rp_short = max(0, rp_req - row.rp)
    floor = conversion_min_rp(rules)
    if row.rp < rp_req and row.rp >= floor:
        bp_needed = bp_req + rules.toc_conversion_bp_per_rp * rp_short
        if row.bp >= bp_needed:
            why = (
                f"converts {_n(bp_needed - bp_req)} BP to cover {_n(rp_short)} RP; "
                "no extra chips after a conversion (4.D)"
            )
            return TocStatus(row.player, "conversion", 0, 0, 0, why, titles)
        bp_short = bp_needed - row.bp
        outright = max(0, bp_req - row.bp)
        why = (
            f"{_n(row.bp)} BP is {_n(bp_short)} short of the {_n(bp_needed)} BP needed to "
            f"convert {_n(rp_short)} RP (or {_more(rp_short, outright)} without converting)"
        )
        return TocStatus(row.player, "not_qualified", 0, rp_short, bp_short, why, titles, outright)
    bp_short = max(0, bp_req - row.bp)
    why = f"needs {_more(rp_short, bp_short)} to reach {need}"
    if rp_short and rules.toc_conversion_min_rp_percent < 100:
        why += (
            f"; {_n(row.rp)} RP is {_n(floor - row.rp)} short of the {_n(floor)} RP "
            "needed to convert BP"
        )
    return TocStatus(row.player, "not_qualified", 0, rp_short, bp_short, why, titles)


def toc_table(
    rows: Sequence[StandingRow],
    rules: LeagueRules,
    *,
    owner: str | None = None,
    location_champions: Collection[str] = (),
    staff: Collection[str] = (),
    suspended: Collection[str] = (),
) -> list[TocStatus]:
    """Decide every player's TOC status and extra starting chips.

    The overall RP and BP champions are the leaders of ``rank_standings`` by RP and by BP
    among eligible players (its tie-break settles a shared lead). With
    ``toc_champion_needs_qualification`` (the default) a champion must still qualify by
    points. Staff are eligible without points when ``toc_staff_auto_qualify`` (the default)
    and start with the larger of the league average extra stack and their own extra chips;
    the average is the mean extra chips of the qualified non-staff players (conversions
    count as 0), rounded up to the chip step.

    Args:
        rows: One row per player for the season.
        rules: The league's rules.
        owner: The owner's name (else ``rules.owner``): never qualified (1.B.b).
        location_champions: Names of location (nightly) champions.
        staff: Tournament directors, host employees and sponsors (4.G).
        suspended: Players at the forfeit strike level this season (3.B.a): never qualified.

    Returns:
        One status per row, in overall RP standings order.

    Raises:
        LeagueConfigError: The league has no TOC.
    """
    if not rules.toc_enabled:
        raise LeagueConfigError(f"league {rules.name} has no Tournament of Champions")
    owner_name = owner if owner is not None else rules.owner
    owner_key = name_key(owner_name) if owner_name else None
    barred = {name_key(n) for n in suspended}
    staff_keys = {name_key(n) for n in staff}
    location_keys = {name_key(n) for n in location_champions}
    eligible = [
        r for r in rows if name_key(r.player) != owner_key and name_key(r.player) not in barred
    ]
    rp_champ = champion(eligible, by="rp")
    bp_champ = champion(eligible, by="bp")

    assessed: dict[str, TocStatus] = {}
    for ranked in rank_standings(rows, by="rp"):
        row = ranked.row
        key = name_key(row.player)
        if key == owner_key:
            assessed[row.player] = TocStatus(
                row.player, "not_qualified", 0, 0, 0, "the league owner is not eligible (1.B.b)"
            )
            continue
        if key in barred:
            assessed[row.player] = TocStatus(
                row.player,
                "forfeited",
                0,
                0,
                0,
                "suspended at strike 3: season points and the TOC are lost (3.B.a)",
            )
            continue
        titles = tuple(
            t
            for t, held in (
                ("rp_champion", rp_champ is not None and rp_champ.player == row.player),
                ("bp_champion", bp_champ is not None and bp_champ.player == row.player),
                ("location_champion", key in location_keys),
            )
            if held
        )
        status = _assess(row, rules, titles)
        if key in staff_keys and rules.toc_staff_auto_qualify and status.status != "qualified":
            own = max(bp_extra_chips(row.bp, rules), _title_chips(titles, rules))
            status = TocStatus(
                row.player, "qualified", own, 0, 0, "eligible as staff (4.G)", titles
            )
        assessed[row.player] = status

    regular = [
        s
        for s in assessed.values()
        if s.status in _QUALIFIED and name_key(s.player) not in staff_keys
    ]
    total = sum(s.extra_chips for s in regular)
    average = round_up(-(-total // len(regular)), rules.toc_extra_chips_round_to) if regular else 0
    out: list[TocStatus] = []
    for status in assessed.values():
        is_staff = name_key(status.player) in staff_keys
        if is_staff and status.status in _QUALIFIED and average > status.extra_chips:
            why = f"{status.reason}; staff get the league average extra stack {_n(average)} (4.G)"
            status = TocStatus(status.player, status.status, average, 0, 0, why, status.titles)
        out.append(status)
    log.debug("TOC table for %d players, staff average %d", len(out), average)
    return out

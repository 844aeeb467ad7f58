"""A league's rules as data: every number the engine uses, loaded from a TOML preset.

Presets ship in ``rulings/data/leagues/<name>.toml`` (``btown``, the default, and
``poker-pub``). A league may override any field by name; every value is checked when the
rules are built, so a bad override is refused before anything uses it.

>>> rules = load_league_rules()
>>> rules.regular_points[:3], rules.bonus_points
((1200, 800, 700), (250, 200, 150))
>>> load_league_rules("btown", {"toc_rp_required": 1000}).toc_rp_required
1000
>>> load_league_rules("poker-pub").blind_structure
'poker-pub'
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any, Literal, get_args

from rulings.clock import preset_names
from rulings.errors import LeagueConfigError

log = logging.getLogger(__name__)

PREMIUM_HANDS = ("royal_flush", "straight_flush", "quads")
"""The premium hand keys, best first (1.C.a.2)."""

CITATION_TOPICS: Mapping[str, str] = MappingProxyType(
    {
        "extra_chips": "extra starting chips",
        "hand_rankings": "hand rankings",
        "late_registration": "late registration",
        "premium_hands": "premium hands",
        "split_pots": "split pots",
        "starting_stack": "starting stack",
        "strikes": "strikes",
        "toc": "Tournament of Champions",
    }
)
"""The topics a reply may cite, with the words shown beside the section."""

TieRounding = Literal["half_up", "down", "up"]
_TIE_ROUNDINGS: tuple[str, ...] = get_args(TieRounding)


def _no_premium() -> Mapping[str, int]:
    return MappingProxyType({})


def _no_citations() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True)
class LeagueRules:
    """Every number of a league (BTown rulebook section numbers in brackets).

    Attributes:
        name: The preset or league name.
        regular_points: RP by finishing position, index 0 = 1st; later positions earn 0 (1.C.a.1).
        bonus_points: BP by finishing position (1.C.b).
        premium_hand_rp: RP per premium hand key (1.C.a.2).
        royal_flush_bp: BP added to a royal flush's RP (1.C.b).
        bounty_chip_rp: RP per bounty chip turned in (1.C.a.3, 2.C.d).
        second_chance_bp: BP for winning a second-chance game (1.C.b, 4.C of the table rules).
        receipt_bp_per_dollar: BP per dollar of food and drink receipts (1.C.b).
        receipt_full_dollars_only: Only full dollars count ($12.50 earns 12 dollars' worth);
            when false the cents count too, rounded down to a whole point.
        receipt_max_cents: The largest believable single receipt; larger is refused.
        tie_rounding: How a tied player's share of the covered positions' points is rounded
            to a whole point (2.G.e.2): ``half_up``, ``down`` or ``up``.
        owner: The league owner's name, who plays but earns nothing (1.B.b), or None.
        owner_positions_vacant: When true, the owner's finishing position keeps its points
            unawarded and nobody moves up; when false, players below the owner move up.
        toc_enabled: Whether the league ends its season with a Tournament of Champions.
        toc_rp_required: RP needed to qualify for the TOC (4.B).
        toc_bp_required: BP needed to qualify for the TOC (4.B).
        toc_conversion_min_rp_percent: The share of ``toc_rp_required`` a player must hold to
            qualify by converting BP to RP (4.D: half).
        toc_conversion_bp_per_rp: BP spent per missing RP in a conversion, on top of the BP
            requirement (4.D: Larry needs 1,500 + 2 x 250 = 2,000 BP).
        toc_extra_chips_round_to: BP-based extra chips are the BP rounded up to a multiple of
            this (4.C: 2,725 BP -> 2,800 chips).
        toc_rp_champion_chips: Extra chips of the overall RP champion (4.C).
        toc_bp_champion_chips: Extra chips of the overall BP champion (4.C).
        toc_location_champion_chips: Extra chips of each location champion (4.C).
        toc_champion_needs_qualification: When true a champion still has to qualify by points;
            when false winning a title qualifies.
        toc_staff_auto_qualify: Staff (4.G: directors, host employees, sponsors) may play the
            TOC without the points; when false they qualify like anyone else.
        starting_stack: Chips every player starts with (2.C.a).
        early_signin_chips: Extra chips for signing in 15 minutes early (2.C.b.1.A).
        on_time_chips: Extra chips for being seated before announcements (2.C.b.1.B).
        birthday_chips: Extra chips for the birthday event (2.C.b.1.C).
        birthday_window_days: How far from the birthday that event may be (2.C.b.1.C: two
            weeks, either side).
        combined_extra_cap: Cap on early + on-time + birthday together (2.C.b.1).
        new_player_chips: Extra chips on a new player's first night (2.C.b.2).
        referral_chips: Extra chips for bringing a new player (2.C.b.3).
        referral_max_players: How many new players brought in one night earn referral chips.
        late_penalty_big_blinds: Big blinds removed from a late player's stack (1.E.d).
        late_max_big_blind: The largest big blind at which a late player may still sit down
            (registration closes at the end of the first break, 1.E.d: the 1,000/2,000 level).
        strike_suspension_events: Events suspended per strike level, index 0 = strike 1 (3.B.d).
        strike_forfeit_level: The strike level that suspends for the rest of the season and
            the TOC and forfeits the season's points (3.B.a).
        strike_expiry_full_seasons: Full seasons after the strike's own season for which a
            strike stays on the record (3.B.e).
        rulebook: The league's home rulebook (a book name, e.g. ``btown-poker-league``), the
            book every citation of a reply comes from; empty for none.
        citations: Topic (a key of ``CITATION_TOPICS``) -> the section of ``rulebook`` that
            decides it, e.g. ``{"split_pots": "2.G.d.5"}``; a topic the book has no rule for
            is absent and its replies cite nothing.
        blind_structure: The league's blind structure (a name from
            ``rulings.clock.preset_names()``), the one a clock starts with unless the
            director names another.
    """

    name: str
    regular_points: tuple[int, ...]
    bonus_points: tuple[int, ...]
    premium_hand_rp: Mapping[str, int] = field(default_factory=_no_premium, hash=False)
    royal_flush_bp: int = 0
    bounty_chip_rp: int = 0
    second_chance_bp: int = 0
    receipt_bp_per_dollar: int = 0
    receipt_full_dollars_only: bool = True
    receipt_max_cents: int = 100_000
    tie_rounding: TieRounding = "half_up"
    owner: str | None = None
    owner_positions_vacant: bool = True
    toc_enabled: bool = True
    toc_rp_required: int = 1500
    toc_bp_required: int = 1500
    toc_conversion_min_rp_percent: int = 50
    toc_conversion_bp_per_rp: int = 2
    toc_extra_chips_round_to: int = 100
    toc_rp_champion_chips: int = 0
    toc_bp_champion_chips: int = 0
    toc_location_champion_chips: int = 0
    toc_champion_needs_qualification: bool = True
    toc_staff_auto_qualify: bool = True
    starting_stack: int = 0
    early_signin_chips: int = 0
    on_time_chips: int = 0
    birthday_chips: int = 0
    birthday_window_days: int = 0
    combined_extra_cap: int = 0
    new_player_chips: int = 0
    referral_chips: int = 0
    referral_max_players: int = 1
    late_penalty_big_blinds: int = 0
    late_max_big_blind: int = 0
    strike_suspension_events: tuple[int, ...] = (3, 9)
    strike_forfeit_level: int = 3
    strike_expiry_full_seasons: int = 1
    rulebook: str = ""
    citations: Mapping[str, str] = field(default_factory=_no_citations, hash=False)
    blind_structure: str = "btown"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickles (for the compute workers) through its plain-data form: a mapping proxy
        # does not pickle.
        return (rules_from_mapping, (self.to_dict(),))

    def __post_init__(self) -> None:
        """Check every value; a bad one raises LeagueConfigError naming the field."""
        if not isinstance(self.name, str) or not self.name.strip():
            raise LeagueConfigError("league rules: name must be a non-empty text")
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = _FIELD_KINDS[f.name]
            if kind == "int" and (type(value) is not int or value < 0):
                raise LeagueConfigError(f"league rules: {f.name} must be a whole number >= 0")
            if kind == "bool" and type(value) is not bool:
                raise LeagueConfigError(f"league rules: {f.name} must be true or false")
            if kind == "ints":
                if not isinstance(value, tuple | list) or any(
                    type(v) is not int or v < 0 for v in value
                ):
                    raise LeagueConfigError(
                        f"league rules: {f.name} must be a list of whole numbers >= 0"
                    )
                object.__setattr__(self, f.name, tuple(value))
        if self.owner is not None and (not isinstance(self.owner, str) or not self.owner.strip()):
            raise LeagueConfigError("league rules: owner must be a name or absent")
        if self.owner is not None:
            object.__setattr__(self, "owner", self.owner.strip())
        if self.tie_rounding not in _TIE_ROUNDINGS:
            raise LeagueConfigError(
                f"league rules: tie_rounding must be one of {', '.join(_TIE_ROUNDINGS)}"
            )
        premium = self.premium_hand_rp
        if not isinstance(premium, Mapping):
            raise LeagueConfigError("league rules: premium_hand_rp must be a table of hands")
        for hand, rp in premium.items():
            if hand not in PREMIUM_HANDS:
                raise LeagueConfigError(
                    f"league rules: premium_hand_rp has unknown hand {hand!r} "
                    f"(known: {', '.join(PREMIUM_HANDS)})"
                )
            if type(rp) is not int or rp < 0:
                raise LeagueConfigError(
                    f"league rules: premium_hand_rp.{hand} must be a whole number >= 0"
                )
        object.__setattr__(self, "premium_hand_rp", MappingProxyType(dict(premium)))
        if not isinstance(self.rulebook, str):
            raise LeagueConfigError("league rules: rulebook must be a book name")
        cites = self.citations
        if not isinstance(cites, Mapping):
            raise LeagueConfigError("league rules: citations must be a table of topics")
        for topic, section in cites.items():
            if topic not in CITATION_TOPICS:
                raise LeagueConfigError(
                    f"league rules: citations has unknown topic {topic!r} "
                    f"(known: {', '.join(CITATION_TOPICS)})"
                )
            if not isinstance(section, str) or not section.strip():
                raise LeagueConfigError(f"league rules: citations.{topic} must be a section")
        if cites and not self.rulebook.strip():
            raise LeagueConfigError("league rules: citations need the rulebook they cite")
        object.__setattr__(self, "citations", MappingProxyType(dict(cites)))
        structures = preset_names()
        key = self.blind_structure.strip().lower() if isinstance(self.blind_structure, str) else ""
        if key not in structures:
            raise LeagueConfigError(
                f"league rules: blind_structure must be one of {', '.join(structures)}"
            )
        object.__setattr__(self, "blind_structure", key)
        if self.toc_conversion_min_rp_percent > 100:
            raise LeagueConfigError("league rules: toc_conversion_min_rp_percent must be <= 100")
        if self.toc_extra_chips_round_to < 1:
            raise LeagueConfigError("league rules: toc_extra_chips_round_to must be >= 1")
        if self.strike_forfeit_level < 1:
            raise LeagueConfigError("league rules: strike_forfeit_level must be >= 1")
        if len(self.strike_suspension_events) != self.strike_forfeit_level - 1:
            raise LeagueConfigError(
                "league rules: strike_suspension_events needs one entry per strike level "
                f"below the forfeit level {self.strike_forfeit_level}"
            )

    def to_dict(self) -> dict[str, Any]:
        """Return the rules as plain TOML/JSON-ready values (lists, dicts, scalars).

        Returns:
            A mapping that ``rules_from_mapping`` turns back into equal rules.
        """
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            if value is not None:
                out[f.name] = value
        return out


_FIELD_KINDS: dict[str, str] = {
    "name": "str",
    "regular_points": "ints",
    "bonus_points": "ints",
    "premium_hand_rp": "map",
    "tie_rounding": "str",
    "owner": "str",
    "strike_suspension_events": "ints",
    "rulebook": "str",
    "citations": "map",
    "blind_structure": "str",
}
for _f in dataclasses.fields(LeagueRules):
    if _f.name not in _FIELD_KINDS:
        _FIELD_KINDS[_f.name] = "bool" if _f.type == "bool" else "int"

_DATA = resources.files("rulings") / "data" / "leagues"


@functools.cache
def _preset_data(key: str) -> Mapping[str, Any]:
    # Parsed once per process; rules_from_mapping copies it and LeagueRules freezes the values.
    return MappingProxyType(tomllib.loads((_DATA / f"{key}.toml").read_text(encoding="utf-8")))


@functools.cache
def league_presets() -> tuple[str, ...]:
    """List the shipped presets.

    Returns:
        The preset names, sorted (``btown`` and ``poker-pub``).

    >>> league_presets()
    ('btown', 'poker-pub')
    """
    names = (p.name.removesuffix(".toml") for p in _DATA.iterdir() if p.name.endswith(".toml"))
    return tuple(sorted(names))


def rules_from_mapping(
    data: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
) -> LeagueRules:
    """Build rules from a plain mapping (a parsed TOML file or a stored JSON copy).

    Args:
        data: Field name -> value, as ``LeagueRules.to_dict`` writes it.
        overrides: Field name -> value applied on top of ``data``.

    Returns:
        The checked rules.

    Raises:
        LeagueConfigError: An unknown field, a missing field or a value of the wrong kind.
    """
    merged = dict(data)
    known = {f.name for f in dataclasses.fields(LeagueRules)}
    for key, value in (overrides or {}).items():
        if key not in known:
            raise LeagueConfigError(f"unknown league setting {key!r}")
        merged[key] = value
    unknown = sorted(set(merged) - known)
    if unknown:
        raise LeagueConfigError(f"unknown league setting {unknown[0]!r}")
    for key in ("name", "regular_points", "bonus_points"):
        if key not in merged:
            raise LeagueConfigError(f"league rules: {key} is missing")
    try:
        return LeagueRules(**merged)
    except TypeError as exc:  # a value of a kind the checks above could not even compare
        raise LeagueConfigError(f"league rules: {exc}") from None


def load_league_rules(
    preset: str = "btown", overrides: Mapping[str, Any] | None = None
) -> LeagueRules:
    """Load a shipped preset and apply a league's overrides.

    Args:
        preset: A name from ``league_presets()``.
        overrides: Field name -> value; any field may be overridden.

    Returns:
        The checked rules.

    Raises:
        LeagueConfigError: An unknown preset, an unknown field or a bad value.
    """
    key = preset.strip().lower() if isinstance(preset, str) else ""
    if key not in league_presets():
        raise LeagueConfigError(
            f"unknown league preset {preset!r} (known: {', '.join(league_presets())})"
        )
    rules = rules_from_mapping(_preset_data(key), overrides)
    log.debug("loaded league rules %s with %d overrides", key, len(overrides or {}))
    return rules

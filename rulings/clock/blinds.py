"""Blind structures: levels, breaks and how the schedule grows once it runs out.

A structure is data (``rulings/data/blinds/<name>.toml``); this module loads it, checks it and
answers "which step is number ``i``" for any ``i``, including the levels the director adds
after the printed schedule (BTown 2.B: "The tournament director shall add additional blind
levels as necessary").

Each preset file holds::

    name = "btown"
    title = "BTown Poker League"
    source = "BTown rules 2.B"
    level_minutes = 20         # default level length (decimals allowed)
    break_minutes = 10         # every break's length
    added_levels = "double"    # how levels past the schedule are made: "double" or "none"
    late_registration = "break 1"   # late registration closes at the end of this step
    late_penalty_big_blinds = 2     # a late player starts this many big blinds short
    schedule = ["100/200", "200/400/25", {break = "chips to colour up"}, ...]

A level is ``"small/big"`` or ``"small/big/ante"``; a break is an inline table whose ``break``
value says what gets chipped up (may be empty).
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any

from rulings.errors import BlindStructureError

log = logging.getLogger(__name__)

_DATA = resources.files("rulings") / "data" / "blinds"

#: The highest level number a clock may reach or jump to (doubling past it is meaningless).
MAX_LEVEL = 100


@dataclass(frozen=True)
class BlindLevel:
    """One blind level.

    Attributes:
        number: 1 for the first level; breaks are not counted.
        small_blind: chips.
        big_blind: chips.
        ante: chips paid by every player, 0 for none; never above the small blind (2.B, 2.G.b).
        is_added: True for a level beyond the printed schedule.
    """

    number: int
    small_blind: int
    big_blind: int
    ante: int = 0
    is_added: bool = False

    @property
    def blinds(self) -> str:
        """The blinds as players say them, e.g. ``"1,000/2,000"`` or ``"400/800, ante 100"``.

        >>> BlindLevel(6, 1000, 2000).blinds
        '1,000/2,000'
        >>> BlindLevel(14, 10000, 20000, 5000).blinds
        '10,000/20,000, ante 5,000'
        """
        text = f"{self.small_blind:,}/{self.big_blind:,}"
        return f"{text}, ante {self.ante:,}" if self.ante else text

    @property
    def label(self) -> str:
        """``"Level 4: blinds 400/800"``."""
        return f"Level {self.number}: blinds {self.blinds}"


@dataclass(frozen=True)
class Break:
    """A break between levels.

    Attributes:
        number: 1 for the first break.
        chip_up: what gets chipped up (colored up) during it, as the rulebook says; may be "".
    """

    number: int
    chip_up: str = ""

    @property
    def label(self) -> str:
        """``"Break 1"``."""
        return f"Break {self.number}"


Step = BlindLevel | Break


@dataclass(frozen=True)
class BlindStructure:
    """A blind schedule with its default timings.

    Attributes:
        name: the preset key, e.g. ``"btown"``.
        title: a readable name.
        source: the rulebook sections it comes from.
        steps: the printed schedule, levels and breaks in order.
        level_minutes: default level length.
        break_minutes: length of every break.
        adds_levels: True when levels past the schedule are made by doubling the last one.
        late_registration_step: index in ``steps`` of the step at whose end late registration
            closes, or None when the league has no late registration rule.
        late_penalty_big_blinds: a late player's stack is short this many big blinds of the
            level they are seated in (BTown 1.E.d: twice the big blind); 0 for none.
    """

    name: str
    title: str
    source: str
    steps: tuple[Step, ...]
    level_minutes: float
    break_minutes: float
    adds_levels: bool = True
    late_registration_step: int | None = None
    late_penalty_big_blinds: int = 0

    def __post_init__(self) -> None:
        levels = [s for s in self.steps if isinstance(s, BlindLevel)]
        if not levels:
            raise BlindStructureError(f"Structure '{self.name}' has no blind levels.")
        if isinstance(self.steps[0], Break):
            raise BlindStructureError(f"Structure '{self.name}' starts with a break.")
        for level in levels:
            _check_level(level.small_blind, level.big_blind, level.ante)
        if self.level_minutes <= 0 or self.break_minutes <= 0:
            raise BlindStructureError(f"Structure '{self.name}' needs positive level lengths.")
        if self.late_registration_step is not None and not (
            0 <= self.late_registration_step < len(self.steps)
        ):
            raise BlindStructureError(f"Structure '{self.name}': late registration step is out.")

    @property
    def last_printed_index(self) -> int:
        """Index of the last step of the printed schedule."""
        return len(self.steps) - 1

    @property
    def step_count(self) -> int:
        """How many steps exist, added levels included (they stop at level ``MAX_LEVEL``).

        >>> load_structure("bar-league").step_count
        100
        """
        if not self.adds_levels:
            return len(self.steps)
        return len(self.steps) + MAX_LEVEL - self._last_level.number

    def step(self, index: int) -> Step:
        """The step at ``index`` (0 is the first level), added levels included.

        Args:
            index: 0-based position in the schedule.

        Returns:
            The level or break.

        Raises:
            BlindStructureError: ``index`` is negative or past the end of a schedule that adds
                no levels.

        >>> s = load_structure("bar-league")
        >>> s.step(0).label, s.step(10).label
        ('Level 1: blinds 1/2', 'Level 11: blinds 1,024/2,048')
        """
        if index < 0:
            raise BlindStructureError("There is no step before the first level.")
        if index < len(self.steps):
            return self.steps[index]
        if not self.adds_levels:
            raise BlindStructureError(
                f"The '{self.name}' schedule has only {len(self.steps)} steps."
            )
        last = self._last_level
        extra = index - len(self.steps) + 1
        factor = 2**extra
        return BlindLevel(
            number=last.number + extra,
            small_blind=last.small_blind * factor,
            big_blind=last.big_blind * factor,
            ante=last.ante * factor,
            is_added=True,
        )

    def index_of_level(self, number: int) -> int:
        """The step index of level ``number``.

        Args:
            number: a level number, 1 or more.

        Returns:
            Its 0-based index among the steps.

        Raises:
            BlindStructureError: there is no such level.

        >>> load_structure("btown").index_of_level(6)
        6
        """
        last = self._last_level
        if number < 1 or number > MAX_LEVEL or (number > last.number and not self.adds_levels):
            top = MAX_LEVEL if self.adds_levels else last.number
            raise BlindStructureError(f"There is no level {number}; levels run from 1 to {top}.")
        for i, step in enumerate(self.steps):
            if isinstance(step, BlindLevel) and step.number == number:
                return i
        return len(self.steps) - 1 + (number - last.number)

    def next_level(self, index: int) -> BlindLevel | None:
        """The first level after step ``index`` (None when the schedule ends first)."""
        i = index + 1
        while i < self.step_count:
            step = self.step(i)
            if isinstance(step, BlindLevel):
                return step
            i += 1
        return None

    def next_break(self, index: int) -> tuple[int, Break] | None:
        """The index and the break of the first break after step ``index``, if any."""
        for i in range(index + 1, len(self.steps)):
            step = self.steps[i]
            if isinstance(step, Break):
                return i, step
        return None

    def late_penalty(self, level: BlindLevel) -> int:
        """Chips taken off a late player's stack when seated during ``level``.

        >>> load_structure("btown").late_penalty(BlindLevel(3, 300, 600))
        1200
        """
        return self.late_penalty_big_blinds * level.big_blind

    @property
    def _last_level(self) -> BlindLevel:
        return next(s for s in reversed(self.steps) if isinstance(s, BlindLevel))


def _check_level(small_blind: int, big_blind: int, ante: int) -> None:
    if small_blind <= 0 or big_blind < small_blind:
        raise BlindStructureError(f"Blinds {small_blind}/{big_blind} are not a valid level.")
    check_ante(ante, small_blind)


def check_ante(ante: int, small_blind: int) -> None:
    """Refuse an ante the rules do not allow.

    Args:
        ante: the proposed ante in chips.
        small_blind: the small blind of the level it applies to.

    Raises:
        BlindStructureError: the ante is negative or above the small blind (2.B, 2.G.b).

    >>> check_ante(500, 400)
    Traceback (most recent call last):
    ...
    rulings.errors.BlindStructureError: The ante can't be more than the small blind (400).
    """
    if ante < 0:
        raise BlindStructureError("The ante can't be negative.")
    if ante > small_blind:
        raise BlindStructureError(f"The ante can't be more than the small blind ({small_blind:,}).")


def preset_names() -> tuple[str, ...]:
    """The names of the bundled presets, sorted.

    >>> preset_names()
    ('bar-league', 'btown', 'btown-toc', 'poker-pub')
    """
    names = (p.name.removesuffix(".toml") for p in _DATA.iterdir() if p.name.endswith(".toml"))
    return tuple(sorted(names))


def load_structure(name: str) -> BlindStructure:
    """Load a bundled preset by name.

    Args:
        name: one of ``preset_names()``; case and surrounding spaces are ignored.

    Returns:
        The structure.

    Raises:
        BlindStructureError: no such preset, or the preset file is malformed.
    """
    key = name.strip().lower()
    if key not in preset_names():
        known = ", ".join(preset_names())
        raise BlindStructureError(f"Unknown blind structure '{name}'. Known: {known}.")
    return _load(key)


@cache
def _load(key: str) -> BlindStructure:
    text = (_DATA / f"{key}.toml").read_text(encoding="utf-8")
    return parse_structure(text, name=key)


def parse_structure(text: str, *, name: str) -> BlindStructure:
    """Build a structure from the TOML text of a preset (format in the module docstring).

    Args:
        text: the TOML document.
        name: the preset's name, used in messages when the document has none.

    Returns:
        The structure.

    Raises:
        BlindStructureError: the text is not valid TOML or breaks the format.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BlindStructureError(f"Structure '{name}' is not valid TOML: {exc}") from None
    try:
        return _from_mapping(data, name)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, BlindStructureError):
            raise
        raise BlindStructureError(f"Structure '{name}' is malformed: {exc!r}") from None


def _from_mapping(data: dict[str, Any], name: str) -> BlindStructure:
    name = str(data.get("name", name))
    steps: list[Step] = []
    levels = breaks = 0
    for raw in data["schedule"]:
        if isinstance(raw, dict):
            breaks += 1
            steps.append(Break(number=breaks, chip_up=str(raw["break"]).strip()))
            continue
        parts = [int(p.replace(",", "")) for p in str(raw).split("/")]
        if len(parts) not in (2, 3):
            raise BlindStructureError(f"Structure '{name}': '{raw}' is not 'small/big[/ante]'.")
        levels += 1
        steps.append(BlindLevel(levels, parts[0], parts[1], parts[2] if len(parts) == 3 else 0))
    added = str(data.get("added_levels", "double"))
    if added not in ("double", "none"):
        raise BlindStructureError(f"Structure '{name}': added_levels must be 'double' or 'none'.")
    return BlindStructure(
        name=name,
        title=str(data.get("title", name)),
        source=str(data.get("source", "")),
        steps=tuple(steps),
        level_minutes=float(data["level_minutes"]),
        break_minutes=float(data["break_minutes"]),
        adds_levels=added == "double",
        late_registration_step=_late_step(data.get("late_registration"), steps, name),
        late_penalty_big_blinds=int(data.get("late_penalty_big_blinds", 0)),
    )


def _late_step(value: object, steps: list[Step], name: str) -> int | None:
    if value is None:
        return None
    kind, _, number = str(value).partition(" ")
    wanted = Break if kind == "break" else BlindLevel if kind == "level" else None
    if wanted is None or not number.isdigit():
        raise BlindStructureError(
            f"Structure '{name}': late_registration must be 'break N' or 'level N'."
        )
    for i, step in enumerate(steps):
        if isinstance(step, wanted) and step.number == int(number):
            return i
    raise BlindStructureError(f"Structure '{name}': there is no {value} for late registration.")


def with_ante(level: BlindLevel, ante: int) -> BlindLevel:
    """The same level with another ante (checked against its small blind).

    Args:
        level: the level.
        ante: chips, 0 for none.

    Returns:
        The new level.

    Raises:
        BlindStructureError: the ante is above the small blind.
    """
    check_ante(ante, level.small_blind)
    return replace(level, ante=ante)

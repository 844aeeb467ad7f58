"""The tournament clock as pure maths: where the clock stands at any moment, and what to announce.

A clock is its start time plus the director's actions in order (pause, resume, next, back,
level N, add time, ante, end): ``ClockState``. Nothing else is stored. From it:

* ``position_at(state, now)`` says which level or break is on, how long is left, the next
  level and the next break;
* ``announcements_between(state, since, until)`` lists every announcement of the clock's life
  that falls in a window, each with a stable ``key``. A key never changes when the state is
  re-derived, so a caller that records the keys it has posted posts each announcement once;
* ``catch_up(state, missed, now)`` folds announcements that were missed (the bot was down)
  into one message that says where the clock is now.

Time is always a parameter. Keys: a level or break start is ``"<jumps>:start:<step>"`` where
``jumps`` counts the director's next/back/level actions so far, so going back to a level
announces it again while pausing and resuming never does; warnings also count add-time actions
(adding time re-arms the one-minute warning); a director action is ``"event:<n>"``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from rulings.clock.blinds import BlindLevel, BlindStructure, Break, Step, check_ante
from rulings.errors import BlindStructureError, ClockError

log = logging.getLogger(__name__)

#: Shortest and longest level or break a clock accepts, in seconds.
MIN_STEP_SECONDS = 1.0
MAX_STEP_SECONDS = 24 * 3600.0
MAX_WARNINGS = 5


class ClockAction(StrEnum):
    """What a director can do to a running clock."""

    PAUSE = "pause"
    RESUME = "resume"
    NEXT = "next"
    BACK = "back"
    LEVEL = "level"
    ADD_TIME = "add-time"
    ANTE = "ante"
    END = "end"


class AnnouncementKind(StrEnum):
    """What an announcement is about; only ``LEVEL`` and ``BREAK`` (and a catch-up) ping."""

    LEVEL = "level"
    BREAK = "break"
    WARNING = "warning"
    LATE_LAST_CALL = "late-last-call"
    LATE_CLOSED = "late-closed"
    ANTE = "ante"
    ADDED_LEVELS = "added-levels"
    DIRECTOR = "director"
    CATCH_UP = "catch-up"


_PINGING = frozenset({AnnouncementKind.LEVEL, AnnouncementKind.BREAK})


@dataclass(frozen=True)
class ClockEvent:
    """One director action.

    Attributes:
        action: what was done.
        at: when (timezone-aware).
        value: minutes for ``ADD_TIME`` (may be negative), the level number for ``LEVEL``,
            chips for ``ANTE``; 0 otherwise.
    """

    action: ClockAction
    at: datetime
    value: float = 0.0


@dataclass(frozen=True)
class Announcement:
    """One message the clock posts.

    Attributes:
        key: stable identity; the same announcement always has the same key.
        at: when it is due.
        kind: what it is about.
        text: the message.
        ping: whether it pings the clock's role; None means "by kind" (level and break only).
    """

    key: str
    at: datetime
    kind: AnnouncementKind
    text: str
    ping: bool | None = None

    @property
    def pings(self) -> bool:
        """True for level and break announcements (and a catch-up covering one)."""
        return self.kind in _PINGING if self.ping is None else self.ping


@dataclass(frozen=True)
class ClockState:
    """Everything that defines a clock: structure, timings, start and the director's actions.

    Attributes:
        structure: the blind structure.
        started_at: when level 1 began (timezone-aware).
        level_seconds: length of a level.
        break_seconds: length of a break.
        events: the director's actions, oldest first.
        warning_seconds: how long before the end of a level or break a warning is posted.

    Raises:
        ClockError: a naive time, a level length out of range, or more than five warnings
            (or one out of range or repeated).
    """

    structure: BlindStructure
    started_at: datetime
    level_seconds: float
    break_seconds: float
    events: tuple[ClockEvent, ...] = ()
    warning_seconds: tuple[float, ...] = (60.0,)

    def __post_init__(self) -> None:
        if self.started_at.tzinfo is None:
            raise ClockError("Clock times must be timezone-aware.")
        for seconds in (self.level_seconds, self.break_seconds):
            if not MIN_STEP_SECONDS <= seconds <= MAX_STEP_SECONDS or math.isnan(seconds):
                raise ClockError(
                    f"Levels and breaks must last between {MIN_STEP_SECONDS:g} second "
                    f"and {MAX_STEP_SECONDS / 3600:g} hours."
                )
        warnings = self.warning_seconds
        if len(warnings) > MAX_WARNINGS or len(set(warnings)) != len(warnings):
            raise ClockError(f"Give at most {MAX_WARNINGS} different warnings.")
        if any(not MIN_STEP_SECONDS <= w <= MAX_STEP_SECONDS for w in warnings):
            raise ClockError(
                f"Warnings must come between {MIN_STEP_SECONDS:g} second "
                f"and {MAX_STEP_SECONDS / 3600:g} hours before the end of a level."
            )

    @property
    def is_ended(self) -> bool:
        """True once the director ended the clock."""
        return any(e.action is ClockAction.END for e in self.events)

    def with_event(self, event: ClockEvent) -> ClockState:
        """The state after one more director action, checked against the rules.

        Args:
            event: the action; its time may not be before the previous action or the start.

        Returns:
            The new state.

        Raises:
            ClockError: the action does not apply now (already paused, no such level, the
                clock has ended, ...).
            BlindStructureError: an ante above the small blind.
        """
        if event.at.tzinfo is None:
            raise ClockError("Clock times must be timezone-aware.")
        last = self.events[-1].at if self.events else self.started_at
        if event.at < last:
            raise ClockError("Clock actions must come in time order.")
        cursor = _advance(self, _fold(self), event.at)
        _apply(self, cursor, event, len(self.events))
        return replace(self, events=(*self.events, event))


@dataclass(frozen=True)
class ClockPosition:
    """Where a clock stands at one moment.

    Attributes:
        at: the moment.
        index: the step's index in the schedule.
        step: the level (with any ante the director set) or the break.
        elapsed: seconds played in this step.
        remaining: seconds left in this step.
        is_paused: the clock is paused.
        is_ended: the director ended the clock.
        ends_at: when the step ends, None while paused or ended.
        next_level: the first level after this step.
        next_break: the next break of the printed schedule, if any.
        seconds_to_break: seconds of play until ``next_break`` starts.
        is_late_registration_open: None when the structure has no late registration rule.
    """

    at: datetime
    index: int
    step: Step
    elapsed: float
    remaining: float
    is_paused: bool
    is_ended: bool
    ends_at: datetime | None
    next_level: BlindLevel | None
    next_break: Break | None
    seconds_to_break: float | None
    is_late_registration_open: bool | None

    @property
    def level(self) -> BlindLevel | None:
        """The current level, None during a break."""
        return self.step if isinstance(self.step, BlindLevel) else None

    @property
    def summary(self) -> str:
        """``"Level 6: blinds 1,000/2,000, 12:31 left"`` (or the break, or paused)."""
        if math.isinf(self.remaining):
            text = f"{_step_name(self.step)}, the last level"
        else:
            text = f"{_step_name(self.step)}, {format_seconds(self.remaining)} left"
        if self.is_ended:
            return f"Ended at {_step_name(self.step)}"
        return f"{text} (paused)" if self.is_paused else text


@dataclass(frozen=True)
class _Cursor:
    """The replay's running position: step ``index`` had ``elapsed`` seconds played at ``at``."""

    index: int
    elapsed: float
    at: datetime
    is_paused: bool = False
    is_ended: bool = False
    extra: float = 0.0  # seconds added to (or taken from) step ``index`` by the director
    jumps: int = 0
    adds: int = 0  # add-time actions on step ``index`` (re-arms its warnings)
    jumped: bool = False  # step ``index`` was reached by a jump, not by the clock running
    pending: bool = True  # the start of step ``index`` (elapsed 0) is not announced yet
    antes: tuple[tuple[int, int], ...] = ()  # (from level number, ante), in decision order


def format_seconds(seconds: float) -> str:
    """Time left as a clock shows it.

    Args:
        seconds: a duration (rounded up to whole seconds, never below 0).

    Returns:
        ``m:ss`` or ``h:mm:ss``.

    >>> format_seconds(751), format_seconds(4), format_seconds(3725.2)
    ('12:31', '0:04', '1:02:06')
    """
    if math.isinf(seconds):
        return "no limit"  # the last level of a schedule
    total = max(0, math.ceil(seconds - 1e-6))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_duration(seconds: float) -> str:
    """A length in words for announcements.

    >>> format_duration(60), format_duration(600), format_duration(3), format_duration(90)
    ('one minute', '10 minutes', '3 seconds', '1 minute 30 seconds')
    """
    total = round(seconds)
    minutes, secs = divmod(total, 60)
    if minutes == 1 and not secs:
        return "one minute"
    parts = []
    if minutes:
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    if secs or not minutes:
        parts.append(f"{secs} second{'s' if secs != 1 else ''}")
    return " ".join(parts)


def position_at(state: ClockState, now: datetime) -> ClockPosition:
    """Where the clock stands at ``now``.

    Args:
        state: the clock.
        now: the moment (timezone-aware); actions after it are ignored.

    Returns:
        The position.

    Raises:
        ClockError: ``now`` is naive.
    """
    if now.tzinfo is None:
        raise ClockError("Clock times must be timezone-aware.")
    cursor = _advance(state, _fold(state, until=now), max(now, state.started_at))
    duration = _duration(state, cursor, cursor.index)
    remaining = max(0.0, duration - cursor.elapsed)
    running = not (cursor.is_paused or cursor.is_ended)
    step = _step(state, cursor, cursor.index)
    structure = state.structure
    nxt = structure.next_level(cursor.index)
    brk = structure.next_break(cursor.index)
    to_break: float | None = None
    if brk is not None:
        to_break = remaining + sum(
            _duration(state, cursor, i) for i in range(cursor.index + 1, brk[0])
        )
    late = structure.late_registration_step
    return ClockPosition(
        at=now,
        index=cursor.index,
        step=step,
        elapsed=cursor.elapsed,
        remaining=remaining,
        is_paused=cursor.is_paused,
        is_ended=cursor.is_ended,
        ends_at=now + timedelta(seconds=remaining)
        if running and math.isfinite(remaining)
        else None,
        next_level=_with_antes(nxt, cursor.antes) if nxt is not None else None,
        next_break=brk[1] if brk is not None else None,
        seconds_to_break=to_break,
        is_late_registration_open=None if late is None else cursor.index <= late,
    )


def announcements_between(
    state: ClockState, since: datetime | None, until: datetime
) -> list[Announcement]:
    """Every announcement due after ``since`` and no later than ``until``, in order.

    Args:
        state: the clock.
        since: exclusive lower bound; None for the clock's whole life.
        until: inclusive upper bound.

    Returns:
        The announcements, oldest first (same-instant ones in the order to post them).
    """
    found = []
    for item in _announcements(state):
        if item.at > until:
            break
        if since is None or item.at > since:
            found.append(item)
    return found


def next_announcement_at(state: ClockState, after: datetime) -> datetime | None:
    """When the first announcement after ``after`` is due; None if none will come.

    Args:
        state: the clock.
        after: exclusive lower bound.

    Returns:
        The time, or None for a paused or ended clock with nothing pending.
    """
    for item in _announcements(state):
        if item.at > after:
            return item.at
    return None


def catch_up(state: ClockState, missed: Sequence[Announcement], now: datetime) -> Announcement:
    """One message that replaces announcements missed while the bot was down.

    Args:
        state: the clock.
        missed: the announcements that were due and not posted, oldest first (not empty).
        now: the moment of the catch-up.

    Returns:
        An announcement of kind ``CATCH_UP``, keyed after the last missed one. It pings
        when any missed announcement would have.

    Raises:
        ClockError: ``missed`` is empty.
    """
    if not missed:
        raise ClockError("Nothing to catch up on.")
    pos = position_at(state, now)
    if pos.is_ended:
        text = f"The clock has ended at {_step_name(pos.step)}."
    elif pos.is_paused:
        where = _step_name(pos.step, lower=True)
        text = f"The clock is paused at {where}, {format_seconds(pos.remaining)} left."
    elif isinstance(pos.step, Break):
        text = f"We are now on break {pos.step.number}, {format_seconds(pos.remaining)} left."
    else:
        text = (
            f"We are now at level {pos.step.number}: blinds {pos.step.blinds}, "
            f"{format_seconds(pos.remaining)} left."
        )
    if (
        any(a.kind is AnnouncementKind.LATE_CLOSED for a in missed)
        and not pos.is_late_registration_open
    ):
        text += " Late registration is closed."
    pings = any(a.pings for a in missed)
    key = f"catch-up:{missed[-1].key}"
    return Announcement(key, now, AnnouncementKind.CATCH_UP, text, ping=pings)


# --- replay ---------------------------------------------------------------------------------


def _duration(state: ClockState, cursor: _Cursor, index: int) -> float:
    structure = state.structure
    if index == structure.step_count - 1:
        return math.inf  # the clock stays on the last level (level 100 when levels are added)
    step = structure.step(index)
    base = state.break_seconds if isinstance(step, Break) else state.level_seconds
    return base + cursor.extra if index == cursor.index else base


def _with_antes(level: BlindLevel, antes: tuple[tuple[int, int], ...]) -> BlindLevel:
    for from_level, ante in reversed(antes):
        if level.number >= from_level:
            return replace(level, ante=min(ante, level.small_blind))
    return level


def _step(state: ClockState, cursor: _Cursor, index: int) -> Step:
    step = state.structure.step(index)
    return _with_antes(step, cursor.antes) if isinstance(step, BlindLevel) else step


def _short(step: Step) -> str:
    """``"level 3 (300/600)"`` or ``"break 1"``, for director messages."""
    if isinstance(step, Break):
        return f"break {step.number}"
    return f"level {step.number} ({step.blinds})"


def _step_name(step: Step, *, lower: bool = False) -> str:
    if isinstance(step, Break):
        return f"{'b' if lower else 'B'}reak {step.number}"
    return f"{'l' if lower else 'L'}evel {step.number}: blinds {step.blinds}"


def _fold(state: ClockState, until: datetime | None = None) -> _Cursor:
    """The cursor just after the last action (up to ``until``)."""
    cursor = _Cursor(index=0, elapsed=0.0, at=state.started_at)
    for seq, event in enumerate(state.events):
        if until is not None and event.at > until:
            break
        cursor = _advance(state, cursor, event.at)
        cursor, _ = _apply(state, cursor, event, seq)
    return cursor


def _advance(state: ClockState, cursor: _Cursor, t: datetime) -> _Cursor:
    """Move a cursor forward to ``t`` (nothing moves while paused or ended)."""
    if cursor.is_paused or cursor.is_ended:
        return replace(cursor, at=max(t, cursor.at))
    if t <= cursor.at:  # a zero-length run still announced the step's start
        return replace(cursor, pending=False)
    elapsed = cursor.elapsed + (t - cursor.at).total_seconds()
    moved = cursor
    while elapsed >= (d := _duration(state, moved, moved.index)):
        elapsed -= d
        moved = replace(moved, index=moved.index + 1, extra=0.0, adds=0, jumped=False)
    return replace(moved, elapsed=elapsed, at=t, pending=False)


def _apply(
    state: ClockState, cursor: _Cursor, event: ClockEvent, seq: int
) -> tuple[_Cursor, str | None]:
    """Apply one action to a cursor already advanced to its time; returns the director text."""
    if cursor.is_ended:
        raise ClockError("This clock has ended.")
    action = event.action
    step = _step(state, cursor, cursor.index)
    if action is ClockAction.PAUSE:
        if cursor.is_paused:
            raise ClockError("The clock is already paused.")
        left = _duration(state, cursor, cursor.index) - cursor.elapsed
        text = f"The clock is paused: {_short(step)}, {format_seconds(left)} left."
        return replace(cursor, is_paused=True), text
    if action is ClockAction.RESUME:
        if not cursor.is_paused:
            raise ClockError("The clock is not paused.")
        left = _duration(state, cursor, cursor.index) - cursor.elapsed
        where = _short(step)
        text = f"The clock is running again: {where}, {format_seconds(left)} left."
        return replace(cursor, is_paused=False), text
    if action is ClockAction.END:
        return replace(cursor, is_ended=True), f"The clock has been stopped at {_short(step)}."
    if action in (ClockAction.NEXT, ClockAction.BACK, ClockAction.LEVEL):
        target = _jump_target(state, cursor, event)
        moved = replace(
            cursor,
            index=target,
            elapsed=0.0,
            extra=0.0,
            adds=0,
            jumps=cursor.jumps + 1,
            jumped=True,
            pending=True,
        )
        if not cursor.is_paused:
            return moved, None  # the new step's own start announcement says it
        new_step = _step(state, moved, target)
        return moved, f"Moved to {_short(new_step)} (the clock is paused)."
    if action is ClockAction.ADD_TIME:
        seconds = event.value * 60
        left = _duration(state, cursor, cursor.index) - cursor.elapsed
        if seconds == 0 or math.isnan(seconds):
            raise ClockError("Add a number of minutes other than 0.")
        if left + seconds <= 0:
            raise ClockError(
                f"Only {format_seconds(left)} left in this step; "
                f"can't take off {format_duration(-seconds)}."
            )
        if left + seconds > MAX_STEP_SECONDS:
            raise ClockError("A level can't last more than 24 hours.")
        moved = replace(cursor, extra=cursor.extra + seconds, adds=cursor.adds + 1)
        verb = "added" if seconds > 0 else "taken off"
        text = (
            f"{format_duration(abs(seconds)).capitalize()} {verb}: {_short(step)} "
            f"now has {format_seconds(left + seconds)} left."
        )
        return moved, text
    if action is ClockAction.ANTE:
        return _apply_ante(state, cursor, event)
    raise ClockError(f"Unknown clock action '{action}'.")  # pragma: no cover


def _jump_target(state: ClockState, cursor: _Cursor, event: ClockEvent) -> int:
    structure = state.structure
    if event.action is ClockAction.NEXT:
        target = cursor.index + 1
        if target >= structure.step_count:
            raise ClockError("This is the last level of the schedule.")
        return target
    if event.action is ClockAction.BACK:
        if cursor.index == 0:
            raise ClockError("The clock is already at the first level.")
        return cursor.index - 1
    number = event.value
    if number != int(number):
        raise ClockError(f"There is no level {number:g}; give a whole number.")
    try:
        return structure.index_of_level(int(number))
    except BlindStructureError as exc:
        raise ClockError(str(exc)) from None


def _apply_ante(state: ClockState, cursor: _Cursor, event: ClockEvent) -> tuple[_Cursor, str]:
    amount = event.value
    if amount != int(amount):
        raise ClockError("The ante is a whole number of chips.")
    ante = int(amount)
    step = _step(state, cursor, cursor.index)
    level = step if isinstance(step, BlindLevel) else state.structure.next_level(cursor.index)
    if level is None:  # pragma: no cover - every structure ends on a level
        raise ClockError("There is no level left to add an ante to.")
    level = _with_antes(level, cursor.antes)
    check_ante(ante, level.small_blind)
    if ante == level.ante:
        raise ClockError(
            f"The ante is already {ante:,}." if ante else "There is no ante to remove."
        )
    moved = replace(cursor, antes=(*cursor.antes, (level.number, ante)))
    if ante == 0:
        return moved, f"The ante is removed from level {level.number} on."
    verb = "changed to" if level.ante else "added:"
    return (
        moved,
        f"Ante {verb} {ante:,} from level {level.number} on "
        f"(blinds {level.small_blind:,}/{level.big_blind:,}).",
    )


def _announcements(state: ClockState) -> Iterator[Announcement]:
    """The clock's whole life of announcements in order (endless while the clock runs)."""
    cursor = _Cursor(index=0, elapsed=0.0, at=state.started_at)
    for seq, event in enumerate(state.events):
        yield from _segment(state, cursor, event.at)
        cursor = _advance(state, cursor, event.at)
        cursor, text = _apply(state, cursor, event, seq)
        if text is not None:
            yield Announcement(f"event:{seq}", event.at, AnnouncementKind.DIRECTOR, text)
    yield from _segment(state, cursor, None)


def _segment(state: ClockState, cursor: _Cursor, end: datetime | None) -> Iterator[Announcement]:
    """Announcements while the clock runs from ``cursor`` until ``end`` (inclusive).

    A run covers the instants after the cursor up to and including ``end``; the cursor's own
    instant belongs to the previous run, except a step start that is still pending (the clock
    just started, or the director just jumped). So an announcement due at the very moment of
    an action is made before the action, and adding actions never changes what was due up to
    them.
    """
    if cursor.is_paused or cursor.is_ended:
        return
    index = cursor.index
    step_start = cursor.at - timedelta(seconds=cursor.elapsed)
    first = True
    while True:
        duration = _duration(state, cursor, index)
        for offset, item in _step_items(state, cursor, index, duration):
            if first and (
                offset < cursor.elapsed or (offset == cursor.elapsed and not cursor.pending)
            ):
                continue  # announced by the previous run
            at = step_start + timedelta(seconds=offset)
            if end is not None and at > end:
                return
            yield replace(item, at=at)
        if math.isinf(duration):
            return
        step_start += timedelta(seconds=duration)
        index += 1
        first = False


def _step_items(
    state: ClockState, cursor: _Cursor, index: int, duration: float
) -> Iterator[tuple[float, Announcement]]:
    """A step's announcements as (seconds into the step, announcement with a placeholder time)."""
    structure = state.structure
    step = _step(state, cursor, index)
    j = cursor.jumps
    late = structure.late_registration_step

    def item(key: str, kind: AnnouncementKind, text: str) -> Announcement:
        return Announcement(f"{j}:{key}:{index}", state.started_at, kind, text)

    arrived = not (index == cursor.index and cursor.jumped)  # reached by running, not a jump
    if arrived and late is not None and index == late + 1:
        yield (
            0.0,
            item("late-closed", AnnouncementKind.LATE_CLOSED, "Late registration is now closed."),
        )
    previous = _step(state, cursor, index - 1) if index > 0 else None
    if isinstance(step, Break):
        minutes = format_duration(duration) if not math.isinf(duration) else ""
        text = f"Break {step.number} ({minutes})." if minutes else f"Break {step.number}."
        if step.chip_up:
            text += f" Chip-up: {step.chip_up}"
        yield 0.0, item("start", AnnouncementKind.BREAK, text)
    else:
        text = step.label
        if arrived and isinstance(previous, Break):
            text = f"The break is over. {text}"
        yield 0.0, item("start", AnnouncementKind.LEVEL, text)
        if step.is_added and index == len(structure.steps):
            yield (
                0.0,
                item(
                    "added-levels",
                    AnnouncementKind.ADDED_LEVELS,
                    "The blind schedule has run out: from now on every level doubles the blinds.",
                ),
            )
        before = _previous_level(state, cursor, index)
        if step.ante and (before is None or not before.ante):
            yield (
                0.0,
                item("ante", AnnouncementKind.ANTE, f"An ante of {step.ante:,} starts this level."),
            )
    if late is not None and index == late:
        where = "break" if isinstance(step, Break) else "level"
        yield (
            0.0,
            item(
                "late-last-call",
                AnnouncementKind.LATE_LAST_CALL,
                f"Late registration closes at the end of this {where}.",
            ),
        )
    if math.isinf(duration):
        return
    for warning in sorted(state.warning_seconds, reverse=True):
        offset = duration - warning
        if offset <= 0:
            continue
        nxt = _step(state, cursor, index + 1) if _has_step(structure, index + 1) else None
        what = "this break" if isinstance(step, Break) else f"level {step.number}"
        text = f"{format_duration(warning).capitalize()} left in {what}."
        if nxt is not None:
            text += f" Next: {_step_name(nxt, lower=True)}."
        adds = cursor.adds if index == cursor.index else 0
        key = f"{j}.{adds}:warn{warning:g}:{index}"
        yield offset, Announcement(key, state.started_at, AnnouncementKind.WARNING, text)


def _has_step(structure: BlindStructure, index: int) -> bool:
    return index < structure.step_count


def _previous_level(state: ClockState, cursor: _Cursor, index: int) -> BlindLevel | None:
    for i in range(index - 1, -1, -1):
        step = _step(state, cursor, i)
        if isinstance(step, BlindLevel):
            return step
    return None

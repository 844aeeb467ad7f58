"""Edits per hour of the clock's status message (its card), before and after ``<t:...:R>``.

Before (issue 21), the card said the time left ("14:30") and the time to the next break, so the
service's look every 30 seconds found it changed and edited it: about 120 edits an hour.
After, a running level's end and the next break are Discord's relative timestamps, which every
client counts down itself; the card's fields change only with the level, a pause, a director's
action or the players left, and only then is it edited.

The night replayed (the same for both, from one seed): the BTown structure at 20-minute levels
for four hours; 40 players, busts at random (about one every six minutes); the director pauses
twice for five minutes and adds a minute once. Both cards go through the service's own rule
(``bot.clock_service``: a look every ``STATUS_INTERVAL_S`` and right after each action;
edited when the fields, the pause or the end differ: ``same_status``). The "after" figure is
also measured on the real ``ClockService`` (SQLite file, injected time, a counting poster)
over the same night: the two must agree.

    .venv/bin/python -m benchmarks.clock_card [--hours 4] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import logging
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bot.database import Database
from bot.features.clock.posting import ClockStatus
from bot.features.clock.service import STATUS_INTERVAL_S, ClockService
from bot.features.clock.status import same_status
from bot.features.clock.wording import status_reply
from rulings import Announcement, ClockAction, ClockEvent, ClockState, load_structure, position_at
from storage.clocks import ClockRecord
from storage.db import create_schema, make_engine

T0 = dt.datetime(2026, 12, 1, 19, 0, tzinfo=dt.UTC)
CHANNEL = 555
LEVEL_S = 1200.0
BREAK_S = 600.0


@dataclass(frozen=True)
class Night:
    """What happens when: director actions and busts (seconds after the start)."""

    actions: tuple[tuple[float, ClockAction, float], ...]
    busts: tuple[float, ...]
    players: int = 40

    def line(self, t: float) -> str:
        """The tournament line the card shows at ``t`` (as ``tournament_status_line`` words it)."""
        left = self.players - sum(1 for b in self.busts if b <= t)
        average = self.players * 20_000 // max(left, 1)
        return (
            f"Tournament: {left} player{'' if left == 1 else 's'} left, average stack {average:,}"
        )


def make_night(hours: float, seed: int) -> Night:
    rng = random.Random(seed)
    busts, t = [], 0.0
    while len(busts) < 38:
        t += rng.expovariate(1 / 360)
        if t >= hours * 3600:
            break
        busts.append(t)
    actions = (
        (2900.0, ClockAction.PAUSE, 0.0),
        (3200.0, ClockAction.RESUME, 0.0),
        (7500.0, ClockAction.ADD_TIME, 1.0),
        (9000.0, ClockAction.PAUSE, 0.0),
        (9300.0, ClockAction.RESUME, 0.0),
    )
    return Night(actions, tuple(busts))


def looks(night: Night, hours: float) -> list[tuple[float, bool]]:
    """When the service looks at the card: every 30 s, and right after each action (True)."""
    moments = [(n * STATUS_INTERVAL_S, False) for n in range(1, int(hours * 3600 / 30) + 1)]
    moments += [(at, True) for at, _, _ in night.actions]
    return sorted(moments)


def replay(night: Night, hours: float, *, card: bool) -> int:
    """Edits the service makes over the night with the old (``card=False``) or new card."""
    state = ClockState(load_structure("btown"), T0, LEVEL_S, BREAK_S)
    last: ClockStatus | None = None
    edits = 0
    for at, is_action in looks(night, hours):
        now = T0 + dt.timedelta(seconds=at)
        if is_action:
            _, action, value = next(a for a in night.actions if a[0] == at)
            state = state.with_event(ClockEvent(action, now, value))
        record = ClockRecord(1, 1, CHANNEL, None, 1, 9, state, frozenset())
        status = ClockStatus(
            1,
            status_reply(record, now, tournament=night.line(at), card=card),
            position_at(state, now).is_paused,
            False,
        )
        if last is None or not same_status(last, status):
            edits += 1
        last = status
    return edits


@dataclass
class CountingPoster:
    edits: int = 0
    posts: list[str] = field(default_factory=list)

    async def announce(
        self, channel_id: int, announcement: Announcement, ping_role_id: int | None, *, nonce=None
    ) -> None:
        self.posts.append(announcement.text)

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        return 1

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        self.edits += 1
        return True


class NightService(ClockService):
    """The real service; the tournament line comes from the replayed night."""

    night: Night

    async def _tournament(self, channel_id: int) -> str | None:
        at = (self.now() - T0).total_seconds()
        return self.night.line(at)


async def real_service(night: Night, hours: float) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'card.db'}")
        create_schema(engine)
        moment = [T0]
        poster = CountingPoster()
        service = NightService(Database(engine), poster, now=lambda: moment[0], status_interval=0)
        service.night = night
        record = await service.start_clock(
            guild_id=1,
            channel_id=CHANNEL,
            structure="btown",
            created_by=9,
            level_minutes=LEVEL_S / 60,
        )
        for at, is_action in looks(night, hours):
            moment[0] = T0 + dt.timedelta(seconds=at)
            if is_action:  # act() looks at the card itself, at once
                _, action, value = next(a for a in night.actions if a[0] == at)
                await service.act(CHANNEL, action, value)
            else:
                await service._status(record.id)  # the 30-second job
        await service.stop()
        engine.dispose()
    return poster.edits + 1  # and the first post


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hours", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    night = make_night(args.hours, args.seed)
    before = replay(night, args.hours, card=False)
    after = replay(night, args.hours, card=True)
    measured = asyncio.run(real_service(night, args.hours))
    print(
        f"{args.hours:g} h night, 20-minute levels, {len(night.busts)} busts, "
        f"{len(night.actions)} director actions; the service looks every {STATUS_INTERVAL_S:g} s"
    )
    print(
        f"before (time left in the card): {before:4d} edits = {before / args.hours:6.1f} per hour"
    )
    print(f"after  (<t:...:R> timestamps):   {after:4d} edits = {after / args.hours:6.1f} per hour")
    per_hour = measured / args.hours
    print(f"after, the real ClockService:    {measured:4d} edits = {per_hour:6.1f} per hour")
    print(f"{before / after:.1f}x fewer edits")


if __name__ == "__main__":
    main()

"""A crowd's interactions never stand between another user's and its parse (issue 23).

``InteractionLanes`` stands in for discord.py's ``INTERACTION_CREATE`` parser: these tests give
it payloads as the gateway reader would (all at once, as frames read back to back) and record
the order its own task parses them in; no clock decides anything.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.surfaces.discord.gateway import InteractionLanes, interaction_user

BYSTANDER = 7


def payload(user: int, n: int, *, dm: bool = False) -> dict[str, Any]:
    who = {"id": str(user), "username": f"u{user}"}
    return {"id": str(n), "user": who} if dm else {"id": str(n), "member": {"user": who}}


class Recorder:
    """A parser that records ``(user, id)`` in the order it is called."""

    def __init__(self, expected: int, fail: str | None = None) -> None:
        self.parsed: list[tuple[int, int]] = []
        self.expected = expected
        self.fail = fail
        self.all_parsed = asyncio.Event()

    def __call__(self, data: dict[str, Any]) -> None:
        if data["id"] == self.fail:
            self.expected -= 1
            raise KeyError("type")
        self.parsed.append((interaction_user(data), int(data["id"])))
        if len(self.parsed) >= self.expected:
            self.all_parsed.set()

    async def wait(self) -> list[tuple[int, int]]:
        async with asyncio.timeout(10):
            await self.all_parsed.wait()
        return self.parsed


def test_the_sender_is_read_from_a_server_member_or_a_direct_message():
    assert interaction_user(payload(5, 1)) == 5
    assert interaction_user(payload(6, 1, dm=True)) == 6
    assert interaction_user({"id": "1"}) == 0


async def test_a_bystander_is_parsed_before_a_crowd_that_sent_several_each():
    parse = Recorder(201)
    lanes = InteractionLanes(parse)
    n = 0
    for user in range(100, 140):  # 40 users, 5 each, read back to back
        for _ in range(5):
            n += 1
            lanes(payload(user, n))
    lanes(payload(BYSTANDER, 999))
    parsed = await parse.wait()
    users = [u for u, _ in parsed]
    # The bystander, who sent one, goes first: he waits for none of the crowd's 200.
    assert users.index(BYSTANDER) == 0
    # Then the crowd in turns: every user's first interaction before anyone's second.
    assert sorted(users[1:41]) == list(range(100, 140))
    # Each user's own interactions are parsed in the order he sent them.
    for user in range(100, 140):
        ids = [i for u, i in parsed if u == user]
        assert ids == sorted(ids)
    assert len(parsed) == 201


async def test_a_newcomer_joins_the_turn_being_parsed_not_the_end():
    parse = Recorder(12)
    lanes = InteractionLanes(parse)
    for i in range(10):
        lanes(payload(1, i))  # one user's flood
    lanes(payload(2, 100))
    await asyncio.sleep(0)  # the lane's task starts: one parsed
    await asyncio.sleep(0)
    lanes(payload(BYSTANDER, 200))
    parsed = await parse.wait()
    users = [u for u, _ in parsed]
    assert users.index(2) <= 1
    assert users.index(BYSTANDER) <= 4  # not behind the flood's remaining seven or so
    assert [i for u, i in parsed if u == 1] == list(range(10))


async def test_users_with_heavy_work_in_flight_go_after_everyone_else():
    parse = Recorder(5)
    heavy = {100, 101, 102}
    lanes = InteractionLanes(parse, is_heavy=lambda user: user in heavy, patience_s=3600)
    for n, user in enumerate((100, 101, 102, 103, BYSTANDER)):  # one each
        lanes(payload(user, n))
    parsed = await parse.wait()
    # 103 and the bystander (nothing heavy in flight) first, then the others in order.
    assert [u for u, _ in parsed] == [103, BYSTANDER, 100, 101, 102]


async def test_a_heavy_users_interaction_that_waited_its_patience_goes_next():
    parse = Recorder(2)
    lanes = InteractionLanes(parse, is_heavy=lambda user: user == 100, patience_s=0.0)
    lanes(payload(100, 1))
    lanes(payload(103, 2))
    parsed = await parse.wait()
    # No patience left: the heavy user's interaction is not held back behind the other's.
    assert [u for u, _ in parsed] == [100, 103]


async def test_a_payload_that_fails_to_parse_does_not_stop_the_others(caplog: Any):
    parse = Recorder(2, fail="1")
    lanes = InteractionLanes(parse)
    lanes(payload(1, 1))
    lanes(payload(2, 2))
    parsed = await parse.wait()
    assert parsed == [(2, 2)]
    assert "could not dispatch interaction 1" in caplog.text


async def test_stopping_drops_what_is_queued():
    parse = Recorder(5)
    lanes = InteractionLanes(parse)
    for i in range(5):
        lanes(payload(1, i))
    lanes.stop()
    await asyncio.sleep(0)
    assert lanes.waiting == 0
    assert parse.parsed == []

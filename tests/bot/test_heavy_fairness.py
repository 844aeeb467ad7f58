"""Heavy commands (pre-flop equity) through the real bot: users take turns; a flood cools down."""

from __future__ import annotations

from typing import Any

import pytest

from bot.fair_queue import UserCooldown
from bot.surfaces.discord import LeagueBot
from tests.fakediscord import EPHEMERAL, FakeDiscord, Interaction

pytestmark = pytest.mark.asyncio(loop_scope="module")

NINE = "As Ks vs Qh Qd vs Jc Jd vs Tc Td vs 9c 9d vs 8c 8d vs 7c 7d vs 6c 6d vs 5c 5d"
FLOODER, OTHER = 900_000_000_000_000_401, 900_000_000_000_000_402


async def test_a_flood_of_equities_cools_down_and_does_not_hold_up_another_user(
    fake: FakeDiscord, bot: LeagueBot
):
    bot.heavy_cooldown = UserCooldown(rate=5, per=30.0)
    flood = [await fake.interact("hand", {"cards": NINE}, user_id=FLOODER) for _ in range(6)]
    single = await fake.interact("hand", {"cards": "As Ks vs Qh Qd"}, user_id=OTHER)

    # The six run side by side, so any one of them may be the sixth to reach the cooldown; the
    # others answer directly or, when the work takes longer than the defer delay, follow up.
    responses = [await it.response() for it in flood]

    def slowed(body: dict[str, Any]) -> bool:
        embeds = (body.get("data") or {}).get("embeds") or [{}]
        return body["type"] == 4 and "Slow down" in str(embeds[0].get("description"))

    refused = [r for r in responses if slowed(r)]
    served = [it for it, r in zip(flood, responses, strict=True) if not slowed(r)]
    assert len(refused) == 1
    assert len(served) == 5
    assert refused[0]["data"]["flags"] & EPHEMERAL
    text = refused[0]["data"]["embeds"][0]["description"]
    assert text.startswith("Slow down a little: try again in ")
    assert text.endswith(" s.")

    answered = await single.settled(wait_s=60)
    assert "1,712,304" in str(answered["embeds"][0])
    for it in served:  # nine hands: 52 - 18 cards left, C(34, 5) boards
        assert "278,256" in str((await it.settled(wait_s=60))["embeds"][0])

    def answered_at(it: Interaction) -> float:
        if it.followup_at:
            return it.followup_at[0]
        assert it.callback_at is not None
        return it.callback_at

    # Served in turns: the other user's answer did not wait for the whole flood.
    assert answered_at(single) < max(answered_at(it) for it in served)

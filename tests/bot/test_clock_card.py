"""The clock's status message (its card): Discord counts it down, so it is edited only on change.

The card shows the level's end and the next break as relative timestamps (``<t:...:R>``); its
fields, which decide whether the service edits the message, then stay the same for a whole
level. A new level, a pause or a director's action changes them. With ``WEB_BASE_URL`` the card
links the channel's live page, unless the league hides it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from bot.database import Database
from bot.features.clock.posting import ClockStatus
from bot.features.clock.service import ClockService
from bot.features.clock.wording import status_reply
from rulings import Announcement, ClockAction, ClockEvent, ClockState, load_structure
from storage.clocks import ClockRecord
from storage.db import session_scope
from storage.guild_settings import update_guild_settings

T0 = dt.datetime(2026, 12, 1, 19, 0, tzinfo=dt.UTC)
CHANNEL = 555
GUILD = 1
BASE = "https://poker.example.org"


def _record(state: ClockState) -> ClockRecord:
    return ClockRecord(1, GUILD, CHANNEL, None, None, 9, state, frozenset())


def _fields(state: ClockState, at: dt.datetime) -> dict[str, str]:
    return {f.name: f.value for f in status_reply(_record(state), at, card=True).fields}


def test_the_card_names_the_levels_end_and_the_next_break_as_relative_timestamps():
    state = ClockState(load_structure("btown"), T0, 1200, 600)
    at = T0 + dt.timedelta(minutes=65.5)  # level 4, 14:30 left, break 1 after level 5
    ends = int((T0 + dt.timedelta(minutes=80)).timestamp())
    brk = int((T0 + dt.timedelta(minutes=100)).timestamp())
    fields = _fields(state, at)
    assert fields["Time left"] == f"Ends <t:{ends}:R> (<t:{ends}:T>)"
    assert fields["Next break"] == f"Break 1 <t:{brk}:R>"
    # Any moment of the level gives the same card: nothing to edit.
    for seconds in (1, 29.9, 30, 600, 869):
        assert _fields(state, at + dt.timedelta(seconds=seconds)) == fields
    assert _fields(state, T0 + dt.timedelta(minutes=80, seconds=1))["Now"].startswith("**Level 5")


def test_a_paused_card_shows_fixed_times_until_it_runs_again():
    state = ClockState(load_structure("btown"), T0, 1200, 600).with_event(
        ClockEvent(ClockAction.PAUSE, T0 + dt.timedelta(minutes=5))
    )
    fields = _fields(state, T0 + dt.timedelta(minutes=6))
    assert fields["Time left"] == "15:00 (paused)"
    assert fields["Next break"] == "Break 1 after 1:35:00 of play"
    assert _fields(state, T0 + dt.timedelta(minutes=50)) == fields


def test_the_one_off_status_still_says_the_time_left():
    state = ClockState(load_structure("btown"), T0, 1200, 600)
    reply = status_reply(_record(state), T0 + dt.timedelta(minutes=65.5), live_url=f"{BASE}/x")
    fields = {f.name: f.value for f in reply.fields}
    assert fields["Time left"].startswith("14:30 (ends <t:")
    assert fields["Next break"] == "Break 1 in 34:30"
    assert fields["Live page"] == f"{BASE}/x"


@dataclass
class Poster:
    edits: list[ClockStatus] = field(default_factory=list)

    async def announce(
        self, channel_id: int, announcement: Announcement, ping_role_id: int | None, *, nonce=None
    ) -> None:
        return None

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        self.edits.append(status)
        return 42

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        self.edits.append(status)
        return True


class Now:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> dt.datetime:
        return self.at


async def test_the_service_edits_the_card_only_when_it_changes(engine: Engine):
    poster, now = Poster(), Now()
    service = ClockService(Database(engine), poster, now=now, status_interval=0)
    record = await service.start_clock(
        guild_id=GUILD, channel_id=CHANNEL, structure="btown", created_by=9
    )
    assert len(poster.edits) == 1  # the card is posted
    for _ in range(30):  # 15 minutes of 30-second looks: the same card, no edit
        now.at += dt.timedelta(seconds=30)
        await service._status(record.id)  # what the 30-second job runs
    assert len(poster.edits) == 1
    now.at = T0 + dt.timedelta(minutes=20, seconds=5)
    await service._status(record.id)
    assert len(poster.edits) == 2
    assert poster.edits[-1].reply.fields[0].value.startswith("**Level 2**")
    await service.act(CHANNEL, ClockAction.PAUSE)
    assert len(poster.edits) == 3
    assert poster.edits[-1].is_paused
    now.at += dt.timedelta(minutes=10)
    await service._status(record.id)
    assert len(poster.edits) == 3
    await service.stop()


async def test_the_card_links_the_live_page_unless_the_league_hides_it(engine: Engine):
    poster, now = Poster(), Now()
    service = ClockService(
        Database(engine), poster, now=now, status_interval=0, web_base_url=BASE + "/"
    )
    await service.start_clock(guild_id=GUILD, channel_id=CHANNEL, structure="btown", created_by=9)
    link = {f.name: f.value for f in poster.edits[-1].reply.fields}["Live page"]
    assert link == f"{BASE}/live/{CHANNEL}"
    assert (await service.status(CHANNEL)).fields[-1].value == link
    with session_scope(engine) as session:
        update_guild_settings(session=session, guild_id=GUILD, actor="test", live_page=False)
    await service.act(CHANNEL, ClockAction.PAUSE)
    assert "Live page" not in {f.name for f in poster.edits[-1].reply.fields}
    assert "Live page" not in {f.name for f in (await service.status(CHANNEL)).fields}
    await service.stop()


def test_clock_status_in_the_console_links_the_live_page(tmp_path):
    import io

    from bot.config import Settings
    from bot.surfaces.console import Console, ConsoleContext
    from storage.db import create_schema, make_engine

    engine = make_engine(f"sqlite:///{tmp_path / 'card.db'}")
    create_schema(engine)
    settings = Settings(_env_file=None, public_url=BASE)
    console = Console(ConsoleContext(settings=settings, engine=engine, out=io.StringIO()))
    try:
        console.handle("/clock start level_minutes: 20")
        reply = console.handle("/clock status")
        assert reply is not None
        assert {f.name: f.value for f in reply.fields}["Live page"] == f"{BASE}/live/0"
    finally:
        console.ctx.clock.close()
        engine.dispose()

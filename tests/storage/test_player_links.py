"""Member-player links: one member per player per league, and the reverse; audited; merges."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest
from sqlalchemy import select, text
from sqlmodel import Session, col

from storage.db import make_engine, session_scope, upgrade_schema
from storage.errors import AlreadyExists, NotFound, StorageError
from storage.league_models import AuditEntry, Player
from storage.link_models import LinkRequest, PlayerLink
from storage.player_links import (
    OpenLinkRequest,
    close_link_request,
    link_player,
    linked_player,
    member_of,
    open_link_request,
    unlink_player,
)
from storage.players import add_player, get_player, merge_players
from tests.storage._league import make_league

ANN, BEN = 1001, 1002


def _state(session: Session) -> list[object]:
    links = session.execute(
        select(col(PlayerLink.player_id), col(PlayerLink.discord_id)).order_by(col(PlayerLink.id))
    ).all()
    mirrors = session.execute(
        select(col(Player.display_name), col(Player.discord_id)).order_by(col(Player.id))
    ).all()
    audits = session.execute(select(col(AuditEntry.action))).all()
    return [list(links), list(mirrors), len(audits)]


@pytest.fixture
def league(session: Session):
    league = make_league(session)
    for name in ("Ann", "Ben", "Cal"):
        add_player(session=session, league_id=league.id, name=name, actor="t", allow_new=True)
    return league


def test_link_then_read_both_ways(session, league):
    info = link_player(session=session, league_id=league.id, discord_id=ANN, name="ann", actor="t")
    assert info.name == "Ann"
    assert info.discord_id == ANN  # the old column mirrors the link
    found = linked_player(session=session, league_id=league.id, discord_id=ANN)
    assert found is not None
    assert found.name == "Ann"
    assert member_of(session=session, league_id=league.id, player_id=info.id) == ANN
    assert linked_player(session=session, league_id=league.id, discord_id=BEN) is None
    # The same link again changes nothing (no second audit entry).
    before = _state(session)
    link_player(session=session, league_id=league.id, discord_id=ANN, name="Ann", actor="t")
    assert _state(session) == before


@pytest.mark.parametrize(
    ("member", "name", "error", "words"),
    [
        (ANN, "Ben", AlreadyExists, "that member is linked to 'Ann' already"),
        (BEN, "Ann", AlreadyExists, "'Ann' is linked to another member already"),
        (BEN, "Nobody", NotFound, "there is no player 'Nobody'"),
    ],
)
def test_second_links_are_refused_and_change_nothing(session, league, member, name, error, words):
    link_player(session=session, league_id=league.id, discord_id=ANN, name="Ann", actor="t")
    before = _state(session)
    with pytest.raises(error, match=words):
        link_player(session=session, league_id=league.id, discord_id=member, name=name, actor="t")
    assert _state(session) == before


def test_unlink_by_player_or_member(session, league):
    link_player(session=session, league_id=league.id, discord_id=ANN, name="Ann", actor="t")
    link_player(session=session, league_id=league.id, discord_id=BEN, name="Ben", actor="t")
    assert (
        unlink_player(session=session, league_id=league.id, name="Ann", actor="t").discord_id
        is None
    )
    assert (
        unlink_player(session=session, league_id=league.id, discord_id=BEN, actor="t").name == "Ben"
    )
    assert session.execute(select(col(PlayerLink.id))).all() == []
    before = _state(session)
    with pytest.raises(NotFound, match="'Ann' is not linked"):
        unlink_player(session=session, league_id=league.id, name="Ann", actor="t")
    with pytest.raises(NotFound, match="that member is not linked"):
        unlink_player(session=session, league_id=league.id, discord_id=ANN, actor="t")
    with pytest.raises(StorageError, match="name the player or the member"):
        unlink_player(session=session, league_id=league.id, actor="t")
    assert _state(session) == before
    actions = [a for (a,) in session.execute(select(col(AuditEntry.action)))]
    assert actions.count("player.link") == 2
    assert actions.count("player.unlink") == 2


def test_merging_a_linked_duplicate_keeps_the_link(session, league):
    link_player(session=session, league_id=league.id, discord_id=BEN, name="Cal", actor="t")
    merge_players(session=session, league_id=league.id, keep="Ben", merge="Cal", actor="t")
    found = linked_player(session=session, league_id=league.id, discord_id=BEN)
    assert found is not None
    assert found.name == "Ben"


def test_migration_turns_old_discord_ids_into_links(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade_schema(engine, "0008")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO league (id, name, preset, overrides) "
                "VALUES (1, 'default', 'btown', '{}')"
            )
        )
        for pid, name, did in ((1, "Ann", ANN), (2, "Ben", None), (3, "Cal", ANN)):
            conn.execute(
                text("INSERT INTO player (id, league_id, display_name, name_key, discord_id) "
                     "VALUES (:id, 1, :n, :k, :d)"),
                {"id": pid, "n": name, "k": name.lower(), "d": did},
            )  # fmt: skip
    upgrade_schema(engine)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT player_id, discord_id FROM player_link")).all()
    assert [tuple(r) for r in rows] == [(1, ANN)]  # the first of two sharing a member wins
    engine.dispose()


T0 = dt.datetime(2026, 12, 1, 18, 40, tzinfo=dt.UTC)
DAY = dt.timedelta(hours=24)


def _requests(session: Session) -> list[tuple[int, int, int, dt.datetime]]:
    rows = session.execute(
        select(
            col(LinkRequest.league_id),
            col(LinkRequest.discord_id),
            col(LinkRequest.player_id),
            col(LinkRequest.asked_at),
        ).order_by(col(LinkRequest.id))
    ).all()
    return [(a, b, c, d if d.tzinfo else d.replace(tzinfo=dt.UTC)) for a, b, c, d in rows]


def _ask(session: Session, league, member: int, name: str, at: dt.datetime):
    player = get_player(session=session, league_id=league.id, name=name)
    return open_link_request(
        session=session,
        league_id=league.id,
        discord_id=member,
        player_id=player.id,
        now=at,
        open_for=DAY,
    )


def test_a_second_request_while_the_first_is_open_is_refused_with_when(session, league):
    assert _ask(session, league, ANN, "Ann", T0) is None
    first = _requests(session)
    assert len(first) == 1
    # Another request (for anyone) within 24 hours returns the open one and writes nothing.
    later = T0 + DAY - dt.timedelta(seconds=1)
    assert _ask(session, league, ANN, "Ben", later) == OpenLinkRequest("Ann", T0)
    assert _ask(session, league, ANN, "Ann", T0 + dt.timedelta(minutes=5)) == OpenLinkRequest(
        "Ann", T0
    )
    assert _requests(session) == first
    # Another member asks on his own.
    assert _ask(session, league, BEN, "Ben", later) is None
    assert len(_requests(session)) == 2


def test_a_request_older_than_a_day_is_replaced(session, league):
    assert _ask(session, league, ANN, "Ann", T0) is None
    assert _ask(session, league, ANN, "Ben", T0 + DAY) is None
    ben = get_player(session=session, league_id=league.id, name="Ben")
    assert _requests(session) == [(league.id, ANN, ben.id, T0 + DAY)]


def test_an_answer_closes_the_request_so_he_may_ask_again(session, league):
    assert _ask(session, league, ANN, "Ann", T0) is None
    ann = get_player(session=session, league_id=league.id, name="Ann")
    ben = get_player(session=session, league_id=league.id, name="Ben")
    # A refusal of an older request for another player leaves this one open.
    assert (
        close_link_request(session=session, league_id=league.id, discord_id=ANN, player_id=ben.id)
        == 0
    )
    assert len(_requests(session)) == 1
    assert (
        close_link_request(session=session, league_id=league.id, discord_id=ANN, player_id=ann.id)
        == 1
    )
    assert _requests(session) == []
    assert _ask(session, league, ANN, "Ben", T0 + dt.timedelta(minutes=1)) is None
    # Approving (he is linked now) closes whichever request he has.
    assert close_link_request(session=session, league_id=league.id, discord_id=ANN) == 1
    assert _requests(session) == []


def test_merging_the_asked_for_player_keeps_the_request(session, league):
    assert _ask(session, league, ANN, "Cal", T0) is None
    merge_players(session=session, league_id=league.id, keep="Ben", merge="Cal", actor="t")
    assert _ask(session, league, ANN, "Ann", T0 + dt.timedelta(hours=1)) == OpenLinkRequest(
        "Ben", T0
    )


def test_two_processes_asking_at_once_record_one_request(engine):
    if engine.dialect.name == "sqlite":
        pytest.skip("one in-memory connection: SQLite's writers queue for one lock anyway")
    with session_scope(engine) as setup:
        league = make_league(setup)
        add_player(session=setup, league_id=league.id, name="Ann", actor="t", allow_new=True)
        player_id = get_player(session=setup, league_id=league.id, name="Ann").id
    answers: dict[str, object] = {}
    first_wrote = threading.Event()

    def first() -> None:
        with session_scope(engine) as s:
            answers["first"] = open_link_request(
                session=s, league_id=league.id, discord_id=ANN, player_id=player_id,
                now=T0, open_for=DAY,
            )  # fmt: skip
            first_wrote.set()
            time.sleep(0.3)  # still uncommitted while the second one asks

    def second() -> None:
        first_wrote.wait(5)
        with session_scope(engine) as s:
            answers["second"] = open_link_request(
                session=s, league_id=league.id, discord_id=ANN, player_id=player_id,
                now=T0 + dt.timedelta(seconds=1), open_for=DAY,
            )  # fmt: skip

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert answers == {"first": None, "second": OpenLinkRequest("Ann", T0)}
    with session_scope(engine) as s:
        assert len(_requests(s)) == 1

"""Member-player links: one member per player per league, and the reverse; audited; merges."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text
from sqlmodel import Session, col

from storage.db import make_engine, upgrade_schema
from storage.errors import AlreadyExists, NotFound, StorageError
from storage.league_models import AuditEntry, Player
from storage.link_models import PlayerLink
from storage.player_links import link_player, linked_player, member_of, unlink_player
from storage.players import add_player, merge_players
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

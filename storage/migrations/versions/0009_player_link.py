"""Discord members linked to players (``/me``): player_link.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 09:40:00

Existing ``player.discord_id`` values become links (the first player of a league wins when two
shared a member, which the old column did not prevent).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    bind = op.get_bind()
    table = op.create_table(
        "player_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("discord_id", sa.BigInteger(), nullable=False),
        sa.Column("linked_by", sa.String(length=100), nullable=False),
        sa.Column("linked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("league_id", "discord_id", name="uq_player_link_member"),
        sa.UniqueConstraint("player_id", name="uq_player_link_player"),
    )
    op.create_index("ix_player_link_league_id", "player_link", ["league_id"], unique=False)
    rows = bind.execute(
        sa.text(
            "SELECT id, league_id, discord_id FROM player WHERE discord_id IS NOT NULL ORDER BY id"
        )
    ).all()
    seen: set[tuple[int, int]] = set()
    now = dt.datetime.now(dt.UTC)
    links = []
    for pid, league_id, discord_id in rows:
        if (league_id, discord_id) in seen:
            continue
        seen.add((league_id, discord_id))
        links.append(
            {
                "league_id": league_id,
                "player_id": pid,
                "discord_id": discord_id,
                "linked_by": "migration",
                "linked_at": now,
            }
        )
    if links:
        op.bulk_insert(table, links)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index("ix_player_link_league_id", table_name="player_link")
    op.drop_table("player_link")

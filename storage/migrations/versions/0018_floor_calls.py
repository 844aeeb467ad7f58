"""Floor calls and the league's rulings: floor_call and floor_ruling.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01 19:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision (no league has a call yet)."""
    op.create_table(
        "floor_call",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("caller", sa.String(length=100), nullable=False),
        sa.Column("discord_id", sa.BigInteger(), nullable=True),
        sa.Column("table_no", sa.Integer(), nullable=True),
        sa.Column("seat_no", sa.Integer(), nullable=True),
        sa.Column("note", sa.String(length=500), nullable=False),
        sa.Column("suggestions", sa.JSON(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("called_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("league_id", "number", name="uq_floor_call_number"),
    )
    op.create_table(
        "floor_ruling",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("call_id", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=1000), nullable=False),
        sa.Column("book", sa.String(length=100), nullable=True),
        sa.Column("section", sa.String(length=100), nullable=True),
        sa.Column("given_by", sa.String(length=100), nullable=False),
        sa.Column("given_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("superseded", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["call_id"], ["floor_call.id"]),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_floor_ruling_call_id", "floor_ruling", ["call_id"], unique=False)
    op.create_index(
        "ix_floor_ruling_cited", "floor_ruling", ["league_id", "book", "section"], unique=False
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index("ix_floor_ruling_cited", table_name="floor_ruling")
    op.drop_index("ix_floor_ruling_call_id", table_name="floor_ruling")
    op.drop_table("floor_ruling")
    op.drop_table("floor_call")

"""Players checking themselves in: guild_setting.self_checkin and checkin_request.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 17:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision (existing leagues keep check-in to their directors)."""
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("self_checkin", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "checkin_request",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("name_key", sa.String(length=100), nullable=False),
        sa.Column("discord_id", sa.BigInteger(), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "name_key", name="uq_checkin_request"),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("checkin_request")
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.drop_column("self_checkin")

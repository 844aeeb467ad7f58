"""Players reporting their own bust: guild_setting.self_report and bust_report.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 20:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision (existing leagues keep busts to their directors)."""
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("self_report", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "bust_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("name_key", sa.String(length=100), nullable=False),
        sa.Column("discord_id", sa.BigInteger(), nullable=False),
        sa.Column("reported_by", sa.String(length=100), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "name_key", name="uq_bust_report"),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("bust_report")
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.drop_column("self_report")

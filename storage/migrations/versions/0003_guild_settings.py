"""A Discord server's league settings: guild_setting.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 13:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "guild_setting",
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("director_role_id", sa.BigInteger(), nullable=True),
        sa.Column("results_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("clock_ping_role_id", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.PrimaryKeyConstraint("league_id"),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("guild_setting")

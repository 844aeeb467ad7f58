"""A thread per night: guild_setting.night_thread and tournament.thread_id.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01 19:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision (existing leagues keep their bust-outs in the channel)."""
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("night_thread", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("tournament", schema=None) as batch_op:
        batch_op.add_column(sa.Column("thread_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("tournament", schema=None) as batch_op:
        batch_op.drop_column("thread_id")
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.drop_column("night_thread")

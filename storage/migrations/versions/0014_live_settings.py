"""A league's live pages and spoken clock: guild_setting.live_page and clock_tts.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 16:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision.

    Existing leagues show their live pages and keep a silent clock (the defaults).
    """
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("live_page", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch_op.add_column(
            sa.Column("clock_tts", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.drop_column("clock_tts")
        batch_op.drop_column("live_page")

"""Clock ownership across bot instances: clock.owner_id, lease_expires_at and version.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 09:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision.

    Running clocks start without an owner: the first instance to start adopts them.
    """
    # Plain ADD COLUMN (no batch copy): on SQLite a copy of ``clock`` would drop and recreate
    # it, and the cascade would take the clock's announcements and actions with it.
    op.add_column("clock", sa.Column("owner_id", sa.String(length=64), nullable=True))
    op.add_column("clock", sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "clock", sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )
    op.create_index("ix_clock_owner_id", "clock", ["owner_id"])


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index("ix_clock_owner_id", table_name="clock")
    for column in ("version", "lease_expires_at", "owner_id"):
        op.drop_column("clock", column)  # SQLite >= 3.35 drops a column in place

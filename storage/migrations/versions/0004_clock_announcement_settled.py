"""The clock's announcements are claimed before posting and settled after: settled_at.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 13:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision.

    Rows recorded before this revision were treated as posted; they are settled at their
    claim time so that the next start-up does not take them for a crash's leftovers.
    """
    with op.batch_alter_table("clock_announcement", schema=None) as batch_op:
        batch_op.add_column(sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE clock_announcement SET settled_at = made_at")


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("clock_announcement", schema=None) as batch_op:
        batch_op.drop_column("settled_at")

"""A league's own home rulebook, ranked first by /rule: guild_setting.rulebook.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 14:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision.

    Existing leagues keep the default home book (the column is NULL for them).
    """
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rulebook", sa.String(length=100), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("guild_setting", schema=None) as batch_op:
        batch_op.drop_column("rulebook")

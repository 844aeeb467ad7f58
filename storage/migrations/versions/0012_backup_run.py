"""The scheduled backup's lease and last run: backup_run (one row per job).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 16:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "backup_run",
        sa.Column("job", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.Column("ok_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ok_path", sa.String(length=500), nullable=True),
        sa.Column("ok_bytes", sa.BigInteger(), nullable=True),
        sa.Column("ok_rows", sa.BigInteger(), nullable=True),
        sa.Column("ok_seconds", sa.Float(), nullable=True),
        sa.Column("ok_instance", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("job"),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("backup_run")

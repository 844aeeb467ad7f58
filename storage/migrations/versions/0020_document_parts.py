"""A large night's record and audit entry stored in parts: event_record_part, audit_part.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02 05:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "event_record_part",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["event_id"], ["event.id"]),
        sa.PrimaryKeyConstraint("event_id", "seq"),
    )
    op.create_table(
        "audit_part",
        sa.Column("audit_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["audit_id"], ["audit_log.id"]),
        sa.PrimaryKeyConstraint("audit_id", "seq"),
    )


def downgrade() -> None:
    """Revert this revision: the parts merged back into their whole documents first."""
    bind = op.get_bind()
    for table, owner, column, key in (
        ("event_record_part", "event", "record", "event_id"),
        ("audit_part", "audit_log", "after", "audit_id"),
    ):
        parts = sa.table(table, sa.column(key), sa.column("seq"), sa.column("body", sa.JSON()))
        whole = sa.table(owner, sa.column("id"), sa.column(column, sa.JSON()))
        ids = [row[0] for row in bind.execute(sa.select(parts.c[key]).distinct())]
        for owner_id in ids:
            document = bind.execute(
                sa.select(whole.c[column]).where(whole.c.id == owner_id)
            ).scalar_one()
            for (body,) in bind.execute(
                sa.select(parts.c.body).where(parts.c[key] == owner_id).order_by(parts.c.seq)
            ):
                _merge(document, body)
            bind.execute(sa.update(whole).where(whole.c.id == owner_id).values({column: document}))
        op.drop_table(table)


def _merge(document: dict[str, Any], part: dict[str, Any]) -> None:
    """``storage.league_models.merge_part`` as of this revision: lists extended, maps merged."""
    for key, value in part.items():
        held = document.get(key)
        if isinstance(held, list) and isinstance(value, list):
            held.extend(value)
        elif isinstance(held, dict) and isinstance(value, dict):
            _merge(held, value)
        else:
            document[key] = value

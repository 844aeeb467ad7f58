"""The league's weekly nights: night_series, night_cancel, rsvp, night_reminder, night_no_show.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 17:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "night_series",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=False),
        sa.Column("start", sa.String(length=5), nullable=False),
        sa.Column("first", sa.Date(), nullable=False),
        sa.Column("every_weeks", sa.Integer(), nullable=False),
        sa.Column("ends", sa.Date(), nullable=True),
        sa.Column("remind_minutes", sa.Integer(), nullable=False),
        sa.Column("event_claim", sa.String(length=100), nullable=True),
        sa.Column("discord_event_id", sa.BigInteger(), nullable=True),
        sa.Column("created_by", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.ForeignKeyConstraint(["location_id"], ["location.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("league_id", "location_id", "weekday", name="uq_night_series"),
    )
    op.create_index("ix_night_series_league_id", "night_series", ["league_id"])
    op.create_table(
        "night_cancel",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.ForeignKeyConstraint(["series_id"], ["night_series.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("series_id", "day", name="uq_night_cancel"),
    )
    op.create_index("ix_night_cancel_series_id", "night_cancel", ["series_id"])
    op.create_table(
        "rsvp",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("name_key", sa.String(length=100), nullable=False),
        sa.Column("discord_id", sa.BigInteger(), nullable=True),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["series_id"], ["night_series.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("series_id", "day", "name_key", name="uq_rsvp"),
    )
    op.create_index("ix_rsvp_series_id", "rsvp", ["series_id"])
    op.create_table(
        "night_reminder",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("sent_by", sa.String(length=100), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("role_id", sa.BigInteger(), nullable=True),
        sa.Column("cleaned", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["series_id"], ["night_series.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("series_id", "day", name="uq_night_reminder"),
    )
    op.create_index("ix_night_reminder_series_id", "night_reminder", ["series_id"])
    op.create_table(
        "night_no_show",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=True),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("name_key", sa.String(length=100), nullable=False),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.ForeignKeyConstraint(["series_id"], ["night_series.id"]),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("series_id", "day", "name_key", name="uq_night_no_show"),
    )
    op.create_index("ix_night_no_show_league_id", "night_no_show", ["league_id"])


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("night_no_show")
    op.drop_table("night_reminder")
    op.drop_table("rsvp")
    op.drop_table("night_cancel")
    op.drop_table("night_series")

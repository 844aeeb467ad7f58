"""League records a director can trust: the current season, strike dates, re-entering a void night.

- ``season.is_current``: the league's current season (set on the season of the latest event, or
  the newest season, of every league that has seasons).
- ``strike.date``: the day a strike was given (filled from ``strike.at`` for existing rows).
- ``event``: the unique night (season, location, date, kind) holds for active events only, so a
  voided night can be entered again while the void event stays on record.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 09:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _mark_current_seasons() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT s.league_id, s.id, MAX(e.date) FROM season s "
            "LEFT JOIN event e ON e.season_id = s.id GROUP BY s.league_id, s.id"
        )
    ).all()
    best: dict[int, tuple[str, int]] = {}
    for league_id, season_id, last in rows:
        key = (str(last or ""), int(season_id))
        if league_id not in best or key > best[league_id]:
            best[league_id] = key
    for _, season_id in best.values():
        bind.execute(
            sa.text("UPDATE season SET is_current = :yes WHERE id = :id"),
            {"yes": True, "id": season_id},
        )


def _fill_strike_dates() -> None:
    import datetime as dt

    bind = op.get_bind()
    strike = sa.table(
        "strike",
        sa.column("id", sa.Integer),
        sa.column("at", sa.DateTime(timezone=True)),
        sa.column("date", sa.Date),
    )
    for sid, at in bind.execute(sa.select(strike.c.id, strike.c.at)).all():
        if isinstance(at, str):
            at = dt.datetime.fromisoformat(at)
        if at is None:
            continue
        bind.execute(sa.update(strike).where(strike.c.id == sid).values(date=at.date()))


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("season", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("is_current", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    _mark_current_seasons()
    with op.batch_alter_table("strike", schema=None) as batch_op:
        batch_op.add_column(sa.Column("date", sa.Date(), nullable=True))
    _fill_strike_dates()
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_constraint("uq_event_identity", type_="unique")
    op.create_index(
        "uq_event_active_identity",
        "event",
        ["season_id", "location_id", "date", "kind"],
        unique=True,
        sqlite_where=sa.text("status = 'active'"),
        postgresql_where=sa.text("status = 'active'"),
    )


def downgrade() -> None:
    """Revert this revision (fails if a voided night was entered again)."""
    op.drop_index("uq_event_active_identity", table_name="event")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.create_unique_constraint(
            "uq_event_identity", ["season_id", "location_id", "date", "kind"]
        )
    with op.batch_alter_table("strike", schema=None) as batch_op:
        batch_op.drop_column("date")
    with op.batch_alter_table("season", schema=None) as batch_op:
        batch_op.drop_column("is_current")

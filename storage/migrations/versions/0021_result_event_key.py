"""A result's event, season and location under one key; two indexes unique keys cover, dropped.

A result row copies its event's season and location (standings never join the event). Three
foreign keys (event, season, location) made the database look up three rows for each result
it stored; one composite key to ``event (id, season_id, location_id)`` is one lookup, and says
more: the row's season and location are its event's (which the event's own keys hold to
exist), so a result can no longer name one league's event with another's season. The index
``ix_result_event_id`` repeated the first column of ``uq_result_player``, which serves the
same reads, and ``ix_player_league_id`` the first of ``uq_player_name``; each stored result
(each new player) updated both.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02 05:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SINGLE = (("event_id", "event"), ("season_id", "season"), ("location_id", "location"))
# SQLite keeps the keys of migration 0001 unnamed: batch mode names them by this convention.
_NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}


def _single_key_names() -> dict[str, str]:
    """Each single-column key of ``result`` to the event, season or location, by its name."""
    found = sa.inspect(op.get_bind()).get_foreign_keys("result")
    names = {}
    for column, table in _SINGLE:
        for key in found:
            if key["constrained_columns"] == [column] and key["referred_table"] == table:
                names[column] = key["name"] or f"fk_result_{column}_{table}"
    return names


def upgrade() -> None:
    """Apply this revision."""
    op.create_index("uq_event_night_key", "event", ["id", "season_id", "location_id"], unique=True)
    names = _single_key_names()
    with op.batch_alter_table("result", naming_convention=_NAMING) as batch_op:
        for column, _ in _SINGLE:
            if column in names:
                batch_op.drop_constraint(names[column], type_="foreignkey")
        batch_op.create_foreign_key(
            "fk_result_event_night",
            "event",
            ["event_id", "season_id", "location_id"],
            ["id", "season_id", "location_id"],
        )
        batch_op.drop_index("ix_result_event_id")
    op.drop_index("ix_player_league_id", table_name="player")


def downgrade() -> None:
    """Revert this revision."""
    op.create_index("ix_player_league_id", "player", ["league_id"], unique=False)
    with op.batch_alter_table("result", naming_convention=_NAMING) as batch_op:
        batch_op.create_index("ix_result_event_id", ["event_id"], unique=False)
        batch_op.drop_constraint("fk_result_event_night", type_="foreignkey")
        for column, table in _SINGLE:
            batch_op.create_foreign_key(f"result_{column}_fkey", table, [column], ["id"])
    op.drop_index("uq_event_night_key", table_name="event")

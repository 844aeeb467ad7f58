"""Names are matched by one key, ``rulings.name_key`` (NFKC, spaces collapsed, case-folded).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 09:40:00

Keys stored before this revision were only case-folded with spaces collapsed, so a name typed
in another Unicode form ("Jose" + a combining accent, full-width letters) no longer matched
its stored key. Every season, location, player and alias key is recomputed from the name as
stored. A row whose new key is already another row's keeps its old key (and is logged), so no
row is merged or lost; a director can merge the two players afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

from rulings import name_key

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger(__name__)

# table, the name column, the key column
_KEYED = (
    ("season", "name", "name_key"),
    ("location", "name", "name_key"),
    ("player", "display_name", "name_key"),
    ("player_alias", "alias", "alias_key"),
)


def _old_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _rekey(key_of: Callable[[str], str]) -> None:
    conn = op.get_bind()
    for table, name_col, key_col in _KEYED:
        rows = conn.execute(
            sa.text(f"SELECT id, league_id, {name_col}, {key_col} FROM {table} ORDER BY id")
        ).all()
        taken = {(league, key) for _, league, _, key in rows}
        for row_id, league, name, key in rows:
            new = key_of(name)
            if new == key:
                continue
            if (league, new) in taken:
                log.warning("%s %s keeps its key %r: %r is another row's", table, row_id, key, new)
                continue
            conn.execute(
                sa.text(f"UPDATE {table} SET {key_col} = :new WHERE id = :id"),
                {"new": new, "id": row_id},
            )
            taken.discard((league, key))
            taken.add((league, new))


def upgrade() -> None:
    """Apply this revision: recompute every name key with ``rulings.name_key``."""
    _rekey(name_key)


def downgrade() -> None:
    """Revert this revision: the keys as the earlier revisions computed them."""
    _rekey(_old_key)

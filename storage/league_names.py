"""The league's names in one read: its players and aliases, all of them or those asked about.

``storage.players.PlayerDirectory`` holds what this reads; ``storage.league_state`` reads it
with the league's rules, seasons and locations in the same statement.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, String, bindparam, cast, func, literal, literal_column, null, union_all
from sqlalchemy import select as sa_select
from sqlmodel import col

from storage.league_models import Player, PlayerAlias


def league_names(league_id: Any, *others: Any, only: str | None = None) -> Any:
    """The league's players and aliases in one statement (one round trip, not two).

    Rows of ``(id, name key, display name, what)``: ``what`` is ``player`` (its display name)
    or ``alias`` (its player's id, no display name). ``others``: more selects of the same
    four columns to read in the same statement (``storage.import_plan`` adds the seasons and
    locations). ``league_id``: the league's id, or a bound parameter standing for it.
    ``only`` (the dialect's name): just the names bound as ``name_keys`` (a JSON list of name
    keys): the players and aliases known by them, and the players those aliases name, so the
    read is the size of the names asked about, not of the league.
    """
    players = sa_select(
        col(Player.id),
        col(Player.name_key),
        col(Player.display_name),
        literal("player").label("what"),
    ).where(col(Player.league_id) == league_id)
    aliases = sa_select(
        col(PlayerAlias.player_id),
        col(PlayerAlias.alias_key),
        null(),
        literal("alias"),
    ).where(col(PlayerAlias.league_id) == league_id)
    if only is not None:
        keys = _json_keys(only)
        aliases = aliases.where(col(PlayerAlias.alias_key).in_(keys))
        players = players.where(
            col(Player.name_key).in_(keys)
            | col(Player.id).in_(
                sa_select(col(PlayerAlias.player_id))
                .where(col(PlayerAlias.league_id) == league_id)
                .where(col(PlayerAlias.alias_key).in_(keys))
            )
        )
    return union_all(players, aliases, *others)


def _json_keys(dialect: str) -> Any:
    """The name keys bound as ``name_keys``, one JSON text, as a one-column select.

    One parameter whatever the number of names: an expanding ``IN`` renders and binds one
    placeholder a name at each execution, which cost more than the read it narrows.
    """
    given = bindparam("name_keys", type_=String())
    if dialect == "postgresql":
        return sa_select(func.json_array_elements_text(cast(given, JSON())))
    return sa_select(literal_column("value")).select_from(func.json_each(given))

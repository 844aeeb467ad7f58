"""A peek at one configuration variable without building ``bot.config.Settings``.

``Settings`` (pydantic-settings) costs a short command most of its start-up: ``pokerfloor
hand`` on a fresh machine only needs to know that there is no database yet, and ``pokerfloor
rule`` whether ``RULEBOOK_DIR`` is set. ``peek`` reads a variable the way ``Settings`` does
(the environment first, then ``.env`` in the working directory with the same parser, names in
any case, a blank value unset); everything else still goes through ``Settings``.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_FILE = ".env"


def peek(name: str) -> str | None:
    """The value of variable ``name`` (``DATABASE_URL``), or None when it is not set.

    >>> os.environ["POKERFLOOR_PEEK_EXAMPLE"] = "  "
    >>> peek("pokerfloor_peek_example") is None
    True
    """
    wanted = name.lower()
    for key, value in os.environ.items():
        if key.lower() == wanted:
            return value.strip() or None
    if Path(ENV_FILE).is_file():
        from dotenv import dotenv_values

        for key, found in dotenv_values(ENV_FILE).items():
            if key.lower() == wanted:
                return found.strip() or None if found is not None else None
    return None

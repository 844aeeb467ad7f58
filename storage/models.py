"""SQLModel tables. Each topic's tables live in their own module and are imported here."""

import storage.league_models  # noqa: F401

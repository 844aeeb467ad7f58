"""SQLModel tables. Each topic's tables live in their own module and are imported here."""

import storage.backup_models
import storage.bot_models
import storage.clock_models
import storage.floor_models
import storage.guild_settings_models
import storage.league_models
import storage.link_models
import storage.night_models
import storage.post_failure_models
import storage.tournament_models  # noqa: F401

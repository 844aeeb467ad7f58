"""Every command, defined once (``bot.commands.model``); each topic module adds its tuple."""

"""Discord cogs: one module per topic, each with ``async def setup(bot)``; see ``bot.app``."""

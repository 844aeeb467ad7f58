"""How the answers are worded: ``Reply`` builders per topic and the storage reads they show.

(Once ``bot/views``; it never held discord.ui views.) Handlers in ``bot.answers`` call these;
nothing here knows which surface will show the reply.
"""

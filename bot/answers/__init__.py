"""What each command answers: the handlers named by ``bot.commands`` definitions.

A handler is ``handler(ctx: Context, **options) -> Reply``: it gets checked options, uses
``rulings`` and ``storage`` through ``ctx``, and returns a transport-neutral ``Reply`` that the
Discord adapter, the console and the command line each render.
"""

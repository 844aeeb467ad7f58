"""Calling the floor and the league's rulings: ``/floor``, ``/td ruling``, ``/rulings``.

A player (anyone) calls the floor with a note; on Discord the call is posted to the results
channel pinging the director role only, with the rules ``/rule`` finds for the note, and a
thread is made on it. A director answers with ``/td ruling`` citing a rule of the league's
book; the ruling is stored (audited) and becomes the league's precedent: ``/rulings``, under
the rule in ``/rule`` and on the web's rules page. The records are ``storage.floor``.
"""

from __future__ import annotations

from bot.command.model import Command, Opt, Who

_HANDLERS = "bot.features.floor.handlers"

NOTE_CHARS = 500
DECISION_CHARS = 1000
CALL_MAX = 2**31 - 1

COMMANDS = (
    Command(
        path=("floor",),
        description="Call the floor: the directors are pinged with your note and where you sit",
        handler=f"{_HANDLERS}:floor",
        options=(
            Opt("table", "Your table (default: where you sit tonight)", kind="int", min=1, max=99),
            Opt(
                "note",
                "What happened (e.g. 'dealer exposed the top card')",
                required=True,
                positional=True,
                raw=True,
                max_length=NOTE_CHARS,
            ),
        ),
        writes=True,
        private=True,
        guild_only=True,
    ),
    Command(
        path=("td", "ruling"),
        description="Rule on a floor call, citing the league's rule (e.g. 2.G.d.6)",
        handler=f"{_HANDLERS}:ruling",
        options=(
            Opt("call", "The floor call's number", kind="int", required=True, min=1, max=CALL_MAX),
            Opt("decision", "The ruling", required=True, max_length=DECISION_CHARS, raw=True),
            Opt(
                "rule",
                "The section it rests on, in the league's book (e.g. 2.G.d.6)",
                complete="rule",
                max_length=100,
            ),
        ),
        who=Who.DIRECTOR,
        writes=True,
        guild_only=True,
    ),
    Command(
        path=("rulings",),
        description="List the league's rulings, newest first (give words to search them)",
        handler=f"{_HANDLERS}:list_rulings_reply",
        options=(
            Opt(
                "query",
                "Words from the call, the decision, or a section (e.g. 2.G)",
                positional=True,
                raw=True,
                max_length=200,
            ),
        ),
        guild_only=True,
    ),
)

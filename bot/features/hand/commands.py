"""/hand: evaluate a hand, or who wins and how often."""

from __future__ import annotations

from bot.command.model import CLI_ONLY, Command, Opt

HAND = Command(
    path=("hand",),
    description="Evaluate a hand, or who wins and how often against other hands",
    handler="bot.features.hand.handlers:hand",
    options=(
        Opt(
            "cards",
            "A hand, or hands separated by 'vs' (e.g. 'As Ks vs Qh Qd')",
            required=True,
            max_length=200,
            positional=True,
            raw=True,
        ),
        Opt("board", "Board cards, 0 to 5 (e.g. '2c 7d 9h')", max_length=200),
        Opt("json", "Print the result as JSON", kind="yes", default=False, surfaces=CLI_ONLY),
    ),
    user_install=True,  # on Discord, also on a member's own account: DMs and other servers
)

COMMANDS = (HAND,)

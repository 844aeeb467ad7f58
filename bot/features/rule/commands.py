"""/rule: search the league's rulebooks."""

from __future__ import annotations

from bot.command.model import CLI_ONLY, Action, Command, Menu, Opt

RULE = Command(
    path=("rule",),
    league=False,
    description="Look up a rule in the league's rulebook, with its citation",
    handler="bot.features.rule.handlers:rule",
    options=(
        Opt(
            "query",
            "Words from the rule, or its number (e.g. 'oversized chip', '2.G.d.6')",
            max_length=200,
            complete="rule",
            positional=True,
            raw=True,
        ),
        Opt("book", "Search only this rulebook", complete="book"),
        Opt(
            "limit",
            "How many matches to consider (1-25)",
            kind="int",
            min=1,
            max=25,
            default=3,
            surfaces=CLI_ONLY,
        ),
        Opt(
            "dir",
            "A folder of extra .txt/.md rulebooks (default: RULEBOOK_DIR)",
            surfaces=CLI_ONLY,
            max_length=4096,
        ),
        Opt("json", "Print the matches as JSON", kind="yes", default=False, surfaces=CLI_ONLY),
        Opt(
            "section",
            "Show a whole section: its heading and every rule (e.g. 2.D)",
            max_length=100,
            surfaces=CLI_ONLY,
        ),
    ),
    # On Discord: "Find rule" in a message's Apps menu searches for its text (privately), and
    # members may install /rule on their own account (DMs, other servers: the bundled books).
    menus=(Menu("Find rule", "message", "query"),),
    user_install=True,
)

COMMANDS = (RULE,)

ACTIONS = (Action("rsec", "bot.answers.rule:whole_section_page"),)

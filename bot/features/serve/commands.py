"""Running the bot: Discord, the console, the public pages, the invite link (command line only).

These are processes, not answers: each handler gets the parsed options and returns the exit
status (``Command.process``); ``pokerfloor`` with no command runs ``run`` or ``console``.
"""

from __future__ import annotations

from bot.command.model import CLI_ONLY, Command, Opt

COMMANDS = (
    Command(
        path=("console",),
        description="Type the bot's commands (/rule, /hand, /help) in a terminal or pipe them in",
        handler="bot.surfaces.cli.run:run_console",
        surfaces=CLI_ONLY,
        process=True,
    ),
    Command(
        path=("run",),
        description="Connect to Discord (needs DISCORD_TOKEN)",
        handler="bot.surfaces.cli.run:run_bot",
        surfaces=CLI_ONLY,
        process=True,
    ),
    Command(
        path=("web",),
        description="Serve the public league pages (standings, TOC, events, players, rules)",
        handler="bot.surfaces.cli.web:run_web",
        options=(
            Opt("host", "Address to listen on (default 0.0.0.0: phones on the network)"),
            Opt("port", "Port (default WEB_PORT, else 8080)", kind="int"),
        ),
        surfaces=CLI_ONLY,
        process=True,
    ),
    Command(
        path=("invite",),
        description="Print the URL that adds the bot to a server",
        handler="bot.surfaces.cli.invite:run",
        options=(
            Opt(
                "application_id",
                "The application id (developer portal, General Information page)",
                required=True,
                positional=True,
            ),
            Opt(
                "ping_any_role",
                "Also ask for 'Mention All Roles', to ping a clock role that is not mentionable",
                kind="yes",
                default=False,
            ),
            Opt(
                "tts",
                "Also ask for 'Send Text-to-Speech Messages', for /td settings clock_tts on",
                kind="yes",
                default=False,
            ),
        ),
        surfaces=CLI_ONLY,
        league=False,
        process=True,
    ),
)

"""`pokerfloor invite`: the URL that adds the bot to a server, from the application id.

``pokerfloor invite 123456789012345678`` prints the OAuth2 URL with the ``bot`` and
``applications.commands`` scopes and exactly the permissions the bot uses (``PERMISSIONS``). A
server's manager opens it, picks the server and confirms. Nothing is sent anywhere.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from urllib.parse import urlencode

log = logging.getLogger(__name__)

EXIT_USAGE = 2
AUTHORIZE_URL = "https://discord.com/oauth2/authorize"
SCOPES = ("bot", "applications.commands")

# What the bot does in a channel, and the permission bit each needs (Discord's values).
PERMISSIONS: dict[str, int] = {
    "View Channels": 1 << 10,  # see the channels it answers and announces in
    "Send Messages": 1 << 11,  # clock announcements, the status message, results posts
    "Embed Links": 1 << 14,  # every answer is an embed
    "Attach Files": 1 << 15,  # exports and reports come as files
    "Read Message History": 1 << 16,  # edit its own status message after a restart
    "Manage Roles": 1 << 28,  # the role a night's reminder pings (the RSVP'd members only)
    "Create Events": 1 << 44,  # the league's weekly night in the server's Events tab
}
# Only to ping a clock role that is not set "mentionable" (the bot pings nothing else).
MENTION_ANY_ROLE = ("Mention @everyone, @here and All Roles", 1 << 17)
# Only for a league that reads its level announcements aloud (/td settings clock_tts on).
SEND_TTS = ("Send Text-to-Speech Messages", 1 << 12)

_SNOWFLAKE = re.compile(r"^[0-9]{17,20}$")


def invite_url(application_id: int, *, ping_any_role: bool = False, tts: bool = False) -> str:
    """The OAuth2 URL that adds application ``application_id`` to a server.

    >>> invite_url(123456789012345678)
    'https://discord.com/oauth2/authorize?client_id=123456789012345678&permissions=17592454597632&scope=bot+applications.commands'
    """
    bits = sum(PERMISSIONS.values()) | (MENTION_ANY_ROLE[1] if ping_any_role else 0)
    bits |= SEND_TTS[1] if tts else 0
    query = {"client_id": str(application_id), "permissions": str(bits), "scope": " ".join(SCOPES)}
    return f"{AUTHORIZE_URL}?{urlencode(query)}"


def run(args: argparse.Namespace) -> int:
    """Print the invite URL and what it asks for; exit 2 for an id that is not one."""
    text = str(args.application_id).strip()
    if not _SNOWFLAKE.match(text):
        sys.stderr.write(
            f"pokerfloor invite: {text[:40]!r} is not an application id (17 to 20 digits, "
            "from the developer portal's General Information page)\n"
        )
        return EXIT_USAGE
    url = invite_url(int(text), ping_any_role=args.ping_any_role, tts=args.tts)
    asked = list(PERMISSIONS) + ([MENTION_ANY_ROLE[0]] if args.ping_any_role else [])
    asked += [SEND_TTS[0]] if args.tts else []
    sys.stdout.write(f"{url}\n")
    sys.stderr.write(f"scopes: {', '.join(SCOPES)}; permissions: {', '.join(asked)}\n")
    return 0

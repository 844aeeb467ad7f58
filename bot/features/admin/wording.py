"""What the directors and the owner read about posts Discord refused (pure functions of values)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.reply import Field, escape
from storage.post_failures import PostFailureInfo

log = logging.getLogger(__name__)

MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
UNKNOWN_CHANNEL = 10003

_WHAT = {
    "clock": "the clock's announcement",
    "results": "a results post",
    "reminder": "the league night's reminder",
}


_HEARD = {
    "results": "told in the results channel",
    "dm": "told by DM",
    "reply": "told in the command's answer",
}


def failure_fix(kind: str, channel_id: int, status: int, code: int) -> str:
    """What a director does about a refused post, in words.

    >>> failure_fix("clock", 5, 403, 50013)
    'give me View Channel and Send Messages in <#5>'
    >>> failure_fix("results", 5, 404, 10003)
    'the channel <#5> was deleted; pick another with /td settings results_channel'
    >>> failure_fix("clock", 5, 503, 0)
    'Discord answered 503; it may pass by itself, else check my permissions in <#5>'
    """
    channel = f"<#{channel_id}>"
    if code in (MISSING_ACCESS, MISSING_PERMISSIONS) or status == 403:
        return f"give me View Channel and Send Messages in {channel}"
    if code == UNKNOWN_CHANNEL or status == 404:
        then = (
            "end it with /clock end and start it in another channel"
            if kind == "clock"
            else "pick another with /td settings results_channel"
        )
        return f"the channel {channel} was deleted; {then}"
    answered = f"Discord answered {status}" if status else "Discord did not answer"
    return f"{answered}; it may pass by itself, else check my permissions in {channel}"


def failure_notice(kind: str, channel_id: int, status: int, code: int, quiet_minutes: int) -> str:
    """The one private message the directors get when a post failed for good.

    >>> print(failure_notice("clock", 5, 403, 50001, 60))  # doctest: +NORMALIZE_WHITESPACE
    I could not post the clock's announcement in <#5>: give me View Channel and Send
    Messages in <#5>. I will not tell you again about that channel for 60 minutes; /admin
    health lists the failed posts.
    """
    return (
        f"I could not post {_WHAT.get(kind, 'a message')} in <#{channel_id}>: "
        f"{failure_fix(kind, channel_id, status, code)}. I will not tell you again about that "
        f"channel for {quiet_minutes} minutes; /admin health lists the failed posts."
    )


def failures_field(failures: Sequence[PostFailureInfo]) -> Field:
    """``/admin health``'s list of a server's last failed posts (newest first), with the fix."""
    if not failures:
        return Field("Failed posts", "none")
    lines = []
    for f in failures:
        heard = _HEARD.get(f.told_how or "", "not told again")
        fix = failure_fix(f.kind, f.channel_id, f.status, f.code)
        lines.append(
            f"{f.at:%Y-%m-%d %H:%M} UTC, {_WHAT.get(f.kind, f.kind)} in <#{f.channel_id}>: "
            f"{f.status} {escape(f.error)[:60]}; {fix} ({heard})"
        )
    return Field("Failed posts", "\n".join(lines)[:1024])

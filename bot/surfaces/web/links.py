"""Addresses of the league pages, for links from Discord (no web server imported)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

WEB_HOST = "0.0.0.0"  # public pages: reachable from phones by default
"""Where ``pokerfloor web`` (default) and ``pokerfloor run`` with ``WEB_PORT`` listen."""


def anchor(section: str) -> str:
    """The ``id`` of a passage on its rulebook page (and the link's ``#fragment``).

    >>> anchor("2.G.d.6"), anchor("Bar rules 12")
    ('2.G.d.6', 'Bar-rules-12')
    """
    return "-".join(section.split())


def rule_url(public_url: str, book: str, section: str) -> str:
    """The public address of a passage: ``PUBLIC_URL/rules/<book>#<section>``.

    >>> rule_url("https://poker.example.org", "btown-poker-league", "2.G.d.6")
    'https://poker.example.org/rules/btown-poker-league#2.G.d.6'
    """
    from urllib.parse import quote  # here: ``pokerfloor --help`` reads WEB_HOST from this module

    return f"{public_url.rstrip('/')}/rules/{quote(book, safe='')}#{quote(anchor(section))}"


def live_url(base_url: str, channel_id: int) -> str:
    """The public address of a channel's live page (``WEB_BASE_URL/live/<channel>``).

    >>> live_url("https://poker.example.org/", 123456789012345678)
    'https://poker.example.org/live/123456789012345678'
    """
    return f"{base_url.rstrip('/')}/live/{channel_id}"

"""Where a reply's answer comes from: the league's home rulebook and the rule that decides it.

Every citation a reply shows is made here, from the league's rules: ``rulebook`` names the home
book and ``citations`` maps a topic (``CITATION_TOPICS``) to its section there. A preset
carries both as data (``rulings/data/leagues/<name>.toml``), so a league on another book cites
that book, and a topic its book has no rule for is cited not at all.

>>> from rulings.league.rules import load_league_rules
>>> rule_citation(load_league_rules("btown"), "hand_rankings", "split_pots")
'btown-poker-league 6 (hand rankings), 2.G.d.5 (split pots)'
>>> rule_citation(load_league_rules("poker-pub"), "starting_stack")
'poker-pub Bar rules 3 (starting stack)'
>>> rule_citation(load_league_rules("poker-pub"), "split_pots") is None
True
"""

from __future__ import annotations

from rulings.league.rules import CITATION_TOPICS, LeagueRules


def rule_citation(rules: LeagueRules, *topics: str) -> str | None:
    """Cite the rules of the league's home rulebook that decide ``topics``.

    Args:
        rules: the league's rules (their ``rulebook`` and ``citations``).
        topics: keys of ``CITATION_TOPICS``, in the order to cite them.

    Returns:
        ``"<book> <section> (<topic>), <section> (<topic>)"`` for the topics the book has a
        rule for; None when it has none of them.

    Raises:
        KeyError: a topic that is not in ``CITATION_TOPICS`` (a bug in the caller).
    """
    parts = []
    for topic in topics:
        words = CITATION_TOPICS[topic]
        section = rules.citations.get(topic)
        if section:
            parts.append(f"{section} ({words})")
    if not parts or not rules.rulebook:
        return None
    return f"{rules.rulebook} {', '.join(parts)}"

"""No two modules of bot/features import each other, directly or through others.

Function-level imports count (grimp reads them): a cycle cannot hide inside a function.
"""

from __future__ import annotations

import itertools

import grimp


def test_feature_modules_form_no_cycle():
    graph = grimp.build_graph("bot")
    modules = sorted(m for m in graph.modules if m.startswith("bot.features."))
    cycles = [
        (a, b)
        for a, b in itertools.combinations(modules, 2)
        if graph.chain_exists(importer=a, imported=b) and graph.chain_exists(importer=b, imported=a)
    ]
    assert cycles == []

"""Whether the best passage answers the question, or the books have no rule on it.

The search always finds a nearest passage; a question no book rules on ("who won the world
series", "is there wifi") must not be answered with one. The decision is calibrated, not a word
list: a logistic model over what the ranking itself shows (how close the best passage's
meaning is, by how much it stands out from the next, how much of the query the lexical ranker
matched), fitted by ``tools/fit_answers.py`` on the labelled in-scope queries
(``tests/rulings/rulebook/rule_queries.toml``) against questions written to be out of scope,
never on a sealed batch. Its weights and threshold live in ``rulings/data/search_weights.toml``
(table ``answers``).
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields

from rulings.rulebook.tuning import stage_weights


@dataclass(frozen=True)
class Evidence:
    """What the ranking shows about one query, for the answer decision.

    Attributes:
        best_cosine: the best passage's meaning score (cosine with the query), books searched.
        cosine_margin: how far the best cosine stands above the second best.
        fused_top: the best fused score.
        fused_margin: how far the best fused score stands above the second.
        coverage: how much of the query's weight the best lexical passage matched, 0 to 1.
        lexical_share: the best lexical score over the most a passage could score, 0 to 1.
        poker_talk: a glossary phrase matched, or a book was named.
    """

    best_cosine: float
    cosine_margin: float
    fused_top: float
    fused_margin: float
    coverage: float
    lexical_share: float
    poker_talk: float

    def features(self) -> tuple[float, ...]:
        """The evidence as numbers, in field order."""
        return tuple(float(v) for v in astuple(self))


FEATURES = tuple(f.name for f in fields(Evidence))


@dataclass(frozen=True)
class AnswerModel:
    """A logistic decision over ``Evidence``: answers when the confidence reaches a threshold.

    Attributes:
        weights: one per ``Evidence`` field, in order.
        bias: the intercept.
        threshold: the least confidence that answers.
    """

    weights: tuple[float, ...]
    bias: float
    threshold: float

    @classmethod
    def bundled(cls) -> AnswerModel:
        """The fitted model of ``rulings/data/search_weights.toml``."""
        table = stage_weights("answers")
        return cls(
            weights=tuple(table[name] for name in FEATURES),
            bias=table["bias"],
            threshold=table["threshold"],
        )

    def confidence(self, evidence: Evidence) -> float:
        """How sure the ranking is that its best passage answers, 0 to 1."""
        z = self.bias + sum(w * x for w, x in zip(self.weights, evidence.features(), strict=True))
        return 1 / (1 + math.exp(-max(-60.0, min(60.0, z))))

    def answers(self, evidence: Evidence) -> bool:
        """Whether the best passage answers the question."""
        return self.confidence(evidence) >= self.threshold

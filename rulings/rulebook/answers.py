"""Whether the best passage answers the question, or the books have no rule on it.

The search always finds a nearest passage; a question no book rules on ("who won the super
bowl", "is there wifi") must not be answered with one. The decision is calibrated, not a word
list: a logistic model over signals read off the books themselves (``scope.py``: how many of
the query's words the books use, how much of its weight one passage holds, whether it names
the books' topics, the best meaning score against the query's own scores and against the books'
headings), beside the best meaning score and whether the query is poker talk. It is fitted by
``tools/fit_answers.py`` on the labelled in-scope queries
(``tests/rulings/rulebook/rule_queries.toml``) against questions written to be out of scope
(``calib_none.toml``, ``scope_none.toml``), a quarter of each held out, never on a sealed
batch; each weight is held to the sign of what its signal means (a signal fitted against it is
left at 0), so a quirk of the labelled queries does not carry to a new writer's question (the
``seen`` fit; the ``unseen`` table predates the rule and is refitted only with fold models).
Two fits ship in ``rulings/data/answer_weights.toml``: ``seen``, for books the model
was tuned on, on cross-fitted scores (each labelled query scored by a model built without its
quarter of the queries, ``tools/crossfit_models.py``: the shipped model's own scores on the
queries it was tuned on run higher than a fresh question's); ``unseen``, on the scores of the
leave-one-book-out fold models (each book's queries scored by a model that never saw that
book), for a league's own book the model never saw, whose scores run lower (the seen fit turned
away a third of such a book's real questions).
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields

from rulings.rulebook.scope import ScopeSignals
from rulings.rulebook.tuning import answer_weights


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


# What the decision reads: two of the ranking's numbers and every scope signal.
RANKING_FEATURES = tuple(f.name for f in fields(Evidence))
FEATURES = (*RANKING_FEATURES, *(f.name for f in fields(ScopeSignals)))


def decision_features(evidence: Evidence, signals: ScopeSignals) -> tuple[float, ...]:
    """The numbers the answer model weighs, in ``FEATURES`` order."""
    ranking = {f.name: float(v) for f, v in zip(fields(Evidence), astuple(evidence), strict=True)}
    return (*(ranking[name] for name in RANKING_FEATURES), *map(float, astuple(signals)))


@dataclass(frozen=True)
class AnswerModel:
    """A logistic decision over ``FEATURES``: answers when the confidence reaches a threshold.

    Attributes:
        weights: one per name of ``FEATURES``, in order.
        bias: the intercept.
        threshold: the least confidence that answers.
    """

    weights: tuple[float, ...]
    bias: float
    threshold: float

    @classmethod
    def bundled(cls, *, unseen: bool = False) -> AnswerModel:
        """The fitted model of ``rulings/data/answer_weights.toml``.

        Args:
            unseen: the fit for a league's own book the sentence model was not tuned on.
        """
        table = answer_weights("unseen" if unseen else "seen")
        return cls(
            weights=tuple(table[name] for name in FEATURES),
            bias=table["bias"],
            threshold=table["threshold"],
        )

    def confidence(self, evidence: Evidence, signals: ScopeSignals) -> float:
        """How sure the decision is that the best passage answers, 0 to 1."""
        features = decision_features(evidence, signals)
        z = self.bias + sum(w * x for w, x in zip(self.weights, features, strict=True))
        return 1 / (1 + math.exp(-max(-60.0, min(60.0, z))))

    def answers(self, evidence: Evidence, signals: ScopeSignals) -> bool:
        """Whether the best passage answers the question."""
        return self.confidence(evidence, signals) >= self.threshold

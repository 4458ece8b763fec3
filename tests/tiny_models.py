"""Tiny BERT models built inside tests, so the real loading code runs without weights."""

from __future__ import annotations

from pathlib import Path

WORDS = [
    "the",
    "a",
    "is",
    "of",
    "to",
    "and",
    "cors",
    "middleware",
    "policy",
    "key",
    "rotate",
    "token",
    "answer",
    "citation",
    "question",
    "fastapi",
    "server",
    "store",
    "index",
    "gate",
    "block",
    "pass",
    "warn",
    "evidence",
]


def build_tiny_bert(folder: Path, *, num_labels: int | None = None, seed: int = 0) -> Path:
    """Write a 2-layer BERT (+ tokenizer) to `folder`; a classifier head when num_labels."""
    import torch
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        BertModel,
        BertTokenizerFast,
    )

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab), model_max_length=64)
    config = BertConfig(
        vocab_size=len(WORDS) + 5,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        num_labels=num_labels or 2,
    )
    torch.manual_seed(seed)
    model = BertForSequenceClassification(config) if num_labels else BertModel(config)
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder

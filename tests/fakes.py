"""Fakes implementing our Protocols for the offline tier (STYLE habit 11)."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Hashed bag of words, L2-normalised: texts sharing words get a higher cosine.

    Deterministic, needs no weights, and discriminates between texts, unlike a constant
    vector. Token count is the number of words, max 256 like all-MiniLM-L6-v2.
    """

    def __init__(self, dim: int = 64, model_id: str = "test/hash-bow:sum") -> None:
        self._dim = dim
        self._model_id = model_id

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return 256

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _WORD.finditer(text)]

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self._dim
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
            vec[int.from_bytes(digest, "big") % self._dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


class CountingEmbedder(HashEmbedder):
    """HashEmbedder that keeps what it was asked: every document text, the size of each
    `embed_documents` call, and every query."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []
        self.texts: list[str] = []
        self.queries: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        self.texts.extend(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return super().embed_query(text)

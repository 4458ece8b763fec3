"""BM25 term vectors with an explicit analyzer, identical on the write and read paths.

Qdrant Edge's `Bm25` tokenises, lowercases, folds, removes stopwords and stems; before it,
identifiers are split (`CORSMiddleware` -> `CORSMiddleware CORS Middleware`,
`max_age_days` -> `max_age_days max age days`) because `Bm25` keeps an identifier as one
token and a query for "cors middleware" would otherwise miss it (MODELS.md). The whole
policy is the `analyzer` string recorded in every chunk and in the index identity.
"""

from __future__ import annotations

import re

import qdrant_edge as qe

from server.core.contracts import SparseVector
from server.core.settings.models import ModelSettings

_IDENT = re.compile(r"\b\w*(?:[a-z][A-Z]|[A-Z]{2}[a-z]|_)\w*\b")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifiers(text: str) -> str:
    """`text` followed by the parts of every CamelCase or snake_case identifier in it."""
    parts: list[str] = []
    for ident in _IDENT.findall(text):
        pieces = [p for chunk in ident.split("_") for p in _CAMEL.findall(chunk)]
        if len(pieces) > 1:
            parts.extend(pieces)
    return f"{text} {' '.join(parts)}" if parts else text


class Bm25Encoder:
    """`SparseEncoder` over `qdrant_edge.Bm25`."""

    def __init__(self, models: ModelSettings) -> None:
        config = qe.Bm25Config(
            k=models.bm25_k,
            b=models.bm25_b,
            avg_len=models.bm25_avg_len,
            language=models.bm25_language,
            lowercase=True,
            ascii_folding=models.bm25_ascii_folding,
        )
        self._bm25 = qe.Bm25(config)
        self._split = models.bm25_split_identifiers
        flags = [models.bm25_language, "lowercase", "snowball", "stopwords"]
        if models.bm25_ascii_folding:
            flags.append("ascii_fold")
        if self._split:
            flags.append("split_ident")
        self._analyzer = (
            f"qdrant-edge-bm25:{'+'.join(flags)};k={models.bm25_k};b={models.bm25_b};"
            f"avg_len={models.bm25_avg_len}"
        )

    @classmethod
    def from_settings(cls, models: ModelSettings) -> Bm25Encoder:
        return cls(models)

    @property
    def analyzer(self) -> str:
        return self._analyzer

    def _prepare(self, text: str) -> str:
        return split_identifiers(text) if self._split else text

    def encode_document(self, text: str) -> SparseVector:
        vec = self._bm25.embed_document(self._prepare(text))
        return SparseVector(indices=tuple(vec.indices), values=tuple(vec.values))

    def encode_query(self, text: str) -> SparseVector:
        vec = self._bm25.embed_query(self._prepare(text))
        return SparseVector(indices=tuple(vec.indices), values=tuple(vec.values))

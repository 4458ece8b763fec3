"""Retrieval metrics for BEIR-format sets (SPEC 7.2): pure, one per function."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """sum rel_i / log2(i + 1) over the top k (i 1-based), divided by the ideal ordering's."""
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 1) for i, doc in enumerate(ranked[:k], start=1))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(rel / math.log2(i + 1) for i, rel in enumerate(ideal, start=1))
    return dcg / idcg if idcg else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant documents found in the top k."""
    wanted = {d for d, r in relevant.items() if r > 0}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def docs_in_order(doc_ids: Sequence[str]) -> list[str]:
    """Chunk-level ranking -> document ranking (a document ranks at its best chunk)."""
    return list(dict.fromkeys(doc_ids))

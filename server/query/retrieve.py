"""Hybrid recall and deltaS (SPEC 3.1, 3.5).

One store query does both candidate lists and their fusion (prefetch + RRF inside Qdrant);
the caller's scope is pushed down as a filter. Before querying, the analyzer and embed
model of this process are checked against the index's recorded identity (seed 002 rule 4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from server.core.contracts import Frozen, Hit
from server.core.errors import EmptyIndexError, IndexMismatchError
from server.core.identity import REINGEST_HINT
from server.core.ports import ChunkStore, Embedder, SearchMode, SearchRequest, SparseEncoder
from server.core.settings.retrieval import RetrievalSettings


class Recall(Frozen):
    """Fused candidates in store order and the query's dense vector."""

    hits: tuple[Hit, ...]
    query_vector: tuple[float, ...]


def check_parity(store: ChunkStore, embedder: Embedder, sparse: SparseEncoder) -> None:
    """Raise `analyzer_mismatch` / `mismatch_index_hash` before reading a foreign index."""
    meta = store.meta()
    if meta is None:
        raise EmptyIndexError("the index is empty: run `citegate ingest PATH...` first")
    if meta.identity.analyzer != sparse.analyzer:
        raise IndexMismatchError(
            f"analyzer_mismatch: index has {meta.identity.analyzer!r}, query path uses "
            f"{sparse.analyzer!r}; {REINGEST_HINT}"
        )
    if meta.identity.embed_model != embedder.model_id:
        raise IndexMismatchError(
            f"mismatch_index_hash: index embedded with {meta.identity.embed_model!r}, query "
            f"path uses {embedder.model_id!r}; {REINGEST_HINT}"
        )


def recall(
    question: str,
    *,
    embedder: Embedder,
    sparse: SparseEncoder,
    store: ChunkStore,
    settings: RetrievalSettings,
    scope_tags: Sequence[str] | None = None,
    exclude_tags: Sequence[str] = (),
    mode: SearchMode = "hybrid",
) -> Recall:
    """Top `recall_limit` fused candidates of the caller's scope, live revisions only."""
    check_parity(store, embedder, sparse)
    vector = tuple(embedder.embed_query(question))
    request = SearchRequest(
        dense=vector,
        sparse=sparse.encode_query(question),
        mode=mode,
        dense_top_n=settings.dense_top_n,
        sparse_top_n=settings.sparse_top_n,
        rrf_k=settings.rrf_k,
        limit=settings.recall_limit,
        overfetch=settings.overfetch,
        scope_tags=tuple(scope_tags) if scope_tags is not None else None,
        exclude_tags=tuple(exclude_tags),
    )
    return Recall(hits=tuple(store.search(request)), query_vector=vector)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def delta_s(query_vector: Sequence[float], vectors: Sequence[Sequence[float]]) -> float:
    """deltaS = 1 - cos(question, retrieved), with `retrieved` the centroid of the final hits.

    The centroid (not the best hit) is used so that one lucky chunk cannot hide a set of
    off-topic evidence; seed 002's target is <= 0.45. Empty evidence gives 1.0.
    """
    if not vectors:
        return 1.0
    centroid = [sum(col) / len(vectors) for col in zip(*vectors, strict=True)]
    return round(1.0 - cosine(query_vector, centroid), 4)

"""What both store backends share: point ids, payload <-> contract, the live-revision rule.

Layout in one collection (both backends): chunk points carry a named dense vector
`dense`, a sparse vector `bm25` (IDF applied by the engine) and the `Chunk` payload with
`kind="chunk"`; the document registry is vectorless points with `kind="doc"` (one per
document, the live revision and the normalised text); the index identity and hash is one
vectorless point with `kind="meta"`. Keeping the registry in the same collection means a
Qdrant server deployment needs nothing beside Qdrant, and flipping a document's live
revision is a single point write.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from server.core.contracts import Chunk, ChunkRecord, DocRecord, Hit, IndexMeta
from server.core.ports import SearchRequest
from server.core.text import embed_key

DENSE = "dense"
SPARSE = "bm25"
KIND = "kind"
_NS = uuid.UUID("6f1c2a8e-3d4b-5c6d-8e9f-0a1b2c3d4e5f")
META_ID = str(uuid.uuid5(_NS, "citegate:meta"))
INDEXED_FIELDS = ("kind", "doc_id", "rev", "tags", "snippet_id")


def chunk_point_id(snippet_id: str, rev: str) -> str:
    """Deterministic point id: the same snippet under another revision is another point."""
    return str(uuid.uuid5(_NS, f"chunk:{snippet_id}@{rev}"))


def doc_point_id(doc_id: str) -> str:
    """The registry point of a document (one per document, whatever its revision)."""
    return str(uuid.uuid5(_NS, f"doc:{doc_id}"))


READ_HASH = "read_hash"  # beside the chunk's own fields: what its vectors read, when masked


def chunk_payload(record: ChunkRecord) -> dict[str, Any]:
    payload = {KIND: "chunk", **record.chunk.model_dump(mode="json")}
    if record.read_hash is not None:
        payload[READ_HASH] = record.read_hash
    return payload


def chunk_from_payload(payload: Mapping[str, Any]) -> Chunk:
    return Chunk.model_validate({k: v for k, v in payload.items() if k not in (KIND, READ_HASH)})


def doc_payload(doc: DocRecord) -> dict[str, Any]:
    return {KIND: "doc", **doc.model_dump(mode="json")}


def doc_from_payload(payload: Mapping[str, Any]) -> DocRecord:
    return DocRecord.model_validate({k: v for k, v in payload.items() if k != KIND})


def meta_payload(meta: IndexMeta) -> dict[str, Any]:
    return {KIND: "meta", **meta.model_dump(mode="json")}


def meta_from_payload(payload: Mapping[str, Any]) -> IndexMeta:
    return IndexMeta.model_validate({k: v for k, v in payload.items() if k != KIND})


def is_live(chunk: Chunk, live_revs: Mapping[str, str]) -> bool:
    """A chunk is visible only when its revision is its document's live revision."""
    return live_revs.get(chunk.doc_id) == chunk.rev


Scored = tuple[Mapping[str, Any], float]  # a point's payload and its score
# Points asked of each prefetch beyond its top-n, so that a tie at the cut is cut in a fixed
# order (`ranked`) rather than in the engine's (our choice: copies of one passage tie).
TIE_MARGIN = 16


def _point_key(payload: Mapping[str, Any]) -> tuple[str, str]:
    return str(payload.get("snippet_id", "")), str(payload.get("rev", ""))


def ranked(scored: Iterable[Scored], limit: int | None = None) -> list[Scored]:
    """Best score first; points of equal score in snippet id (then revision) order, so the
    same index answers the same question the same way. The engine breaks ties by its
    internal point order, which two ingests of one corpus do not share: copies of a passage
    score exactly alike in BM25, and Mozilla z29's answer changed between fresh ingests."""
    out = sorted(scored, key=lambda s: (-s[1], _point_key(s[0])))
    return out if limit is None else out[:limit]


def fuse(dense: Iterable[Scored], sparse: Iterable[Scored], rrf_k: int) -> list[Scored]:
    """Reciprocal-rank fusion of two ranked lists (`ranked` order): a point scores the sum of
    1 / (rrf_k + its 0-based rank) over the lists that hold it, as Qdrant's RRF does (measured
    on Edge and qdrant-client: `retrieval.rrf_k`); equal sums in `ranked` order."""
    fused: dict[tuple[str, str], float] = {}
    payloads: dict[tuple[str, str], Mapping[str, Any]] = {}
    for points in (dense, sparse):
        for rank, (payload, _) in enumerate(ranked(points)):
            key = _point_key(payload)
            fused[key] = fused.get(key, 0.0) + 1.0 / (rrf_k + rank)
            payloads.setdefault(key, payload)
    return ranked((payloads[k], score) for k, score in fused.items())


def searched(request: SearchRequest, fetch: Callable[[str, int], list[Scored]]) -> list[Scored]:
    """The points a search ranks, before the live-revision rule: one list, or the dense and
    BM25 lists fused here (`fuse`), not by the engine, whose ties fall in no fixed order.
    `fetch(using, n)` is a backend's query of one named vector (`DENSE` or `SPARSE`) for its
    best `n` points; each list is cut in `ranked` order, `TIE_MARGIN` points past it."""

    def top(using: str, n: int) -> list[Scored]:
        return ranked(fetch(using, n + TIE_MARGIN), n)

    limit = request.limit * request.overfetch
    mode = request.mode if request.sparse.indices else "dense"
    if mode != "hybrid":
        return top(DENSE if mode == "dense" else SPARSE, limit)
    both = (top(DENSE, request.dense_top_n), top(SPARSE, request.sparse_top_n))
    return fuse(*both, request.rrf_k)[:limit]


def live_hits(scored: Iterable[Scored], live_revs: Mapping[str, str], limit: int) -> list[Hit]:
    """Turn (payload, score) pairs into ranked Hits of live chunks (`ranked` order)."""
    hits: list[Hit] = []
    for payload, score in ranked(scored):
        chunk = chunk_from_payload(payload)
        if not is_live(chunk, live_revs):
            continue
        hits.append(Hit(chunk=chunk, score_raw=float(score), k_pos=len(hits) + 1))
        if len(hits) == limit:
            break
    return hits


def scope_matches(tags: Sequence[str], scope_tags: Sequence[str] | None) -> bool:
    return scope_tags is None or bool(set(tags) & set(scope_tags))


class LiveReads:
    """Registry and live-revision reads both backends share; they supply the engine calls."""

    def _scroll(self, flt: Any, payload: Any = True, vector: Any = False) -> Iterator[Any]:
        raise NotImplementedError

    def live_revs(self) -> Mapping[str, str]:
        raise NotImplementedError

    def _filter(self, kind: str, snippet_ids: Sequence[str] | None = None) -> Any:
        raise NotImplementedError

    def _revision_filter(self, doc_id: str, rev: str) -> Any:
        raise NotImplementedError

    def _live_chunks(self, snippet_ids: Sequence[str], vector: bool) -> list[Any]:
        live = self.live_revs()
        records = self._scroll(
            self._filter("chunk", snippet_ids), vector=[DENSE] if vector else False
        )
        return [r for r in records if live.get(r.payload["doc_id"]) == r.payload["rev"]]

    def dense_vectors(self, snippet_ids: Sequence[str]) -> dict[str, list[float]]:
        if not snippet_ids:
            return {}
        found = self._live_chunks(snippet_ids, vector=True)
        return {r.payload["snippet_id"]: list(r.vector[DENSE]) for r in found}

    def revision_vectors(self, doc_id: str, rev: str) -> dict[str, list[float]]:
        """What re-ingest reuses: a chunk whose embedded input is unchanged keeps its vector,
        keyed by what the vector read (`ChunkRecord.read_hash`, else the chunk's content)."""
        records = self._scroll(
            self._revision_filter(doc_id, rev),
            payload=["content_hash", READ_HASH, "title", "heading"],
            vector=[DENSE],
        )
        return {
            embed_key(
                r.payload.get("title", ""),
                r.payload.get("heading", ""),
                r.payload.get(READ_HASH) or r.payload["content_hash"],
            ): list(r.vector[DENSE])
            for r in records
        }

    def get_chunk(self, snippet_id: str) -> Chunk | None:
        found = self._live_chunks([snippet_id], vector=False)
        return chunk_from_payload(found[0].payload) if found else None

    def docs(self) -> list[DocRecord]:
        records = self._scroll(self._filter("doc"))
        return sorted((doc_from_payload(r.payload) for r in records), key=lambda d: d.doc_id)

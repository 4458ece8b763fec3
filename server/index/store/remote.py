"""`ChunkStore` on a Qdrant server or cluster through `qdrant-client` (also `:memory:`).

Several processes may share a server, so the live-revision map is read from the registry
on every search (payload `doc_id`/`rev` only) instead of being cached.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as m

from server.core.contracts import ChunkRecord, DocRecord, Hit, IndexIdentity, IndexMeta
from server.core.errors import StoreError
from server.core.ports import SearchRequest
from server.index.store import common as c

_PAGE = 256


def _match(key: str, value: str) -> m.FieldCondition:
    return m.FieldCondition(key=key, match=m.MatchValue(value=value))


def _any(key: str, values: Sequence[str]) -> m.FieldCondition:
    return m.FieldCondition(key=key, match=m.MatchAny(any=list(values)))


def _chunk_filter(request: SearchRequest) -> m.Filter | None:
    """Scope and denied tags, or None; only chunk points carry vectors (see the Edge store)."""
    must: list[Any] | None = (
        [_any("tags", request.scope_tags or ("\x00no-scope",))]
        if request.scope_tags is not None
        else None
    )
    must_not: list[Any] | None = (
        [_any("tags", request.exclude_tags)] if request.exclude_tags else None
    )
    return m.Filter(must=must, must_not=must_not) if must or must_not else None


class QdrantServerStore(c.LiveReads):
    """The same collection layout as the Edge store, on a Qdrant server."""

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        identity: IndexIdentity,
        *,
        shards: int = 1,
        replicas: int = 1,
        rebuild: bool = False,
    ) -> None:
        self._client = client
        self._name = collection
        try:
            if rebuild and client.collection_exists(collection):
                client.delete_collection(collection)
            if not client.collection_exists(collection):
                self._create(identity, shards, replicas)
        except Exception as exc:  # qdrant-client raises transport-specific types
            raise StoreError(
                f"the Qdrant server did not answer for collection {collection!r}: {exc}; "
                "check CITEGATE_QDRANT_URL and that the server is up"
            ) from exc

    def _create(self, identity: IndexIdentity, shards: int, replicas: int) -> None:
        self._client.create_collection(
            self._name,
            vectors_config={
                c.DENSE: m.VectorParams(size=identity.dense_dim, distance=m.Distance.COSINE)
            },
            sparse_vectors_config={c.SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
            shard_number=shards,
            replication_factor=replicas,
        )
        with warnings.catch_warnings():  # local mode says indexes do nothing there; fine
            warnings.simplefilter("ignore", UserWarning)
            for field in c.INDEXED_FIELDS:
                self._client.create_payload_index(self._name, field, m.PayloadSchemaType.KEYWORD)

    @property
    def kind(self) -> str:
        return "qdrant"

    def _scroll(self, flt: m.Filter, payload: Any = True, vector: Any = False) -> Iterator[Any]:
        offset = None
        while True:
            records, offset = self._client.scroll(
                self._name,
                scroll_filter=flt,
                limit=_PAGE,
                offset=offset,
                with_payload=payload,
                with_vectors=vector,
            )
            yield from records
            if offset is None:
                return

    def _filter(self, kind: str, snippet_ids: Sequence[str] | None = None) -> Any:
        must: list[Any] = [_match(c.KIND, kind)]
        if snippet_ids is not None:
            must.append(_any("snippet_id", snippet_ids))
        return m.Filter(must=must)

    def _revision_filter(self, doc_id: str, rev: str) -> Any:
        return m.Filter(
            must=[_match(c.KIND, "chunk"), _match("doc_id", doc_id), _match("rev", rev)]
        )

    def live_revs(self) -> Mapping[str, str]:
        return self._live()

    def _live(self) -> dict[str, str]:
        flt = m.Filter(must=[_match(c.KIND, "doc")])
        return {r.payload["doc_id"]: r.payload["rev"] for r in self._scroll(flt, ["doc_id", "rev"])}

    def meta(self) -> IndexMeta | None:
        found = self._client.retrieve(self._name, [c.META_ID], with_payload=True)
        return c.meta_from_payload(found[0].payload or {}) if found else None

    def put_meta(self, meta: IndexMeta) -> None:
        point = m.PointStruct(id=c.META_ID, vector={}, payload=c.meta_payload(meta))
        self._client.upsert(self._name, [point], wait=True)

    def upsert(self, records: Sequence[ChunkRecord]) -> None:
        points = [
            m.PointStruct(
                id=c.chunk_point_id(r.chunk.snippet_id, r.chunk.rev),
                vector={
                    c.DENSE: list(r.dense),
                    c.SPARSE: m.SparseVector(
                        indices=list(r.sparse.indices), values=list(r.sparse.values)
                    ),
                },
                payload=c.chunk_payload(r),
            )
            for r in records
        ]
        if points:
            self._client.upsert(self._name, points, wait=True)

    def search(self, request: SearchRequest) -> list[Hit]:
        flt = _chunk_filter(request)
        sparse = m.SparseVector(
            indices=list(request.sparse.indices), values=list(request.sparse.values)
        )
        vectors: dict[str, Any] = {c.DENSE: list(request.dense), c.SPARSE: sparse}

        def fetch(using: str, n: int) -> list[c.Scored]:
            result = self._client.query_points(
                self._name,
                query=vectors[using],
                using=using,
                query_filter=flt,
                limit=n,
                with_payload=True,
            )
            return [(p.payload or {}, p.score) for p in result.points]

        return c.live_hits(c.searched(request, fetch), self._live(), request.limit)

    def get_doc(self, doc_id: str) -> DocRecord | None:
        found = self._client.retrieve(self._name, [c.doc_point_id(doc_id)], with_payload=True)
        return c.doc_from_payload(found[0].payload or {}) if found else None

    def put_doc(self, doc: DocRecord) -> None:
        point = m.PointStruct(id=c.doc_point_id(doc.doc_id), vector={}, payload=c.doc_payload(doc))
        self._client.upsert(self._name, [point], wait=True)

    def _delete(self, flt: m.Filter) -> int:
        n = self._client.count(self._name, count_filter=flt, exact=True).count
        self._client.delete(self._name, points_selector=m.FilterSelector(filter=flt), wait=True)
        return n

    def delete_doc(self, doc_id: str) -> int:
        self._client.delete(
            self._name, points_selector=m.PointIdsList(points=[c.doc_point_id(doc_id)]), wait=True
        )
        return self._delete(m.Filter(must=[_match(c.KIND, "chunk"), _match("doc_id", doc_id)]))

    def optimize(self) -> None:
        """Nothing to do: a Qdrant server runs its optimizers in the background."""

    def retire(self, doc_id: str, keep_rev: str) -> int:
        flt = m.Filter(
            must=[_match(c.KIND, "chunk"), _match("doc_id", doc_id)],
            must_not=[_match("rev", keep_rev)],
        )
        return self._delete(flt)

    def count(self) -> int:
        flt = m.Filter(must=[_match(c.KIND, "chunk")])
        return self._client.count(self._name, count_filter=flt, exact=True).count

    def clear(self) -> None:
        self._delete(m.Filter(must=[_any(c.KIND, ["chunk", "doc"])]))

    def close(self) -> None:
        self._client.close()

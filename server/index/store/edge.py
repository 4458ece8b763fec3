"""`ChunkStore` on Qdrant Edge: the Qdrant engine in this process, files under the data folder."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from server.core.contracts import ChunkRecord, DocRecord, Hit, IndexIdentity, IndexMeta
from server.core.errors import StoreCorruptError, StoreError
from server.core.ports import SearchRequest
from server.index.store import common as c
from server.index.store.lock import OwnerLock

_PAGE = 256


def _match(key: str, value: str) -> Any:
    return qe.FieldCondition(key=key, match=qe.MatchValue(value))


def _any(key: str, values: Sequence[str]) -> Any:
    return qe.FieldCondition(key=key, match=qe.MatchAny(any=list(values)))


def _chunk_filter(request: SearchRequest) -> Any:
    """The caller's scope and the denied tags, or None when neither narrows anything.

    No `kind == chunk` condition: only chunk points carry vectors, so a nearest query on
    either vector cannot return a document or meta point, and every condition is checked
    per candidate (at 100k chunks the redundant one cost ~9 ms of a ~35 ms dense query).
    """
    must = [_any("tags", request.scope_tags or ("\x00no-scope",))]
    must_not = [_any("tags", request.exclude_tags)] if request.exclude_tags else None
    if request.scope_tags is None and must_not is None:
        return None
    return qe.Filter(must=must if request.scope_tags is not None else None, must_not=must_not)


def _config(dim: int) -> Any:
    return qe.EdgeConfig(
        vectors={c.DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
        sparse_vectors={c.SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )


def _open_shard(path: Path, dim: int) -> Any:
    try:
        if (path / "segments").exists() or (path / "wal").exists():
            return qe.EdgeShard.load(str(path))
        return qe.EdgeShard.create(str(path), _config(dim))
    except Exception as exc:  # the binding raises plain Exception for every engine error
        raise StoreCorruptError(
            f"cannot open the embedded index at {path}: {exc}; if the files are damaged, "
            "rebuild it with `citegate ingest --rebuild PATH...`"
        ) from exc


def _index_fields(shard: Any, path: Path) -> None:
    """The payload indexes every filter uses; a write the engine cannot make (a full disk) is
    a store error that says what to do, not a traceback."""
    try:
        for field in c.INDEXED_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
    except Exception as exc:  # the binding raises plain Exception for every engine error
        raise StoreError(
            f"cannot write the embedded index at {path}: {exc}; if the disk is full, free "
            "space and run the command again"
        ) from exc


class EdgeStore(c.LiveReads):
    """Single-process embedded store; `close()` releases the shard and the owner lock."""

    def __init__(self, path: Path, identity: IndexIdentity, *, rebuild: bool = False) -> None:
        self._path = path
        self._lock = OwnerLock(path.parent / f"{path.name}.lock")
        self._lock.acquire()
        try:
            if rebuild and path.exists():
                shutil.rmtree(path)
            self._shard: Any = _open_shard(path, identity.dense_dim)
            _index_fields(self._shard, path)
        except BaseException:
            self._lock.release()
            raise
        self._live: dict[str, str] = {d["doc_id"]: d["rev"] for d in self._doc_revs()}

    @property
    def kind(self) -> str:
        return "edge"

    def _scroll(self, flt: Any, payload: Any = True, vector: Any = False) -> Iterator[Any]:
        offset = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_PAGE,
                    filter=flt,
                    with_payload=payload,
                    with_vector=vector,
                )
            )
            yield from records
            if offset is None:
                return

    def _revision_filter(self, doc_id: str, rev: str) -> Any:
        return qe.Filter(
            must=[_match(c.KIND, "chunk"), _match("doc_id", doc_id), _match("rev", rev)]
        )

    def live_revs(self) -> Mapping[str, str]:
        """A copy: `put_doc` and `delete_doc` mutate the registry while requests read it."""
        return dict(self._live)

    def _filter(self, kind: str, snippet_ids: Sequence[str] | None = None) -> Any:
        must = [_match(c.KIND, kind)]
        if snippet_ids is not None:
            must.append(_any("snippet_id", snippet_ids))
        return qe.Filter(must=must)

    def _doc_revs(self) -> list[dict[str, Any]]:
        flt = qe.Filter(must=[_match(c.KIND, "doc")])
        return [r.payload for r in self._scroll(flt, payload=["doc_id", "rev"])]

    def meta(self) -> IndexMeta | None:
        found = self._shard.retrieve([c.META_ID], True, False)
        return c.meta_from_payload(found[0].payload) if found else None

    def put_meta(self, meta: IndexMeta) -> None:
        point = qe.Point(id=c.META_ID, vector={}, payload=c.meta_payload(meta))
        self._shard.update(qe.UpdateOperation.upsert_points([point]))
        self._shard.flush()

    def upsert(self, records: Sequence[ChunkRecord]) -> None:
        points = [
            qe.Point(
                id=c.chunk_point_id(r.chunk.snippet_id, r.chunk.rev),
                vector={
                    c.DENSE: list(r.dense),
                    c.SPARSE: qe.SparseVector(list(r.sparse.indices), list(r.sparse.values)),
                },
                payload=c.chunk_payload(r),
            )
            for r in records
        ]
        if points:
            self._shard.update(qe.UpdateOperation.upsert_points(points))
            self._shard.flush()

    def search(self, request: SearchRequest) -> list[Hit]:
        flt = _chunk_filter(request)
        sparse = qe.SparseVector(list(request.sparse.indices), list(request.sparse.values))
        vectors: dict[str, Any] = {c.DENSE: list(request.dense), c.SPARSE: sparse}

        def fetch(using: str, n: int) -> list[c.Scored]:
            query = qe.Query.Nearest(vectors[using], using=using)
            asked = qe.QueryRequest(limit=n, query=query, filter=flt, with_payload=True)
            return [(p.payload, p.score) for p in self._shard.query(asked)]

        return c.live_hits(c.searched(request, fetch), self._live, request.limit)

    def get_doc(self, doc_id: str) -> DocRecord | None:
        found = self._shard.retrieve([c.doc_point_id(doc_id)], True, False)
        return c.doc_from_payload(found[0].payload) if found else None

    def put_doc(self, doc: DocRecord) -> None:
        point = qe.Point(id=c.doc_point_id(doc.doc_id), vector={}, payload=c.doc_payload(doc))
        # No flush: the engine's write-ahead log replays updates in order after a crash (a
        # killed process loses none), so the flip never outlives its chunks; segments are
        # flushed by the next retire, the run's closing put_meta, or close(). A flush per
        # document cost 18 ms, 7 % of ingesting a SciFact abstract.
        self._shard.update(qe.UpdateOperation.upsert_points([point]))
        self._live[doc.doc_id] = doc.rev

    def _delete(self, flt: Any) -> int:
        n = int(self._shard.count(qe.CountRequest(filter=flt)))
        self._shard.update(qe.UpdateOperation.delete_points_by_filter(flt))
        self._shard.flush()
        return n

    def delete_doc(self, doc_id: str) -> int:
        """Remove a document and all its chunks; returns the number of chunks removed."""
        self._live.pop(doc_id, None)
        self._shard.update(qe.UpdateOperation.delete_points([c.doc_point_id(doc_id)]))
        return self._delete(qe.Filter(must=[_match(c.KIND, "chunk"), _match("doc_id", doc_id)]))

    def retire(self, doc_id: str, keep_rev: str) -> int:
        flt = qe.Filter(
            must=[_match(c.KIND, "chunk"), _match("doc_id", doc_id)],
            must_not=[_match("rev", keep_rev)],
        )
        return self._delete(flt)

    def optimize(self) -> None:
        """Run the engine's segment optimizers (HNSW, sparse index) to completion.

        Until then new points sit in plain segments searched by brute force: at 100k chunks
        a hybrid query took ~50 ms p50 before and ~12 ms after (bench/retrieval_latency.py).
        Ingest calls this once per run that wrote chunks.
        """
        self._shard.optimize()

    def count(self) -> int:
        return int(
            self._shard.count(qe.CountRequest(filter=qe.Filter(must=[_match(c.KIND, "chunk")])))
        )

    def clear(self) -> None:
        """Remove every chunk and document; the index identity (meta) stays."""
        self._delete(qe.Filter(must=[_any(c.KIND, ["chunk", "doc"])]))
        self._live.clear()

    def close(self) -> None:
        try:
            self._shard.flush()
            self._shard.close()
        except Exception as exc:  # report, but still release the owner lock
            raise StoreError(f"closing the embedded index at {self._path} failed: {exc}") from exc
        finally:
            self._lock.release()

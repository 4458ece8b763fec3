"""The one store interface and its two real implementations (SPEC 2.5).

`open_store` picks Qdrant Edge (embedded, default) or a Qdrant server (`qdrant_url` set);
both refuse an index built with another identity, and both start a new index with its
identity recorded, so a crash before the first ingest finishes cannot hide a mismatch.
"""

from __future__ import annotations

from datetime import UTC, datetime

from qdrant_client import QdrantClient

from server.core.contracts import IndexIdentity, IndexMeta
from server.core.identity import check_identity, index_hash
from server.core.ports import ChunkStore
from server.core.settings import Settings
from server.index.store.edge import EdgeStore
from server.index.store.remote import QdrantServerStore


def _ensure_identity(store: ChunkStore, identity: IndexIdentity) -> ChunkStore:
    try:
        meta = store.meta()
        check_identity(meta, identity)
        if meta is None:
            store.put_meta(
                IndexMeta(
                    identity=identity,
                    index_hash=index_hash(identity, []),
                    updated_at=datetime.now(UTC),
                )
            )
    except BaseException:
        store.close()
        raise
    return store


def open_store(settings: Settings, identity: IndexIdentity, *, rebuild: bool = False) -> ChunkStore:
    """The configured store; `rebuild=True` drops the existing index first (identity fix)."""
    if settings.qdrant_url:
        client = QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=30)
        store: ChunkStore = QdrantServerStore(
            client,
            settings.collection,
            identity,
            shards=settings.models.qdrant_shards,
            replicas=settings.models.qdrant_replicas,
            rebuild=rebuild,
        )
    else:
        path = settings.data_dir / "qdrant-edge" / settings.collection
        store = EdgeStore(path, identity, rebuild=rebuild)
    return _ensure_identity(store, identity)


def open_memory_store(identity: IndexIdentity, collection: str = "citegate") -> ChunkStore:
    """The qdrant-client adapter on `QdrantClient(":memory:")` (tests, congruence)."""
    return _ensure_identity(
        QdrantServerStore(QdrantClient(":memory:"), collection, identity), identity
    )


__all__ = ["EdgeStore", "QdrantServerStore", "open_memory_store", "open_store"]

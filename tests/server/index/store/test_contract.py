"""One contract suite for every ChunkStore: Qdrant Edge, qdrant-client `:memory:`, a real server.

The server backend runs only when CITEGATE_QDRANT_URL is set (marker `integration`).
Congruence tests run the same operations on Edge and `:memory:` and compare the results.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from server.core.contracts import (
    Chunk,
    ChunkRecord,
    DocRecord,
    Hit,
    IndexIdentity,
    IndexMeta,
    Offsets,
)
from server.core.errors import IndexMismatchError
from server.core.ports import ChunkStore, SearchRequest
from server.core.settings import load_settings
from server.core.text import embed_key
from server.index.sparse import Bm25Encoder
from server.index.store import open_memory_store, open_store
from tests.fakes import HashEmbedder

EMB = HashEmbedder()
BM25 = Bm25Encoder(load_settings().models)
IDENTITY = IndexIdentity(
    embed_model=EMB.model_id, dense_dim=EMB.dim, analyzer=BM25.analyzer, chunker="t"
)
T0 = datetime(2026, 1, 1, tzinfo=UTC)

DOCS = {
    "cors": ("Use CORSMiddleware to allow cross origin requests.", ("public",)),
    "keys": ("Rotate the signing key every ninety days.", ("internal",)),
    "gate": ("The gate blocks fabricated citations in every mode.", ("public",)),
    "draft": ("Unreleased roadmap about the gate and citations.", ("draft",)),
}


def _record(doc_id: str, text: str, tags: tuple[str, ...], rev: str = "r1") -> ChunkRecord:
    chunk = Chunk(
        doc_id=doc_id,
        section_id=f"{doc_id}/intro",
        snippet_id=f"{doc_id}-0001",
        source_url=f"{doc_id}.md",
        offsets=Offsets(start=0, end=len(text)),
        tokens=8,
        index_hash="h",
        embed_model=EMB.model_id,
        analyzer=BM25.analyzer,
        rev=rev,
        text=text,
        title=doc_id,
        tags=tags,
        updated_at=T0,
        content_hash=f"c-{rev}",
    )
    return ChunkRecord(
        chunk=chunk, dense=tuple(EMB.embed_documents([text])[0]), sparse=BM25.encode_document(text)
    )


def _doc(doc_id: str, text: str, rev: str = "r1") -> DocRecord:
    return DocRecord(
        doc_id=doc_id,
        rev=rev,
        source_url=f"{doc_id}.md",
        path=f"{doc_id}.md",
        title=doc_id,
        content_hash=rev,
        chunks=1,
        updated_at=T0,
        ingested_at=T0,
        text=text,
    )


def _fill(store: ChunkStore) -> ChunkStore:
    store.upsert([_record(d, t, tags) for d, (t, tags) in DOCS.items()])
    for d, (t, _) in DOCS.items():
        store.put_doc(_doc(d, t))
    return store


def _request(query: str, **kw: object) -> SearchRequest:
    args: dict[str, object] = {
        "dense": tuple(EMB.embed_query(query)),
        "sparse": BM25.encode_query(query),
        "dense_top_n": 10,
        "sparse_top_n": 10,
        "rrf_k": 61,
        "limit": 10,
        "overfetch": 2,
    }
    args.update(kw)
    return SearchRequest.model_validate(args)


def _backends() -> list[object]:
    params: list[object] = ["edge", "memory"]
    params.append(pytest.param("server", marks=pytest.mark.integration))
    return params


@pytest.fixture(params=_backends())
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChunkStore]:
    if request.param == "edge":
        s = open_store(load_settings(data_dir=tmp_path), IDENTITY)
    elif request.param == "memory":
        s = open_memory_store(IDENTITY)
    else:
        url = os.environ.get("CITEGATE_QDRANT_URL") or pytest.skip("CITEGATE_QDRANT_URL is not set")
        s = open_store(
            load_settings(qdrant_url=url, collection=f"t{uuid.uuid4().hex[:8]}"), IDENTITY
        )
    yield _fill(s)
    s.close()


def ids(hits: list[Hit]) -> list[str]:
    return [h.chunk.snippet_id for h in hits]


def test_roundtrip_payload_and_ranks(store: ChunkStore) -> None:
    hits = store.search(_request("cors middleware cross origin"))
    assert hits[0].chunk == _record("cors", *DOCS["cors"]).chunk
    assert [h.k_pos for h in hits] == list(range(1, len(hits) + 1))
    assert store.count() == len(DOCS)


def test_scope_is_pushed_down_even_for_bm25_only_hits(store: ChunkStore) -> None:
    hits = store.search(_request("rotate signing key", mode="sparse", scope_tags=("public",)))
    assert "keys-0001" not in ids(hits)
    assert all(
        "public" in h.chunk.tags for h in store.search(_request("key", scope_tags=("public",)))
    )
    assert store.search(_request("rotate signing key", scope_tags=())) == []


def test_excluded_tags_never_returned(store: ChunkStore) -> None:
    assert "draft-0001" not in ids(store.search(_request("roadmap gate", exclude_tags=("draft",))))


def test_revision_switch_is_atomic_at_put_doc(store: ChunkStore) -> None:
    new_text = "Use CORSMiddleware with allow_origins set to a list."
    store.upsert([_record("cors", new_text, ("public",), rev="r2")])
    before = store.search(_request("CORSMiddleware"))
    assert [h.chunk.rev for h in before if h.chunk.doc_id == "cors"] == ["r1"]
    store.put_doc(_doc("cors", new_text, rev="r2"))
    after = store.search(_request("CORSMiddleware"))
    assert [h.chunk.rev for h in after if h.chunk.doc_id == "cors"] == ["r2"]
    assert store.get_chunk("cors-0001") is not None and store.get_chunk("cors-0001").rev == "r2"  # type: ignore[union-attr]
    assert store.retire("cors", keep_rev="r2") == 1
    assert store.count() == len(DOCS)


def test_revision_vectors_are_one_revisions_by_embed_key(store: ChunkStore) -> None:
    new_text = "Use CORSMiddleware with allow_origins set to a list."
    store.upsert([_record("cors", new_text, ("public",), rev="r2")])
    old = store.revision_vectors("cors", "r1")
    new = store.revision_vectors("cors", "r2")
    k1, k2 = embed_key("cors", "", "c-r1"), embed_key("cors", "", "c-r2")  # title, heading, hash
    assert list(old) == [k1] and list(new) == [k2]  # never the other revision's
    assert old[k1] == pytest.approx(EMB.embed_documents([DOCS["cors"][0]])[0], abs=1e-6)
    assert new[k2] == pytest.approx(EMB.embed_documents([new_text])[0], abs=1e-6)
    assert store.revision_vectors("cors", "r9") == {} and store.revision_vectors("no", "r1") == {}


def test_delete_doc_removes_chunks_and_registry(store: ChunkStore) -> None:
    assert store.delete_doc("gate") == 1
    assert store.get_doc("gate") is None
    assert store.get_chunk("gate-0001") is None
    assert "gate-0001" not in ids(store.search(_request("gate fabricated")))


def test_registry_vectors_and_meta(store: ChunkStore) -> None:
    assert [d.doc_id for d in store.docs()] == sorted(DOCS)
    assert dict(store.live_revs()) == {d.doc_id: d.rev for d in store.docs()}
    assert store.get_doc("keys").text == DOCS["keys"][0]  # type: ignore[union-attr]
    vectors = store.dense_vectors(["cors-0001", "nope"])
    assert list(vectors) == ["cors-0001"] and len(vectors["cors-0001"]) == EMB.dim
    meta = IndexMeta(identity=IDENTITY, index_hash="x:y", updated_at=T0)
    store.put_meta(meta)
    assert store.meta() == meta
    store.clear()
    assert store.count() == 0 and store.docs() == [] and store.meta() == meta


def test_rrf_fusion_follows_its_formula(store: ChunkStore) -> None:
    req = _request("gate blocks fabricated citations", exclude_tags=("draft",))
    dense = ids(store.search(req.model_copy(update={"mode": "dense"})))
    sparse = ids(store.search(req.model_copy(update={"mode": "sparse"})))
    fused = store.search(req)
    for hit in fused:
        sid = hit.chunk.snippet_id
        expected = sum(1 / (61 + lst.index(sid)) for lst in (dense, sparse) if sid in lst)
        assert hit.score_raw == pytest.approx(expected, rel=1e-4)


def test_copies_of_one_passage_rank_in_snippet_id_order_in_every_mode(
    store: ChunkStore,
) -> None:
    """Exact ties (a passage copied into several documents scores alike in BM25 and dense)
    come back in snippet id order, whatever order they were written in: the same index
    answers the same question the same way (fused in our code, not by the engine)."""
    text = "Mirrors repeat the refund window of thirty days."
    copies = ["copy-c", "copy-a", "copy-b"]  # written out of order
    store.upsert([_record(d, text, ("public",)) for d in copies])
    for d in copies:
        store.put_doc(_doc(d, text))
    for mode in ("dense", "sparse", "hybrid"):
        hits = ids(store.search(_request("refund window thirty days", mode=mode)))
        assert [h for h in hits if h.startswith("copy-")] == [
            "copy-a-0001",
            "copy-b-0001",
            "copy-c-0001",
        ], mode


def test_edge_meta_and_identity_survive_reopen(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    _fill(open_store(settings, IDENTITY)).close()
    reopened = open_store(settings, IDENTITY)
    assert reopened.count() == len(DOCS) and reopened.meta() is not None
    reopened.close()
    other = IDENTITY.model_copy(update={"analyzer": "something-else"})
    with pytest.raises(IndexMismatchError, match=r"analyzer_mismatch.*--rebuild"):
        open_store(settings, other)
    rebuilt = open_store(settings, other, rebuild=True)
    assert rebuilt.count() == 0
    rebuilt.close()


def _levels(hits: list[Hit]) -> list[tuple[float, list[str]]]:
    """Hits as (score, sorted ids) levels: the order inside a tie is not defined."""
    levels: dict[float, list[str]] = {}
    for h in hits:
        levels.setdefault(round(h.score_raw, 4), []).append(h.chunk.snippet_id)
    return sorted(((score, sorted(v)) for score, v in levels.items()), reverse=True)


def test_congruence_edge_and_memory(tmp_path: Path) -> None:
    edge = _fill(open_store(load_settings(data_dir=tmp_path), IDENTITY))
    memory = _fill(open_memory_store(IDENTITY))
    for query in ("cors middleware", "gate citations", "rotate key", "roadmap"):
        for mode in ("dense", "sparse"):
            a, b = (_levels(s.search(_request(query, mode=mode))) for s in (edge, memory))
            assert a == b, (query, mode)
        fused = [set(ids(s.search(_request(query)))) for s in (edge, memory)]
        assert fused[0] == fused[1], query
    edge.close()
    memory.close()

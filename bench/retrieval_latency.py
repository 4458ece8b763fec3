"""p50/p95 latency of recall + policy on the embedded store vs qdrant-client local mode.

    .venv/bin/python bench/retrieval_latency.py [--sizes 10000 100000] [--queries 200]
                                                [--baseline-queries 30]

Synthetic random unit vectors (384-d) with real BM25 texts (SciFact abstracts, cycled); the
query vector is random too, so the timing is the store's hybrid query (prefetch + RRF + live
filter) plus BM25 query encoding and the corpus policy, not the embedding model. The store is
optimized after filling, as `ingest` does once per run (the optimize time is printed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from qdrant_client import QdrantClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.core.contracts import Chunk, ChunkRecord, DocRecord, IndexIdentity, IndexMeta, Offsets
from server.core.paths import shared_data
from server.core.ports import ChunkStore, SearchRequest
from server.core.settings import default_config_dir, load_settings
from server.index.sparse import Bm25Encoder
from server.index.store import EdgeStore, QdrantServerStore
from server.query.policy import apply_policy, load_policy

DIM, PER_DOC = 384, 100
NOW = datetime.now(UTC)


def _texts(data: Path) -> list[str]:
    rows = (data / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x)["text"][:800] for x in rows]


def fill(
    store: ChunkStore, n: int, texts: list[str], sparse: Bm25Encoder, ident: IndexIdentity
) -> None:
    rng = np.random.default_rng(0)
    store.put_meta(IndexMeta(identity=ident, index_hash="bench", updated_at=NOW))
    for d0 in range(0, n, PER_DOC):
        doc = f"doc{d0 // PER_DOC}"
        vecs = rng.standard_normal((PER_DOC, DIM)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        records = []
        for i in range(PER_DOC):
            text = texts[(d0 + i) % len(texts)]
            chunk = Chunk(
                doc_id=doc,
                section_id=f"s{i}",
                snippet_id=f"{doc}-{i}",
                source_url=f"{doc}.md",
                offsets=Offsets(start=0, end=len(text)),
                tokens=1,
                index_hash="bench",
                embed_model=ident.embed_model,
                analyzer=ident.analyzer,
                rev="r1",
                text=text,
                title=doc,
                tags=("public",),
                source_domain="local",
                updated_at=NOW,
                content_hash=f"{doc}-{i}",
            )
            records.append(
                ChunkRecord(
                    chunk=chunk, dense=tuple(vecs[i].tolist()), sparse=sparse.encode_document(text)
                )
            )
        store.upsert(records)
        store.put_doc(
            DocRecord(
                doc_id=doc,
                rev="r1",
                source_url=f"{doc}.md",
                path=doc,
                title=doc,
                content_hash=doc,
                text="",
                chunks=PER_DOC,
                tags=("public",),
                updated_at=NOW,
                ingested_at=NOW,
            )
        )
    t0 = time.perf_counter()
    store.optimize()  # as ingest does once per run
    print(f"  {store.kind}: optimize after {n} chunks {time.perf_counter() - t0:.0f} s", flush=True)


def timings(store: ChunkStore, queries: list[str], sparse: Bm25Encoder) -> list[float]:
    settings = load_settings().retrieval
    policy = load_policy(default_config_dir() / "corpus_policy.yaml")
    rng = np.random.default_rng(1)
    out = []
    for q in queries:
        v = rng.standard_normal(DIM)
        v /= np.linalg.norm(v)
        t0 = time.perf_counter()
        req = SearchRequest(
            dense=tuple(v.tolist()),
            sparse=sparse.encode_query(q),
            mode="hybrid",
            dense_top_n=settings.dense_top_n,
            sparse_top_n=settings.sparse_top_n,
            rrf_k=settings.rrf_k,
            limit=settings.recall_limit,
            overfetch=settings.overfetch,
            scope_tags=("public",),
            exclude_tags=(),
        )
        apply_policy(store.search(req), policy, scope_tags=("public",), now=NOW)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * p))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--baseline-queries",
        type=int,
        default=30,
        help="queries for qdrant-client local mode (seconds each at 100k: keep it small)",
    )
    ap.add_argument(
        "--data",
        type=Path,
        default=shared_data() / "scifact",
    )
    args = ap.parse_args()
    sparse = Bm25Encoder.from_settings(load_settings().models)
    ident = IndexIdentity(
        embed_model="random-unit", dense_dim=DIM, analyzer=sparse.analyzer, chunker="bench"
    )
    texts = _texts(args.data)
    qs = [json.loads(x)["text"] for x in (args.data / "queries.jsonl").read_text().splitlines()]
    qs = qs[: args.queries]
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            edge: ChunkStore = EdgeStore(Path(tmp) / "edge", ident)
            local: ChunkStore = QdrantServerStore(QdrantClient(path=f"{tmp}/local"), "c", ident)
            res = {}
            runs = (("edge", edge, qs), ("qdrant-client local", local, qs[: args.baseline_queries]))
            for name, store, asked in runs:
                fill(store, n, texts, sparse, ident)
                timings(store, asked[:3], sparse)  # warm-up
                res[name] = timings(store, asked, sparse)
                store.close()
            e, b = res["edge"], res["qdrant-client local"]
            print(
                f"{n} chunks: edge ({len(e)} queries) p50 {statistics.median(e):.1f} ms "
                f"p95 {pct(e, 0.95):.1f} ms | qdrant-client local ({len(b)} queries) p50 "
                f"{statistics.median(b):.1f} ms p95 {pct(b, 0.95):.1f} ms | "
                f"p95 ratio local/edge {pct(b, 0.95) / pct(e, 0.95):.1f}x",
                flush=True,
            )


if __name__ == "__main__":
    main()

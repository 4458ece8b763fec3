"""SciFact (BEIR, test split): nDCG@10, recall@100 (ranx) of BM25, dense, hybrid, hybrid+rerank.

    .venv/bin/python bench/retrieval.py [--limit-docs N] [--data ../shared/data]

Ingests the corpus (title + abstract as one text document each) into a cached embedded
index under data/bench/, with the real models from settings, then runs every test query
through the store's own modes side by side. Not a test: prints a table naming the models.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.retrieval_metrics import docs_in_order, mean_scores
from evals.runner import open_scratch
from ingest.pipeline import ingest_paths
from server.core.paths import shared_data
from server.core.ports import SearchMode
from server.core.settings import load_settings
from server.query.engine import build_embedder, build_sparse
from server.query.rerank import build_reranker, rerank
from server.query.retrieve import recall

DEPTH = 200  # chunks per list: enough documents for recall@100


def load(
    data: Path, limit: int | None
) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    qrels: dict[str, dict[str, int]] = {}
    with (data / "qrels" / "test.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    corpus = {}
    for line in (data / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        corpus[d["_id"]] = f"{d['title']}\n\n{d['text']}\n"
    if limit:
        keep = {doc for rel in qrels.values() for doc in rel} | set(sorted(corpus)[:limit])
        corpus = {k: v for k, v in corpus.items() if k in keep}
    queries = {
        json.loads(x)["_id"]: json.loads(x)["text"]
        for x in (data / "queries.jsonl").read_text().splitlines()
    }
    return corpus, {q: queries[q] for q in qrels}, qrels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--data",
        type=Path,
        default=shared_data() / "scifact",
    )
    ap.add_argument("--limit-docs", type=int, default=None)
    args = ap.parse_args()
    corpus, queries, qrels = load(args.data, args.limit_docs)
    base = load_settings()
    settings = base.model_copy(
        update={
            "data_dir": Path("data/bench") / f"scifact-{args.limit_docs or 'all'}",
            "retrieval": base.retrieval.model_copy(
                update={"dense_top_n": DEPTH, "sparse_top_n": DEPTH, "recall_limit": DEPTH}
            ),
        }
    )
    embedder, sparse = build_embedder(settings), build_sparse(settings)
    store = open_scratch(settings, embedder, sparse)
    if len(store.docs()) != len(corpus):
        with tempfile.TemporaryDirectory() as tmp:
            for doc_id, text in corpus.items():
                (Path(tmp) / f"{doc_id}.txt").write_text(text, encoding="utf-8")
            t0 = time.perf_counter()
            report = ingest_paths(
                [Path(tmp)], settings=settings, embedder=embedder, sparse=sparse, store=store
            )
            print(
                f"ingested {len(corpus)} docs, {report.chunks_written} chunks "
                f"in {time.perf_counter() - t0:.0f} s"
            )
    scorer = build_reranker(settings.models, embedder, store)
    rankings: dict[str, dict[str, list[str]]] = {
        m: {} for m in ("bm25", "dense", "hybrid", "hybrid+rerank")
    }
    latency: list[float] = []
    for qid, text in queries.items():
        modes: tuple[tuple[SearchMode, str], ...] = (
            ("sparse", "bm25"),
            ("dense", "dense"),
            ("hybrid", "hybrid"),
        )
        for mode, name in modes:
            t0 = time.perf_counter()
            hits = recall(
                text,
                embedder=embedder,
                sparse=sparse,
                store=store,
                settings=settings.retrieval,
                mode=mode,
            ).hits
            if mode == "hybrid":
                latency.append((time.perf_counter() - t0) * 1000)
            rankings[name][qid] = docs_in_order([h.chunk.doc_id.removesuffix(".txt") for h in hits])
            if mode == "hybrid":
                reranked = rerank(text, list(hits), scorer, top_k=len(hits))
                rankings["hybrid+rerank"][qid] = docs_in_order(
                    [h.chunk.doc_id.removesuffix(".txt") for h in reranked]
                )
    print(
        f"SciFact test: {len(queries)} queries, {len(corpus)} docs; embed={embedder.model_id}; "
        f"sparse={sparse.analyzer}; rerank={scorer.name}; RRF k={settings.retrieval.rrf_k}"
    )
    print(f"{'retriever':16s} nDCG@10  recall@100  (ranx)")
    for name, ranked in rankings.items():
        got = mean_scores(ranked, qrels, ("ndcg@10", "recall@100"))
        print(f"{name:16s} {got['ndcg@10']:.4f}   {got['recall@100']:.4f}")
    lat = sorted(latency)
    print(
        f"hybrid recall latency (query embedding included): p50 {lat[len(lat) // 2]:.1f} ms, "
        f"p95 {lat[int(len(lat) * 0.95)]:.1f} ms"
    )
    store.close()


if __name__ == "__main__":
    main()

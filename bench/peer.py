"""Peer baseline: the same gold set answered by a plain LlamaIndex pipeline, beside citegate.

    .venv/bin/python bench/peer.py [--gold evals/gold/fastapi.jsonl]
                                   [--corpus ../shared/data/fastapi-docs/docs]
                                   [--out runs/peer.json]

"What a user would get elsewhere": LlamaIndex `SentenceSplitter` -> `VectorStoreIndex` on a
`QdrantVectorStore` (qdrant-client local mode) with the same embedding weights, its retriever
at citegate's `final_k`, and the extractive equivalent of `CitationQueryEngine` (no LLM runs
offline here): the `max_claims` sentences of the retrieved nodes closest to the question,
each cited, as CitationQueryEngine cites, to its whole source node. It never refuses and
checks nothing. Its citations are scored afterwards with citegate's own support scorer and
threshold, so `unsupported_citation_rate` means the same thing in both rows.

Documents are read as citegate reads them (the normalised text), so node offsets and gold
spans share one coordinate system. Both rows use the metric functions of `evals.metrics`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals import metrics as m
from evals.gold import GoldItem, GoldSpan, load_gold, resolve
from evals.runner import run_eval
from ingest.loaders import normalise
from server.core.paths import repo_root
from server.core.ports import Embedder, SupportScorer
from server.core.settings import Settings, load_settings
from server.index.embed import resolve_weights
from server.query.engine import build_embedder
from server.query.integrity.support import build_support_scorer

ROOT = repo_root()
_SENT = re.compile(r"[^\n]+?(?:[.!?](?=\s)|$)", re.MULTILINE)


def build_index(corpus: Path, settings: Settings, embedder: Embedder, tmp: str) -> Any:
    from llama_index.core import Document, StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    docs = [
        Document(
            text=normalise(p.read_bytes().decode("utf-8-sig")),
            metadata={"path": str(p.relative_to(corpus))},
        )
        for p in sorted(corpus.rglob("*.md"))
    ]
    splitter = SentenceSplitter(
        chunk_size=settings.ingest.chunk_max_tokens,
        chunk_overlap=20,
        tokenizer=lambda t: [0] * embedder.count_tokens(t),
    )
    embed = HuggingFaceEmbedding(
        model_name=str(resolve_weights(settings.models)),
        device="cpu",
        embed_batch_size=settings.models.embed_batch_size,
    )
    store = QdrantVectorStore(collection_name="peer", client=QdrantClient(path=tmp))
    return VectorStoreIndex(
        splitter.get_nodes_from_documents(docs),
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=embed,
    )


def sentences(text: str) -> list[str]:
    return [s.group(0).strip() for s in _SENT.finditer(text) if len(s.group(0).split()) >= 4]


def extract(question: str, nodes: list[Any], embedder: Embedder, k: int) -> list[tuple[str, Any]]:
    """The `k` sentences of the retrieved nodes closest to the question, with their node."""
    cands = [(s, n) for n in nodes for s in sentences(n.node.get_content())]
    if not cands:
        return []
    q = np.array(embedder.embed_query(question))
    vecs = np.array(embedder.embed_documents([s for s, _ in cands]))
    order = np.argsort(-(vecs @ q))[:k]
    return [cands[i] for i in sorted(order)]


def answer_one(
    item: GoldItem, retriever: Any, embedder: Embedder, scorer: SupportScorer, settings: Settings
) -> dict[str, Any]:
    t0 = time.perf_counter()
    nodes = retriever.retrieve(item.question)
    picked = extract(item.question, nodes, embedder, settings.integrity.max_claims)
    ms = (time.perf_counter() - t0) * 1000
    cites = [
        m.CitedSpan(
            n.node.metadata["path"],
            n.node.start_char_idx,
            n.node.end_char_idx,
            n.node.start_char_idx,
            n.node.end_char_idx,
            scorer.support(s, n.node.get_content()) >= settings.integrity.support_threshold,
        )
        for s, n in picked
    ]
    answer = " ".join(f"{s} [{i}]" for i, (s, _) in enumerate(picked, start=1))
    q = np.array(embedder.embed_query(item.question))
    ctx = " ".join(n.node.get_content() for n in nodes)
    delta_s = 1.0 - float(q @ np.array(embedder.embed_documents([ctx])[0])) if nodes else None
    return {"cites": cites, "answer": answer, "ms": ms, "delta_s": delta_s, "claims": len(picked)}


def peer_metrics(
    items: list[GoldItem], runs: list[dict[str, Any]], gold: list[list[GoldSpan]]
) -> dict[str, float]:
    ans = [(r, g) for it, r, g in zip(items, runs, gold, strict=True) if it.answerable]
    lat = [r["ms"] for r in runs]
    return {
        "citation_match_rate": m.citation_match_rate(
            [r["cites"] for r, _ in ans], [g for _, g in ans]
        ),
        "citation_missing_rate": 0.0,  # every extracted sentence carries its node
        "unsupported_citation_rate": m.unsupported_citation_rate([r["cites"] for r in runs]),
        "fabricated_id_rate": 0.0,  # extractive: ids come from the retriever
        "refusal_rate_unanswerable": m.refusal_rate(
            [not r["cites"] for it, r in zip(items, runs, strict=True) if not it.answerable]
        ),
        "incorrect_refusal_rate": m.refusal_rate([not r["cites"] for r, _ in ans]),
        "coverage": m.coverage([r["cites"] for r, _ in ans], [g for _, g in ans]),
        "delta_s_mean": m.mean([r["delta_s"] for r in runs if r["delta_s"] is not None]),
        "avg_answer_tokens": m.mean([float(len(r["answer"].split())) for r in runs]),
        "latency_p50_ms": m.percentile(lat, 50),
        "latency_p95_ms": m.percentile(lat, 95),
    }


def run_peer(gold_path: Path, corpus: Path, settings: Settings) -> dict[str, float]:
    items = load_gold(gold_path)
    gold = [resolve(it, corpus) for it in items]
    embedder = build_embedder(settings)
    scorer = build_support_scorer(settings, embedder)
    with tempfile.TemporaryDirectory() as tmp:
        index = build_index(corpus, settings, embedder, tmp)
        retriever = index.as_retriever(similarity_top_k=settings.retrieval.final_k)
        runs = [answer_one(it, retriever, embedder, scorer, settings) for it in items]
    return peer_metrics(items, runs, gold)


def table(rows: dict[str, dict[str, float]]) -> str:
    keys = [k for k in next(iter(rows.values())) if all(k in r for r in rows.values())]
    out = ["| system | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    out += [
        f"| {name} | " + " | ".join(f"{r[k]:.3g}" for k in keys) + " |" for name, r in rows.items()
    ]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--gold", type=Path, default=ROOT / "evals" / "gold" / "fastapi.jsonl")
    ap.add_argument(
        "--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "fastapi-docs" / "docs"
    )
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    settings = load_settings()
    ours = run_eval(args.gold, args.corpus, settings)
    rows = {
        "citegate (extractive, gate on)": ours["metrics"],
        "LlamaIndex VectorStoreIndex (extractive CitationQueryEngine equivalent)": run_peer(
            args.gold, args.corpus, settings
        ),
    }
    print(f"gold {args.gold} over {args.corpus}; models: {ours['models']}\n")
    print(table(rows))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps({"gold": str(args.gold), "models": ours["models"], "rows": rows}, indent=2)
        )


if __name__ == "__main__":
    main()

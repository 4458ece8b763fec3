"""Peer baseline: the same gold set answered by a plain LlamaIndex pipeline, beside citegate.

    .venv/bin/python bench/peer.py [--gold evals/gold/fastapi.jsonl]
                                   [--corpus ../shared/data/fastapi-docs/docs]
                                   [--out runs/peer.json]

then `citegate eval GOLD --corpus DIR --peer runs/peer.json` shows the peer column.

"What a user would get elsewhere": LlamaIndex `SentenceSplitter` -> `VectorStoreIndex` on a
`QdrantVectorStore` (qdrant-client local mode) with the same embedding weights, and as the
answer the top-k retrieved chunks dumped whole, each cited whole (what CitationQueryEngine
cites: its source nodes), for k = 3 and k = 5 (one row each). It never refuses (unless
nothing is retrieved) and checks nothing.

Each peer item becomes an `evals.runner.ItemResult` and its row is `compute_metrics` of
those, so both rows share the metric keys and formulas of the eval run. Metrics a chunk dump
cannot be measured on are null (not measured, never compared): citation_missing_rate and
fabricated_id_rate (no claims, no generated ids), unsupported_citation_rate (a chunk cited
for itself is supported by definition), convergence (no paraphrases). delta_s is
`server.query.retrieve.delta_s` over the dumped chunks' embeddings; latency is retrieval
only, and latency_ratio divides it by embed_query calls timed in the same run, as the eval.

Documents are read as citegate reads them (the normalised text), so node offsets and gold
spans share one coordinate system.

Output (`--out`): `{"gold", "corpus", "models", "peer": NAME, "rows": {NAME: metrics}}`;
`evals.report.load_peer` shows the row named by `peer` (the top-5 dump).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.gold import GoldItem, GoldSpan, load_gold, resolve
from evals.runner import (
    CitationResult,
    Corpus,
    ItemResult,
    Span,
    compute_metrics,
    failure_kinds,
    gold_quotes,
    run_eval,
)
from ingest.loaders import LoadError, doc_text
from ingest.pipeline import discover
from server.core.paths import repo_root
from server.core.ports import Embedder
from server.core.settings import Settings, load_settings
from server.index.embed import load_embedder, resolve_weights
from server.query.retrieve import delta_s

ROOT = repo_root()
DUMPS = (3, 5)  # top-k chunks dumped as the peer's answer, one row each
SHOWN = 5  # the row the eval report shows as "peer"
CITEGATE = "citegate (extractive, gate on)"
# Not measurable on a chunk dump: no claims, no generated ids, a chunk supports itself.
NOT_MEASURED = (
    "citation_missing_rate",
    "fabricated_id_rate",
    "unsupported_citation_rate",
    "convergence",
)


def build_index(corpus: Path, settings: Settings, embedder: Embedder, tmp: str) -> Any:
    from llama_index.core import Document, StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    docs = []
    for p, root in discover([corpus], settings.ingest.extensions):  # the files ingest reads
        rel = p.relative_to(root).as_posix()
        try:  # a PDF's or HTML page's text, as ingest reads it
            docs.append(Document(text=doc_text(rel, p.read_bytes())[0], metadata={"path": rel}))
        except LoadError:
            continue  # ingest skips it too, with its reason
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


def row_name(k: int) -> str:
    return f"LlamaIndex VectorStoreIndex top-{k} chunk dump"


def dump(
    item: GoldItem,
    spans: Sequence[GoldSpan],
    nodes: Sequence[Any],
    ms: float,
    embedder: Embedder,
    corpus: Corpus,
) -> ItemResult:
    """One item answered by dumping `nodes` (in rank order), each cited whole.

    A node without character offsets (none from SentenceSplitter) cannot be located: skipped.
    """
    nodes = [n for n in nodes if n.node.start_char_idx is not None]
    cites = [
        CitationResult(
            snippet_id=n.node.node_id,
            path=n.node.metadata["path"],
            span=Span(start=n.node.start_char_idx, end=n.node.end_char_idx),
            chunk=Span(start=n.node.start_char_idx, end=n.node.end_char_idx),
            quote=n.node.get_content(),
            section=corpus.section(n.node.metadata["path"], n.node.start_char_idx),
            supported=True,
            rerank_score=None,
        )
        for n in nodes
    ]
    texts = [c.quote for c in cites]
    result = ItemResult(
        id=item.id,
        question=item.question,
        answerable=item.answerable,
        fallback=not cites,
        verdict="none",
        answer="\n\n".join(texts),
        trace_id="",
        latency_ms=ms,
        delta_s=(
            delta_s(embedder.embed_query(item.question), embedder.embed_documents(texts))
            if texts
            else None
        ),
        citations=cites,
        gold=gold_quotes(item, spans),
        gate_codes=[],
        repair_codes=[],
        failures=[],
        claims=0,
        uncited=0,
        fabricated=0,
    )
    return result.model_copy(update={"failures": failure_kinds(result)})


def peer_row(results: Sequence[ItemResult], reference: Sequence[float]) -> dict[str, float | None]:
    """The eval's `compute_metrics` of the peer items, unmeasurable metrics null."""
    row = compute_metrics(results, reference)
    return {k: None if k in NOT_MEASURED else v for k, v in row.items()}


def run_peer(
    gold_path: Path, corpus: Path, settings: Settings, ks: Sequence[int] = DUMPS
) -> dict[str, dict[str, float | None]]:
    """row name -> metrics, one row per top-k chunk dump."""
    items = load_gold(gold_path)
    gold = [resolve(it, corpus) for it in items]
    embedder = load_embedder(settings.models)  # uncached: the peer embeds its question itself
    docs = Corpus(corpus, {})
    results: dict[int, list[ItemResult]] = {k: [] for k in ks}
    reference: list[float] = []  # one query-embedding pass after each question, as the eval
    with tempfile.TemporaryDirectory() as tmp:
        index = build_index(corpus, settings, embedder, tmp)
        retrievers = {k: index.as_retriever(similarity_top_k=k) for k in ks}
        for item, spans in zip(items, gold, strict=True):
            for k, retriever in retrievers.items():
                t0 = time.perf_counter()
                nodes = retriever.retrieve(item.question)
                ms = (time.perf_counter() - t0) * 1000
                results[k].append(dump(item, spans, nodes, ms, embedder, docs))
            t1 = time.perf_counter()
            embedder.embed_query(item.question)
            reference.append((time.perf_counter() - t1) * 1000)
    return {row_name(k): peer_row(results[k], reference) for k in ks}


def peer_file(
    gold: Path,
    corpus: Path,
    models: dict[str, str],
    rows: dict[str, dict[str, float | None]],
    shown: str,
) -> dict[str, Any]:
    """What `--out` holds; `peer` names the row `evals.report.load_peer` shows."""
    return {"gold": str(gold), "corpus": str(corpus), "models": models, "peer": shown, "rows": rows}


def table(rows: dict[str, dict[str, float | None]]) -> str:
    keys = [k for k in next(iter(rows.values())) if all(k in r for r in rows.values())]
    out = ["| system | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    out += [
        f"| {name} | " + " | ".join("—" if r[k] is None else f"{r[k]:.3g}" for k in keys) + " |"
        for name, r in rows.items()
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
    rows = {CITEGATE: ours.metrics, **run_peer(args.gold, args.corpus, settings)}
    print(f"gold {args.gold} over {args.corpus}; models: {ours.models}\n")
    print(table(rows))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        data = peer_file(args.gold, args.corpus, ours.models, rows, row_name(SHOWN))
        args.out.write_text(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()

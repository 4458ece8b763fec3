"""Ingest throughput: citegate's pipeline vs pure embedding vs a LlamaIndex pipeline (issue 3).

    .venv/bin/python bench/ingest.py [--data ../shared/data] [--scifact-docs N] [--rounds N]

For each corpus (FastAPI docs; the SciFact abstracts), in one process with one model load, each
round running the four in turn (medians over the rounds are reported, with their spread: a shared
CPU's neighbours move single runs by up to 1.7x here):

1. citegate: `ingest_paths` into a fresh embedded Qdrant Edge index (load, section-aware
   chunking, token counting, hashing, the injection guard's mask (`engine.embed_mask`, as
   `citegate ingest` runs it; `CITEGATE_INTEGRITY__INJECTION_GUARD=false` leaves it out),
   dense + BM25 encoding, upsert, revision switch).
2. pure embedding: the very chunk texts step 1 embedded, in one `embed_documents` call (the
   floor any pipeline with this model pays). Overhead = step 1 seconds / step 2 seconds - 1.
3. LlamaIndex: `SimpleDirectoryReader` -> `IngestionPipeline([SentenceSplitter,
   HuggingFaceEmbedding])` -> `QdrantVectorStore` (qdrant-client local mode on disk), same
   weights, same batch size, a splitter sized in the same tokenizer.
4. pure embedding of the texts step 3 embedded (metadata prepended, as LlamaIndex embeds them):
   LlamaIndex's own overhead over the model.
5. and 6. steps 1 and 3 with the model replaced by a constant vector (LlamaIndex's
   `MockEmbedding`): each pipeline's own work, the ratio a far faster model (a GPU) approaches.

Goal (issue 3): overhead <= 15 %, and >= 2x the LlamaIndex pipeline's chunks/s. The report also
prints the ceiling: step 2's chunks/s over step 3's, what a pipeline costing nothing beyond the
model would reach. Not a test.

Re-ingest (`--only reingest`): the FastAPI pages kept with their real commit history
(`fastapi-docs/revisions/`), ingested at an old version (untimed), then stepped through each
following commit to the newest, timed. citegate re-embeds only chunk texts the live revision
lacks; the LlamaIndex pipeline runs with a docstore (`DocstoreStrategy.UPSERTS`, the
documented way to re-ingest), which skips unchanged documents and re-embeds a changed one whole.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.pipeline import ingest_paths
from server.core.paths import shared_data
from server.core.ports import Embedder, EmbedMask
from server.core.settings import Settings, load_settings
from server.index.embed import Delegating, resolve_weights
from server.query.engine import build_embedder, build_judge, build_sparse, embed_mask, open_index

DATA = shared_data()


class RecordingEmbedder(Delegating):
    """Wraps the real embedder; keeps every document text it was asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return self.inner.embed_documents(texts)


class ConstantEmbedder(RecordingEmbedder):
    """Every text gets the same unit vector at once: the pipeline without the model."""

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [[1.0] + [0.0] * (self.dim - 1) for _ in texts]


@dataclass(frozen=True)
class Row:
    name: str
    chunks: int
    tokens: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.chunks / self.seconds


def scifact_folder(data: Path, limit: int | None, out: Path) -> Path:
    """One text file per abstract (title + text), as bench/retrieval.py ingests them."""
    lines = (data / "scifact" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines[:limit] if limit else lines:
        d = json.loads(line)
        (out / f"{d['_id']}.txt").write_text(f"{d['title']}\n\n{d['text']}\n", encoding="utf-8")
    return out


def production_mask(settings: Settings, embedder: RecordingEmbedder) -> EmbedMask | None:
    """What `citegate ingest` embeds of a chunk (`engine.embed_mask`), its judge on the real
    model behind `embedder`, so the judge's own passes are timed but not counted as chunks."""
    return embed_mask(settings, build_judge(settings, embedder.inner))


def run_citegate(folder: Path, settings: Settings, embedder: RecordingEmbedder) -> Row:
    with tempfile.TemporaryDirectory() as tmp:
        scratch = settings.model_copy(update={"data_dir": Path(tmp)})
        sparse = build_sparse(scratch)
        store = open_index(scratch, embedder, sparse)
        mask = production_mask(scratch, embedder)
        t0 = time.perf_counter()
        report = ingest_paths(
            [folder], settings=scratch, embedder=embedder, sparse=sparse, store=store, mask=mask
        )
        seconds = time.perf_counter() - t0
        store.close()
    if report.documents.failed:
        print(f"  ({report.documents.failed} files failed: {report.failures[0].reason})")
    tokens = sum(embedder.count_tokens(t) for t in embedder.texts)
    return Row("citegate (Qdrant Edge)", report.chunks_written, tokens, seconds)


def run_pure(texts: list[str], tokens: int, embedder: Embedder) -> Row:
    t0 = time.perf_counter()
    embedder.embed_documents(texts)
    return Row("pure embedding", len(texts), tokens, time.perf_counter() - t0)


def llamaindex_splitter(settings: Settings, inner: Embedder) -> Any:
    """A `SentenceSplitter` sized in the embedder's own tokenizer, as ours is."""
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(
        chunk_size=settings.ingest.chunk_max_tokens,
        chunk_overlap=20,
        tokenizer=lambda t: [0] * inner.count_tokens(t),
    )


def llamaindex_embed(settings: Settings) -> Any:
    """The same weights and batch size through `HuggingFaceEmbedding`, warmed up."""
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    embed = HuggingFaceEmbedding(
        model_name=str(resolve_weights(settings.models)),
        device="cpu",
        embed_batch_size=settings.models.embed_batch_size,
    )
    embed.get_text_embedding("warm up")
    return embed


def run_llamaindex(
    folder: Path, settings: Settings, inner: Embedder, embed: Any
) -> tuple[Row, list[str]]:
    """The peer pipeline, and the texts its embedder was given (metadata prepended, as embedded)."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.schema import MetadataMode
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    with tempfile.TemporaryDirectory() as tmp:
        client = QdrantClient(path=tmp)
        pipeline = IngestionPipeline(
            transformations=[llamaindex_splitter(settings, inner), embed],
            vector_store=QdrantVectorStore(collection_name="bench", client=client),
        )
        t0 = time.perf_counter()
        docs = SimpleDirectoryReader(
            str(folder), recursive=True, required_exts=[".md", ".txt"]
        ).load_data()
        nodes = pipeline.run(documents=docs)
        seconds = time.perf_counter() - t0
        client.close()
    texts = [n.get_content(MetadataMode.EMBED) for n in nodes]
    tokens = sum(inner.count_tokens(t) for t in texts)
    row = Row("LlamaIndex IngestionPipeline + QdrantVectorStore", len(nodes), tokens, seconds)
    return row, texts


def revision_steps(data: Path, oldest: int) -> list[dict[str, Path]]:
    """Per version, oldest first: page path -> the file holding that page at that version."""
    root = data / "fastapi-docs"
    by_version: dict[int, dict[str, Path]] = {}
    for line in (root / "revisions" / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        by_version.setdefault(entry["version_index_newest_first"], {})[entry["doc"]] = (
            root / entry["file"]
        )
    pages = set.intersection(*(set(by_version[k]) for k in range(oldest + 1)))
    return [{page: by_version[k][page] for page in sorted(pages)} for k in range(oldest, -1, -1)]


def check_out(version: dict[str, Path], folder: Path) -> None:
    for page, source in version.items():
        target = folder / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())


def step_through(
    steps: list[dict[str, Path]],
    folder: Path,
    ingest: Callable[[], int],
    after_oldest: Callable[[], None] = lambda: None,
) -> tuple[int, float]:
    """Ingest the oldest version untimed, then each newer one timed: (chunks written, seconds)."""
    check_out(steps[0], folder)
    ingest()
    after_oldest()
    chunks, seconds = 0, 0.0
    for version in steps[1:]:
        check_out(version, folder)
        t0 = time.perf_counter()
        chunks += ingest()
        seconds += time.perf_counter() - t0
    return chunks, seconds


@dataclass(frozen=True)
class Reingest:
    name: str
    chunks: int  # chunks of the new revisions written
    embedded: int  # texts sent to the model
    seconds: float


def reingest_citegate(
    steps: list[dict[str, Path]], settings: Settings, embedder: RecordingEmbedder
) -> Reingest:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        scratch = settings.model_copy(update={"data_dir": Path(tmp) / "index"})
        sparse = build_sparse(scratch)
        store = open_index(scratch, embedder, sparse)
        mask = production_mask(scratch, embedder)

        run = partial(ingest_paths, settings=scratch, embedder=embedder, sparse=sparse, mask=mask)

        def ingest() -> int:
            return run([folder], store=store).chunks_written

        chunks, seconds = step_through(steps, folder, ingest, embedder.texts.clear)
        store.close()
    return Reingest("citegate (Qdrant Edge)", chunks, len(embedder.texts), seconds)


def reingest_llamaindex(
    steps: list[dict[str, Path]], settings: Settings, inner: Embedder
) -> Reingest:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        client = QdrantClient(path=str(Path(tmp) / "index"))
        pipeline = IngestionPipeline(
            transformations=[llamaindex_splitter(settings, inner), llamaindex_embed(settings)],
            vector_store=QdrantVectorStore(collection_name="bench", client=client),
            docstore=SimpleDocumentStore(),
            docstore_strategy=DocstoreStrategy.UPSERTS,
        )

        def ingest() -> int:
            docs = SimpleDirectoryReader(
                str(folder), recursive=True, required_exts=[".md"], filename_as_id=True
            ).load_data()
            return len(pipeline.run(documents=docs))

        chunks, seconds = step_through(steps, folder, ingest)
        client.close()
    return Reingest("LlamaIndex IngestionPipeline + docstore UPSERTS", chunks, chunks, seconds)


def bench_reingest(data: Path, oldest: int, settings: Settings, inner: Embedder) -> None:
    steps = revision_steps(data, oldest)
    ours = reingest_citegate(steps, settings, RecordingEmbedder(inner))
    peer = reingest_llamaindex(steps, settings, inner)
    print(f"\nRe-ingest: {len(steps[0])} FastAPI pages, {len(steps) - 1} real commits each")
    print(f"{'pipeline':50s} {'chunks':>7s} {'embedded':>9s} {'seconds':>8s} {'chunks/s':>9s}")
    for r in (ours, peer):
        print(
            f"{r.name:50s} {r.chunks:7d} {r.embedded:9d} {r.seconds:8.1f} "
            f"{r.chunks / r.seconds:9.1f}"
        )
    print(
        f"citegate / LlamaIndex: {peer.seconds / ours.seconds:.2f}x faster; citegate embedded "
        f"{ours.embedded / max(ours.chunks, 1):.0%} of the chunks it wrote"
    )


def median_row(rows: list[Row]) -> Row:
    """One pipeline over the rounds: its (same) chunks and tokens, the median seconds."""
    return Row(
        rows[0].name, rows[0].chunks, rows[0].tokens, statistics.median(r.seconds for r in rows)
    )


def report(corpus: str, rounds: list[list[Row]], truncated: int) -> None:
    """Medians over the rounds (each round runs all four in turn, so a noisy neighbour on a
    shared CPU weighs on every pipeline alike), with each row's spread."""
    rows = [median_row([r[i] for r in rounds]) for i in range(len(rounds[0]))]
    ours, pure, peer, peer_pure, ours_free, peer_free = rows
    print(f"\n{corpus} ({len(rounds)} round{'s' * (len(rounds) > 1)}, median seconds)")
    print(
        f"{'pipeline':50s} {'chunks':>7s} {'tokens':>8s} {'seconds':>8s} "
        f"{'chunks/s':>9s} {'tok/s':>7s}  spread"
    )
    for i, r in enumerate(rows):
        spread = [rr[i].seconds for rr in rounds]
        print(
            f"{r.name:50s} {r.chunks:7d} {r.tokens:8d} {r.seconds:8.1f} {r.rate:9.1f} "
            f"{r.tokens / r.seconds:7.0f}  {min(spread):.1f}-{max(spread):.1f} s"
        )
    print(
        f"overhead over pure embedding: citegate {ours.seconds / pure.seconds - 1:+.1%} "
        f"(goal <= +15 %), LlamaIndex {peer.seconds / peer_pure.seconds - 1:+.1%}; "
        f"citegate / LlamaIndex: {ours.rate / peer.rate:.2f}x chunks/s, "
        f"{ours.tokens / ours.seconds / (peer.tokens / peer.seconds):.2f}x tokens/s (goal >= 2x); "
        f"a pipeline costing nothing beyond this model would reach "
        f"{pure.rate / peer.rate:.2f}x chunks/s; "
        f"chunks over the model's limit: {truncated} "
        f"({truncated / max(ours.chunks, 1):.1%}, truncated by the embedder)"
    )
    print(
        f"without the model: citegate / LlamaIndex {peer_free.seconds / ours_free.seconds:.2f}x "
        f"(the ratio a far faster model, e.g. on a GPU, approaches)"
    )


def bench_corpus(
    corpus: str, folder: Path, settings: Settings, inner: Embedder, rounds: int
) -> None:
    from llama_index.core.embeddings import MockEmbedding

    peer_embed, no_model = llamaindex_embed(settings), MockEmbedding(embed_dim=inner.dim)
    results: list[list[Row]] = []
    for _ in range(rounds):
        embedder = RecordingEmbedder(inner)
        ours = run_citegate(folder, settings, embedder)
        pure = run_pure(embedder.texts, ours.tokens, inner)
        peer, peer_texts = run_llamaindex(folder, settings, inner, peer_embed)
        peer_pure = run_pure(peer_texts, peer.tokens, inner)
        ours_free = run_citegate(folder, settings, ConstantEmbedder(inner))
        peer_free, _ = run_llamaindex(folder, settings, inner, no_model)
        results.append(
            [
                ours,
                pure,
                peer,
                replace(peer_pure, name="pure embedding of LlamaIndex's chunks"),
                replace(ours_free, name="citegate, no model (a constant vector)"),
                replace(peer_free, name="LlamaIndex, no model (MockEmbedding)"),
            ]
        )
    truncated = sum(inner.count_tokens(t) > inner.max_tokens for t in embedder.texts)
    report(corpus, results, truncated)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--scifact-docs", type=int, default=None, help="first N abstracts only")
    ap.add_argument("--only", choices=["fastapi", "scifact", "reingest"], default=None)
    ap.add_argument(
        "--oldest", type=int, default=5, help="re-ingest from this version (0 = newest)"
    )
    ap.add_argument("--fastapi-dir", default="docs", help="a sub-folder, e.g. docs/tutorial")
    ap.add_argument(
        "--rounds", type=int, default=1, help="fresh-ingest rounds; medians are reported"
    )
    args = ap.parse_args()
    settings = load_settings()
    inner = build_embedder(settings)
    inner.embed_documents(["warm up"] * settings.models.embed_batch_size)
    print(
        f"embed={inner.model_id} batch={settings.models.embed_batch_size} "
        f"chunk_max_tokens={settings.ingest.chunk_max_tokens}"
    )
    if args.only in (None, "fastapi"):
        bench_corpus(
            "FastAPI docs",
            args.data / "fastapi-docs" / args.fastapi_dir,
            settings,
            inner,
            args.rounds,
        )
    if args.only in (None, "scifact"):
        with tempfile.TemporaryDirectory() as tmp:
            folder = scifact_folder(args.data, args.scifact_docs, Path(tmp))
            bench_corpus("SciFact corpus", folder, settings, inner, args.rounds)
    if args.only in (None, "reingest"):
        bench_reingest(args.data, args.oldest, settings, inner)


if __name__ == "__main__":
    main()

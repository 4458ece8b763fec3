"""An offline Engine: hash embedder, `:memory:` store, the real generator, checker and policy."""

from __future__ import annotations

from pathlib import Path

from ingest.pipeline import ingest_paths
from server.core.settings import Settings
from server.index.sparse import Bm25Encoder
from server.index.store import open_memory_store
from server.query.answer import Engine
from server.query.engine import index_identity
from server.query.generate import build_generator
from server.query.integrity.support import build_support_scorer
from server.query.policy import load_policy
from server.query.rerank import DenseCosineScorer
from tests.fakes import HashEmbedder

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "corpus"


def offline_engine(
    settings: Settings, corpus: Path = SAMPLES, tags: tuple[str, ...] = ()
) -> Engine:
    embedder = HashEmbedder(dim=256)
    sparse = Bm25Encoder(settings.models)
    store = open_memory_store(index_identity(embedder, sparse))
    ingest_paths(
        [corpus], settings=settings, embedder=embedder, sparse=sparse, store=store, tags=tags
    )
    return Engine(
        settings=settings,
        embedder=embedder,
        sparse=sparse,
        store=store,
        reranker=DenseCosineScorer(embedder, store),
        support=build_support_scorer(settings, embedder),
        generator=build_generator(settings, embedder=embedder),
        policy=load_policy(settings.corpus_policy_file),
    )

"""An offline Engine: the production builder (`assemble`) around a hash embedder and a
`:memory:` store, so reranker weights, generator, checker and policy are the real ones."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ingest.pipeline import ingest_paths
from server.core.paths import repo_root
from server.core.settings import Settings
from server.index.sparse import Bm25Encoder
from server.index.store import open_memory_store
from server.query.answer import Engine
from server.query.engine import assemble, index_identity
from tests.fakes import HashEmbedder

SAMPLES = repo_root() / "samples" / "corpus"
HASH_RELEVANCE_FLOOR = 0.1  # cosine of HashEmbedder(dim=256) vectors, for related texts ~0.25


def offline_engine(
    settings: Settings, corpus: Path = SAMPLES, tags: tuple[str, ...] = ()
) -> Engine:
    # The hash embedder's cosines run lower than MiniLM's (a related claim scores ~0.25, not
    # ~0.5): the shipped relevance floor is MiniLM's, so it is scaled down here, in one place.
    floor = min(settings.integrity.relevance_floor, HASH_RELEVANCE_FLOOR)
    integrity = settings.integrity.model_copy(update={"relevance_floor": floor})
    settings = settings.model_copy(update={"integrity": integrity})
    embedder = HashEmbedder(dim=256)
    sparse = Bm25Encoder(settings.models)
    store = open_memory_store(index_identity(settings, embedder, sparse))
    ingest_paths(
        [corpus], settings=settings, embedder=embedder, sparse=sparse, store=store, tags=tags
    )
    # The refusal model is fitted on MiniLM's signals (config/refusal_model.json): on the hash
    # embedder's scale it would refuse nearly everything, so the rules alone decide here
    # (tests/server/query/test_decide.py covers the model itself).
    return replace(assemble(settings, embedder, sparse, store), refusal=None)

"""The composition root: the only place that builds real models and stores and wires stages.

`server` never imports `ingest` or `evals`; this package may import all three.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from server.core.contracts import Answer, IndexIdentity
from server.core.identity import chunker_id
from server.core.ports import ChunkStore, Embedder, EmbedMask, SparseEncoder, SupportScorer
from server.core.settings import Settings, default_config_dir
from server.index.embed import QueryVectorCache, load_embedder
from server.index.sparse import Bm25Encoder
from server.index.store import open_store
from server.query.answer import Engine
from server.query.audit import TraceStore, trace_rows
from server.query.decide import load_refusal_model
from server.query.generate import build_generator
from server.query.integrity.injection import DocumentFences, SegmentJudge, unfenced
from server.query.integrity.judge import EmbeddingJudge, load_judge
from server.query.integrity.relevance import EmbeddingRelevance
from server.query.integrity.support import FeatureSupportScorer, build_support_scorer
from server.query.policy import load_policy
from server.query.rerank import build_reranker


def build_embedder(settings: Settings) -> Embedder:
    """The configured dense embedder (seconds to load: call once per process), embedding
    each question once (`QueryVectorCache`)."""
    return QueryVectorCache(load_embedder(settings.models), settings.models.query_cache_size)


def build_sparse(settings: Settings) -> SparseEncoder:
    """The BM25 encoder whose analyzer string is recorded in the index."""
    return Bm25Encoder.from_settings(settings.models)


def index_identity(settings: Settings, embedder: Embedder, sparse: SparseEncoder) -> IndexIdentity:
    """What this process would build an index with; compared to the index's own."""
    return IndexIdentity(
        embed_model=embedder.model_id,
        dense_dim=embedder.dim,
        analyzer=sparse.analyzer,
        chunker=chunker_id(settings.ingest),
    )


def open_index(
    settings: Settings, embedder: Embedder, sparse: SparseEncoder, *, rebuild: bool = False
) -> ChunkStore:
    """Open (or create) the configured store; refuses an index built with another identity."""
    return open_store(settings, index_identity(settings, embedder, sparse), rebuild=rebuild)


def build_engine(settings: Settings) -> Engine:
    """Everything `answer()` needs, built once (CLI process or server lifespan)."""
    embedder = build_embedder(settings)
    sparse = build_sparse(settings)
    return assemble(settings, embedder, sparse, open_index(settings, embedder, sparse))


def assemble(
    settings: Settings, embedder: Embedder, sparse: SparseEncoder, store: ChunkStore
) -> Engine:
    """The engine around an embedder and a store: reranker, support scorer, generator and
    policy as the settings name them (tests hand in fakes for the first three)."""
    support = build_support_scorer(settings, embedder)
    judge = build_judge(settings, embedder)
    return Engine(
        settings=settings,
        embedder=embedder,
        sparse=sparse,
        store=store,
        reranker=build_reranker(settings.models, embedder, store),
        support=support,
        relevance=relevance_for(embedder, support),
        generator=build_generator(settings, embedder=embedder),
        policy=load_policy(settings.corpus_policy_file),
        refusal=load_refusal_model(_config_path(settings.retrieval.refusal_model_file)),
        fences=DocumentFences(store.get_doc, judge=judge),
        judge=judge,
    )


def build_judge(settings: Settings, embedder: Embedder) -> EmbeddingJudge | None:
    """The injection guard's learned reader (`integrity.injection_judge_file`), or None:
    no file configured or present, the guard off, or weights for another embedder."""
    name = settings.integrity.injection_judge_file
    if not settings.integrity.injection_guard or name is None:
        return None
    return load_judge(_config_path(name), embedder)


def relevance_for(embedder: Embedder, support: SupportScorer) -> EmbeddingRelevance:
    """Relevance on the engine's embedder, sharing the feature scorer's vector cache (the
    claims it scores are the claims the checks embed) when that is the scorer in use."""
    shared = support.vectors if isinstance(support, FeatureSupportScorer) else None
    return EmbeddingRelevance(embedder, shared)


def embed_mask(settings: Settings, judge: SegmentJudge | None) -> EmbedMask | None:
    """What ingest's vectors read of a chunk: its text without the spans the injection guard
    withholds (`injection.unfenced`, the rules and `judge`), or None with the guard off."""
    if not settings.integrity.injection_guard:
        return None
    return partial(unfenced, judge=judge)


def _config_path(name: str) -> Path:
    path = Path(name)
    return path if path.is_absolute() else default_config_dir() / path


def trace_store(settings: Settings) -> TraceStore:
    """The audit table in the data folder (SQLite by default)."""
    return TraceStore(settings.data_dir / settings.service.traces_db)


def record_answer(settings: Settings, engine: Engine, result: Answer) -> None:
    """Write the seed 002 log lines and `rag_traces` rows for one answer."""
    rows = trace_rows(
        result,
        store_kind=engine.store.kind,
        embed_model=engine.embedder.model_id,
        analyzer=engine.sparse.analyzer,
    )
    trace_store(settings).record(result, rows)

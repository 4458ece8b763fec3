"""Rerank to the final top-k, deterministic tie-break; refuse below a threshold (SPEC 3.3, 3.4).

The refusal threshold is `min_rerank_score` when the best hit contains every BM25 term of the
question, and rises by `uncovered_penalty` times the share of terms it lacks: a close cosine
to a passage that never mentions what was asked about is not evidence.

Scorers implement `PairScorer` and return relevance in [0, 1]:
- `DenseCosineScorer` (default here): cosine of the query and the chunk vectors already in
  the store, clipped at 0; one query embedding per question. No trained cross-encoder
  ships in a package (MODELS.md), so this is the best real signal without one.
- `CrossEncoderScorer` (sentence-transformers `CrossEncoder`) and `FlagRerankerScorer`
  (FlagEmbedding `FlagReranker`, BGE), loaded from `models.reranker_path`; logits squashed
  by a sigmoid.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from server.core.contracts import AlsoIn, Hit
from server.core.errors import ModelUnavailableError
from server.core.ports import ChunkStore, Embedder, PairScorer, SparseEncoder
from server.core.settings.models import ModelSettings
from server.core.settings.retrieval import RetrievalSettings
from server.core.text import content_words, missing_identifiers, missing_names
from server.query.retrieve import cosine


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


class DenseCosineScorer:
    """`w * cos(query, chunk)+ + (1 - w) * fused / max fused` with the chunk vectors in the store.

    The fused (RRF) score keeps what BM25 contributed; pure cosine (w=1) discards it and
    measured worse on SciFact train (nDCG@10 0.691 vs 0.731 at w=0.75; see models.yaml).
    """

    def __init__(self, embedder: Embedder, store: ChunkStore, cosine_weight: float = 1.0) -> None:
        self._embedder = embedder
        self._store = store
        self._w = cosine_weight

    @property
    def name(self) -> str:
        return f"dense-cosine*{self._w:g}+fused:{self._embedder.model_id}"

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        vectors = self._store.dense_vectors([h.chunk.snippet_id for h in hits])
        qv = self._embedder.embed_query(query)  # the engine's embedder caches it
        top = max((h.score_raw for h in hits), default=0.0) or 1.0
        cos = [
            max(0.0, cosine(qv, vectors[h.chunk.snippet_id]))
            if h.chunk.snippet_id in vectors
            else 0.0
            for h in hits
        ]
        return [
            self._w * c + (1 - self._w) * max(0.0, h.score_raw) / top
            for c, h in zip(cos, hits, strict=True)
        ]


def _weights(path: str | None) -> Path:
    if not path or not (Path(path) / "config.json").is_file():
        raise ModelUnavailableError(
            f"reranker weights folder {path!r} has no config.json: set "
            "CITEGATE_MODELS__RERANKER_PATH to a cross-encoder folder, or use "
            "reranker_backend=dense"
        )
    return Path(path)


class CrossEncoderScorer:
    """sentence-transformers `CrossEncoder` with a single-logit head."""

    def __init__(self, path: str | None) -> None:
        from sentence_transformers import CrossEncoder

        self._path = _weights(path)
        self._model: Any = CrossEncoder(str(self._path), device="cpu", local_files_only=True)
        if int(self._model.config.num_labels) != 1:
            raise ModelUnavailableError(
                f"{self._path} has {self._model.config.num_labels} labels; a reranker needs 1"
            )

    @property
    def name(self) -> str:
        return f"cross-encoder:{self._path.name}"

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        if not hits:
            return []
        logits = self._model.predict([(query, h.chunk.text) for h in hits], activation_fn=None)
        return [_sigmoid(float(x)) for x in logits]


class FlagRerankerScorer:
    """FlagEmbedding `FlagReranker` (BGE reranker); refuses a multi-label (NLI) head."""

    def __init__(self, path: str | None) -> None:
        from FlagEmbedding import FlagReranker
        from transformers import AutoConfig

        self._path = _weights(path)
        labels = int(AutoConfig.from_pretrained(str(self._path), local_files_only=True).num_labels)
        if labels != 1:
            raise ModelUnavailableError(
                f"{self._path} has a {labels}-label head: FlagReranker reads single-score heads "
                "only (an NLI head gives meaningless numbers)"
            )
        self._model: Any = FlagReranker(str(self._path), use_fp16=False, devices="cpu")

    @property
    def name(self) -> str:
        return f"flag-reranker:{self._path.name}"

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        if not hits:
            return []
        scores = self._model.compute_score([[query, h.chunk.text] for h in hits], normalize=True)
        return [float(s) for s in (scores if isinstance(scores, list) else [scores])]


def build_reranker(models: ModelSettings, embedder: Embedder, store: ChunkStore) -> PairScorer:
    """The scorer named by `models.reranker_backend`."""
    if models.reranker_backend == "cross-encoder":
        return CrossEncoderScorer(models.reranker_path)
    if models.reranker_backend == "flag":
        return FlagRerankerScorer(models.reranker_path)
    return DenseCosineScorer(embedder, store, models.rerank_cosine_weight)


def rank_key(hit: Hit) -> tuple[float, str, str]:
    """Seed 002 rule 5: (score_norm desc, section_id asc, snippet_id asc)."""
    return (-hit.score_norm, hit.chunk.section_id, hit.chunk.snippet_id)


def rerank(question: str, hits: Sequence[Hit], scorer: PairScorer, top_k: int) -> list[Hit]:
    """Score, sort with the deterministic tie-break, keep `top_k`, record `k_final`.

    `k_pos` (rank before rerank) is kept from recall; `rerank_score` and `score_norm` are
    the scorer's [0, 1] relevance (rounded to 6 places so float noise cannot break ties).
    """
    scores = scorer.score(question, hits)
    scored = [
        h.model_copy(update={"rerank_score": s, "score_norm": round(min(1.0, max(0.0, s)), 6)})
        for h, s in zip(hits, scores, strict=True)
    ]
    ranked = sorted(scored, key=rank_key)[:top_k]
    return [h.model_copy(update={"k_final": i}) for i, h in enumerate(ranked, start=1)]


def _same_passage(a: Hit, b: Hit, jaccard: float) -> bool:
    """Two chunks of different documents that say the same thing (content-word Jaccard)."""
    if a.chunk.doc_id == b.chunk.doc_id:
        return False
    wa, wb = set(content_words(a.chunk.text)), set(content_words(b.chunk.text))
    return bool(wa | wb) and len(wa & wb) / len(wa | wb) >= jaccard


def _preferred(a: Hit, b: Hit, ingested_at: Callable[[str], datetime | None]) -> Hit:
    """The copy to cite: the later `updated_at`, else the document ingested later, else `a`
    (the higher-ranked one)."""
    if a.chunk.updated_at != b.chunk.updated_at:
        return a if a.chunk.updated_at > b.chunk.updated_at else b
    ta, tb = ingested_at(a.chunk.doc_id), ingested_at(b.chunk.doc_id)
    return b if ta is not None and tb is not None and tb > ta else a


def _also(hit: Hit) -> tuple[AlsoIn, ...]:
    return (AlsoIn.of(hit.chunk), *hit.also_in)


def collapse_duplicates(
    ranked: Sequence[Hit],
    top_k: int,
    jaccard: float,
    ingested_at: Callable[[str], datetime | None],
) -> list[Hit]:
    """The top `top_k` reranked hits with near-duplicates across documents collapsed: one
    copy stays (in the better-ranked copy's place) and lists the others in `also_in`, which
    frees its places for other evidence. `k_final` is renumbered."""
    kept: list[Hit] = []
    for hit in ranked:
        twin = next((i for i, k in enumerate(kept) if _same_passage(k, hit, jaccard)), None)
        if twin is None:
            if len(kept) == top_k:
                break
            kept.append(hit)
            continue
        first = kept[twin]
        chosen = _preferred(first, hit, ingested_at)
        other = hit if chosen is first else first
        kept[twin] = chosen.model_copy(
            update={
                "also_in": (*chosen.also_in, *_also(other)),
                "k_final": first.k_final,
            }
        )
    return [h.model_copy(update={"k_final": i}) for i, h in enumerate(kept, start=1)]


def question_coverage(question: str, text: str, sparse: SparseEncoder) -> float:
    """Share of the question's BM25 terms (the index's own analyzer: stemmed, no stopwords)
    that occur in `text`; 1.0 when the question has no term (nothing to look for)."""
    asked = set(sparse.encode_query(question).indices)
    if not asked:
        return 1.0
    return len(asked & set(sparse.encode_document(text).indices)) / len(asked)


def refusal_threshold(coverage: float, settings: RetrievalSettings) -> float:
    """The best score needed to answer: the floor plus the penalty for uncovered terms."""
    return settings.min_rerank_score + settings.uncovered_penalty * (1.0 - coverage)


def absent_names(
    question: str, candidates: Sequence[Hit], settings: RetrievalSettings
) -> tuple[str, ...]:
    """Names the question uses that no candidate mentions, when they are at least
    `missing_name_share` of its names: the corpus the caller may read is not about them
    (asked "How does GitLab handle counter notices?" of GitHub's policies); and, with
    `missing_identifier_rule`, any code identifier it names that no candidate writes ("like
    auto_envvar_prefix?", "a built-in --log-level option?"). Checked over every recalled
    candidate that passed policy and scope, not just the reranked top."""
    texts = [h.chunk.text for h in candidates]
    share = settings.missing_name_share
    names = missing_names(question, texts, share) if share > 0 else ()  # 0: the rule is off
    codes = missing_identifiers(question, texts) if settings.missing_identifier_rule else ()
    return (*names, *codes)


def should_refuse(
    question: str, hits: Sequence[Hit], settings: RetrievalSettings, sparse: SparseEncoder
) -> bool:
    """Never generate from noise: refuse when nothing is left or the best hit is too weak.

    `hits` are reranked, best first; the threshold depends on how much of the question the
    best hit itself mentions (`question_coverage`).
    """
    if not hits:
        return True
    coverage = question_coverage(question, hits[0].chunk.text, sparse)
    return hits[0].score_norm < refusal_threshold(coverage, settings)

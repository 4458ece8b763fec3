"""Narrow Protocols between stages: models and I/O sit behind these (STYLE habit 2).

Real implementations live beside the stage that owns them (`server/embed.py`,
`server/store/`, ...); tests use fakes that implement the same Protocols.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal, Protocol, runtime_checkable

from server.core.contracts import (
    Chunk,
    ChunkRecord,
    DocRecord,
    Draft,
    Frozen,
    Hit,
    IndexMeta,
    IngestReport,
    SparseVector,
)

SearchMode = Literal["hybrid", "dense", "sparse"]


class Embedder(Protocol):
    """Dense text embeddings, L2-normalised, and the tokenizer that sizes chunks."""

    @property
    def model_id(self) -> str: ...
    @property
    def dim(self) -> int: ...
    @property
    def max_tokens(self) -> int: ...
    def count_tokens(self, text: str) -> int: ...
    def token_spans(self, text: str) -> list[tuple[int, int]]: ...
    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...
    def embed_query(self, text: str) -> list[float]: ...


class SparseEncoder(Protocol):
    """BM25 term vectors; the same analyzer on the write and the read path."""

    @property
    def analyzer(self) -> str: ...
    def encode_document(self, text: str) -> SparseVector: ...
    def encode_query(self, text: str) -> SparseVector: ...


class SearchRequest(Frozen):
    """One hybrid query as the store runs it (prefetch + fusion inside the store)."""

    dense: tuple[float, ...]
    sparse: SparseVector
    mode: SearchMode = "hybrid"
    dense_top_n: int
    sparse_top_n: int
    rrf_k: int
    limit: int
    overfetch: int  # the store asks for limit * overfetch: stale revisions are filtered after
    scope_tags: tuple[str, ...] | None = None
    exclude_tags: tuple[str, ...] = ()


class ChunkStore(Protocol):
    """The one store interface; Qdrant Edge (embedded) and Qdrant server implement it."""

    @property
    def kind(self) -> str: ...
    def meta(self) -> IndexMeta | None: ...
    def put_meta(self, meta: IndexMeta) -> None: ...
    def upsert(self, records: Sequence[ChunkRecord]) -> None: ...
    def search(self, request: SearchRequest) -> list[Hit]: ...
    def dense_vectors(self, snippet_ids: Sequence[str]) -> dict[str, list[float]]: ...
    def revision_vectors(self, doc_id: str, rev: str) -> dict[str, list[float]]:
        """Dense vectors of one revision's chunks, keyed by `server.core.text.embed_key` of
        each chunk's title, heading and content hash."""
        ...

    def get_chunk(self, snippet_id: str) -> Chunk | None: ...
    def docs(self) -> list[DocRecord]: ...
    def live_revs(self) -> Mapping[str, str]: ...
    def get_doc(self, doc_id: str) -> DocRecord | None: ...
    def put_doc(self, doc: DocRecord) -> None: ...
    def delete_doc(self, doc_id: str) -> int: ...
    def retire(self, doc_id: str, keep_rev: str) -> int: ...
    def optimize(self) -> None:
        """Build the search indexes after a bulk write (embedded store; a server does it)."""
        ...

    def count(self) -> int: ...
    def clear(self) -> None: ...
    def close(self) -> None: ...


class PairScorer(Protocol):
    """Relevance of each hit to the query, in [0, 1]; higher is more relevant (rerank)."""

    @property
    def name(self) -> str: ...
    def score(self, query: str, hits: Sequence[Hit]) -> list[float]: ...


class SupportScorer(Protocol):
    """Probability in [0, 1] that `evidence` supports `claim` (NLI-shaped)."""

    @property
    def name(self) -> str: ...
    def support(self, claim: str, evidence: str) -> float: ...


@runtime_checkable
class Warmable(Protocol):
    """A scorer that can embed (or otherwise prepare) many texts in one batch before it is
    asked about them one pair at a time: the claims of one answer cost one model pass."""

    def warm(self, texts: Sequence[str]) -> None: ...


def warm(scorer: object, texts: Sequence[str]) -> None:
    """`scorer.warm(texts)` when the scorer batches, else nothing (it scores pair by pair)."""
    if isinstance(scorer, Warmable) and texts:
        scorer.warm(texts)


@runtime_checkable
class PairWarmable(Protocol):
    """A scorer whose model reads each (claim, evidence) pair whole (a cross-encoder): the
    pairs it is about to be asked about are scored in one batch."""

    def warm_pairs(self, pairs: Sequence[tuple[str, str]]) -> None: ...


def warm_pairs(scorer: object, pairs: Sequence[tuple[str, str]]) -> None:
    """`scorer.warm_pairs(pairs)` when the scorer batches pairs, else nothing."""
    if isinstance(scorer, PairWarmable) and pairs:
        scorer.warm_pairs(pairs)


class RelevanceScorer(Protocol):
    """How much each text bears on a question, on one scale per scorer (higher: more)."""

    @property
    def name(self) -> str: ...
    def relevance(self, question: str, texts: Sequence[str]) -> list[float]: ...


class Generator(Protocol):
    """Claims first, then citation slots filled from `hits`, then the answer text (SPEC 4)."""

    @property
    def name(self) -> str: ...
    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft: ...


EmbedMask = Callable[[str], str]
"""What ingest embeds and sparse-encodes of a chunk's text: the text without the spans the
injection guard withholds (the composition root passes `injection.unfenced` with the engine's
judge). The stored text, its hash and every offset stay the text's own; only the vectors stop
reading an order planted beside the page's facts, so a poisoned chunk neither drifts away from
the questions its clean sentences answer nor is pulled toward the ones its attack was written
for."""


class Ingestor(Protocol):
    """Admin writes to the index, as the service reaches them (implemented in `ingest`).

    The composition root hands one in, so `server` never imports `ingest`.
    """

    def upload(
        self, files: Sequence[tuple[str, bytes]], *, tags: Sequence[str], rev: str | None
    ) -> IngestReport:
        """Ingest uploaded (name, bytes) files in one run; bad files are listed, not fatal."""
        ...

    def delete(self, doc_id: str) -> int:
        """Remove a document and its chunks; returns the chunks removed (NotFoundError if none)."""
        ...

"""The typed contracts every stage shares (SPEC 1.1-1.3, seed 002).

These frozen models are the only types that cross a stage boundary: ingest writes
`Chunk`s, the store returns `Hit`s, the generator emits `Claim`s, the checker returns
`ClaimVerdict`s, and the query path returns one `Answer`. Change a value with
`model.model_copy(update={...})`, never by mutation.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Frozen(BaseModel):
    """Base for every contract: immutable and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Offsets(Frozen):
    """A half-open character span `[start, end)` into a document's normalised text."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    unit: Literal["char"] = "char"

    @model_validator(mode="after")
    def _monotonic(self) -> Offsets:
        if self.end <= self.start:
            raise ValueError(f"offsets must satisfy start < end, got [{self.start}, {self.end})")
        return self


class Window(Frozen):
    """Context characters shown before and after a cited span."""

    pre: int = Field(ge=0)
    post: int = Field(ge=0)


class SourceDoc(Frozen):
    """One loaded document with its normalised text (SPEC 2.1).

    `text` is UTF-8 decoded, NFC, `\\n` line endings and nothing else changed; every
    offset of every chunk of this document points into it.
    """

    doc_id: str = Field(min_length=1)
    source_url: str
    path: str = Field(description="path relative to the ingested folder, '/' separated")
    title: str
    text: str
    rev: str = Field(min_length=1, description="content hash or a caller-given revision")
    content_hash: str
    tags: tuple[str, ...] = ()
    source_domain: str = ""
    updated_at: datetime
    media_type: Literal["markdown", "text", "html", "pdf", "rst"]


class Chunk(Frozen):
    """The citation payload stored with every point (SPEC 1.1, seed 002 required fields)."""

    doc_id: str
    section_id: str
    snippet_id: str
    source_url: str
    offsets: Offsets
    tokens: int = Field(ge=0)
    index_hash: str
    embed_model: str
    analyzer: str
    rev: str
    text: str
    title: str
    tags: tuple[str, ...] = ()
    source_domain: str = ""
    updated_at: datetime
    content_hash: str
    page: int | None = None
    # The texts of the headings the chunk sits under, outermost first, joined by " > "
    # (empty before the first heading); embedded with the text (server.core.text.embed_input).
    heading: str = ""
    # The chunk starts inside a fenced code block that opened before it (a block longer
    # than a chunk, split by lines): its text up to the closing fence is code, not prose.
    opens_in_code: bool = False
    # The chunk starts inside a list that opened before it (chunks overlap by sentences, and a
    # list longer than a chunk is split by sentences): its lines indented after a blank line
    # are an item's body, not indented code. A reading hint that moves no chunk boundary: an
    # index built before it reads False until its documents are re-ingested.
    opens_in_list: bool = False


class SparseVector(Frozen):
    """A sparse vector as parallel index/value tuples (BM25 term weights)."""

    indices: tuple[int, ...]
    values: tuple[float, ...]

    @model_validator(mode="after")
    def _aligned(self) -> SparseVector:
        if len(self.indices) != len(self.values):
            raise ValueError("sparse vector indices and values differ in length")
        return self


class ChunkRecord(Frozen):
    """What ingest hands the store: a chunk with both of its vectors."""

    chunk: Chunk
    dense: tuple[float, ...]
    sparse: SparseVector
    read_hash: str | None = Field(
        default=None,
        description="content hash of what the vectors read when it is not the chunk's text "
        "(spans the injection guard withholds left out); re-ingest reuses a vector by it",
    )


class IndexIdentity(Frozen):
    """What an index was built with; the server refuses to read an index built otherwise."""

    embed_model: str
    dense_dim: int = Field(gt=0)
    analyzer: str
    chunker: str


class DocRecord(Frozen):
    """The live revision of one document, as the store's registry holds it."""

    doc_id: str
    rev: str
    source_url: str
    path: str
    title: str
    content_hash: str
    chunks: int = Field(ge=0)
    tags: tuple[str, ...] = ()
    updated_at: datetime
    ingested_at: datetime
    text: str = Field(description="the normalised text every chunk offset points into")


class IndexMeta(Frozen):
    """The index's identity and its current content hash (SPEC 2.3)."""

    identity: IndexIdentity
    index_hash: str
    updated_at: datetime


class AlsoIn(Frozen):
    """The same passage found in another document: collapsed into one citation (SPEC 1.1)."""

    doc_id: str
    source_url: str
    snippet_id: str
    rev: str
    span: Offsets | None = Field(
        default=None,
        description="where the copied unit sits in that document (document offsets); None when "
        "the whole chunk is a near-duplicate",
    )

    @classmethod
    def of(cls, chunk: Chunk, span: Offsets | None = None) -> AlsoIn:
        """`chunk`'s document as the copy, at `span` (document offsets) when it is known."""
        return cls(
            doc_id=chunk.doc_id,
            source_url=chunk.source_url,
            snippet_id=chunk.snippet_id,
            rev=chunk.rev,
            span=span,
        )


class Hit(Frozen):
    """One retrieved chunk with its scores and ranks (optional fields of SPEC 1.1)."""

    chunk: Chunk
    score_raw: float = Field(description="the store's fused score for this chunk")
    score_norm: float = Field(default=0.0, ge=0.0, le=1.0)
    dense_score: float | None = None
    sparse_score: float | None = None
    rerank_score: float | None = None
    k_pos: int = Field(ge=1, description="1-based rank before rerank")
    k_final: int | None = Field(default=None, ge=1, description="1-based rank after rerank")
    old_document: bool = False
    also_in: tuple[AlsoIn, ...] = Field(
        default=(), description="near-duplicates of this chunk in other documents, not cited"
    )


class ClaimType(StrEnum):
    """Claim taxonomy of seeds 000 and 004 (SPEC 1.2)."""

    DEFINITION = "definition"
    NUMBER = "number"
    QUOTE = "quote"
    FACT = "fact"
    RECOMMENDATION = "recommendation"
    GENERAL_KNOWLEDGE = "general_knowledge"
    REASONING = "reasoning"
    SELF_KNOWLEDGE = "self_knowledge"


class CitationSlot(Frozen):
    """A claim's pointer at evidence: a retrieved snippet and a span inside it.

    `offsets` are document offsets (into the normalised text), inside the snippet's own
    offsets; `quote` is the exact text at those offsets.
    """

    n: int = Field(ge=1, description="the [n] marker this slot is rendered as")
    snippet_id: str
    offsets: Offsets
    quote: str
    also_in: tuple[AlsoIn, ...] = Field(
        default=(),
        description="other documents whose retrieved text holds this same quote, not cited "
        "(the citation lists them beside its chunk's own near-duplicates)",
    )


class Claim(Frozen):
    """One material statement of an answer and its citation slots (SPEC 1.2)."""

    id: str
    text: str
    type: ClaimType
    citations: tuple[CitationSlot, ...] = ()
    segment: int = Field(default=1, ge=1, description="answer segment (paragraph) it belongs to")
    label: str | None = Field(default=None, description="visible label such as [general knowledge]")
    reference: str | None = Field(
        default=None,
        description="a file the cited text includes by reference (a docs include directive "
        "whose target is not in the corpus): shown beside the claim, never claimed",
    )


class CheckCode(StrEnum):
    """Return codes of the integrity checker (SPEC 5.1, seed 002)."""

    OK = "ok"
    EMPTY_CITATIONS = "empty_citations"
    FABRICATED_ID = "fabricated_id"
    MARKER_WITHOUT_CITATION = "marker_without_citation"
    CITATION_WITHOUT_MARKER = "citation_without_marker"
    QUOTE_NOT_VERBATIM = "quote_not_verbatim"
    BAD_OFFSETS = "bad_offsets"
    UNSUPPORTED = "unsupported"
    MISATTRIBUTED = "misattributed"
    OVER_GENERALISED = "over_generalised"
    MISSING_CITATION = "missing_citation"
    NUMBER_MISMATCH = "number_mismatch"
    TERM_NOT_IN_SPAN = "term_not_in_span"
    CROSS_SECTION_REUSE = "cross_section_reuse"
    ANALYZER_MISMATCH = "analyzer_mismatch"
    MISMATCH_INDEX_HASH = "mismatch_index_hash"
    REV_MISMATCH = "rev_mismatch"
    MISSING_SCORE = "missing_score"
    MISSING_RANK = "missing_rank"
    NEW_FACT_IN_REASONING = "new_fact_in_reasoning"
    LABEL_MISSING = "label_missing"
    INJECTED_INSTRUCTION = "injected_instruction"
    OFF_TOPIC = "off_topic"  # the claim does not bear on the question: dropped
    LLM_UNAVAILABLE = "llm_unavailable"  # the LLM endpoint was down: extractive answered
    NEGATION_MISMATCH = "negation_mismatch"
    QUANTIFIER_MISMATCH = "quantifier_mismatch"
    ENTITY_MISMATCH = "entity_mismatch"  # a name the cited chunk never mentions
    UNSUPPORTED_PART = "unsupported_part"  # a clause the cited spans barely hold


class Verdict(StrEnum):
    """Gate outcome (seed 000)."""

    PASS = "PASS"
    WARN = "WARN"
    BLOCK = "BLOCK"


class Verification(Frozen):
    """How one citation of the answer was verified."""

    verbatim: bool
    offsets_valid: bool
    support_score: float | None = Field(default=None, ge=0.0, le=1.0)
    supported: bool
    codes: tuple[CheckCode, ...] = ()


class Citation(Chunk):
    """A citation as the user receives it: every chunk field (SPEC 1.1) plus the cited span.

    `offsets` are the chunk's own, so `doc_text[offsets.start:offsets.end] == text`;
    `span` is the cited part of it, so `doc_text[span.start:span.end] == quote`.
    """

    n: int = Field(ge=1)
    span: Offsets
    quote: str
    verification: Verification
    score_raw: float | None = None
    score_norm: float | None = None
    rerank_score: float | None = None
    k_pos: int | None = None
    k_final: int | None = None
    window: Window | None = None
    old_document: bool = False
    also_in: tuple[AlsoIn, ...] = Field(
        default=(),
        description="the same passage in other documents; this one is cited (later updated_at, "
        "else ingested later), the others listed here",
    )


class CodeFinding(Frozen):
    """One return code and the claim or citation it concerns."""

    code: CheckCode
    claim_id: str | None = None
    citation_n: int | None = None
    detail: str = ""


class ClaimVerdict(Frozen):
    """The checker's verdict on one claim, with its evidence (STYLE habit 9)."""

    claim_id: str
    verdict: Verdict
    supported: bool
    support_score: float | None = None
    findings: tuple[CodeFinding, ...] = ()


class GateResult(Frozen):
    """The gate's decision over the whole answer (SPEC 5.2)."""

    verdict: Verdict
    mode: Literal["strict", "lenient"]
    codes: tuple[CodeFinding, ...] = ()
    claims: tuple[ClaimVerdict, ...] = ()


class RepairAction(StrEnum):
    """Steps of the repair ladder (SPEC 5.3, seed 001)."""

    SUBSTITUTE = "substitute"
    STRIP_CITATION = "strip_citation"
    REGENERATE = "regenerate"
    FALLBACK = "fallback"
    LLM_FALLBACK = "llm_fallback"
    QUARANTINE = "quarantine"
    DROP = "drop"  # an off-topic claim left the answer


class Repair(Frozen):
    """One visible change the repair ladder made."""

    action: RepairAction
    claim_id: str | None = None
    before: str = ""
    after: str = ""
    reason: str
    codes: tuple[CheckCode, ...] = Field(
        default=(), description="what the checker found before repair"
    )


class MissingEvidence(Frozen):
    """What an honest "I don't know" says about the source that would answer."""

    summary: str
    suggested_sources: tuple[str, ...] = ()
    query_terms: tuple[str, ...] = ()


class Timings(Frozen):
    """Milliseconds spent per stage of one answer."""

    recall_ms: float = 0.0
    policy_ms: float = 0.0
    rerank_ms: float = 0.0
    generate_ms: float = 0.0
    check_ms: float = 0.0
    total_ms: float = 0.0


class Signals(Frozen):
    """What the refusal decision weighs (`server.query.decide`), for one answer."""

    best_score: float  # the best reranked hit's score_norm
    margin: float  # best minus second-best score_norm
    coverage: float  # share of the question's BM25 terms in the best hit
    # share of the question's content words in the answer's claims, each weighted by its
    # rarity among the recalled candidates (server.query.decide.rare_coverage)
    answer_coverage: float
    relevance: float  # cosine of the question and its most relevant claim
    absent_share: float  # share of the question's names no readable candidate mentions
    # 1 when the question asks for a quantity and no claim gives a number, in digits or as an
    # exact count in words next to the thing counted ("one single time")
    number_missing: float
    fused_agreement: float  # 1 / the best hit's rank before rerank (fusion and rerank agree)
    claims: float  # claims shown


class Decision(Frozen):
    """The calibrated refusal decision: its signals, p(answerable) and the outcome."""

    signals: Signals
    p_answer: float | None = None  # None when no refusal model is configured
    refused: bool = False
    # the kinds of value the question asks for that no claim states (server.query.answer_types);
    # non-empty means refused by that rule, whatever p_answer says
    unstated: tuple[str, ...] = ()
    # names of several words the question uses that no claim shown names (nor its section's
    # headings); non-empty means refused by that rule (server.query.answer_types.unnamed)
    unnamed: tuple[str, ...] = ()


class Answer(Frozen):
    """The response contract (SPEC 1.3)."""

    question: str
    answer: str
    claims: tuple[Claim, ...] = ()
    citations: tuple[Citation, ...] = ()
    fallback: bool
    gate: GateResult
    repairs: tuple[Repair, ...] = ()
    missing_evidence: MissingEvidence | None = None
    trace_id: str
    index_hash: str
    delta_s: float | None = Field(default=None, description="1 - cos(question, retrieved)")
    generator: str
    timings: Timings
    decision: Decision | None = Field(
        default=None, description="the refusal decision's signals and p(answerable)"
    )


class TraceRow(Frozen):
    """One audit row per question and segment (SPEC 6, seed 002 DDL)."""

    ts: datetime
    qid: str
    seg: int = Field(ge=1)
    delta_s: float
    lambda_state: str
    k: int
    store: str
    index_hash: str
    embed_model: str
    analyzer: str
    section_id: str
    rev: str
    citations: tuple[str, ...]
    scores: tuple[float, ...]
    kpos: tuple[int, ...]
    kfinal: tuple[int, ...]


class Draft(Frozen):
    """A generator's output before the gate: claims with filled slots, then the text.

    `answer` carries `[n]` markers matching the slots' `n`; `notes` are visible remarks
    such as "LLM output was invalid JSON; extractive fallback used".
    """

    claims: tuple[Claim, ...]
    answer: str
    generator: str
    notes: tuple[str, ...] = ()


class DocCounts(Frozen):
    """Documents per outcome in one ingest run."""

    new: int = 0
    changed: int = 0
    unchanged: int = 0
    failed: int = 0
    deleted: int = 0


class Failure(Frozen):
    """A file that was not ingested, and why (the run goes on without it)."""

    path: str
    reason: str


class IngestReport(Frozen):
    """What one ingest run did; `model_dump()` is exactly the `citegate ingest --json` object."""

    documents: DocCounts
    chunks_written: int
    seconds: float
    index_hash: str
    failures: tuple[Failure, ...] = ()

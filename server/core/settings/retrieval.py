"""Query-path settings (SPEC 3)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class RetrievalSettings(BaseModel):
    """Recall depth, fusion, rerank depth and the refusal threshold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dense_top_n: int = Field(gt=0, description="dense candidates per query (SPEC 3.1: 50-100)")
    sparse_top_n: int = Field(gt=0, description="BM25 candidates per query (SPEC 3.1: 50-100)")
    fusion: Literal["rrf"] = Field(description="how dense and sparse lists are fused")
    rrf_k: int = Field(
        ge=0, description="Qdrant RRF constant: score = sum 1/(k + rank0), rank0 0-based"
    )
    recall_limit: int = Field(gt=0, description="fused candidates handed to policy")
    final_k: int = Field(gt=0, description="hits kept after rerank (SPEC 3.3: 5-10)")
    duplicate_jaccard: float = Field(
        ge=0.0,
        le=1.0,
        description="content-word Jaccard at which chunks of two documents are the same "
        "passage: one is cited, the others listed in its also_in",
    )
    refusal_model_file: str = Field(
        description="the calibrated refusal model (relative to config/); absent: rules only"
    )
    overfetch: int = Field(
        ge=1,
        description="the store asks for recall_limit * overfetch points, since points of "
        "stale revisions are dropped after the query",
    )
    min_rerank_score: float = Field(
        description="refuse below this best rerank score when the best hit holds every "
        "BM25 term of the question (calibrated; SPEC 3.4)"
    )
    uncovered_penalty: float = Field(
        ge=0,
        description="rerank-score points added to the refusal threshold per unit share of "
        "the question's BM25 terms missing from the best hit (0 = best score alone; calibrated)",
    )
    missing_name_share: float = Field(
        ge=0,
        le=1,
        description="refuse when at least this share (0..1] of the names a question uses "
        "(capitalised words, server.core.text.named_terms) appears in no recalled candidate it "
        "may read; 0 turns the rule off",
    )
    missing_identifier_rule: bool = Field(
        description="refuse when the question names a code identifier (a snake_case name, a "
        "--flag) that no recalled candidate it may read writes (server.core.text."
        "missing_identifiers)",
    )
    answer_type_rule: bool = Field(
        description="refuse when the question asks for a price, size, percentage, duration, "
        "date, phone number or a count ('how many X') and no claim states one "
        "(server.query.answer_types)",
    )
    name_rule: bool = Field(
        description="refuse when a name of two words or more that the question uses (beyond "
        "the corpus's own name) is named by no claim shown, nor its section's title or "
        "headings (server.query.answer_types.unnamed)",
    )

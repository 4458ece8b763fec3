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
    min_rerank_score: float = Field(description="refuse below this best score (calibrated)")

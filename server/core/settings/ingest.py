"""Ingestion settings (SPEC 2)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class IngestSettings(BaseModel):
    """Chunk sizes, limits and batching."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chunk_max_tokens: int = Field(gt=0, description="max embedder word-pieces per chunk")
    chunk_overlap_sentences: int = Field(ge=0, description="sentences repeated between chunks")
    heading_only_max_chars: int = Field(
        ge=0, description="a chunk that is one heading line shorter than this is dropped"
    )
    max_file_bytes: int = Field(gt=0, description="larger files are skipped with a reason")
    write_batch: int = Field(gt=0, description="chunks embedded and written per batch")
    extensions: list[str] = Field(description="file endings picked up when a folder is given")

"""HTTP request/response models, separate from the internal contracts (STYLE habit 7)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=20000)
    mode: Literal["strict", "lenient"] | None = None
    seed: int = Field(default=0, ge=0, le=2**31)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[dict[str, object]] | None = None


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = "citegate"
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False


class DocumentOut(BaseModel):
    doc_id: str
    rev: str
    source_url: str
    title: str
    chunks: int
    tags: list[str]
    updated_at: str
    ingested_at: str


class SnippetOut(BaseModel):
    snippet_id: str
    doc_id: str
    section_id: str
    source_url: str
    title: str
    rev: str
    offsets: dict[str, object]
    text: str | None
    section_text: str | None
    section_start: int | None
    visible: bool


class DeletedOut(BaseModel):
    """`DELETE /v1/documents/{doc_id}`: what was removed."""

    doc_id: str
    chunks_removed: int

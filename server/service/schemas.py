"""HTTP request/response models, separate from the internal contracts (STYLE habit 7)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from server.core.contracts import Answer, Citation, GateResult, TraceRow
from server.query.answer import Stage

MODEL_ID = "citegate"  # the model id `/v1/models` lists and chat answers as by default


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)  # its length limit is service.max_question_chars
    mode: Literal["strict", "lenient"] | None = None
    seed: int = Field(default=0, ge=0, le=2**31)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[dict[str, object]] | None = None


class StreamOptions(BaseModel):
    """OpenAI's `stream_options`: `include_usage` adds a final chunk with `usage`."""

    include_usage: bool = False


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = MODEL_ID
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False
    stream_options: StreamOptions | None = None


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


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatMessageOut(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class ChatChoice(BaseModel):
    index: int
    finish_reason: Literal["stop"]
    message: ChatMessageOut


class ChatCompletion(BaseModel):
    """`POST /v1/chat/completions` (not streamed): OpenAI's shape plus the checked citations."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatChoice]
    usage: Usage
    citations: list[Citation]
    gate: GateResult
    fallback: bool
    trace_id: str
    standalone_question: str = Field(
        description="the question answered: the last user message plus key terms of earlier "
        "user turns it lacks (service.chat_history_terms)"
    )


class StreamProgress(BaseModel):
    """A streamed chunk's `progress`: the stage of `answer()` that has just started."""

    stage: Stage


class StreamClaim(BaseModel):
    """A streamed chunk's `claim`: which verified claim its delta content shows."""

    index: int = Field(description="the claim's position in the answer's claims")
    id: str
    citations: list[int] = Field(description="its [n] markers: `n` of the citations chunk's")


class StreamError(BaseModel):
    """A streamed chunk's `error`, when the answer failed after the 200 headers were sent."""

    code: str
    message: str


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "citegate"


class ModelList(BaseModel):
    """`GET /v1/models`: the one model this server answers as."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


class TraceOut(BaseModel):
    """`GET /v1/traces/{trace_id}`: the stored Answer and its `rag_traces` rows."""

    answer: Answer
    rows: list[TraceRow]


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class Ready(BaseModel):
    """`GET /readyz`; `llm` is null unless the LLM generator is configured."""

    status: Literal["ready"] = "ready"
    store: str
    chunks: int  # chunks of the live revisions
    # chunks a run killed before its flip left behind; the next run retires them
    unretired_chunks: int = 0
    index_hash: str | None
    embed_model: str
    generator: str
    llm: Literal["ok", "degraded"] | None = None

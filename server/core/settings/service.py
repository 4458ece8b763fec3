"""HTTP service settings (SPEC 6 and 8)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ServiceSettings(BaseModel):
    """Bind address and request limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = Field(description="bind address; loopback unless API keys are configured")
    port: int = Field(gt=0, lt=65536, description="TCP port")
    max_body_bytes: int = Field(gt=0, description="larger request bodies get 413")
    max_question_chars: int = Field(gt=0, description="longer questions get 422")
    chat_history_terms: int = Field(
        ge=0,
        description="content words of earlier user turns a chat question is given, at most "
        "(0: the last user message alone)",
    )
    traces_db: str = Field(description="SQLite file name under data_dir for rag_traces")
    llm_timeout_s: float = Field(gt=0, description="seconds per LLM request")
    llm_max_retries: int = Field(
        ge=0, le=5, description="openai client retries on 408/409/429/5xx and connection errors"
    )
    llm_probe_timeout_s: float = Field(
        gt=0, description="seconds /readyz waits for the LLM endpoint's GET /models"
    )
    llm_probe_cache_s: float = Field(ge=0, description="seconds a readiness probe is reused")
    worker_threads: int = Field(
        gt=0, description="threads that run answers and ingests (requests beyond wait their turn)"
    )
    malloc_arenas: int = Field(
        ge=0, description="glibc malloc arenas for `citegate serve` (0: glibc's default)"
    )

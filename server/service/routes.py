"""Routes: each translates HTTP to a call and back, nothing more (STYLE habit 7)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, File, Form, Header, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, PlainTextResponse, StreamingResponse
from prometheus_client import generate_latest

from server.core.contracts import Answer, IngestReport
from server.core.errors import InputError, NotFoundError, StoreError
from server.core.ports import Ingestor
from server.query.answer import Engine, answer
from server.query.audit import trace_rows
from server.service.auth import Caller, authenticate, authorize, in_scope
from server.service.schemas import AskRequest, ChatRequest, DeletedOut, DocumentOut, SnippetOut

if TYPE_CHECKING:
    from server.service.app import AppState

_WINDOW = 400  # characters of context around a snippet in its section view
Auth = Annotated[str | None, Header(alias="Authorization")]


def _engine(state: AppState) -> Engine:
    if state.engine is None:
        raise StoreError(f"not ready: {state.error or 'models and store are still loading'}")
    return state.engine


def _ask(state: AppState, caller: Caller, question: str, mode: Any = None, seed: int = 0) -> Answer:
    engine = _engine(state)
    result = answer(question, engine, scope_tags=caller.scope, mode=mode, seed=seed)
    for stage in ("recall", "policy", "rerank", "generate", "check"):
        state.metrics.stage.labels(stage).observe(getattr(result.timings, f"{stage}_ms") / 1000)
    state.metrics.verdicts.labels(result.gate.verdict.value).inc()
    rows = trace_rows(
        result,
        store_kind=engine.store.kind,
        embed_model=engine.embedder.model_id,
        analyzer=engine.sparse.analyzer,
    )
    state.traces.record(result, rows)
    return result


def _question(body: ChatRequest) -> str:
    users = [m for m in body.messages if m.role == "user"]
    if not users:
        raise InputError("no user message: the last user message is the question")
    content = users[-1].content
    if isinstance(content, list):
        content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content or ""


def _chat_payload(result: Answer, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{result.trace_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": result.answer},
            }
        ],
        "usage": {
            "prompt_tokens": 0,
            "completion_tokens": len(result.answer.split()),
            "total_tokens": 0,
        },
        "citations": [c.model_dump(mode="json") for c in result.citations],
        "gate": result.gate.model_dump(mode="json"),
        "fallback": result.fallback,
        "trace_id": result.trace_id,
    }


def _stream(result: Answer, model: str) -> Iterator[str]:
    """Cite first: the first chunk carries citations and gate, then the text, then [DONE]."""
    base = {
        "id": f"chatcmpl-{result.trace_id}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }
    first = {
        **base,
        "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
        ],
        "citations": [c.model_dump(mode="json") for c in result.citations],
        "gate": result.gate.model_dump(mode="json"),
        "fallback": result.fallback,
    }
    yield f"data: {json.dumps(first)}\n\n"
    for piece in result.answer.split(" "):
        chunk = {
            **base,
            "choices": [{"index": 0, "delta": {"content": piece + " "}, "finish_reason": None}],
        }
        yield f"data: {json.dumps(chunk)}\n\n"
    last = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    yield f"data: {json.dumps(last)}\n\n"
    yield "data: [DONE]\n\n"


def _ingestor(state: AppState) -> Ingestor:
    _engine(state)
    if state.ingestor is None:  # set with the engine in the lifespan
        raise StoreError("not ready: the ingestor is still loading")
    return state.ingestor


def _snippet(state: AppState, caller: Caller, snippet_id: str) -> SnippetOut:
    engine = _engine(state)
    chunk = engine.store.get_chunk(snippet_id)
    if chunk is None or not in_scope(caller, chunk.tags):
        raise NotFoundError(f"no snippet {snippet_id!r} (unknown, retired, or outside your scope)")
    visible = engine.policy.snippet_visible
    doc = engine.store.get_doc(chunk.doc_id)
    lo = max(0, chunk.offsets.start - _WINDOW)
    window = doc.text[lo : chunk.offsets.end + _WINDOW] if doc and visible else None
    return SnippetOut(
        snippet_id=chunk.snippet_id,
        doc_id=chunk.doc_id,
        section_id=chunk.section_id,
        source_url=chunk.source_url,
        title=chunk.title,
        rev=chunk.rev,
        offsets=chunk.offsets.model_dump(),
        text=chunk.text if visible else None,
        section_text=window,
        section_start=lo if window is not None else None,
        visible=visible,
    )


def install(app: FastAPI, state: AppState, *, web_dir: Path) -> None:  # noqa: C901
    """Register every route on `app`."""

    def caller(header: str | None, action: str) -> Caller:
        return authorize(authenticate(state.keys, header), action)  # type: ignore[arg-type]

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(web_dir / "index.html")

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz")
    def readyz() -> dict[str, object]:
        engine = _engine(state)
        meta = engine.store.meta()
        return {
            "status": "ready",
            "store": engine.store.kind,
            "chunks": engine.store.count(),
            "index_hash": meta.index_hash if meta else None,
            "embed_model": engine.embedder.model_id,
            "generator": engine.generator.name,
        }

    @app.get("/metrics", include_in_schema=False)
    def metrics() -> PlainTextResponse:
        return PlainTextResponse(
            generate_latest(state.metrics.registry).decode(), media_type="text/plain"
        )

    @app.post("/v1/ask")
    async def ask(body: AskRequest, authorization: Auth = None) -> dict[str, Any]:
        who = caller(authorization, "ask")
        result = await run_in_threadpool(_ask, state, who, body.question, body.mode, body.seed)
        return result.model_dump(mode="json")

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(
        body: ChatRequest, authorization: Auth = None
    ) -> dict[str, Any] | StreamingResponse:
        who = caller(authorization, "ask")
        result = await run_in_threadpool(_ask, state, who, _question(body))
        if body.stream:
            return StreamingResponse(_stream(result, body.model), media_type="text/event-stream")
        return _chat_payload(result, body.model)

    @app.get("/v1/snippets/{snippet_id}")
    def snippet(snippet_id: str, authorization: Auth = None) -> SnippetOut:
        return _snippet(state, caller(authorization, "ask"), snippet_id)

    @app.get("/v1/traces/{trace_id}")
    def trace(trace_id: str, authorization: Auth = None) -> dict[str, Any]:
        caller(authorization, "traces")
        return {
            "answer": state.traces.answer(trace_id).model_dump(mode="json"),
            "rows": [r.model_dump(mode="json") for r in state.traces.rows(trace_id)],
        }

    @app.get("/v1/documents")
    def documents(authorization: Auth = None) -> list[DocumentOut]:
        caller(authorization, "admin")
        return [
            DocumentOut(
                doc_id=d.doc_id,
                rev=d.rev,
                source_url=d.source_url,
                title=d.title,
                chunks=d.chunks,
                tags=list(d.tags),
                updated_at=d.updated_at.isoformat(),
                ingested_at=d.ingested_at.isoformat(),
            )
            for d in _engine(state).store.docs()
        ]

    @app.delete("/v1/documents/{doc_id:path}")
    def delete_document(doc_id: str, authorization: Auth = None) -> DeletedOut:
        caller(authorization, "admin")
        ingestor = _ingestor(state)
        with state.write_lock:
            removed = ingestor.delete(doc_id)
        return DeletedOut(doc_id=doc_id, chunks_removed=removed)

    @app.post("/v1/ingest")
    async def ingest(
        files: Annotated[list[UploadFile], File(description="documents to ingest")],
        tags: Annotated[str, Form()] = "",
        rev: Annotated[str | None, Form()] = None,
        authorization: Auth = None,
    ) -> list[IngestReport]:
        caller(authorization, "admin")
        ingestor = _ingestor(state)
        uploads = [
            (upload.filename or f"upload-{uuid.uuid4().hex[:8]}.txt", await upload.read())
            for upload in files
        ]
        tag_list = [t for t in tags.split(",") if t]
        return await run_in_threadpool(_locked_upload, state, ingestor, uploads, tag_list, rev)


def _locked_upload(
    state: AppState,
    ingestor: Ingestor,
    uploads: list[tuple[str, bytes]],
    tags: list[str],
    rev: str | None,
) -> list[IngestReport]:
    """A report per file (the route's contract); one writer at a time, the lock taken in the
    worker thread and never held across an await."""
    with state.write_lock:
        return [ingestor.upload([upload], tags=tags, rev=rev) for upload in uploads]

"""`POST /v1/ask`, the OpenAI-compatible `POST /v1/chat/completions` and `GET /v1/models`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from server.core.contracts import Answer
from server.core.errors import InputError
from server.query.answer import answer
from server.query.audit import trace_rows
from server.service.auth import Caller
from server.service.deps import AuthFirstRoute, State, engine_of, require
from server.service.schemas import (
    MODEL_ID,
    AskRequest,
    ChatChoice,
    ChatCompletion,
    ChatMessageOut,
    ChatRequest,
    ModelCard,
    ModelList,
    Usage,
)
from server.service.state import AppState

router = APIRouter(route_class=AuthFirstRoute, dependencies=[Depends(require("ask"))], tags=["ask"])
Asker = Annotated[Caller, Depends(require("ask"))]


def ask_as(
    state: AppState, caller: Caller, question: str, mode: str | None = None, seed: int = 0
) -> Answer:
    engine = engine_of(state)
    result = answer(question, engine, scope_tags=caller.scope, mode=mode, seed=seed)  # type: ignore[arg-type]
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


def _tokens(state: AppState, text: str) -> int:
    """Tokens by the embedder's tokenizer; words when it cannot count."""
    try:
        return engine_of(state).embedder.count_tokens(text)
    except Exception:  # a tokenizer that fails on odd input must not fail the answer
        return len(text.split())


def usage(state: AppState, question: str, result: Answer) -> Usage:
    prompt, completion = _tokens(state, question), _tokens(state, result.answer)
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def _completion(result: Answer, model: str, used: Usage) -> ChatCompletion:
    return ChatCompletion(
        id=f"chatcmpl-{result.trace_id}",
        created=int(time.time()),
        model=model,
        choices=[
            ChatChoice(index=0, finish_reason="stop", message=ChatMessageOut(content=result.answer))
        ],
        usage=used,
        citations=list(result.citations),
        gate=result.gate,
        fallback=result.fallback,
        trace_id=result.trace_id,
    )


def _stream(result: Answer, model: str, used: Usage | None) -> Iterator[str]:
    """Cite first: the first chunk carries citations and gate, then the text, then (with
    `stream_options.include_usage`) a usage chunk with no choices, then [DONE]."""
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
    if used is not None:
        yield f"data: {json.dumps({**base, 'choices': [], 'usage': used.model_dump()})}\n\n"
    yield "data: [DONE]\n\n"


@router.post("/v1/ask", response_model=Answer)
async def ask(body: AskRequest, state: State, caller: Asker) -> Answer:
    return await run_in_threadpool(ask_as, state, caller, body.question, body.mode, body.seed)


@router.post("/v1/chat/completions", response_model=ChatCompletion)
async def chat(
    body: ChatRequest, state: State, caller: Asker
) -> ChatCompletion | StreamingResponse:
    question = _question(body)
    result = await run_in_threadpool(ask_as, state, caller, question)
    used = usage(state, question, result)
    if body.stream:
        include = body.stream_options is not None and body.stream_options.include_usage
        return StreamingResponse(
            _stream(result, body.model, used if include else None),
            media_type="text/event-stream",
        )
    return _completion(result, body.model, used)


@router.get("/v1/models", response_model=ModelList)
def models() -> ModelList:
    return ModelList(data=[ModelCard(id=MODEL_ID)])

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
from server.core.text import content_words
from server.query.answer import answer
from server.query.audit import trace_rows
from server.service.auth import Caller
from server.service.deps import AuthFirstRoute, State, engine_of, require
from server.service.schemas import (
    MODEL_ID,
    AskRequest,
    ChatChoice,
    ChatCompletion,
    ChatMessage,
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


def _text(message: ChatMessage) -> str:
    content = message.content
    if isinstance(content, list):
        content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content or ""


def standalone_question(body: ChatRequest, max_terms: int, max_chars: int) -> str:
    """The question a chat turn asks: the last user message plus the content words of earlier
    user turns that it lacks, most recent turn first, at most `max_terms` of them
    (`service.chat_history_terms`) and never past `max_chars` (`service.max_question_chars`).

    "Does it continue afterwards?" after "What happens to a broken PDF during ingest?" recalls
    nothing alone; with "broken pdf ingest ..." it finds the section. The same rewrite is used
    whichever generator answers: condensing the history into a question with the LLM itself is
    future work (it costs a second LLM call per turn and its rewrite would need checking too).
    """
    users = [m for m in body.messages if m.role == "user"]
    if not users:
        raise InputError("no user message: the last user message is the question")
    question = _text(users[-1])
    have = set(content_words(question))
    extra: list[str] = []
    for earlier in reversed(users[:-1]):
        for word in content_words(_text(earlier)):
            if len(extra) >= max_terms:
                break
            if word not in have:
                have.add(word)
                extra.append(word)
    for word in extra:
        if len(question) + 1 + len(word) > max_chars:
            break
        question = f"{question} {word}"
    return question


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


def _completion(result: Answer, model: str, used: Usage, question: str) -> ChatCompletion:
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
        standalone_question=question,
    )


def _stream(result: Answer, model: str, used: Usage | None, question: str) -> Iterator[str]:
    """Cite first: the first chunk carries citations, gate and the question answered (history
    included), then the text, then (with
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
        "standalone_question": question,
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
    limits = state.settings.service
    question = standalone_question(body, limits.chat_history_terms, limits.max_question_chars)
    result = await run_in_threadpool(ask_as, state, caller, question)
    used = usage(state, question, result)
    if body.stream:
        include = body.stream_options is not None and body.stream_options.include_usage
        return StreamingResponse(
            _stream(result, body.model, used if include else None, question),
            media_type="text/event-stream",
        )
    return _completion(result, body.model, used, question)


@router.get("/v1/models", response_model=ModelList)
def models() -> ModelList:
    return ModelList(data=[ModelCard(id=MODEL_ID)])

"""`POST /v1/ask`, the OpenAI-compatible `POST /v1/chat/completions` and `GET /v1/models`."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from server.core.contracts import Answer
from server.core.errors import CitegateError, InputError
from server.core.text import content_words, terms, word_key
from server.query.answer import Progress, Stage, answer
from server.query.audit import trace_rows
from server.query.claims import render
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
    StreamClaim,
    StreamError,
    StreamProgress,
    Usage,
)
from server.service.state import AppState

router = APIRouter(route_class=AuthFirstRoute, dependencies=[Depends(require("ask"))], tags=["ask"])
Asker = Annotated[Caller, Depends(require("ask"))]
log = logging.getLogger("citegate.service")
# Streamed answers still running: the loop holds tasks weakly, a client may leave mid-answer.
_RUNNING: set[asyncio.Task[Answer]] = set()


def ask_as(
    state: AppState,
    caller: Caller,
    question: str,
    mode: str | None = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> Answer:
    engine = engine_of(state)
    result = answer(
        question,
        engine,
        scope_tags=caller.scope,
        mode=mode,  # type: ignore[arg-type]
        seed=seed,
        progress=progress,
    )
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
        for word in terms(_text(earlier)):
            if len(extra) >= max_terms:
                break
            if word_key(word) not in have:
                have.add(word_key(word))
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


@dataclass(frozen=True)
class _Running:
    """`ask_as` on a worker thread: the stages it starts arrive on `events`, then None once
    it has finished; `task` then holds the Answer or the error."""

    task: asyncio.Task[Answer]
    events: asyncio.Queue[Stage | None]


def _answer_in_thread(state: AppState, caller: Caller, question: str) -> _Running:
    loop = asyncio.get_running_loop()
    events: asyncio.Queue[Stage | None] = asyncio.Queue()

    def push(stage: Stage | None) -> None:
        loop.call_soon_threadsafe(events.put_nowait, stage)

    def work() -> Answer:
        try:
            return ask_as(state, caller, question, progress=push)
        finally:
            push(None)

    task = asyncio.ensure_future(run_in_threadpool(work))
    _RUNNING.add(task)
    task.add_done_callback(_settled)
    return _Running(task, events)


def _settled(task: asyncio.Task[Answer]) -> None:
    """Forget a finished answer task. Its error is read here, so that an answer whose client
    went away mid-stream does not end as asyncio's "Task exception was never retrieved"; a
    stream still being read reports the error itself (`_failure`)."""
    _RUNNING.discard(task)
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.info("a streamed answer ended with %s: %s", type(exc).__name__, exc)


def claim_pieces(result: Answer) -> list[tuple[int | None, str]]:
    """`result.answer` cut at its claims, in the order `render` shows them: (the claim's index
    in `result.claims`, its rendered text with the separator before it). The pieces always
    concatenate to `result.answer`; an answer without claims (or one whose claims are not
    found in it in that order) is one piece, index None."""
    text, cursor = result.answer, 0
    pieces: list[tuple[int | None, str]] = []
    for index in sorted(range(len(result.claims)), key=lambda i: result.claims[i].segment):
        shown = render([result.claims[index]])
        at = text.find(shown, cursor)
        if at < 0:
            return [(None, text)]
        pieces.append((index, text[cursor : at + len(shown)]))
        cursor = at + len(shown)
    if not pieces:
        return [(None, text)]
    last, rest = pieces[-1]
    pieces[-1] = (last, rest + text[cursor:])
    return pieces


def _chunk(
    base: dict[str, object],
    delta: dict[str, str] | None,
    finish: str | None = None,
    **extra: object,
) -> str:
    """One `data:` event; `delta` None: a chunk with no choices (usage, error)."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return f"data: {json.dumps({**base, 'choices': choices, **extra})}\n\n"


def _answer_chunks(
    base: dict[str, object], result: Answer, question: str, used: Usage | None
) -> Iterator[str]:
    """Cite first: citations, gate, trace id and the question answered, then one chunk per
    verified claim (its text and its [n] markers), the stop chunk, the usage chunk."""
    yield _chunk(
        base,
        {},
        citations=[c.model_dump(mode="json") for c in result.citations],
        gate=result.gate.model_dump(mode="json"),
        fallback=result.fallback,
        standalone_question=question,
        trace_id=result.trace_id,
    )
    for index, piece in claim_pieces(result):
        if index is None:
            yield _chunk(base, {"content": piece})
            continue
        claim = result.claims[index]
        cited = StreamClaim(index=index, id=claim.id, citations=[s.n for s in claim.citations])
        yield _chunk(base, {"content": piece}, claim=cited.model_dump())
    yield _chunk(base, {}, "stop")
    if used is not None:
        yield _chunk(base, None, usage=used.model_dump())


def _failure(exc: Exception) -> StreamError:
    if isinstance(exc, CitegateError):
        return StreamError(code=exc.code, message=str(exc))
    log.exception("unhandled error in a streamed answer", exc_info=exc)
    return StreamError(code="internal_error", message="internal error; the server log has it")


async def _stream(
    state: AppState,
    running: _Running,
    first: Stage | None,
    model: str,
    question: str,
    include_usage: bool,
) -> AsyncIterator[str]:
    """The role chunk, one chunk per stage as it starts (`progress`, empty delta), then the
    answer (`_answer_chunks`) and [DONE]. An error after the 200 headers (the store failing
    mid-answer) ends the stream with a chunk carrying `error` {code, message} and [DONE]."""
    base: dict[str, object] = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }
    yield _chunk(base, {"role": "assistant", "content": ""})
    stage = first
    while stage is not None:
        yield _chunk(base, {}, progress=StreamProgress(stage=stage).model_dump())
        stage = await running.events.get()
    try:
        result = await running.task
    except Exception as exc:  # the headers are sent: the error can only travel in the stream
        yield _chunk(base, None, error=_failure(exc).model_dump())
    else:
        used = usage(state, question, result) if include_usage else None
        for chunk in _answer_chunks(base, result, question, used):
            yield chunk
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
    if body.stream:
        include = body.stream_options is not None and body.stream_options.include_usage
        running = _answer_in_thread(state, caller, question)
        first = await running.events.get()  # "recall": the question and index passed the checks
        if first is None:
            await running.task  # raised before any stage: its status and envelope, not a 200
        return StreamingResponse(
            _stream(state, running, first, body.model, question, include),
            media_type="text/event-stream",
        )
    result = await run_in_threadpool(ask_as, state, caller, question)
    return _completion(result, body.model, usage(state, question, result), question)


@router.get("/v1/models", response_model=ModelList)
def models() -> ModelList:
    return ModelList(data=[ModelCard(id=MODEL_ID)])

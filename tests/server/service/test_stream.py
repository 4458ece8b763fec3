"""`POST /v1/chat/completions` with `stream: true`: progress as each stage starts, then the
citations, then one chunk per verified claim; errors before the first stage keep their status."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient

from citegate.commands.serve_cmd import build_ingestor
from server.core.contracts import Answer, Draft, Hit
from server.core.errors import ModelUnavailableError, StoreError
from server.core.ports import Generator
from server.core.settings import Settings, load_settings
from server.query.answer import Engine, answer
from server.query.claims import render
from server.service.app import create_app
from server.service.routes.ask import _settled, claim_pieces
from tests.engine import offline_engine

KEYS = {"usr": {"role": "user"}}
AUTH = {"Authorization": "Bearer usr"}
# Measured on the sample corpus with the settings below: four claims in three paragraphs.
ANSWERED = "What does the integrity checker check?"
REFUSED = "Does it continue afterwards?"  # nothing in the corpus answers "it": I don't know
STAGES = ["recall", "rerank", "generate", "check", "decide"]
Chunk = dict[str, object]


def _settings(tmp_path: Path) -> Settings:
    return load_settings(
        data_dir=tmp_path / "data",
        api_keys=KEYS,
        retrieval={"min_rerank_score": 0.37, "uncovered_penalty": 0.0},
    )


def _client(tmp_path: Path, build: Callable[[Settings], Engine] = offline_engine) -> TestClient:
    app = create_app(_settings(tmp_path), build_engine=build, build_ingestor=build_ingestor)
    return TestClient(app)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path) as c:
        yield c


def _body(question: str, include_usage: bool = False) -> dict[str, object]:
    return {
        "stream": True,
        "stream_options": {"include_usage": include_usage},
        "messages": [{"role": "user", "content": question}],
    }


def _chunks(lines: Iterator[str]) -> Iterator[Chunk]:
    """The `data:` events up to [DONE] (which must come)."""
    for line in lines:
        if not line.startswith("data: "):
            continue
        data = line.removeprefix("data: ")
        if data == "[DONE]":
            return
        chunk: Chunk = json.loads(data)
        yield chunk
    raise AssertionError("the stream ended without data: [DONE]")


def _stream(client: TestClient, question: str, include_usage: bool = False) -> list[Chunk]:
    body = _body(question, include_usage)
    with client.stream("POST", "/v1/chat/completions", json=body, headers=AUTH) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        return list(_chunks(r.iter_lines()))


def _delta(chunk: Chunk) -> dict[str, str]:
    choices = chunk["choices"]
    assert isinstance(choices, list)
    if not choices:
        return {}
    delta: dict[str, str] = choices[0]["delta"]
    return delta


def _content(chunks: Sequence[Chunk]) -> str:
    return "".join(_delta(c).get("content", "") for c in chunks)


def _stages(chunks: Sequence[Chunk]) -> list[str]:
    return [c["progress"]["stage"] for c in chunks if "progress" in c]  # type: ignore[index]


def _not_streamed(client: TestClient, question: str) -> dict[str, object]:
    body = {"messages": [{"role": "user", "content": question}]}
    r = client.post("/v1/chat/completions", json=body, headers=AUTH)
    assert r.status_code == 200, r.text
    reply: dict[str, object] = r.json()
    return reply


def test_progress_comes_first_naming_each_stage_then_the_citations_then_the_text(
    client: TestClient,
) -> None:
    chunks = _stream(client, ANSWERED)
    assert _delta(chunks[0]) == {"role": "assistant", "content": ""}
    assert _stages(chunks) == STAGES
    progress = [i for i, c in enumerate(chunks) if "progress" in c]
    cited = next(i for i, c in enumerate(chunks) if "citations" in c)
    text = [i for i, c in enumerate(chunks) if _delta(c).get("content")]
    assert progress == list(range(1, 1 + len(STAGES)))  # before anything else, and as they come
    assert max(progress) < cited < min(text)
    assert all(_delta(chunks[i]) == {} for i in progress)
    assert {c["id"] for c in chunks} == {chunks[0]["id"]}  # one completion id throughout
    stop = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]  # type: ignore[index]
    assert stop == [chunks[-1]] and _delta(stop[0]) == {}


def test_one_chunk_per_verified_claim_and_together_the_answer(client: TestClient) -> None:
    chunks = _stream(client, ANSWERED)
    reply = _not_streamed(client, ANSWERED)
    assert _content(chunks) == reply["choices"][0]["message"]["content"]  # type: ignore[index]
    head = next(c for c in chunks if "citations" in c)
    assert head["fallback"] is False and head["standalone_question"] == ANSWERED
    assert head["gate"] == reply["gate"] and isinstance(head["trace_id"], str)
    assert isinstance(head["citations"], list)
    markers = {c["n"] for c in head["citations"]}
    claims = [c["claim"] for c in chunks if "claim" in c]
    assert len(claims) >= 2
    assert [c["index"] for c in claims] == list(range(len(claims)))  # type: ignore[index]
    assert all(_delta(c)["content"] for c in chunks if "claim" in c)
    cited: set[int] = set()
    for claim in claims:
        own = set(claim["citations"])  # type: ignore[index]
        assert own and own <= markers, (claim, markers)
        cited |= own
    assert cited == markers  # every citation belongs to a claim shown
    assert "\n\n" in _content(chunks)  # several paragraphs: the separators travel too


def test_i_dont_know_is_one_chunk_with_no_claim(client: TestClient) -> None:
    chunks = _stream(client, REFUSED)
    assert _stages(chunks) == ["recall", "rerank", "decide"]  # refused: nothing generated
    text = [c for c in chunks if _delta(c).get("content")]
    assert len(text) == 1 and not any("claim" in c for c in chunks)
    reply = _not_streamed(client, REFUSED)
    assert _content(chunks) == reply["choices"][0]["message"]["content"]  # type: ignore[index]
    head = next(c for c in chunks if "citations" in c)
    assert head["fallback"] is True and head["citations"] == []


def test_the_usage_chunk_only_when_asked(client: TestClient) -> None:
    chunks = _stream(client, ANSWERED, include_usage=True)
    last = chunks[-1]
    assert last["choices"] == [] and isinstance(last["usage"], dict)
    usage = last["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert usage == _not_streamed(client, ANSWERED)["usage"]
    assert not any("usage" in c for c in _stream(client, ANSWERED))


def test_the_openai_client_reads_the_stream(client: TestClient) -> None:
    oa = openai.OpenAI(base_url="http://testserver/v1", api_key="usr", http_client=client)
    chunks = list(
        oa.chat.completions.create(
            model="citegate",
            stream=True,
            stream_options={"include_usage": True},
            messages=[{"role": "user", "content": ANSWERED}],
        )
    )
    extras = [c.model_extra or {} for c in chunks]
    assert [e["progress"]["stage"] for e in extras if "progress" in e] == STAGES
    assert sum(1 for e in extras if "claim" in e) >= 2
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reply = _not_streamed(client, ANSWERED)
    assert text == reply["choices"][0]["message"]["content"]  # type: ignore[index]
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_is_the_422_envelope_not_a_stream(
    client: TestClient, question: str
) -> None:
    body = _body(question)
    with client.stream("POST", "/v1/chat/completions", json=body, headers=AUTH) as r:
        r.read()
    assert r.status_code == 422 and r.headers["content-type"] == "application/json"
    assert r.json()["error"] == "bad_input" and "empty" in r.json()["message"]


def test_a_server_without_its_engine_is_the_503_envelope(tmp_path: Path) -> None:
    def missing(_: Settings) -> Engine:
        raise ModelUnavailableError("no weights: run `citegate models pull`")

    with _client(tmp_path, missing) as c:
        r = c.post("/v1/chat/completions", json=_body(ANSWERED), headers=AUTH)
    assert r.status_code == 503 and r.json()["error"] == "store_unavailable"


@dataclass(frozen=True)
class _Failing:
    """A generator whose store goes away while it writes: the error comes after the 200."""

    name: str = "failing"

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        raise StoreError("the store went away: restart it")


def _with(generator: Generator) -> Callable[[Settings], Engine]:
    return lambda settings: replace(offline_engine(settings), generator=generator)


def test_an_error_after_the_headers_ends_the_stream_with_an_error_chunk(tmp_path: Path) -> None:
    with _client(tmp_path, _with(_Failing())) as c:
        chunks = _stream(c, ANSWERED)
        assert _stages(chunks) == ["recall", "rerank", "generate"]
        assert chunks[-1]["choices"] == []
        assert chunks[-1]["error"] == {
            "code": "store_unavailable",
            "message": "the store went away: restart it",
        }
        assert not any("citations" in c for c in chunks)
        oa = openai.OpenAI(base_url="http://testserver/v1", api_key="usr", http_client=c)
        stream = oa.chat.completions.create(
            model="citegate", stream=True, messages=[{"role": "user", "content": ANSWERED}]
        )
        with pytest.raises(openai.APIError, match="the store went away"):
            list(stream)


@dataclass(frozen=True)
class _Held:
    """The real generator, held back until the test lets it go (at most `wait_s`)."""

    inner: Generator
    release: threading.Event
    wait_s: float = 30.0

    @property
    def name(self) -> str:
        return self.inner.name

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        if not self.release.wait(self.wait_s):
            raise AssertionError("never released: the stream did not deliver `generate`")
        return self.inner.generate(question, hits, seed=seed)


def test_progress_arrives_while_the_answer_is_still_being_written(tmp_path: Path) -> None:
    release = threading.Event()

    def held(settings: Settings) -> Engine:
        engine = offline_engine(settings)
        return replace(engine, generator=_Held(engine.generator, release))

    with _client(tmp_path, held) as c:
        body = _body(ANSWERED)
        with c.stream("POST", "/v1/chat/completions", json=body, headers=AUTH) as r:
            chunks = _chunks(r.iter_lines())
            seen = []
            for chunk in chunks:
                seen.append(chunk)
                if _stages(seen)[-1:] == ["generate"]:
                    break
            assert not release.is_set() and not _content(seen)  # the generator is still held
            release.set()
            rest = list(chunks)
    assert _stages(seen + rest) == STAGES and _content(rest).count("[") >= 4


def test_claim_pieces_follow_the_rendered_order_and_concatenate_exactly(tmp_path: Path) -> None:
    made = answer(ANSWERED, offline_engine(_settings(tmp_path)))
    assert made.claims
    like = made.claims[0]
    claims = tuple(
        like.model_copy(update={"id": f"c{i + 1}", "text": text, "segment": seg})
        for i, (text, seg) in enumerate(
            [("Alpha holds.", 1), ("Beta holds.", 2), ("Gamma holds.", 2), ("Delta holds.", 3)]
        )
    )
    result = made.model_copy(update={"claims": claims, "answer": render(claims)})
    pieces = claim_pieces(result)
    assert "".join(p for _, p in pieces) == result.answer
    assert [i for i, _ in pieces] == [0, 1, 2, 3]
    # Claims stored out of paragraph order are still cut in the order the text shows them.
    shuffled = (result.claims[3], result.claims[1], result.claims[0], result.claims[2])
    moved = result.model_copy(update={"claims": shuffled, "answer": render(shuffled)})
    assert moved.answer == result.answer
    assert [i for i, _ in claim_pieces(moved)] == [2, 1, 3, 0]
    assert "".join(p for _, p in claim_pieces(moved)) == result.answer
    idk = result.model_copy(update={"claims": (), "answer": "I don't know."})
    assert claim_pieces(idk) == [(None, "I don't know.")]


def test_an_abandoned_answers_error_is_read_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A client that leaves mid-stream leaves nobody to await the answer: its error is read by
    the done callback (no "Task exception was never retrieved") and logged."""

    async def failing() -> Answer:
        raise StoreError("the store went away")

    async def leave() -> asyncio.Task[Answer]:
        task = asyncio.ensure_future(failing())
        task.add_done_callback(_settled)
        await asyncio.sleep(0.01)
        return task

    with caplog.at_level(logging.INFO, logger="citegate.service"):
        task = asyncio.run(leave())
    assert task.done() and isinstance(task.exception(), StoreError)
    assert "a streamed answer ended with StoreError: the store went away" in caplog.text

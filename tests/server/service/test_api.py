"""The HTTP surface: roles, ask, snippets, traces, admin, errors, OpenAI-compatible endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient

from citegate.commands.serve_cmd import build_ingestor
from server.core.settings import Settings, load_settings
from server.service.app import create_app
from tests.engine import offline_engine

KEYS = {
    "adm": {"role": "admin"},
    "usr": {"role": "user", "scope": ["public"]},
    "evl": {"role": "evaluator"},
    "nobody": {"role": "user", "scope": ["secret"]},
}
QUESTION = "What does the gate do with a fabricated citation?"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings: Settings = load_settings(
        data_dir=tmp_path / "data", api_keys=KEYS, retrieval={"min_rerank_score": 0.05}
    )
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    with TestClient(app) as c:
        yield c


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_keys_and_roles(client: TestClient) -> None:
    assert client.post("/v1/ask", json={"question": QUESTION}).status_code == 401
    assert (
        client.post("/v1/ask", json={"question": QUESTION}, headers=auth("wrong")).status_code
        == 401
    )
    denied = client.get("/v1/documents", headers=auth("usr"))
    assert denied.status_code == 403 and "admin" in denied.json()["message"]
    assert client.get("/v1/traces/x", headers=auth("usr")).status_code == 403
    assert client.get("/v1/documents", headers=auth("adm")).status_code == 200


def test_ask_returns_the_answer_contract_and_a_trace(client: TestClient) -> None:
    r = client.post("/v1/ask", json={"question": QUESTION}, headers=auth("usr"))
    assert r.status_code == 200, r.text
    body = r.json()
    assert {
        "answer",
        "claims",
        "citations",
        "fallback",
        "gate",
        "repairs",
        "missing_evidence",
        "trace_id",
        "index_hash",
        "timings",
    } <= set(body)
    assert body["citations"] and body["gate"]["verdict"] in {"PASS", "WARN"}
    cite = body["citations"][0]
    snip = client.get(f"/v1/snippets/{cite['snippet_id']}", headers=auth("usr")).json()
    assert snip["text"] == cite["text"]
    window = snip["section_text"]
    lo = cite["span"]["start"] - snip["section_start"]
    assert window[lo : lo + len(cite["quote"])] == cite["quote"]
    trace = client.get(f"/v1/traces/{body['trace_id']}", headers=auth("evl")).json()
    assert trace["answer"]["citations"] == body["citations"]
    assert trace["rows"][0]["qid"] == body["trace_id"]


def test_scope_hides_everything_outside_it(client: TestClient) -> None:
    body = client.post("/v1/ask", json={"question": QUESTION}, headers=auth("nobody")).json()
    assert body["fallback"] is True and body["citations"] == []
    cite = client.post("/v1/ask", json={"question": QUESTION}, headers=auth("usr")).json()[
        "citations"
    ][0]
    assert (
        client.get(f"/v1/snippets/{cite['snippet_id']}", headers=auth("nobody")).status_code == 404
    )


def test_bad_input_gets_clear_4xx(client: TestClient) -> None:
    empty = client.post("/v1/ask", json={"question": "   "}, headers=auth("usr"))
    assert empty.status_code == 422 and "empty" in empty.json()["message"]
    malformed = client.post(
        "/v1/ask", content=b"{not json", headers={**auth("usr"), "Content-Type": "application/json"}
    )
    assert malformed.status_code == 422 and malformed.json()["error"] == "bad_input"
    huge = client.post("/v1/ask", content=b"x" * 30_000_000, headers=auth("usr"))
    assert huge.status_code == 413

    def chunked() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"question": "'
        for _ in range(30):
            yield b"x" * 1_000_000
        yield b'"}'

    streamed = client.post(
        "/v1/ask",
        content=chunked(),
        headers={**auth("usr"), "Content-Type": "application/json"},
    )
    assert streamed.status_code == 413 and "max_body_bytes" in streamed.json()["message"]
    small = client.post(
        "/v1/ask",
        content=iter([b'{"question": "', QUESTION.encode(), b'"}']),
        headers={**auth("usr"), "Content-Type": "application/json"},
    )
    assert small.status_code == 200, small.text
    assert client.get("/v1/snippets/nope", headers=auth("usr")).status_code == 404


def test_admin_ingest_and_delete(client: TestClient) -> None:
    files = {
        "files": (
            "faq.md",
            b"# FAQ\n\nThe support desk answers within two business days.\n",
            "text/markdown",
        )
    }
    r = client.post("/v1/ingest", files=files, data={"tags": "public"}, headers=auth("adm"))
    assert r.status_code == 200 and r.json()[0]["documents"]["new"] == 1
    docs = {d["doc_id"] for d in client.get("/v1/documents", headers=auth("adm")).json()}
    assert "faq.md" in docs
    assert client.delete("/v1/documents/faq.md", headers=auth("adm")).json()["chunks_removed"] >= 1
    assert client.delete("/v1/documents/faq.md", headers=auth("adm")).status_code == 404


def test_openai_client_non_streaming_and_streaming(client: TestClient) -> None:
    oa = openai.OpenAI(base_url="http://testserver/v1", api_key="usr", http_client=client)
    reply = oa.chat.completions.create(
        model="citegate", messages=[{"role": "user", "content": QUESTION}]
    )
    extra = reply.model_extra or {}
    assert reply.choices[0].message.content and "[1]" in reply.choices[0].message.content
    assert extra["citations"] and extra["gate"]["verdict"] in {"PASS", "WARN"}
    stream = oa.chat.completions.create(
        model="citegate", stream=True, messages=[{"role": "user", "content": QUESTION}]
    )
    chunks = list(stream)
    extras = [c.model_extra or {} for c in chunks]
    cited = next(e for e in extras if "citations" in e)  # after the progress chunks, cite first
    assert cited["citations"] and "gate" in cited
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "[1]" in text


def test_health_ready_metrics(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json()["status"] == "ready"
    client.post("/v1/ask", json={"question": QUESTION}, headers=auth("usr"))
    metrics = client.get("/metrics").text
    assert "citegate_gate_verdicts_total" in metrics and "citegate_stage_seconds_bucket" in metrics
    assert "<title>citegate</title>" in client.get("/").text
    json.loads(client.get("/openapi.json").text)


def test_without_keys_only_loopback_callers_are_served(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data", retrieval={"min_rerank_score": 0.05})
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    with TestClient(app, client=("10.1.2.3", 5000)) as remote:
        denied = remote.get("/healthz")
        assert denied.status_code == 403 and "loopback" in denied.json()["message"]
    with TestClient(app, client=("127.0.0.1", 5000)) as local:
        assert local.get("/v1/documents").status_code == 200  # loopback caller acts as admin


def test_bad_uploads_are_listed_and_the_good_ones_go_in(client: TestClient) -> None:
    good = b"# Guide\n\nThe queue retries a failed job three times.\n"
    files = [
        ("files", ("a" * 300 + ".md", good, "text/markdown")),  # was a 500 (name too long)
        ("files", ("broken.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ntrailer", "x/pdf")),
        ("files", ("evil.exe", b"MZ\x90\x00", "application/octet-stream")),
        ("files", ("noext", good, "text/plain")),
        ("files", (".md", good, "text/markdown")),
        ("files", ("good.md", good.replace(b"three", b"four"), "text/markdown")),
    ]
    r = client.post("/v1/ingest", files=files, headers=auth("adm"))
    assert r.status_code == 200, r.text
    reports = r.json()
    assert len(reports) == 6
    assert [rep["documents"]["new"] for rep in reports] == [1, 0, 0, 0, 0, 1]
    assert [rep["documents"]["failed"] for rep in reports] == [0, 1, 1, 1, 1, 0]
    reasons = [rep["failures"][0]["reason"] for rep in reports[1:5]]
    assert "unsupported file type '.exe'" in reasons[1]
    assert all("/tmp" not in reason for reason in reasons)  # no server paths in reasons
    docs = {d["doc_id"] for d in client.get("/v1/documents", headers=auth("adm")).json()}
    assert {"a" * 300 + ".md", "good.md"} <= docs


def test_two_uploads_at_the_same_moment_both_finish(client: TestClient) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def upload(i: int) -> int:
        body = f"# Page {i}\n\nPage {i} says the limit is {i} requests.\n".encode()
        files = {"files": (f"page{i}.md", body, "text/markdown")}
        return client.post("/v1/ingest", files=files, headers=auth("adm")).status_code

    with ThreadPoolExecutor(max_workers=2) as pool:
        codes = list(pool.map(upload, [1, 2]))
    assert codes == [200, 200]
    assert client.get("/healthz").status_code == 200


def test_framework_errors_use_the_envelope_and_no_input_gets_a_5xx(client: TestClient) -> None:
    json_h = {**auth("usr"), "Content-Type": "application/json"}
    bad_utf8 = client.post("/v1/ask", content=b'{"question": "\xff\xfe"}', headers=json_h)
    deep = client.post("/v1/ask", content=b"[" * 100_000 + b"]" * 100_000, headers=json_h)
    no_boundary = client.post(
        "/v1/ingest",
        content=b"--x\r\n",
        headers={**auth("adm"), "Content-Type": "multipart/form-data"},
    )
    unknown = client.get("/v1/nowhere", headers=auth("usr"))
    wrong_method = client.put("/v1/ask", headers=auth("usr"))
    for r in (bad_utf8, deep, no_boundary, unknown, wrong_method):
        assert 400 <= r.status_code < 500, r.text
        assert set(r.json()) == {"error", "message"}, r.text
    assert unknown.status_code == 404 and wrong_method.status_code == 405


def test_an_unauthorized_caller_gets_401_or_403_before_the_body_is_validated(
    client: TestClient,
) -> None:
    empty = client.post("/v1/ingest", headers=auth("usr"))  # was a 422 about `files`
    assert empty.status_code == 403 and empty.json()["error"] == "forbidden"
    junk = client.post(
        "/v1/ask", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert junk.status_code == 401


def test_metrics_are_labelled_by_route_template(client: TestClient) -> None:
    for sid in ("a", "b", "c"):
        client.get(f"/v1/snippets/{sid}", headers=auth("usr"))
    client.get("/no/such/path/1")
    metrics = client.get("/metrics").text
    assert 'route="/v1/snippets/{snippet_id}",status="404"' in metrics
    assert 'route="unmatched"' in metrics and "/v1/snippets/a" not in metrics


def test_models_usage_and_the_usage_chunk(client: TestClient) -> None:
    models = client.get("/v1/models", headers=auth("usr")).json()
    assert [m["id"] for m in models["data"]] == ["citegate"] and models["object"] == "list"
    oa = openai.OpenAI(base_url="http://testserver/v1", api_key="usr", http_client=client)
    assert [m.id for m in oa.models.list()] == ["citegate"]
    reply = oa.chat.completions.create(
        model="citegate", messages=[{"role": "user", "content": QUESTION}]
    )
    assert reply.usage is not None and reply.usage.prompt_tokens > 0
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens
    chunks = list(
        oa.chat.completions.create(
            model="citegate",
            stream=True,
            stream_options={"include_usage": True},
            messages=[{"role": "user", "content": QUESTION}],
        )
    )
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.prompt_tokens == reply.usage.prompt_tokens


def test_llm_down_answers_extractively_and_readyz_says_degraded(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        api_keys=KEYS,
        retrieval={"min_rerank_score": 0.05},
        generator="llm",
        llm_base_url="http://127.0.0.1:9/v1",  # nothing listens on the discard port
        llm_model="m",
        service={"llm_max_retries": 0, "llm_timeout_s": 2},
    )
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    with TestClient(app) as c:
        r = c.post("/v1/ask", json={"question": QUESTION}, headers=auth("usr"))
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["generator"] == "extractive" and body["citations"]
        assert any("LLM endpoint unreachable" in rep["reason"] for rep in body["repairs"])
        chat = c.post(
            "/v1/chat/completions",
            json={"messages": [{"role": "user", "content": QUESTION}]},
            headers=auth("usr"),
        )
        assert chat.status_code == 200, chat.text
        ready = c.get("/readyz").json()
        assert ready["status"] == "ready" and ready["llm"] == "degraded"


def test_llm_down_is_named_in_the_gate_codes(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        api_keys=KEYS,
        retrieval={"min_rerank_score": 0.05},
        generator="llm",
        llm_base_url="http://127.0.0.1:9/v1",
        llm_model="m",
        service={"llm_max_retries": 0, "llm_timeout_s": 2},
    )
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    with TestClient(app) as c:
        body = c.post("/v1/ask", json={"question": QUESTION}, headers=auth("usr")).json()
        assert "llm_unavailable" in {f["code"] for f in body["gate"]["codes"]}


def test_the_question_limit_is_the_settings_one(client: TestClient) -> None:
    limit = load_settings().service.max_question_chars
    r = client.post("/v1/ask", json={"question": "x" * (limit + 1)}, headers=auth("usr"))
    assert r.status_code == 422 and "service.max_question_chars" in r.json()["message"]


def test_the_app_runs_at_most_service_worker_threads_at_once(tmp_path: Path) -> None:
    import anyio.to_thread

    settings = load_settings(data_dir=tmp_path, service={"worker_threads": 3})
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    with TestClient(app) as client:
        assert client.portal is not None

        def tokens() -> float:
            return anyio.to_thread.current_default_thread_limiter().total_tokens

        assert client.portal.call(tokens) == 3

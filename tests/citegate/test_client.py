"""`citegate ingest` and `citegate ask` while `citegate serve` owns the embedded index: they
find the server (the address it records beside the index lock, or CITEGATE_SERVER_URL) and
send their work to it, printing what a local run prints.

The server is a real uvicorn on a free loopback port, over a real embedded index (Qdrant Edge
with its owner lock) filled by the offline models (hash embedder) with the sample corpus.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn
from typer.testing import CliRunner

from citegate.cli import app as cli
from citegate.commands import client as client_mod
from citegate.commands.serve_cmd import build_app, client_url
from ingest.pipeline import ingest_paths
from server.core.contracts import DocCounts, Failure, IngestReport
from server.core.settings import Settings, load_settings
from server.index.sparse import Bm25Encoder
from server.index.store.lock import (
    OwnerLock,
    edge_lock_path,
    forget_server,
    lock_held,
    record_server,
    recorded_server,
    server_record_path,
)
from server.query.answer import Engine
from server.query.engine import assemble, open_index
from tests.engine import SAMPLES
from tests.fakes import HashEmbedder

KEYS: dict[str, dict[str, object]] = {"adm": {"role": "admin"}, "usr": {"role": "user"}}
QUESTION = "What does the gate do with a fabricated citation?"
FAQ = b"# Support\n\nThe support desk answers every ticket within two business days.\n"
LIMITS = b"# Limits\n\nThe public API allows ninety requests per minute for each key.\n"


def edge_engine(settings: Settings) -> Engine:
    """The production store (an embedded index with its owner lock), offline models."""
    embedder, sparse = HashEmbedder(dim=256), Bm25Encoder(settings.models)
    store = open_index(settings, embedder, sparse)
    ingest_paths([SAMPLES], settings=settings, embedder=embedder, sparse=sparse, store=store)
    return assemble(settings, embedder, sparse, store)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    url: str
    settings: Settings
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def _serve(data_dir: Path, keys: dict[str, dict[str, object]] | None = None) -> Served:
    settings = load_settings(
        data_dir=data_dir, api_keys=keys or {}, retrieval={"min_rerank_score": 0.05}
    )
    port = _free_port()
    url = client_url("127.0.0.1", port)
    app = build_app(settings, build_engine=edge_engine, url=url)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start within 120 s")
        time.sleep(0.05)
    return Served(url, settings, server, thread)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CLI's data folder (the server's too); no server URL or key from the outside."""
    data = tmp_path / "data"
    monkeypatch.setenv("CITEGATE_DATA_DIR", str(data))
    monkeypatch.delenv(client_mod.URL_ENV, raising=False)
    monkeypatch.delenv(client_mod.KEY_ENV, raising=False)
    monkeypatch.delenv("CITEGATE_QDRANT_URL", raising=False)
    return data


@pytest.fixture
def served(env: Path) -> Iterator[Served]:
    running = _serve(env)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "support.md").write_bytes(FAQ)
    (folder / "sub" / "limits.md").write_bytes(LIMITS)
    (folder / "sub" / "support.md").write_bytes(FAQ.replace(b"two", b"three"))  # same file name
    return folder


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout


def test_serve_records_its_address_beside_the_lock_and_removes_it_on_shutdown(
    env: Path,
) -> None:
    running = _serve(env)
    lock = edge_lock_path(running.settings)
    record = server_record_path(lock)
    try:
        assert lock_held(lock)
        assert json.loads(record.read_text())["url"] == running.url
        assert recorded_server(lock) == running.url
    finally:
        running.stop()
    assert not record.exists() and not lock_held(lock)
    assert recorded_server(lock) is None


def test_ingest_uploads_through_the_server_found_beside_the_lock(
    served: Served, corpus: Path
) -> None:
    code, out = _run("ingest", str(corpus), "--tags", "public,faq", "--json")
    assert code == 0, out
    report = IngestReport.model_validate(json.loads(out))
    assert report.documents == DocCounts(new=3)  # two support.md, each under its own path
    assert report.chunks_written >= 3 and not report.failures
    ready = httpx.get(f"{served.url}/readyz").json()
    assert report.index_hash == ready["index_hash"]
    docs = httpx.get(f"{served.url}/v1/documents").json()
    assert {d["doc_id"] for d in docs} >= {"support.md", "sub/support.md", "sub/limits.md"}
    faq = next(d for d in docs if d["doc_id"] == "support.md")
    assert faq["tags"] == ["public", "faq"]
    code, out = _run("ingest", str(corpus / "support.md"), str(corpus / "sub" / "limits.md"))
    assert code == 0, out
    assert "index_hash" in out and "new" in out  # the same table a local run prints
    code, out = _run("ingest", str(corpus / "support.md"), "--json")
    assert json.loads(out)["documents"]["unchanged"] == 1


def test_ask_goes_to_the_server_and_prints_the_same_answer(served: Served) -> None:
    code, out = _run("ask", QUESTION, "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["citations"] and answer["gate"]["verdict"] in {"PASS", "WARN"}
    trace = httpx.get(f"{served.url}/v1/traces/{answer['trace_id']}").json()
    assert trace["answer"]["trace_id"] == answer["trace_id"]  # the server recorded it
    code, out = _run("ask", QUESTION, "--mode", "strict")
    assert code == 0, out
    assert "gate:" in out and "(strict)" in out and "[1]" in out
    code, out = _run("ask", QUESTION, "--scope", "public", "--json")
    assert code == 2 and "--scope" in json.loads(out)["message"]


def test_local_only_options_are_refused_not_dropped(served: Served, corpus: Path) -> None:
    code, out = _run("ingest", str(corpus), "--prune", "--json")
    assert code == 2
    assert "--prune" in json.loads(out)["message"]


def test_server_url_and_key_from_the_environment(
    env: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = _serve(env, keys=KEYS)
    try:
        forget_server(edge_lock_path(running.settings))  # found through the variable only
        monkeypatch.setenv(client_mod.URL_ENV, running.url + "/")
        code, out = _run("ask", QUESTION, "--json")
        assert code == 2
        error = json.loads(out)
        assert error["error"] == "unauthorized" and client_mod.KEY_ENV in error["message"]
        monkeypatch.setenv(client_mod.KEY_ENV, "usr")
        code, out = _run("ingest", str(corpus), "--json")
        assert code == 2 and json.loads(out)["error"] == "forbidden"
        code, out = _run("ask", QUESTION, "--json")
        assert code == 0 and json.loads(out)["citations"]
        monkeypatch.setenv(client_mod.KEY_ENV, "adm")
        code, out = _run("ingest", str(corpus / "sub" / "limits.md"), "--json")
        assert code == 0 and json.loads(out)["documents"]["new"] == 1
    finally:
        running.stop()


def test_an_unreachable_server_says_how_to_work_locally(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(client_mod.URL_ENV, f"http://127.0.0.1:{_free_port()}")
    code, out = _run("ask", QUESTION, "--json")
    assert code == 2
    error = json.loads(out)
    assert error["error"] == "server_unreachable" and client_mod.URL_ENV in error["message"]


def test_a_record_is_trusted_only_while_its_process_holds_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "qdrant-edge" / "citegate.lock"
    record_server(lock, "http://127.0.0.1:9")
    assert recorded_server(lock) is None  # nobody holds the lock: a killed server's record
    owner = OwnerLock(lock)
    owner.acquire()
    assert recorded_server(lock) == "http://127.0.0.1:9"
    server_record_path(lock).write_text(json.dumps({"url": "http://x", "pid": 999_999}))
    assert recorded_server(lock) is None  # its process is gone
    record_server(lock, "http://127.0.0.1:9")
    owner.release()  # the owner's release takes its record with it
    assert not server_record_path(lock).exists()
    server_record_path(lock).write_text("not json")
    assert recorded_server(lock) is None


def test_reports_are_summed_into_one() -> None:
    a = IngestReport(documents=DocCounts(new=1), chunks_written=3, seconds=0.5, index_hash="h1")
    b = IngestReport(
        documents=DocCounts(changed=1, failed=1),
        chunks_written=2,
        seconds=0.7,
        index_hash="h2",
        failures=(Failure(path="x.pdf", reason="broken"),),
    )
    summed = client_mod.total([a, b], seconds=1.23456, index_hash="h2")
    assert summed.documents == DocCounts(new=1, changed=1, failed=1)
    assert (summed.chunks_written, summed.seconds, summed.index_hash) == (5, 1.235, "h2")
    assert summed.failures == b.failures


def test_batches_are_bounded_by_count_and_bytes(tmp_path: Path) -> None:
    files = []
    for i in range(5):
        path = tmp_path / f"f{i}.md"
        path.write_bytes(b"x" * 100)
        files.append((path.name, path))
    assert [len(b) for b in client_mod.batches(files, 250, max_files=10)] == [2, 2, 1]
    assert [len(b) for b in client_mod.batches(files, 10_000, max_files=2)] == [2, 2, 1]


def test_client_url_reaches_a_wildcard_bind_through_loopback() -> None:
    assert client_url("0.0.0.0", 8000) == "http://127.0.0.1:8000"
    assert client_url("::", 8001) == "http://[::1]:8001"
    assert client_url("10.0.0.5", 80) == "http://10.0.0.5:80"

"""The CLI as a client of a running `citegate serve`.

The embedded index has one owner. While `citegate serve` holds it, `citegate ingest` and
`citegate ask` send their work to that server instead of opening the index: the server is
found through `CITEGATE_SERVER_URL` (with `CITEGATE_API_KEY`), else through the address the
server recorded beside the index lock. Output is the same as when working locally.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from server.core.contracts import Answer, DocCounts, Failure, IngestReport
from server.core.errors import CitegateError, InputError
from server.core.settings import Settings
from server.index.store.lock import edge_lock_path, recorded_server

URL_ENV = "CITEGATE_SERVER_URL"
KEY_ENV = "CITEGATE_API_KEY"
BATCH_FILES = 32  # files per POST /v1/ingest: a progress step, and a bounded request
TIMEOUT_S = 600.0  # an upload batch embeds its chunks before it answers


class ServerError(CitegateError):
    """The server answered with an error envelope, or could not be reached."""

    def __init__(self, message: str, *, code: str = "server_error", status: int = 502) -> None:
        super().__init__(message)
        self.code = code
        self.http_status = status


@dataclass(frozen=True)
class Server:
    """A running server: its base URL, the API key to send, and how it was found."""

    url: str
    api_key: str | None
    found_by: str


def find_server(settings: Settings) -> Server | None:
    """`CITEGATE_SERVER_URL`, else the live `citegate serve` that owns the embedded index."""
    key = os.environ.get(KEY_ENV) or None
    url = os.environ.get(URL_ENV, "").strip()
    if url:
        return Server(url.rstrip("/"), key, URL_ENV)
    if settings.qdrant_url:  # a Qdrant server has no single owner: work locally
        return None
    lock = edge_lock_path(settings)
    recorded = recorded_server(lock)
    return (
        Server(recorded.rstrip("/"), key, f"the address recorded beside {lock}")
        if recorded
        else None
    )


class Client:
    """The few API calls the CLI makes, errors turned into `CitegateError`s."""

    def __init__(self, server: Server, *, transport: httpx.BaseTransport | None = None) -> None:
        self.server = server
        headers = {"Authorization": f"Bearer {server.api_key}"} if server.api_key else {}
        self._http = httpx.Client(
            base_url=server.url, headers=headers, timeout=TIMEOUT_S, transport=transport
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self._http.close()

    def _send(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ServerError(
                f"cannot reach the citegate server at {self.server.url} (found through "
                f"{self.server.found_by}): {exc}; start `citegate serve`, or unset "
                f"{URL_ENV} to work on the local index",
                code="server_unreachable",
                status=503,
            ) from exc
        if response.status_code >= 400:
            raise self._error(response)
        return response.json()

    def _error(self, response: httpx.Response) -> ServerError:
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        code = str(body.get("error") or "server_error")
        message = str(body.get("message") or response.text[:300] or response.reason_phrase)
        if response.status_code == 401:
            message += f" (set {KEY_ENV} to a key of this server)"
        return ServerError(
            f"the citegate server at {self.server.url} answered {response.status_code}: {message}",
            code=code,
            status=response.status_code,
        )

    def ask(self, question: str, *, mode: str | None, seed: int) -> Answer:
        body: dict[str, object] = {"question": question, "seed": seed}
        if mode is not None:
            body["mode"] = mode
        return Answer.model_validate(self._send("POST", "/v1/ask", json=body))

    def upload(
        self, files: Sequence[tuple[str, bytes]], *, tags: str, rev: str | None
    ) -> list[IngestReport]:
        form = {"tags": tags, **({"rev": rev} if rev is not None else {})}
        parts = [("files", (name, data, "application/octet-stream")) for name, data in files]
        reports = self._send("POST", "/v1/ingest", files=parts, data=form)
        return [IngestReport.model_validate(r) for r in reports]

    def index_hash(self) -> str:
        return str(self._send("GET", "/readyz").get("index_hash") or "")


def batches(
    files: Sequence[tuple[str, Path]], max_bytes: int, max_files: int = BATCH_FILES
) -> list[list[tuple[str, Path]]]:
    """Consecutive groups of at most `max_files` files and about `max_bytes` of content."""
    out: list[list[tuple[str, Path]]] = []
    current: list[tuple[str, Path]] = []
    size = 0
    for name, path in files:
        length = path.stat().st_size
        if current and (len(current) >= max_files or size + length > max_bytes):
            out.append(current)
            current, size = [], 0
        current.append((name, path))
        size += length
    if current:
        out.append(current)
    return out


def total(reports: Sequence[IngestReport], *, seconds: float, index_hash: str) -> IngestReport:
    """The per-file reports summed into the one report a local run prints; `index_hash` is
    the index after the last of them."""
    fields = ("new", "changed", "unchanged", "failed", "deleted")
    return IngestReport(
        documents=DocCounts(**{f: sum(getattr(r.documents, f) for r in reports) for f in fields}),
        chunks_written=sum(r.chunks_written for r in reports),
        seconds=round(seconds, 3),
        index_hash=index_hash,
        failures=tuple(f for r in reports for f in r.failures),
    )


def ingest_remote(
    client: Client,
    found: Sequence[tuple[Path, Path]],
    *,
    settings: Settings,
    tags: str,
    rev: str | None,
    progress: Callable[[str, str], None] | None = None,
) -> IngestReport:
    """Upload (file, root) pairs to `POST /v1/ingest` in batches; one summed report.

    Each file goes under its path relative to its root, which the server keeps as the
    document path (`ingest.pipeline.upload_path`), so `doc_id`s are those a local ingest of
    the same folder gives; a file over the request limit is listed as a failure, never sent
    to be refused with a 413.
    """
    started = time.perf_counter()
    limit = int(settings.service.max_body_bytes * 0.9)  # room for the multipart framing
    local: list[Failure] = []
    sendable: list[tuple[str, Path]] = []
    for path, root in found:
        name = path.relative_to(root).as_posix() if path != root else path.name
        if path.stat().st_size > limit:
            local.append(
                Failure(
                    path=name,
                    reason=f"{path.stat().st_size} bytes is over what one request may carry "
                    f"(service.max_body_bytes {settings.service.max_body_bytes}): split the "
                    "file, or ingest it locally with the server stopped",
                )
            )
            continue
        sendable.append((name, path))
    reports: list[IngestReport] = []
    if local:
        reports.append(
            IngestReport(
                documents=DocCounts(failed=len(local)),
                chunks_written=0,
                seconds=0.0,
                index_hash="",
                failures=tuple(local),
            )
        )
    for batch in batches(sendable, limit):
        payload = [(name, path.read_bytes()) for name, path in batch]
        reports.extend(client.upload(payload, tags=tags, rev=rev))
        for name, _ in batch:
            if progress is not None:
                progress("done", name)
    sent = [r for r in reports if r.index_hash]
    index_hash = sent[-1].index_hash if sent else client.index_hash()
    return total(reports, seconds=time.perf_counter() - started, index_hash=index_hash)


def refuse_local_only(**options: object) -> None:
    """Options a server cannot honour are an error, never silently dropped."""
    named = [name for name, value in options.items() if value]
    if named:
        flags = ", ".join(f"--{n.replace('_', '-')}" for n in named)
        raise InputError(
            f"{flags} cannot be sent to a running server: stop `citegate serve` and run this "
            f"locally, or leave {flags} out"
        )

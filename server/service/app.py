"""The FastAPI app: a factory whose lifespan builds the engine once (models, store).

`create_app` takes the engine builder and the admin functions from the composition root
(`citegate serve`), so `server` never imports `ingest` or `citegate`. Errors from
`server.core.errors` are mapped to HTTP here and only here.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.middleware.base import RequestResponseEndpoint
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.core.errors import CitegateError, InputError, TooLargeError
from server.core.ports import Ingestor
from server.core.settings import Settings
from server.query.answer import Engine
from server.query.audit import TraceStore
from server.service.auth import load_keys


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        self.requests = Counter(
            "citegate_requests_total", "HTTP requests", ["route", "status"], registry=self.registry
        )
        self.stage = Histogram(
            "citegate_stage_seconds", "time per query stage", ["stage"], registry=self.registry
        )
        self.verdicts = Counter(
            "citegate_gate_verdicts_total", "gate verdicts", ["verdict"], registry=self.registry
        )


@dataclass
class AppState:
    settings: Settings
    build_engine: Callable[[Settings], Engine]
    build_ingestor: Callable[[Engine], Ingestor]
    engine: Engine | None = None
    ingestor: Ingestor | None = None
    error: str | None = None
    metrics: Metrics = field(default_factory=Metrics)
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    keys: dict[str, object] = field(default_factory=dict)

    _traces: TraceStore | None = None

    @property
    def traces(self) -> TraceStore:
        """Opened on first use (creates the tables once), then reused for every request."""
        if self._traces is None:
            self._traces = TraceStore(self.settings.data_dir / self.settings.service.traces_db)
        return self._traces


_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


class StreamedBodyLimit:
    """413 for a body sent without Content-Length (chunked) once it passes `max_bytes`.

    A declared Content-Length is checked before the body is read (`_limits`). A chunked body
    can only be counted while it arrives: it is read here, at most `max_bytes` of it kept,
    and either refused with 413 naming the limit or replayed to the app unchanged.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or any(k == b"content-length" for k, _ in scope["headers"]):
            await self.app(scope, receive, send)
            return
        parts: list[bytes] = []
        seen, more = 0, True
        first: Message | None = None
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: pass that on
                first = message
                break
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                error = TooLargeError(
                    f"streamed body passed the {self.max_bytes}-byte limit "
                    "(service.max_body_bytes); send a smaller body"
                )
                await _error_response(error)(scope, receive, send)
                return
            parts.append(chunk)
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return first or {"type": "http.request", "body": b"".join(parts), "more_body": False}

        await self.app(scope, replay, send)


def _error_response(exc: CitegateError) -> JSONResponse:
    return JSONResponse(
        status_code=exc.http_status, content={"error": exc.code, "message": str(exc)}
    )


def create_app(
    settings: Settings,
    *,
    build_engine: Callable[[Settings], Engine],
    build_ingestor: Callable[[Engine], Ingestor],
) -> FastAPI:
    """The app; models and store are loaded in the lifespan, once.

    Both builders come from the composition root: `server` never imports `ingest`.
    """
    state = AppState(
        settings=settings,
        build_engine=build_engine,
        build_ingestor=build_ingestor,
        keys=dict(load_keys(settings)),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            state.engine = build_engine(settings)
            state.ingestor = build_ingestor(state.engine)
        except CitegateError as exc:  # serve anyway: /readyz says what is missing
            state.error = f"{exc.code}: {exc}"
        yield
        if state.engine is not None:
            state.engine.store.close()

    app = FastAPI(
        title="citegate",
        version="0.1.0",
        lifespan=lifespan,
        description="RAG answers whose every citation is verified before you see it.",
    )
    app.state.citegate = state

    @app.exception_handler(CitegateError)
    async def _citegate_error(_: Request, exc: CitegateError) -> JSONResponse:
        return _error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return _error_response(
            InputError(f"invalid request at {where}: {first.get('msg', 'malformed body')}")
        )

    @app.middleware("http")
    async def _limits(request: Request, call_next: RequestResponseEndpoint) -> Response:
        size = request.headers.get("content-length")
        if size and size.isdigit() and int(size) > settings.service.max_body_bytes:
            return JSONResponse(
                status_code=413,
                content={
                    "error": "too_large",
                    "message": f"body of {size} bytes is over the "
                    f"{settings.service.max_body_bytes}-byte limit (service.max_body_bytes)",
                },
            )
        host = request.client.host if request.client else ""
        if not state.keys and host not in _LOOPBACK:
            return JSONResponse(
                status_code=403,
                content={
                    "error": "forbidden",
                    "message": "this server has no API keys configured, so it only "
                    "serves loopback callers; configure CITEGATE_API_KEYS to serve others",
                },
            )
        response = await call_next(request)
        state.metrics.requests.labels(
            request.url.path.split("/")[2]
            if request.url.path.startswith("/v1/")
            else request.url.path,
            str(response.status_code),
        ).inc()
        return response

    app.add_middleware(StreamedBodyLimit, max_bytes=settings.service.max_body_bytes)
    from server.service import routes

    routes.install(app, state, web_dir=Path(__file__).parent / "web")
    return app

"""The FastAPI app: a factory whose lifespan builds the engine once (models, store).

`create_app` takes the engine builder and the admin functions from the composition root
(`citegate serve`), so `server` never imports `ingest` or `citegate`. Errors from
`server.core.errors` are mapped to HTTP here and only here.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.base import RequestResponseEndpoint
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.core.errors import CitegateError, InputError, TooLargeError
from server.core.ports import Ingestor
from server.core.settings import Settings
from server.query.answer import Engine
from server.service import routes
from server.service.auth import load_keys
from server.service.state import AppState, Metrics

__all__ = ["AppState", "Metrics", "StreamedBodyLimit", "create_app"]
log = logging.getLogger("citegate.service")
# Error codes of the envelope for HTTP errors raised by Starlette/FastAPI themselves.
_HTTP_CODES = {
    400: "bad_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    422: "bad_input",
}


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
    return _envelope(exc.http_status, exc.code, str(exc))


def _envelope(status: int, code: str, message: str) -> JSONResponse:
    """Every error the service answers: `{"error": code, "message": what to do}`."""
    return JSONResponse(status_code=status, content={"error": code, "message": message})


def _http_message(exc: StarletteHTTPException) -> str:
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 400:
        return f"{detail}: send well-formed JSON, or multipart/form-data with its boundary"
    if exc.status_code == 404:
        return f"{detail}: no such route; the routes are listed at /docs"
    return detail


async def _citegate_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, CitegateError)
    return _error_response(exc)


async def _http_error(_: Request, exc: Exception) -> Response:
    """Starlette's and FastAPI's own HTTPExceptions (unknown route, unparseable body, ...)."""
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    response = _envelope(exc.status_code, code, _http_message(exc))
    response.headers.update(exc.headers or {})
    return response


async def _validation(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return _error_response(
        InputError(f"invalid request at {where}: {first.get('msg', 'malformed body')}")
    )


async def _unexpected(_: Request, exc: Exception) -> Response:
    log.exception("unhandled error", exc_info=exc)
    return _envelope(500, "internal_error", "internal error; the server log has the details")


def _install_error_handlers(app: FastAPI) -> None:
    """Every error, ours or the framework's, answers with the `{"error", "message"}` envelope."""
    app.add_exception_handler(CitegateError, _citegate_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(Exception, _unexpected)


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
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = settings.service.worker_threads
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

    _install_error_handlers(app)

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
        route = request.scope.get("route")
        template = getattr(route, "path", None) if route is not None else None
        state.metrics.requests.labels(template or "unmatched", str(response.status_code)).inc()
        return response

    app.add_middleware(StreamedBodyLimit, max_bytes=settings.service.max_body_bytes)
    routes.install(app)
    return app

"""`citegate serve`: the HTTP API, the web page and the OpenAI-compatible endpoint."""

from __future__ import annotations

import ctypes
import ipaddress
import sys
from collections.abc import Callable
from typing import Annotated

import typer
from fastapi import FastAPI

from citegate.render import fail
from server.core.errors import ConfigError
from server.core.ports import Ingestor
from server.core.settings import Settings, load_settings
from server.index.store.lock import edge_lock_path, forget_server, record_server
from server.query.answer import Engine


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_ingestor(engine: Engine) -> Ingestor:
    """The pipeline over the engine's store and models: how the service reaches `ingest`."""
    from ingest.pipeline import StoreIngestor
    from server.query.engine import embed_mask

    mask = embed_mask(engine.settings, engine.judge)
    return StoreIngestor(engine.settings, engine.embedder, engine.sparse, engine.store, mask)


def client_url(host: str, port: int) -> str:
    """The URL a client on this machine uses for a server bound to `host`:`port`."""
    if host in {"", "0.0.0.0"}:  # every IPv4 address: loopback is one of them
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    return f"http://{host}:{port}"


def advertised(
    build_engine: Callable[[Settings], Engine], url: str
) -> Callable[[Settings], Engine]:
    """`build_engine`, then record `url` beside the embedded index's lock, so `citegate ingest`
    and `citegate ask` send their work here instead of being refused. The record goes when the
    lock is released (the store closes at shutdown) and `serve` removes it on the way out."""

    def build(settings: Settings) -> Engine:
        engine = build_engine(settings)
        if not settings.qdrant_url:  # the embedded index: one owner, and it is this process
            record_server(edge_lock_path(settings), url)
        return engine

    return build


def build_app(
    settings: Settings,
    *,
    build_engine: Callable[[Settings], Engine] | None = None,
    url: str | None = None,
) -> FastAPI:
    """The app wired with the real engine (or `build_engine`) and the admin functions; with
    `url`, the address is recorded beside the index lock once the index is open."""
    from server.query.engine import build_engine as real_engine
    from server.service.app import create_app

    builder = build_engine or real_engine
    if url is not None:
        builder = advertised(builder, url)
    return create_app(settings, build_engine=builder, build_ingestor=build_ingestor)


M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def cap_malloc_arenas(arenas: int) -> bool:
    """Cap glibc's malloc arenas (`service.malloc_arenas`; 0 leaves the default) before the
    server's threads start; True when it took effect. Elsewhere than glibc: nothing."""
    if arenas <= 0 or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):  # musl or no libc.so.6: glibc's tunable does not exist
        return False


def serve(
    host: Annotated[
        str | None, typer.Option(help="bind address (default: service.host, loopback)")
    ] = None,
    port: Annotated[int | None, typer.Option(help="TCP port (default: service.port)")] = None,
) -> None:
    """Serve the API and the web page; binds loopback unless API keys are configured."""
    import uvicorn

    from server.service.auth import load_keys

    try:
        settings = load_settings()
        host = host or settings.service.host
        if not _loopback(host) and not load_keys(settings):
            raise ConfigError(
                f"refusing to bind {host} with no API keys configured: set CITEGATE_API_KEYS "
                "or CITEGATE_API_KEYS_FILE, or bind 127.0.0.1"
            )
    except ConfigError as exc:
        fail(exc, as_json=False)
    port = port or settings.service.port
    cap_malloc_arenas(settings.service.malloc_arenas)
    app = build_app(settings, url=client_url(host, port))
    try:
        uvicorn.run(app, host=host, port=port, log_level="info")
    finally:
        forget_server(edge_lock_path(settings))


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
